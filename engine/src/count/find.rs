//! One solution of a component, if there is any: the counting search's scheme (branch in
//! sweep order, propagate, split into independent components) stopping at the first solution,
//! and remembering the components that have none. A count's witness for the components a
//! sweep counted (which leave no store to draw from).

use crate::count::search::Counter;
use crate::count::store::FastMap;
use crate::propagate::Outcome;

/// What looking for a solution came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// The board now holds one (the caller reads it, then undoes to its own mark).
    Yes,
    No,
    Stopped,
}

/// Keys of the components shown to have no solution.
#[derive(Default)]
pub struct Dead {
    keys: FastMap<Box<[u8]>, ()>,
}

impl<const W: usize> Counter<'_, W> {
    /// Decide every cell of the components `parts` (each all undecided) as some solution has
    /// them, when there is one.
    pub fn find(&mut self, parts: &[Vec<u32>], dead: &mut Dead) -> Found {
        for part in parts {
            match self.find_component(part, dead) {
                Found::Yes => {}
                other => return other,
            }
        }
        Found::Yes
    }

    fn find_component(&mut self, cells: &[u32], dead: &mut Dead) -> Found {
        if self.stopped() || self.look_now() {
            return Found::Stopped;
        }
        self.stats.nodes += 1;
        let key: Box<[u8]> = self.key_of(cells).into();
        if dead.keys.contains_key(&key) {
            return Found::No;
        }
        let puzzle = self.puzzle();
        let cell = self.pick(cells);
        let mut left = self.board.grid.domain(puzzle, cell);
        while left != 0 {
            let color = left.trailing_zeros();
            left &= left - 1;
            let mark = self.board.mark();
            self.board.grid.clock += 1;
            self.board.assign(puzzle, cell, 1u128 << color);
            if self.board.propagate(puzzle, None) == Outcome::Fixpoint {
                let parts = self.components(cells);
                match self.find(&parts, dead) {
                    Found::Yes => return Found::Yes,
                    Found::Stopped => {
                        self.board.undo(mark);
                        return Found::Stopped;
                    }
                    Found::No => {}
                }
            }
            self.board.undo(mark);
        }
        dead.keys.insert(key, ());
        Found::No
    }
}
