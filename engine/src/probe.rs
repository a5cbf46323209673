//! Probing: assume each color of an undecided cell in turn, propagate, undo; drop the colors
//! whose branch fails and keep whatever the branches that fit all agree on.
//!
//! The state after every branch is a line-logic fixpoint, and so is their union, so what the
//! branches agree on needs no propagation of its own. A probe is made again only when a line
//! it read has changed since (each line carries the clock of its last change), so sweeping the
//! whole grid again and again costs little once it settles. Each cell keeps how many cells each
//! of its colors decided: the search branches on those scores.

use std::time::Instant;

use crate::bits::{copy_sets, push_sets, Bits};
use crate::clue::Puzzle;
use crate::grid::Grid;
use crate::propagate::{past, Board, Outcome};

/// What probing one cell did to the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probed {
    Unchanged,
    Changed,
    /// Every color of the cell fails: the state has no solution.
    Conflict,
}

/// How a sweep to the probing fixpoint ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// No probe changes anything any more.
    Stable,
    /// Every cell of the scope is decided.
    Solved,
    Conflict,
    /// The deadline or the probe budget stopped it; what it decided so far is sound.
    Stopped,
}

/// When a sweep must stop.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub deadline: Option<Instant>,
    /// Total probes (made over the prober's life) at which to stop.
    pub max_probes: Option<u64>,
}

/// Probes between two looks at the clock.
const CLOCK_EVERY: u64 = 16;

/// A cell's probe record as it was before a probe replaced it, for `rewind` (its gains are
/// in `Prober::log_gains`).
struct Replaced {
    cell: u32,
    stamp: u64,
    touched: (u32, u32),
}

/// Where the probe records stand, to `rewind` to.
#[derive(Clone, Copy, Debug)]
pub struct LogMark {
    log: usize,
    arena: usize,
}

pub struct Prober<const W: usize> {
    colors: usize,
    /// Per cell: the clock when its probes were made (0: none kept).
    stamps: Vec<u64>,
    /// Per cell and color: the cells decided by that color's branch.
    gains: Vec<u32>,
    /// Per cell: the lines its probes read, as (start, length) in `arena`. Probing makes no
    /// allocation of its own: a record's lines are appended to the arena, and rewinding to a
    /// mark cuts the arena back to where it stood.
    touched: Vec<(u32, u32)>,
    arena: Vec<u32>,
    /// Records replaced since the search's marks, when `logging` (see `rewind`), and their
    /// gains, `colors` each.
    log: Vec<Replaced>,
    log_gains: Vec<u32>,
    pub logging: bool,
    /// A branch that decides every cell of the scope is a solution: when `exclude` is on it is
    /// put in `found` and its color dropped (it is the only solution with that color there),
    /// otherwise it counts as a branch that fits (every cell probing fixes then holds in every
    /// solution).
    pub exclude: bool,
    pub found: Vec<Vec<u128>>,
    // Scratch: the lines each fitting branch changed, with their states, and per branch
    // (color, end in branch_lines, cells decided).
    branch_lines: Vec<u32>,
    branch_states: Vec<Bits<W>>,
    branches: Vec<(u32, usize, usize)>,
    union: Vec<Bits<W>>,
    union_count: Vec<u32>,
    union_epoch: Vec<u32>,
    seen_epoch: Vec<u32>,
    epoch: u32,
    pub probes: u64,
    pub skipped: u64,
}

impl<const W: usize> Prober<W> {
    pub fn new(puzzle: &Puzzle) -> Self {
        let (cells, lines, colors) = (puzzle.cells(), puzzle.lines(), puzzle.colors);
        Self {
            colors,
            stamps: vec![0; cells],
            gains: vec![0; cells * colors],
            touched: vec![(0, 0); cells],
            arena: Vec::new(),
            log: Vec::new(),
            log_gains: Vec::new(),
            logging: false,
            exclude: true,
            found: Vec::new(),
            branch_lines: Vec::new(),
            branch_states: Vec::new(),
            branches: Vec::new(),
            union: vec![Bits::zero(); lines * colors],
            union_count: vec![0; lines],
            union_epoch: vec![0; lines],
            seen_epoch: vec![0; lines],
            epoch: 0,
            probes: 0,
            skipped: 0,
        }
    }

    fn next_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.union_epoch.iter_mut().for_each(|e| *e = 0);
            self.seen_epoch.iter_mut().for_each(|e| *e = 0);
            self.epoch = 1;
        }
        self.epoch
    }

    /// Whether the cell's probes were made since every line they read last changed.
    #[inline]
    pub fn current(&self, grid: &Grid<W>, cell: usize) -> bool {
        let stamp = self.stamps[cell];
        let (start, length) = self.touched[cell];
        stamp != 0
            && self.arena[start as usize..(start + length) as usize]
                .iter()
                .all(|&line| grid.stamps[line as usize] <= stamp)
    }

    /// How many cells assuming `color` in `cell` decided, when last probed.
    #[inline]
    pub fn gain(&self, cell: usize, color: usize) -> u32 {
        self.gains[cell * self.colors + color]
    }

    /// Where the records stand, to `rewind` to.
    pub fn mark(&self) -> LogMark {
        LogMark {
            log: self.log.len(),
            arena: self.arena.len(),
        }
    }

    /// Put back every probe record replaced since `mark`.
    pub fn rewind(&mut self, mark: LogMark) {
        let colors = self.colors;
        while self.log.len() > mark.log {
            if let Some(old) = self.log.pop() {
                let cell = old.cell as usize;
                self.stamps[cell] = old.stamp;
                self.touched[cell] = old.touched;
                let start = self.log_gains.len() - colors;
                self.gains[cell * colors..(cell + 1) * colors]
                    .copy_from_slice(&self.log_gains[start..]);
                self.log_gains.truncate(start);
            }
        }
        // Records made since the mark are all replaced again now: their lines are garbage.
        self.arena.truncate(mark.arena);
    }

    /// Forget the replaced records: the current ones can no longer be rewound past. Their
    /// lines are packed at the start of the arena, which drops what no record uses.
    pub fn forget_log(&mut self) {
        self.log.clear();
        self.log_gains.clear();
        let mut packed = Vec::with_capacity(self.arena.len() / 2);
        for (cell, touched) in self.touched.iter_mut().enumerate() {
            if self.stamps[cell] == 0 {
                *touched = (0, 0);
                continue;
            }
            let (start, length) = *touched;
            *touched = (packed.len() as u32, length);
            packed.extend_from_slice(&self.arena[start as usize..(start + length) as usize]);
        }
        self.arena = packed;
    }

    /// Probe every color of `cell` (undecided) and apply what that proves. `goal` is the
    /// number of decided cells at which the scope is solved.
    pub fn probe_cell(
        &mut self,
        puzzle: &Puzzle,
        board: &mut Board<W>,
        cell: usize,
        goal: usize,
    ) -> Probed {
        self.probes += 1;
        let colors = self.colors;
        let domain = board.grid.domain(puzzle, cell);
        let known = board.grid.known;
        if self.logging {
            self.log.push(Replaced {
                cell: cell as u32,
                stamp: self.stamps[cell],
                touched: self.touched[cell],
            });
            self.log_gains
                .extend_from_slice(&self.gains[cell * colors..(cell + 1) * colors]);
        }
        let touched_start = self.arena.len();
        let seen = self.next_epoch();
        self.branch_lines.clear();
        self.branch_states.clear();
        self.branches.clear();
        // Painted colors first, the background last: painted cells run into contradictions
        // more often, and a contradiction is worth finding before the other branches.
        let mut left = domain;
        while left != 0 {
            let color = 127 - left.leading_zeros();
            left &= !(1u128 << color);
            let mark = board.mark();
            board.assign(puzzle, cell, 1u128 << color);
            board.propagator.start_reading();
            let outcome = board.propagate(puzzle, None);
            for &line in board.propagator.stop_reading() {
                if self.seen_epoch[line as usize] != seen {
                    self.seen_epoch[line as usize] = seen;
                    self.arena.push(line);
                }
            }
            let mut fits = outcome == Outcome::Fixpoint;
            let decided = board.grid.known;
            if fits && decided == goal && self.exclude {
                self.found.push(board.grid.domains(puzzle));
                fits = false;
            }
            self.gains[cell * colors + color as usize] =
                if fits { (decided - known) as u32 } else { 0 };
            if fits {
                for &line in board.trail.lines_since(mark) {
                    self.branch_lines.push(line);
                    push_sets(&mut self.branch_states, board.grid.line(line as usize));
                }
                self.branches
                    .push((color, self.branch_lines.len(), decided));
            }
            board.undo(mark);
        }
        self.touched[cell] = (
            touched_start as u32,
            (self.arena.len() - touched_start) as u32,
        );
        let changed = match self.branches.len() {
            0 => {
                self.stamps[cell] = 0;
                return Probed::Conflict;
            }
            1 => {
                // One color fits: its branch's state is what the cell's state must be.
                let (_, end, decided) = self.branches[0];
                for index in 0..end {
                    let line = self.branch_lines[index] as usize;
                    board.trail.save(&board.grid, line);
                    copy_sets(
                        board.grid.line_mut(line),
                        &self.branch_states[index * colors..(index + 1) * colors],
                    );
                    board.grid.stamps[line] = board.grid.clock;
                }
                board.grid.known = decided;
                true
            }
            _ => self.merge(puzzle, board),
        };
        if changed && self.branches.len() == 1 {
            self.stamps[cell] = 0;
        } else {
            // Probing the cell again in the merged state would find the same branches.
            let now = board.grid.known;
            for color in 0..colors {
                let gain = &mut self.gains[cell * colors + color];
                *gain = gain.saturating_sub((now - known) as u32);
            }
            self.stamps[cell] = board.grid.clock;
        }
        board.grid.clock += 1;
        if changed {
            Probed::Changed
        } else {
            Probed::Unchanged
        }
    }

    /// Narrow every line that all fitting branches changed to the union of their states;
    /// whether anything changed.
    fn merge(&mut self, puzzle: &Puzzle, board: &mut Board<W>) -> bool {
        let colors = self.colors;
        let epoch = self.next_epoch();
        let mut begin = 0;
        for &(_, end, _) in &self.branches {
            for index in begin..end {
                let line = self.branch_lines[index] as usize;
                let state = &self.branch_states[index * colors..(index + 1) * colors];
                let union = &mut self.union[line * colors..(line + 1) * colors];
                if self.union_epoch[line] != epoch {
                    self.union_epoch[line] = epoch;
                    self.union_count[line] = 0;
                    union.copy_from_slice(state);
                } else {
                    for (cells, &other) in union.iter_mut().zip(state) {
                        *cells |= other;
                    }
                }
                self.union_count[line] += 1;
            }
            begin = end;
        }
        let everyone = self.branches.len() as u32;
        let first_end = self.branches[0].1;
        let mut changed = false;
        for index in 0..first_end {
            let line = self.branch_lines[index] as usize;
            if self.union_count[line] != everyone {
                continue;
            }
            let union = &self.union[line * colors..(line + 1) * colors];
            if union == board.grid.line(line) {
                continue;
            }
            if puzzle.is_row(line) {
                // A cell narrowed by every branch changed its row in every branch: counting
                // rows alone counts each newly decided cell once.
                let line_colors = &puzzle.line_colors[line];
                let before = Grid::single(board.grid.line(line), line_colors).count();
                let after = Grid::single(union, line_colors).count();
                board.grid.known += (after - before) as usize;
            }
            board.trail.save(&board.grid, line);
            copy_sets(board.grid.line_mut(line), union);
            board.grid.stamps[line] = board.grid.clock;
            changed = true;
        }
        changed
    }

    /// Probe the undecided `cells` again and again until a whole sweep changes nothing.
    pub fn sweep(
        &mut self,
        puzzle: &Puzzle,
        board: &mut Board<W>,
        cells: &[usize],
        goal: usize,
        limits: Limits,
    ) -> Sweep {
        if board.grid.known == goal {
            return Sweep::Solved;
        }
        board.propagator.enable_cache(puzzle);
        loop {
            let mut changed = false;
            for &cell in cells {
                if board.grid.decided(puzzle, cell) {
                    continue;
                }
                if self.current(&board.grid, cell) {
                    self.skipped += 1;
                    continue;
                }
                if limits.max_probes.is_some_and(|most| self.probes >= most)
                    || (self.probes.is_multiple_of(CLOCK_EVERY) && past(limits.deadline))
                {
                    return Sweep::Stopped;
                }
                match self.probe_cell(puzzle, board, cell, goal) {
                    Probed::Conflict => return Sweep::Conflict,
                    Probed::Changed => {
                        changed = true;
                        if board.grid.known == goal {
                            return Sweep::Solved;
                        }
                    }
                    Probed::Unchanged => {}
                }
            }
            if !changed {
                return Sweep::Stable;
            }
        }
    }
}

/// What each color of each undecided cell of `cells` implies by propagation, as
/// [cell, color, other cell, other color]: "cell has color" rules out "other cell has other
/// color" (other cell u32::MAX: the color is ruled out itself). At most `most` of them; None
/// when the deadline passes first.
pub fn implications<const W: usize>(
    puzzle: &Puzzle,
    board: &mut Board<W>,
    cells: &[usize],
    most: usize,
    deadline: Option<Instant>,
) -> Option<Vec<[u32; 4]>> {
    let colors = board.grid.colors();
    let mut found = Vec::new();
    for (index, &cell) in cells.iter().enumerate() {
        if index.is_multiple_of(16) && past(deadline) {
            return None;
        }
        let domain = board.grid.domain(puzzle, cell);
        if domain & (domain - 1) == 0 {
            continue;
        }
        let mut left = domain;
        while left != 0 {
            let color = left.trailing_zeros();
            left &= left - 1;
            let mark = board.mark();
            board.assign(puzzle, cell, 1u128 << color);
            if board.propagate(puzzle, None) != Outcome::Fixpoint {
                found.push([cell as u32, color, u32::MAX, 0]);
            } else {
                for (line, before) in board.trail.saved_since(mark, colors) {
                    if !puzzle.is_row(line) {
                        continue; // the rows hold every cell
                    }
                    let now = board.grid.line(line);
                    for &c in &puzzle.line_colors[line] {
                        let c = usize::from(c);
                        for position in before[c].and_not(now[c]).ones() {
                            let other = puzzle.cell(line, position);
                            if other != cell {
                                found.push([cell as u32, color, other as u32, c as u32]);
                            }
                        }
                    }
                }
            }
            board.undo(mark);
            if found.len() >= most {
                return Some(found);
            }
        }
    }
    Some(found)
}
