//! One solution of a component, if there is any: the counting search's scheme (branch in
//! sweep order, propagate, split into independent components) stopping at the first solution,
//! and remembering the components that have none; and before it the solver's search, which
//! probes at every node (`searched`). A count's witness for the components a sweep counted
//! without keeping its trace (which leave no store to draw from).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::clue::lines_holding;
use crate::count::search::Counter;
use crate::count::store::FastMap;
use crate::count::Control;
use crate::propagate::{Board, Outcome};
use crate::search::{Event, Options, Search};

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

/// Probes the solver's search may spend on a swept component's witness before the counting
/// search's `find` takes over.
const WITNESS_PROBES: u64 = 1_000_000;

/// One solution of a swept component whose trace was let go, by the solver's search (probing
/// at every node: 0.8-1.1 s on thin boards where `find`, which only propagates, took 3 s);
/// None when it spends WITNESS_PROBES, or the deadline comes, first.
pub(crate) fn searched<const W: usize>(
    counter: &Counter<'_, W>,
    cells: &[u32],
    control: &Control,
) -> Option<Vec<(usize, u8)>> {
    let puzzle = counter.puzzle();
    let domains = counter.board.grid.domains(puzzle);
    let board = Board::<W>::new(puzzle, &domains).ok()?;
    let lines = lines_holding(cells, puzzle.width, puzzle.height);
    let options = Options {
        max_probes: Some(WITNESS_PROBES),
        ..Options::default()
    };
    let mut search = Search::new(Arc::new(puzzle.clone()), board, &lines, options);
    let solution = loop {
        // In slices, so that the stop flag (Ctrl-C, cancel) is seen within one.
        let slice = Instant::now() + Duration::from_millis(50);
        let until = control
            .deadline
            .map_or(slice, |deadline| deadline.min(slice));
        match search.run(Some(until)) {
            Event::Solution(solution) => break solution,
            Event::Paused if !control.should_stop() => {}
            _ => return None,
        }
    };
    let color = |cell: usize| {
        let domain = solution[cell];
        domain
            .is_power_of_two()
            .then(|| domain.trailing_zeros() as u8)
    };
    cells
        .iter()
        .map(|&cell| color(cell as usize).map(|color| (cell as usize, color)))
        .collect()
}
