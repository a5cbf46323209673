//! The depth-first search: probe every node to its fixpoint, branch on the cell whose probes
//! decide the most, enumerate solutions, and restart now and then.
//!
//! The score of a cell is the one LalaFrogKK's authors published (Wu et al., IEEE TCIAIG 2013):
//! min(g) + 1.85 ln(1 + max(g) - min(g)) over the cells its colors' branches decide. Restarts
//! follow the Luby sequence; each run alternates which value is tried first, and from the
//! third run on the scores get some noise, so that runs differ. Restarts are for finding a few
//! solutions (a uniqueness proof needs two); enumerating all of them runs without.
//!
//! The search is resumable: `run` returns at each new solution, at the deadline or at the
//! probe budget, and the next call goes on where it stopped. Probe records are put back as
//! the search backtracks (so a node's records serve both of its branches) and every line
//! state with them.

pub mod parallel;
mod parts;
pub mod rotation;

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use crate::clue::Puzzle;
use crate::grid::Mark;
use crate::probe::{Limits, LogMark, Prober, Sweep};
use crate::propagate::{past, Board, Outcome};

/// Knobs of one search.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Restart after `restart_base` times the Luby sequence's nodes (0: never restart).
    pub restart_base: u64,
    /// From the third run on, each score is multiplied by 1 + noise * (a number in [0, 1)).
    pub noise: f64,
    pub seed: u64,
    /// Probes after the root's at which the search gives up (None: no budget). The root is
    /// always probed to its fixpoint: what it reaches is where any other solver starts.
    pub max_probes: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            restart_base: 300,
            noise: 0.5,
            seed: 0,
            max_probes: None,
        }
    }
}

/// What a call to `run` ended on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A solution not reported before: every cell's domain (the scope's decided).
    Solution(Vec<u128>),
    /// No solution is left: every one has been reported (or was excluded).
    Exhausted,
    /// The deadline passed; `run` may be called again.
    Paused,
    /// The probe budget is spent.
    Budget,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Propagate and probe the scope before anything is branched on.
    Root,
    /// Probe the current state to its fixpoint, then branch.
    Node,
    /// Try the next value of the deepest branch.
    Next,
    Done,
}

struct Branch {
    mark: Mark,
    log: LogMark,
    cell: usize,
    /// Colors still to try, the next one last.
    values: Vec<u32>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub nodes: u64,
    pub restarts: u64,
    pub max_depth: u64,
    pub solutions: u64,
}

pub struct Search<const W: usize> {
    puzzle: Arc<Puzzle>,
    board: Board<W>,
    prober: Prober<W>,
    options: Options,
    /// The undecided cells of the scope when the search began, row by row.
    cells: Vec<usize>,
    /// Every cell's domain when the search began: the space it lists.
    start: Vec<u128>,
    goal: usize,
    phase: Phase,
    root: Option<(Mark, LogMark)>,
    stack: Vec<Branch>,
    pending: VecDeque<Vec<u128>>,
    /// Whether the root's propagation has run (a deadline may stop it, and the sweep after).
    propagated: bool,
    /// Solutions reported (restarts meet them again) and those excluded by the caller, each
    /// as its scope cells' colors.
    reported: HashSet<Vec<u8>>,
    excluded: HashSet<Vec<u8>>,
    run: u64,
    run_nodes: u64,
    /// Probes made when the root reached its fixpoint.
    root_probes: u64,
    value_first_high: bool,
    noise: f64,
    random: u64,
    /// Node count at which `run` pauses (`pause_at`).
    pause_at: Option<u64>,
    /// A solution's colors, cell by cell: each branch tries its cell's color there first
    /// (`guide`).
    guide: Option<Guide>,
    pub stats: Stats,
}

/// A known solution's color of every cell, shared by the searches it guides.
pub type Guide = Arc<[u8]>;

/// The i-th term (from 0) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 ...
fn luby(mut i: u64) -> u64 {
    let (mut size, mut power) = (1u64, 0u32);
    while size < i + 1 {
        power += 1;
        size = 2 * size + 1;
    }
    while size - 1 != i {
        size = (size - 1) >> 1;
        power -= 1;
        i %= size;
    }
    1u64 << power
}

impl<const W: usize> Search<W> {
    /// A search of the `scope` lines (a component; all lines when empty) from `board`.
    pub fn new(puzzle: Arc<Puzzle>, board: Board<W>, scope: &[usize], options: Options) -> Self {
        let mut board = board;
        let cells = board.set_scope(&puzzle, scope);
        let start = board.grid.domains(&puzzle);
        let goal = board.grid.known + cells.len();
        let mut prober = Prober::new(&puzzle);
        prober.logging = true;
        Self {
            board,
            prober,
            options,
            cells,
            start,
            goal,
            phase: Phase::Root,
            root: None,
            stack: Vec::new(),
            pending: VecDeque::new(),
            propagated: false,
            reported: HashSet::new(),
            excluded: HashSet::new(),
            run: 0,
            run_nodes: 0,
            root_probes: 0,
            value_first_high: false,
            noise: 0.0,
            random: options.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            pause_at: None,
            guide: None,
            stats: Stats::default(),
            puzzle,
        }
    }

    /// A search that lists every solution of `domains` over the `scope` lines once (depth
    /// first, no restarts: the enumeration's takeover, the cubes' branchings and the parallel
    /// listing all start one so); None when the domains contradict the clues.
    pub fn listing(puzzle: &Arc<Puzzle>, domains: &[u128], scope: &[usize]) -> Option<Self> {
        let board = Board::<W>::new(puzzle, domains).ok()?;
        let options = Options {
            restart_base: 0,
            ..Options::default()
        };
        Some(Self::new(Arc::clone(puzzle), board, scope, options))
    }

    /// Try each branch's color in `guide` (a solution's colors, one a cell) first: a listing
    /// goes straight to that solution and lists around it, where solutions are (a random
    /// 30x30 the probing search found none of in 10 s listed 222,521 so; BENCHMARKS.md, round
    /// 30). The order of the values only: every solution is still listed once.
    pub fn guide(&mut self, guide: &Guide) {
        if guide.len() == self.puzzle.cells() {
            self.guide = Some(Arc::clone(guide));
        }
    }

    /// Never report this solution (every cell's domain, the scope's decided). One outside the
    /// space searched is ignored: its key, the colors of the cells undecided at the start,
    /// would stand for a solution of this space that differs from it only where the space is
    /// decided (found when parallel listings passed every part the same exclusions).
    pub fn exclude(&mut self, domains: &[u128]) {
        if domains
            .iter()
            .zip(&self.start)
            .any(|(&one, &all)| one & !all != 0)
        {
            return;
        }
        let key = self.key(domains);
        self.excluded.insert(key);
    }

    /// Have the next call to `run` return `Paused` once `stats.nodes` has reached `nodes`
    /// (once; the search goes on at the next call): a budget of nodes that neither a
    /// deadline nor the clock decides (`rotation::Lister`'s rotation).
    pub fn pause_at(&mut self, nodes: u64) {
        self.pause_at = Some(nodes);
    }

    pub fn probes(&self) -> u64 {
        self.prober.probes
    }

    pub fn line_solves(&self) -> u64 {
        self.board.propagator.solves
    }

    pub fn line_cache_hits(&self) -> u64 {
        self.board.propagator.cache_hits
    }

    /// The state after propagation and probing at the root, once reached (every cell's domain).
    pub fn root_domains(&mut self) -> Option<Vec<u128>> {
        let (mark, log) = self.root?;
        // Back to the root, so the search starts that run over: its branches are undone.
        self.board.undo(mark);
        self.prober.rewind(log);
        self.stack.clear();
        if self.phase != Phase::Done {
            self.phase = Phase::Node;
        }
        Some(self.board.grid.domains(&self.puzzle))
    }

    /// Implications of single assignments at the root (see `probe::implications`).
    pub fn root_implications(
        &mut self,
        most: usize,
        deadline: Option<Instant>,
    ) -> Option<Vec<[u32; 4]>> {
        self.root_domains()?;
        let cells = self.cells.clone();
        crate::probe::implications(&self.puzzle, &mut self.board, &cells, most, deadline)
    }

    fn key(&self, domains: &[u128]) -> Vec<u8> {
        self.cells
            .iter()
            .map(|&cell| domains[cell].trailing_zeros() as u8)
            .collect()
    }

    fn report(&mut self, domains: Vec<u128>) {
        let key = self.key(&domains);
        if self.excluded.contains(&key) {
            return;
        }
        // Only restarts meet a solution again: a depth-first search without them never does
        // (a probe that completes the grid drops that color from the cell, `probe::found`).
        if self.options.restart_base > 0 && !self.reported.insert(key) {
            return;
        }
        self.stats.solutions += 1;
        self.pending.push_back(domains);
    }

    fn take_found(&mut self) {
        for domains in std::mem::take(&mut self.prober.found) {
            self.report(domains);
        }
    }

    fn next_random(&mut self) -> f64 {
        let mut x = self.random;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.random = x;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The cell to branch on and its colors, the one to try first last; None when every cell
    /// of the scope is decided.
    fn choose(&mut self) -> Option<(usize, Vec<u32>)> {
        let mut best = (usize::MAX, f64::NEG_INFINITY);
        for index in 0..self.cells.len() {
            let cell = self.cells[index];
            let domain = self.board.grid.domain(&self.puzzle, cell);
            if domain & (domain - 1) == 0 {
                continue;
            }
            let (mut low, mut high) = (u32::MAX, 0u32);
            let mut left = domain;
            while left != 0 {
                let color = left.trailing_zeros() as usize;
                left &= left - 1;
                let gain = self.prober.gain(cell, color);
                low = low.min(gain);
                high = high.max(gain);
            }
            let mut score = f64::from(low) + 1.85 * f64::from(high - low).ln_1p();
            if self.noise > 0.0 {
                score *= 1.0 + self.noise * self.next_random();
            }
            if score > best.1 {
                best = (cell, score);
            }
        }
        let cell = best.0;
        if cell == usize::MAX {
            return None;
        }
        let domain = self.board.grid.domain(&self.puzzle, cell);
        let mut values: Vec<u32> = (0..128).filter(|&c| domain >> c & 1 == 1).collect();
        if !self.value_first_high {
            values.reverse(); // popped from the end: the background (the lowest) first
        }
        if let Some(guide) = &self.guide {
            let wanted = u32::from(guide[cell]);
            if let Some(at) = values.iter().position(|&color| color == wanted) {
                let color = values.remove(at);
                values.push(color); // tried first
            }
        }
        Some((cell, values))
    }

    fn restart(&mut self) {
        let Some((mark, log)) = self.root else { return };
        self.board.undo(mark);
        self.prober.rewind(log);
        self.stack.clear();
        self.run += 1;
        self.run_nodes = 0;
        self.stats.restarts += 1;
        self.value_first_high = self.run % 2 == 1;
        self.noise = if self.run >= 2 {
            self.options.noise
        } else {
            0.0
        };
        self.phase = Phase::Node;
    }

    /// Probe the current node to its fixpoint, reporting what the probes found and a solved
    /// node; Err(the event to return) when the deadline or the budget stopped it.
    fn sweep(&mut self, limits: Limits) -> Result<Sweep, Event> {
        let sweep = self.prober.sweep(
            &self.puzzle,
            &mut self.board,
            &self.cells,
            self.goal,
            limits,
        );
        self.take_found();
        match sweep {
            Sweep::Stopped if past(limits.deadline) => Err(Event::Paused),
            Sweep::Stopped => Err(Event::Budget),
            Sweep::Solved => {
                self.report(self.board.grid.domains(&self.puzzle));
                Ok(Sweep::Solved)
            }
            other => Ok(other),
        }
    }

    /// Search on until a new solution, the end of the search, `deadline` or the budget.
    pub fn run(&mut self, deadline: Option<Instant>) -> Event {
        loop {
            let limits = Limits {
                deadline,
                max_probes: match self.root {
                    None => None,
                    Some(_) => self.options.max_probes.map(|most| self.root_probes + most),
                },
            };
            if let Some(domains) = self.pending.pop_front() {
                return Event::Solution(domains);
            }
            if self.pause_at.is_some_and(|at| self.stats.nodes >= at) {
                self.pause_at = None;
                return Event::Paused;
            }
            match self.phase {
                Phase::Done => return Event::Exhausted,
                Phase::Root => {
                    if !self.propagated {
                        self.board.propagator.push_scope();
                        match self.board.propagate(&self.puzzle, deadline) {
                            Outcome::Conflict(_) => {
                                self.phase = Phase::Done;
                                continue;
                            }
                            Outcome::Timeout => return Event::Paused, // the queue starts over
                            Outcome::Fixpoint => {
                                self.propagated = true;
                                self.stats.nodes += 1; // the root
                            }
                        }
                    }
                    match self.sweep(limits) {
                        Err(event) => return event,
                        Ok(Sweep::Stable) => {
                            // Everything up to here holds for every solution not yet reported.
                            self.board.trail.clear();
                            self.prober.forget_log();
                            self.root = Some((self.board.mark(), self.prober.mark()));
                            self.root_probes = self.prober.probes;
                            self.run_nodes = 0;
                            self.branch();
                        }
                        Ok(_) => self.phase = Phase::Done, // a conflict, or solved (reported)
                    }
                }
                Phase::Node => {
                    if self.options.restart_base > 0
                        && self.run_nodes > self.options.restart_base * luby(self.run)
                    {
                        self.restart(); // back at the root: probed already, not a new node
                    }
                    match self.sweep(limits) {
                        Err(event) => return event,
                        Ok(Sweep::Stable) => self.branch(),
                        Ok(_) => self.phase = Phase::Next, // a conflict, or solved (reported)
                    }
                }
                Phase::Next => self.next_value(),
            }
        }
    }

    /// Branch on the best cell.
    fn branch(&mut self) {
        self.run_nodes += 1;
        let Some((cell, values)) = self.choose() else {
            // Every cell of the scope is decided: the state is a solution.
            self.report(self.board.grid.domains(&self.puzzle));
            self.phase = Phase::Next;
            return;
        };
        let mark = self.board.mark();
        let log = self.prober.mark();
        self.stack.push(Branch {
            mark,
            log,
            cell,
            values,
        });
        self.stats.max_depth = self.stats.max_depth.max(self.stack.len() as u64);
        self.phase = Phase::Next;
    }

    /// Undo the deepest branch's last value and try its next one, or drop the branch.
    fn next_value(&mut self) {
        let Some(branch) = self.stack.last_mut() else {
            // Every branch of this run has been explored: nothing is left anywhere.
            self.phase = Phase::Done;
            return;
        };
        let (mark, log, cell) = (branch.mark, branch.log, branch.cell);
        let value = branch.values.pop();
        self.board.undo(mark);
        self.prober.rewind(log);
        let Some(color) = value else {
            self.stack.pop();
            return;
        };
        self.board.assign(&self.puzzle, cell, 1u128 << color);
        match self.board.propagate(&self.puzzle, None) {
            Outcome::Fixpoint if self.board.grid.known == self.goal => {
                self.report(self.board.grid.domains(&self.puzzle));
            }
            Outcome::Fixpoint => {
                self.stats.nodes += 1;
                self.phase = Phase::Node;
            }
            _ => {}
        }
    }
}
