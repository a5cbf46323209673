//! Propagation: solve dirty lines until none narrows a cell (a fixpoint), or one fails.
//!
//! A line is dirty when one of its cells changed since it was last solved; solving it marks the
//! crossing lines of the cells it narrows. Lines are taken first in, first out. Results are
//! kept in a direct-mapped cache keyed by the line's state, since probing and search solve the
//! same partial lines over and over (cache.rs).

use std::time::Instant;

use crate::bits::Bits;
use crate::cache::LineCache;
use crate::clue::Puzzle;
use crate::grid::{Grid, Mark, Trail};
use crate::line::{self, Workspace};

/// How propagation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Fixpoint,
    /// No arrangement of this line's clue fits its cells.
    Conflict(usize),
    /// The deadline passed; every narrowing made so far is sound.
    Timeout,
}

/// Lines taken from the queue between two looks at the clock, counted across runs: a probe
/// or a search node is a run of a few lines, and counted per run the clock was never looked
/// at (a split of a 1000x1000 grid ran 10 s past a 3 s deadline, its trials each under 256
/// lines).
const CLOCK_EVERY: u64 = 256;
pub struct Propagator<const W: usize> {
    /// Dirty lines, first in first out (a ring of `lines` places: each line is queued once).
    queue: Vec<u32>,
    head: usize,
    queued: usize,
    in_queue: Vec<bool>,
    /// Lines that may be queued (one independent component's, or all).
    in_scope: Vec<bool>,
    space: Workspace<W>,
    out: Vec<Bits<W>>,
    removed: Vec<Bits<W>>,
    cache: Option<LineCache<W>>,
    /// Lines solved while `reading` is on, each once (see `start_reading`).
    read: Vec<u32>,
    read_in: Vec<u32>,
    reading: u32,
    pub solves: u64,
    pub cache_hits: u64,
    /// Lines taken from the queue since this propagator was made (see CLOCK_EVERY).
    steps: u64,
}

impl<const W: usize> Propagator<W> {
    pub fn new(puzzle: &Puzzle) -> Self {
        let lines = puzzle.lines();
        Self {
            queue: vec![0; lines],
            head: 0,
            queued: 0,
            in_queue: vec![false; lines],
            in_scope: vec![true; lines],
            space: Workspace::new(puzzle.colors),
            out: vec![Bits::zero(); puzzle.colors],
            removed: vec![Bits::zero(); puzzle.colors],
            cache: None,
            read: Vec::new(),
            read_in: vec![0; lines],
            reading: 0,
            solves: 0,
            cache_hits: 0,
            steps: 0,
        }
    }

    /// Only `lines` are solved from now on (one component's; their crossing lines are theirs).
    pub fn set_scope(&mut self, lines: &[usize]) {
        self.in_scope.iter_mut().for_each(|inside| *inside = false);
        for &line in lines {
            self.in_scope[line] = true;
        }
    }

    /// Keep solved lines in a cache from now on (worth it once probing starts).
    pub fn enable_cache(&mut self, puzzle: &Puzzle) {
        if self.cache.is_none() {
            self.cache = Some(LineCache::new(puzzle));
        }
    }

    #[inline]
    pub fn push(&mut self, line: usize) {
        if !self.in_queue[line] && self.in_scope[line] {
            self.in_queue[line] = true;
            let mut at = self.head + self.queued;
            if at >= self.queue.len() {
                at -= self.queue.len();
            }
            self.queue[at] = line as u32;
            self.queued += 1;
        }
    }

    pub fn push_scope(&mut self) {
        for line in 0..self.in_scope.len() {
            self.push(line);
        }
    }

    fn pop(&mut self) -> usize {
        let line = self.queue[self.head] as usize;
        self.head += 1;
        if self.head == self.queue.len() {
            self.head = 0;
        }
        self.queued -= 1;
        self.in_queue[line] = false;
        line
    }

    pub fn clear_queue(&mut self) {
        while self.queued > 0 {
            self.pop();
        }
    }

    /// Record, from now on, every line solved (each once) until `stop_reading`.
    pub fn start_reading(&mut self) {
        self.read.clear();
        self.reading = self.reading.wrapping_add(1).max(1);
        if self.reading == 1 {
            self.read_in.iter_mut().for_each(|mark| *mark = 0);
        }
    }

    /// The lines solved since `start_reading`; reading stops.
    pub fn stop_reading(&mut self) -> &[u32] {
        let reading = self.reading;
        self.reading = 0;
        if reading == 0 {
            self.read.clear();
        }
        &self.read
    }

    /// Solve dirty lines until the fixpoint, a conflict or `deadline`. Every change is saved on
    /// the trail first and stamps its line with the grid's clock. On a conflict the queue is
    /// emptied and the state is left part-way: the caller undoes it through the trail.
    pub fn run(
        &mut self,
        puzzle: &Puzzle,
        grid: &mut Grid<W>,
        trail: &mut Trail<W>,
        deadline: Option<Instant>,
    ) -> Outcome {
        if grid.colors() == 2 {
            return self.run_two(puzzle, grid, trail, deadline);
        }
        while self.queued > 0 {
            let Some(line) = self.next_line(deadline) else {
                return Outcome::Timeout;
            };
            let colors = &puzzle.line_colors[line];
            let state = grid.line(line);
            let fits = match self.cache.as_mut() {
                Some(cache) => {
                    let at = cache.slot(line, state);
                    if let Some(fits) = cache.get(at, line, state, &mut self.out) {
                        self.cache_hits += 1;
                        fits
                    } else {
                        self.solves += 1;
                        let fits = line::solve(
                            puzzle.length(line),
                            &puzzle.clues[line],
                            colors,
                            state,
                            &mut self.out,
                            &mut self.space,
                        );
                        cache.put(at, line, state, &self.out, fits);
                        fits
                    }
                }
                None => {
                    self.solves += 1;
                    line::solve(
                        puzzle.length(line),
                        &puzzle.clues[line],
                        colors,
                        state,
                        &mut self.out,
                        &mut self.space,
                    )
                }
            };
            if !fits {
                self.clear_queue();
                return Outcome::Conflict(line);
            }
            let mut changed = Bits::zero();
            for &c in colors {
                let c = usize::from(c);
                let removed = state[c].and_not(self.out[c]);
                self.removed[c] = removed;
                changed |= removed;
            }
            if changed.is_zero() {
                continue;
            }
            let before = Grid::single(state, colors);
            trail.save(grid, line);
            {
                let state = grid.line_mut(line);
                for &c in colors {
                    let c = usize::from(c);
                    state[c] = self.out[c];
                }
            }
            let after = Grid::single(grid.line(line), colors);
            // Narrowing keeps a decided cell decided: the new ones are the difference.
            grid.known += (after.count() - before.count()) as usize;
            grid.stamps[line] = grid.clock;
            for position in changed.ones() {
                let (crossing, at) = puzzle.crossing(line, position);
                trail.save(grid, crossing);
                let state = grid.line_mut(crossing);
                for &c in colors {
                    let c = usize::from(c);
                    if self.removed[c].test(position) {
                        state[c].clear(at);
                    }
                }
                grid.stamps[crossing] = grid.clock;
                self.push(crossing);
            }
        }
        Outcome::Fixpoint
    }

    /// `run` for puzzles of two colors (black and white, or one color and the background):
    /// the same steps on a line's two sets held as values, without the loops over a line's
    /// colors, slice comparisons and copies of the general case (which took a third more
    /// time on the tournament sets).
    fn run_two(
        &mut self,
        puzzle: &Puzzle,
        grid: &mut Grid<W>,
        trail: &mut Trail<W>,
        deadline: Option<Instant>,
    ) -> Outcome {
        while self.queued > 0 {
            let Some(line) = self.next_line(deadline) else {
                return Outcome::Timeout;
            };
            let state = {
                let sets = grid.line(line);
                [sets[0], sets[1]]
            };
            let (out, fits) = match self.cache.as_mut() {
                Some(cache) => {
                    let at = cache.slot(line, &state);
                    if let Some(known) = cache.get_two(at, line, state) {
                        self.cache_hits += 1;
                        known
                    } else {
                        self.solves += 1;
                        let solved = solve_two(puzzle, line, state, &mut self.space);
                        cache.put_two(at, line, state, solved.0, solved.1);
                        solved
                    }
                }
                None => {
                    self.solves += 1;
                    solve_two(puzzle, line, state, &mut self.space)
                }
            };
            if !fits {
                self.clear_queue();
                return Outcome::Conflict(line);
            }
            let removed = [state[0].and_not(out[0]), state[1].and_not(out[1])];
            let changed = removed[0] | removed[1];
            if changed.is_zero() {
                continue;
            }
            // Undecided cells are those of both sets; narrowing only ever decides more.
            let before = (state[0] & state[1]).count();
            let after = (out[0] & out[1]).count();
            grid.known += (before - after) as usize;
            trail.save(grid, line);
            {
                let sets = grid.line_mut(line);
                sets[0] = out[0];
                sets[1] = out[1];
            }
            grid.stamps[line] = grid.clock;
            for position in changed.ones() {
                let (crossing, at) = puzzle.crossing(line, position);
                trail.save(grid, crossing);
                let sets = grid.line_mut(crossing);
                if removed[0].test(position) {
                    sets[0].clear(at);
                }
                if removed[1].test(position) {
                    sets[1].clear(at);
                }
                grid.stamps[crossing] = grid.clock;
                self.push(crossing);
            }
        }
        Outcome::Fixpoint
    }

    /// The next dirty line (the queue must not be empty), noted as read; None, with the
    /// queue emptied, when the deadline has passed (looked at every CLOCK_EVERY lines).
    #[inline]
    fn next_line(&mut self, deadline: Option<Instant>) -> Option<usize> {
        self.steps += 1;
        if deadline.is_some() && self.steps.is_multiple_of(CLOCK_EVERY) && past(deadline) {
            self.clear_queue();
            return None;
        }
        let line = self.pop();
        self.note_read(line);
        Some(line)
    }

    /// Record `line` as read, once, while reading is on.
    #[inline]
    fn note_read(&mut self, line: usize) {
        if self.reading != 0 && self.read_in[line] != self.reading {
            self.read_in[line] = self.reading;
            self.read.push(line as u32);
        }
    }
}

/// Solve `line` of a two-color puzzle in `state`: its narrowed state and whether it fits.
#[inline]
fn solve_two<const W: usize>(
    puzzle: &Puzzle,
    line: usize,
    state: [Bits<W>; 2],
    space: &mut Workspace<W>,
) -> ([Bits<W>; 2], bool) {
    let mut out = state;
    let fits = line::solve(
        puzzle.length(line),
        &puzzle.clues[line],
        &puzzle.line_colors[line],
        &state,
        &mut out,
        space,
    );
    (out, fits)
}

#[inline]
pub fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|at| Instant::now() >= at)
}

/// The state a search works on: the grid, its trail and the propagator that narrows it.
pub struct Board<const W: usize> {
    pub grid: Grid<W>,
    pub trail: Trail<W>,
    pub propagator: Propagator<W>,
}

impl<const W: usize> Board<W> {
    /// The board of `domains`, or Err(line) when a cell has no color its lines allow.
    pub fn new(puzzle: &Puzzle, domains: &[u128]) -> Result<Self, usize> {
        Ok(Self {
            grid: Grid::new(puzzle, domains)?,
            trail: Trail::new(puzzle.lines()),
            propagator: Propagator::new(puzzle),
        })
    }

    /// Restrict propagation to `scope` (all lines when empty) and queue it; returns the
    /// undecided cells of the scope, row by row.
    pub fn set_scope(&mut self, puzzle: &Puzzle, scope: &[usize]) -> Vec<usize> {
        let lines: Vec<usize> = if scope.is_empty() {
            (0..puzzle.lines()).collect()
        } else {
            scope.to_vec()
        };
        self.propagator.set_scope(&lines);
        self.propagator.push_scope();
        let mut columns = vec![false; puzzle.width];
        for &line in &lines {
            if !puzzle.is_row(line) {
                columns[line - puzzle.height] = true;
            }
        }
        let mut cells = Vec::new();
        for &row in lines.iter().filter(|&&line| puzzle.is_row(line)) {
            for (x, &inside) in columns.iter().enumerate() {
                let cell = puzzle.cell(row, x);
                if inside && !self.grid.decided(puzzle, cell) {
                    cells.push(cell);
                }
            }
        }
        cells.sort_unstable();
        cells
    }

    #[inline]
    pub fn mark(&mut self) -> Mark {
        self.trail.mark(&self.grid)
    }

    #[inline]
    pub fn undo(&mut self, mark: Mark) {
        self.trail.undo(&mut self.grid, mark);
    }

    /// Narrow `cell` to `domain` and queue its two lines.
    pub fn assign(&mut self, puzzle: &Puzzle, cell: usize, domain: u128) {
        let (row, column) = self.grid.restrict(puzzle, &mut self.trail, cell, domain);
        self.propagator.push(row);
        self.propagator.push(column);
    }

    /// Each of `colors` (bitmasks) given to `cell` and propagated, then undone: (the color,
    /// the domains it reaches) for each that line logic does not refute, in order; None when
    /// the deadline passed. The board must be at line logic's fixpoint.
    pub fn children(
        &mut self,
        puzzle: &Puzzle,
        cell: usize,
        colors: impl IntoIterator<Item = u128>,
        deadline: Option<Instant>,
    ) -> Option<Vec<(u128, Vec<u128>)>> {
        let mut children = Vec::new();
        for color in colors {
            let mark = self.mark();
            self.assign(puzzle, cell, color);
            let outcome = self.propagate(puzzle, deadline);
            if outcome == Outcome::Fixpoint {
                children.push((color, self.grid.domains(puzzle)));
            }
            self.propagator.clear_queue();
            self.undo(mark);
            if outcome == Outcome::Timeout {
                return None;
            }
        }
        Some(children)
    }

    #[inline]
    pub fn propagate(&mut self, puzzle: &Puzzle, deadline: Option<Instant>) -> Outcome {
        self.propagator
            .run(puzzle, &mut self.grid, &mut self.trail, deadline)
    }
}
