//! Every solution, one after another: a depth-first search in sweep order with line logic at
//! each node, resumable between solutions (the stream of `satnono solve --max-solutions 0`).
//!
//! Successive solutions share all but the last few decisions, so a solution costs the
//! propagation of those few; no solution is held back, none is found twice (the branches of
//! a cell partition the grids), and nothing is kept of the ones already given.

use std::time::Instant;

use crate::clue::Puzzle;
use crate::grid::Mark;
use crate::propagate::{past, Board, Outcome};

/// Nodes between two looks at the clock.
const LOOK_EVERY: u64 = 256;

struct Frame {
    mark: Mark,
    /// The cell branched on, as its place in the order.
    at: usize,
    /// The colors not tried yet, as a bitmask.
    left: u128,
}

/// What `next` ended on.
pub enum Step {
    Solution(Vec<u128>),
    Exhausted,
    Paused,
}

pub struct Enumerator<const W: usize> {
    /// None when the domains contradict the clues.
    board: Option<Board<W>>,
    /// The undecided cells, in the order branched on.
    order: Vec<usize>,
    stack: Vec<Frame>,
    started: bool,
    done: bool,
    pub nodes: u64,
}

impl<const W: usize> Enumerator<W> {
    /// The solutions of `domains`; none when they contradict the clues.
    pub fn new(puzzle: &Puzzle, domains: &[u128]) -> Self {
        let mut board = Board::<W>::new(puzzle, domains).ok();
        if let Some(board) = board.as_mut() {
            board.set_scope(puzzle, &[]);
        }
        // Row by row, or column by column when the grid is wider than tall: the order a
        // count sweeps in, so that branches close early.
        let mut order: Vec<usize> = (0..puzzle.cells()).collect();
        if puzzle.width > puzzle.height {
            order.sort_unstable_by_key(|&cell| (cell % puzzle.width, cell / puzzle.width));
        }
        Self {
            board,
            order,
            stack: Vec::new(),
            started: false,
            done: false,
            nodes: 0,
        }
    }

    /// The place in the order of the first cell after `from` still undecided.
    fn undecided(&self, puzzle: &Puzzle, board: &Board<W>, from: usize) -> Option<usize> {
        (from..self.order.len()).find(|&at| !board.grid.decided(puzzle, self.order[at]))
    }

    /// Go on to the next solution, the end, or `deadline`.
    pub fn next(&mut self, puzzle: &Puzzle, deadline: Option<Instant>) -> Step {
        let Some(mut board) = self.board.take() else {
            return Step::Exhausted;
        };
        let step = self.search(puzzle, &mut board, deadline);
        if !matches!(step, Step::Exhausted) {
            self.board = Some(board);
        }
        step
    }

    fn search(&mut self, puzzle: &Puzzle, board: &mut Board<W>, deadline: Option<Instant>) -> Step {
        if self.done {
            return Step::Exhausted;
        }
        if !self.started {
            self.started = true;
            if board.propagate(puzzle, None) != Outcome::Fixpoint {
                self.done = true;
                return Step::Exhausted;
            }
            match self.undecided(puzzle, board, 0) {
                None => {
                    self.done = true; // one solution, and nothing to branch on
                    return Step::Solution(board.grid.domains(puzzle));
                }
                Some(at) => self.push(puzzle, board, at),
            }
        }
        loop {
            self.nodes += 1;
            if self.nodes.is_multiple_of(LOOK_EVERY) && past(deadline) {
                return Step::Paused;
            }
            let Some(frame) = self.stack.last_mut() else {
                self.done = true;
                return Step::Exhausted;
            };
            let (mark, at, left) = (frame.mark, frame.at, frame.left);
            board.undo(mark);
            if left == 0 {
                self.stack.pop();
                continue;
            }
            let color = left.trailing_zeros();
            frame.left &= left - 1;
            board.assign(puzzle, self.order[at], 1u128 << color);
            if board.propagate(puzzle, None) != Outcome::Fixpoint {
                continue;
            }
            match self.undecided(puzzle, board, at + 1) {
                None => return Step::Solution(board.grid.domains(puzzle)),
                Some(next) => self.push(puzzle, board, next),
            }
        }
    }

    fn push(&mut self, puzzle: &Puzzle, board: &mut Board<W>, at: usize) {
        let mark = board.mark();
        let left = board.grid.domain(puzzle, self.order[at]);
        self.stack.push(Frame { mark, at, left });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::tests::{brute_force, mixed_puzzle};
    use std::collections::HashSet;

    #[test]
    fn every_solution_once() {
        let mut seed = 0x5EED_0010u64;
        for case in 0..200 {
            let puzzle = mixed_puzzle(case, 3, (4, 4), (3, 3), &mut seed);
            let mut found = HashSet::new();
            let mut enumerator = Enumerator::<1>::new(&puzzle, &puzzle.initial_domains());
            loop {
                match enumerator.next(&puzzle, None) {
                    Step::Solution(domains) => {
                        assert!(domains.iter().all(|d| d.count_ones() == 1));
                        assert!(found.insert(domains), "case {case}: a solution twice");
                    }
                    Step::Exhausted => break,
                    Step::Paused => unreachable!(),
                }
            }
            assert_eq!(found.len() as u128, brute_force(&puzzle), "case {case}");
        }
    }
}
