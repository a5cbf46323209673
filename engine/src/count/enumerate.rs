//! Every solution, one after another (the stream of `satnono solve --max-solutions 0`), each
//! found once, none held back, nothing kept of the ones already given (but a few, see below).
//!
//! Where the sweep counts every component of what line logic and probing leave, no search
//! runs at all: the solutions are listed from the sweeps' layers (`listed`), each at the cost
//! of the steps back that differ from the last one's (webpbn's Flag: 1,263,904 solutions).
//!
//! Otherwise a depth-first search in sweep order with line logic at each node, resumable
//! between solutions: successive solutions share all but the last few decisions, so on a
//! board of many easy solutions each costs the propagation of those few (about four times the
//! probing search's pace on 2^20 switches). But line logic alone is blind on a hard puzzle:
//! on a random 30x30 with 5,760 solutions it found none in 300 s, where the solver's search
//! (probing at every node, branching on the probes' scores) lists all of them in 21 s. So once
//! the plain search has gone `PROBE_AFTER` nodes without a solution, the probing search takes
//! what is left: the whole of it, from the start without the solutions already listed, while
//! those are few enough to keep (`LISTED_CELLS`); else the cubes the stack leaves, each
//! frame's colors not yet tried under the decisions above it (they partition the rest). The
//! whole rest is better: cut into the plain search's cubes, whose first cells are poor ones to
//! split on, the same puzzle took 62 s (each of the two cubes at the root needed almost as
//! many nodes as the whole search). Either way the parts are listed in `Knobs::threads`
//! threads sharing them (`search::parallel`: both cores on one listing), a part gone dry
//! rotated to the back of their queue (`search::rotation`).

use std::sync::Arc;
use std::time::Instant;

use crate::clue::Puzzle;
use crate::count::listed::{Listed, Tried};
use crate::grid::Mark;
use crate::propagate::{past, Board, Outcome};
use crate::search::parallel::Listing;
use crate::search::rotation::{Rotation, Told, ROTATE_NODES};
use crate::search::{Event, Guide};

/// Nodes between two looks at the clock, at most; fewer on a large board, whose nodes take
/// longer (`look_every`).
const LOOK_EVERY: u64 = 256;
/// Cells times nodes between two looks at the clock: a node's line logic takes time about in
/// proportion to the board's size (a random 1000x1000: 256 nodes took seconds).
const LOOK_CELLS: u64 = 1 << 17;
/// Nodes of the plain search without a solution after which the probing search takes over
/// (a few milliseconds of line logic; see the module's comment).
pub const PROBE_AFTER: u64 = 4_096;
/// The most time spent trying to list from the sweeps' layers (line logic, probing and the
/// sweeps with their layers kept): webpbn's Flag takes 0.4 s, a component the sweep gives up
/// on far less.
const LAYERS_SETUP: std::time::Duration = std::time::Duration::from_millis(500);
/// Cells of the solutions listed that are kept, to be excluded when the probing search
/// takes the rest whole (16 MB); past it, the rest is searched cube by cube.
const LISTED_CELLS: usize = 1 << 20;

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

/// How an enumeration goes about it.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Dry nodes of the plain search before the probing search takes over.
    pub probe_after: u64,
    /// Cells of the solutions listed kept to exclude when the probing search takes the rest.
    pub listed_cells: usize,
    /// List from the sweeps' layers where every component is swept.
    pub from_layers: bool,
    /// The latest their setup may end (the caller's whole deadline; the first call's own
    /// slice may be shorter than the setup, which is tried once); None: LAYERS_SETUP alone.
    pub layers_until: Option<Instant>,
    /// Threads the probing search runs in once it takes the whole rest over (the parallel
    /// listing of `search::parallel`); 1: this thread alone.
    pub threads: usize,
    /// Nodes of the probing search without a solution before it rotates the rest of its part
    /// to the back of its queue of parts (`search::rotation`), in the first round.
    pub rotate_nodes: u64,
    /// A solution whose colors the probing search tries first (`Search::guide`).
    pub guide: Option<Guide>,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            probe_after: PROBE_AFTER,
            listed_cells: LISTED_CELLS,
            from_layers: true,
            layers_until: None,
            threads: 1,
            rotate_nodes: ROTATE_NODES,
            guide: None,
        }
    }
}

/// The probing search's listing of the rest: in several threads, or on the caller's.
enum Rest<const W: usize> {
    Threads(Listing),
    Here(Rotation<W>),
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
    /// Nodes between two looks at the clock (LOOK_EVERY, fewer on a large board).
    look_every: u64,
    /// Plain nodes since the last solution (or the start), and how many make it dry.
    dry: u64,
    knobs: Knobs,
    /// The listing from the sweeps' layers, once tried (None inside: it does not apply).
    layered: Option<Option<Box<Listed>>>,
    /// The probing search's listing of the rest, once it has taken the rest over.
    rest: Option<Rest<W>>,
    /// The domains to list the solutions of, and those listed so far while they are few.
    domains: Vec<u128>,
    listed: Option<Vec<Vec<u128>>>,
}

impl<const W: usize> Enumerator<W> {
    /// The solutions of `domains` the way `knobs` say (the tests take each way); none when
    /// they contradict the clues.
    pub fn with(puzzle: &Puzzle, domains: &[u128], knobs: Knobs) -> Self {
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
            look_every: (LOOK_CELLS / puzzle.cells().max(1) as u64).clamp(1, LOOK_EVERY),
            dry: 0,
            knobs,
            layered: None,
            rest: None,
            domains: domains.to_vec(),
            listed: Some(Vec::new()),
        }
    }

    /// The place in the order of the first cell after `from` still undecided.
    fn undecided(&self, puzzle: &Puzzle, board: &Board<W>, from: usize) -> Option<usize> {
        (from..self.order.len()).find(|&at| !board.grid.decided(puzzle, self.order[at]))
    }

    /// Go on to the next solution, the end, or `deadline`.
    pub fn next(&mut self, puzzle: &Arc<Puzzle>, deadline: Option<Instant>) -> Step {
        if self.done {
            return Step::Exhausted;
        }
        if self.layered.is_none() {
            // Tried once, within LAYERS_SETUP whatever the call's slice of time (the caller's
            // slices are shorter than Flag's sweep): past it, the search lists them.
            let tried = if self.knobs.from_layers {
                let options = crate::count::Options::default();
                let setup = Instant::now() + LAYERS_SETUP;
                let setup = Some(
                    self.knobs
                        .layers_until
                        .map_or(setup, |until| until.min(setup)),
                );
                Listed::try_new::<W>(puzzle, &self.domains, options, setup)
            } else {
                Tried::Not
            };
            match tried {
                Tried::Listed(listed) => self.layered = Some(Some(listed)),
                Tried::Zero => {
                    self.done = true;
                    return Step::Exhausted;
                }
                Tried::Not => self.layered = Some(None),
            }
        }
        if let Some(Some(listed)) = self.layered.as_mut() {
            return match listed.next_solution() {
                Some(domains) => Step::Solution(domains),
                None => {
                    self.done = true;
                    Step::Exhausted
                }
            };
        }
        let Some(mut board) = self.board.take() else {
            return Step::Exhausted;
        };
        let step = self.search(puzzle, &mut board, deadline);
        if !matches!(step, Step::Exhausted) {
            self.board = Some(board);
        }
        step
    }

    fn search(
        &mut self,
        puzzle: &Arc<Puzzle>,
        board: &mut Board<W>,
        deadline: Option<Instant>,
    ) -> Step {
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
            // Here what is left to explore is exactly every frame's colors not yet tried.
            if self.rest.is_some() || self.dry >= self.knobs.probe_after {
                if self.rest.is_none() {
                    self.rest = Some(self.take_rest(puzzle, board));
                }
                return self.probe(deadline);
            }
            self.nodes += 1;
            self.dry += 1;
            if self.nodes.is_multiple_of(self.look_every) && past(deadline) {
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
            // Not stopped midway by the deadline: a node's line logic, however long, is
            // one step (stopped and taken again, one longer than the caller's slice would
            // never end); the clock is looked at between nodes instead (`look_every`).
            if board.propagate(puzzle, None) != Outcome::Fixpoint {
                continue;
            }
            match self.undecided(puzzle, board, at + 1) {
                None => {
                    self.dry = 0;
                    let domains = board.grid.domains(puzzle);
                    let cells = domains.len();
                    if let Some(listed) = self.listed.as_mut() {
                        if (listed.len() + 1) * cells <= self.knobs.listed_cells {
                            listed.push(domains.clone());
                        } else {
                            self.listed = None;
                        }
                    }
                    return Step::Solution(domains);
                }
                Some(next) => self.push(puzzle, board, next),
            }
        }
    }

    /// The probing search takes the rest over: the whole of `domains` without the solutions
    /// listed, when they were kept; else the cubes the stack leaves (each frame's colors not
    /// yet tried under the decisions above it, which partition the rest, the shallowest
    /// first). In `knobs.threads` threads sharing them, or in this one, a part gone dry
    /// rotated to the back of the queue either way; nothing is left on the stack.
    fn take_rest(&mut self, puzzle: &Arc<Puzzle>, board: &mut Board<W>) -> Rest<W> {
        let (parts, excluded) = match self.listed.take() {
            Some(listed) => (vec![self.domains.clone()], listed),
            None => (self.cubes_left(puzzle, board), Vec::new()),
        };
        let rotate = self.knobs.rotate_nodes;
        let guide = self.knobs.guide.clone();
        let told = Told { excluded, guide };
        match self.knobs.threads {
            0 | 1 => Rest::Here(Rotation::new(puzzle, parts, told, rotate)),
            threads => Rest::Threads(Listing::new::<W>(puzzle, parts, told, threads, rotate)),
        }
    }

    /// Every frame's colors not yet tried, each as domains under the decisions above it (the
    /// frames' marks restore them, the deepest first), the shallowest first; the stack empty.
    fn cubes_left(&mut self, puzzle: &Puzzle, board: &mut Board<W>) -> Vec<Vec<u128>> {
        let mut cubes = Vec::new();
        while let Some(frame) = self.stack.pop() {
            board.undo(frame.mark);
            let mut left = frame.left;
            while left != 0 {
                let mut cube = board.grid.domains(puzzle);
                cube[self.order[frame.at]] = 1u128 << left.trailing_zeros();
                left &= left - 1;
                cubes.push(cube);
            }
        }
        cubes.reverse();
        cubes
    }

    /// The next solution of the probing search that took the rest over.
    fn probe(&mut self, deadline: Option<Instant>) -> Step {
        let event = match self.rest.as_mut() {
            Some(Rest::Threads(listing)) => listing.next(deadline),
            Some(Rest::Here(rotation)) => rotation.next(deadline),
            None => Event::Exhausted,
        };
        match event {
            Event::Solution(domains) => Step::Solution(domains),
            Event::Paused => Step::Paused,
            Event::Exhausted | Event::Budget => {
                self.done = true;
                Step::Exhausted
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
    use crate::count::tests::{brute_force, mixed_puzzle, random_puzzle};
    use std::collections::HashSet;
    use std::time::Duration;

    #[test]
    fn every_solution_once() {
        let mut seed = 0x5EED_0010u64;
        for case in 0..200 {
            let puzzle = Arc::new(mixed_puzzle(case, 3, (4, 4), (3, 3), &mut seed));
            // The plain search alone, the probing search from the start, and the hand-over
            // at every point of the plain search, of the whole rest or cube by cube.
            for probe_after in [u64::MAX, 0, case as u64 % 7 + 1] {
                for listed_cells in [LISTED_CELLS, 0] {
                    for (threads, rotate_nodes) in [(1, ROTATE_NODES), (2, ROTATE_NODES), (1, 0)] {
                        let knobs = Knobs {
                            probe_after,
                            listed_cells,
                            from_layers: false,
                            layers_until: None,
                            threads,
                            rotate_nodes,
                            guide: None,
                        };
                        every_solution_once_when(&puzzle, knobs, case);
                    }
                }
            }
            // From the sweeps' layers (every small puzzle's components are swept), and with
            // their setup's deadline past (wherever the setup looks at it, the search lists).
            every_solution_once_when(&puzzle, Knobs::default(), case);
            let past = Knobs {
                layers_until: Some(Instant::now()),
                ..Knobs::default()
            };
            every_solution_once_when(&puzzle, past, case);
            // Guided by colors that need not be a solution's: the order changes, not the
            // solutions listed.
            let colors = puzzle.colors as u8;
            let guide: Guide = (0..puzzle.cells())
                .map(|cell| (cell * 7 + case) as u8 % colors)
                .collect();
            // And by a solution's (the part that holds it dives to it, never rotated on the
            // way), rotating after every node or never.
            let domains = puzzle.initial_domains();
            let mut first = Enumerator::<1>::with(&puzzle, &domains, Knobs::default());
            let solution: Option<Guide> = match first.next(&puzzle, None) {
                Step::Solution(found) => Some(
                    found
                        .iter()
                        .map(|domain| domain.trailing_zeros() as u8)
                        .collect(),
                ),
                _ => None,
            };
            for guide in [Some(guide), solution].into_iter().flatten() {
                for (threads, rotate_nodes) in [(1, 0), (2, 0), (1, ROTATE_NODES), (2, u64::MAX)] {
                    let guided = Knobs {
                        probe_after: 0,
                        from_layers: false,
                        threads,
                        rotate_nodes,
                        guide: Some(Arc::clone(&guide)),
                        ..Knobs::default()
                    };
                    every_solution_once_when(&puzzle, guided, case);
                }
            }
        }
    }

    #[test]
    fn a_large_board_is_paused_near_its_deadline() {
        // A random 300x300: a node's line logic takes about a millisecond there, and looking
        // at the clock every 256 nodes overran a 10 ms slice by a tenth of a second (a
        // stream of a 1000x1000 overran its whole deadline by 2 s).
        let mut seed = 0x5EED_0011u64;
        let puzzle = Arc::new(random_puzzle(300, 300, 2, 45, false, &mut seed));
        assert_eq!(crate::engine::words_for(300), 8);
        let knobs = Knobs {
            from_layers: false,
            probe_after: u64::MAX, // the plain search, whose clock this is
            ..Knobs::default()
        };
        let mut enumerator = Enumerator::<8>::with(&puzzle, &puzzle.initial_domains(), knobs);
        let _ = enumerator.next(&puzzle, Some(Instant::now())); // the root's line logic
        let mut worst = Duration::ZERO;
        for _ in 0..20 {
            let slice = Instant::now() + Duration::from_millis(10);
            assert!(matches!(
                enumerator.next(&puzzle, Some(slice)),
                Step::Paused
            ));
            worst = worst.max(Instant::now().saturating_duration_since(slice));
        }
        assert!(worst < Duration::from_millis(80), "{worst:?} past a slice");
    }

    fn every_solution_once_when(puzzle: &Arc<Puzzle>, knobs: Knobs, case: usize) {
        let domains = puzzle.initial_domains();
        let mut found = HashSet::new();
        let mut enumerator = Enumerator::<1>::with(puzzle, &domains, knobs.clone());
        loop {
            match enumerator.next(puzzle, None) {
                Step::Solution(domains) => {
                    assert!(domains.iter().all(|d| d.count_ones() == 1));
                    assert!(found.insert(domains), "case {case}: a solution twice");
                }
                Step::Exhausted => break,
                Step::Paused => unreachable!(),
            }
        }
        let solutions = found.len() as u128;
        assert_eq!(solutions, brute_force(puzzle), "case {case}, {knobs:?}");
    }
}
