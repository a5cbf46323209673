//! Exact counting of a puzzle's solutions, however many, and what counts give: uniform
//! samples, every solution in turn, the colors each cell takes.
//!
//! Line logic and probing first; then each independent component by the method that fits it
//! (`sweep`: a dynamic program along a narrow component; `search`: branching with component
//! caching otherwise), the components' counts multiplied. Every call keeps a deadline, a
//! stop flag (Ctrl-C, cancel) and a memory budget, and publishes its progress as it goes.

mod ahead;
pub mod bytes;
pub mod colors;
pub mod enumerate;
pub mod find;
pub mod groups;
mod join;
pub mod layers;
pub mod lines;
pub mod listed;
mod meet;
pub mod number;
pub mod order;
mod race;
pub mod sample;
pub mod search;
pub mod segments;
pub mod states;
pub mod store;
pub mod stretches;
pub mod sweep;
mod turned;

pub use crate::count::colors::{ambiguity, Ambiguity};
pub use crate::count::sample::{sample, Drawn};

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::clue::Puzzle;
use crate::count::layers::Layers;
use crate::count::number::Count;
use crate::count::sample::Random;
use crate::count::search::{Counter, Stats};
use crate::count::sweep::Swept;
use crate::probe::{Limits, Prober, Sweep};
use crate::propagate::{past, Board, Outcome};

/// When to stop, and what the work has done so far: shared with whoever watches it.
#[derive(Debug, Default)]
pub struct Control {
    pub deadline: Option<Instant>,
    pub stop: AtomicBool,
    pub nodes: AtomicU64,
    pub hits: AtomicU64,
    pub stored: AtomicU64,
    /// Components counted to the end, and how many there are.
    pub parts_done: AtomicU64,
    pub parts: AtomicU64,
    /// Cells a sweep has passed and its states (while one runs).
    pub swept: AtomicU64,
    pub states: AtomicU64,
    /// Whether a narrow component's sweep runs both ways at once (`race`): the count is using
    /// two cores, and whoever lists solutions beside it should stand aside; and how many
    /// sweeps have so far.
    pub racing: AtomicBool,
    pub races: AtomicU64,
    /// Whether the component being counted is narrow, one the sweep takes on within the whole
    /// memory: set from its count's start (the order chosen, the look-ahead built, before any
    /// cell is passed) until the next component's, the count's end, or the sweep running out
    /// of bytes (the search takes over). Counters beside the count wait while it is set
    /// (`swept` alone reads 0 before the sweep's first group and after its last, and a counter
    /// forked then ran beside the sweep or forked for nothing). A race of two sweeps (`racing`)
    /// is always of a narrow component, so it is set then too.
    pub sweeping: AtomicBool,
    /// Set by a race on the sweep left once the other is gone (stopped as far behind, or out
    /// of bytes): one that took a share of the memory for the race may take the whole
    /// (`bytes::Bytes`).
    pub alone: AtomicBool,
    /// Set by a racing sweep whose layers kept have outgrown its share of the memory: it
    /// waits for the race to leave it alone, or to stop it (`bytes::Bytes`).
    pub starved: AtomicBool,
    /// Set by whoever runs the work once it has ended.
    pub ended: AtomicBool,
}

impl Control {
    pub fn new(deadline: Option<Instant>) -> Self {
        Self {
            deadline,
            ..Self::default()
        }
    }

    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || past(self.deadline)
    }

    pub fn publish(&self, stats: &Stats, stored: usize) {
        self.nodes.store(stats.nodes, Ordering::Relaxed);
        self.hits.store(stats.hits, Ordering::Relaxed);
        self.stored.store(stored as u64, Ordering::Relaxed);
    }
}

/// Knobs of one count.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Bytes the count may keep: the search's store of counts, a sweep's states.
    pub memory: usize,
    /// Probe the grid before counting (every cell probing fixes holds in every solution).
    pub probe: bool,
    /// The search probes components of at least this many cells before it branches.
    pub probe_from: usize,
    /// Sweep components whose sweep crosses at most this many lines (a narrow board) within
    /// the whole memory budget, others only within `sweep_trial` bytes; 0: never sweep.
    pub sweep_width: usize,
    pub sweep_trial: usize,
    /// Race a narrow component's long sweep from the other end on a second thread (`race`):
    /// off where the count may use one core only.
    pub race: bool,
}

/// Components the search probes from (see BENCHMARKS.md, the counting section).
pub const PROBE_FROM: usize = usize::MAX;
pub const SWEEP_WIDTH: usize = 12;
pub const SWEEP_TRIAL: usize = 16 << 20;

impl Default for Options {
    fn default() -> Self {
        Self {
            memory: 1 << 30,
            probe: true,
            probe_from: PROBE_FROM,
            sweep_width: SWEEP_WIDTH,
            sweep_trial: SWEEP_TRIAL,
            race: true,
        }
    }
}

/// How a component was counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Search,
    Sweep,
}

/// One independent component's count.
#[derive(Clone, Debug)]
pub struct Part {
    pub cells: Vec<u32>,
    pub count: Count,
    pub exact: bool,
    pub method: Method,
    pub seconds: f64,
    /// A solution of the component traced back through its sweep (each cell with its
    /// color), where the trace was kept; else the witness is searched for.
    pub drawn: Option<Vec<(usize, u8)>>,
}

/// Bytes a count's sweep may keep its trace in (`sweep::sweep_traced`), to take its witness
/// from, out of the count's `memory`: a quarter (the layers in flight take the rest). Past
/// that, it lets it go and the witness is searched for (`find::searched`, then `find`), which
/// on some boards takes far longer than the count (400 columns of two rows with blotted
/// clues: the count 0.1 s, `find`'s search for one solution more than a minute; thin-20049,
/// 6 x 195, whose trace takes 382 MB: 3 s of its 6.6 s when the trace was held to 256 MB).
fn trace_budget(memory: usize) -> usize {
    memory / 4
}

#[derive(Clone, Debug, Default)]
pub struct Counted {
    /// The count: exact when `exact`, else a lower bound (the branches counted to the end).
    pub count: Count,
    pub exact: bool,
    /// Undecided cells after line logic and probing.
    pub cells_left: usize,
    /// The independent components counted (smallest first), up to where the count stopped.
    pub parts: Vec<Part>,
    pub nodes: u64,
    pub hits: u64,
    pub stored: usize,
    pub store_clears: u64,
    /// One solution (every cell's domain, decided), when the count is exact and not zero.
    pub witness: Option<Vec<u128>>,
}

/// What line logic and probing leave: its independent components and a counter on them; or
/// the end already (no solution, exactly; or the deadline).
pub(crate) enum Start<'a, const W: usize> {
    Ready(Box<Counter<'a, W>>, Vec<Vec<u32>>),
    Zero,
    Stopped,
}

pub(crate) fn start<'a, const W: usize>(
    puzzle: &'a Puzzle,
    domains: &[u128],
    options: Options,
    control: &'a Control,
) -> Start<'a, W> {
    let Ok(mut board) = Board::<W>::new(puzzle, domains) else {
        return Start::Zero;
    };
    board.set_scope(puzzle, &[]);
    match board.propagate(puzzle, control.deadline) {
        Outcome::Conflict(_) => return Start::Zero,
        Outcome::Timeout => return Start::Stopped,
        Outcome::Fixpoint => {}
    }
    let cells: Vec<usize> = (0..puzzle.cells())
        .filter(|&cell| !board.grid.decided(puzzle, cell))
        .collect();
    if options.probe && !cells.is_empty() {
        board.trail.clear();
        let mut prober = Prober::<W>::new(puzzle);
        prober.exclude = false;
        let limits = Limits {
            deadline: control.deadline,
            max_probes: None,
        };
        match prober.sweep(puzzle, &mut board, &cells, usize::MAX, limits) {
            Sweep::Conflict => return Start::Zero,
            Sweep::Stopped => return Start::Stopped,
            Sweep::Stable | Sweep::Solved => {}
        }
        board.trail.clear();
    }
    let left: Vec<u32> = (0..puzzle.cells() as u32)
        .filter(|&cell| !board.grid.decided(puzzle, cell as usize))
        .collect();
    let mut counter = Box::new(Counter::new(puzzle, board, options.memory, control));
    counter.probe_from = options.probe_from;
    let parts = counter.components(&left);
    control.parts.store(parts.len() as u64, Ordering::Relaxed);
    Start::Ready(counter, parts)
}

/// Count the grids that fit the clues and `domains` (one color bitmask per cell).
pub fn count<const W: usize>(
    puzzle: &Puzzle,
    domains: &[u128],
    options: Options,
    control: &Control,
) -> Counted {
    let (mut counter, parts) = match start::<W>(puzzle, domains, options, control) {
        Start::Ready(counter, parts) => (counter, parts),
        Start::Zero => {
            return Counted {
                count: Count::ZERO,
                exact: true,
                ..Counted::default()
            }
        }
        Start::Stopped => return Counted::default(),
    };
    let mut counted = Counted {
        count: Count::ONE,
        exact: true,
        cells_left: parts.iter().map(Vec::len).sum(),
        ..Counted::default()
    };
    for (index, cells) in parts.iter().enumerate() {
        let started = Instant::now();
        let (part, method, drawn) = count_part(&mut counter, cells, options, control);
        counted.parts.push(Part {
            cells: cells.clone(),
            count: part.count.clone(),
            exact: part.exact,
            method,
            seconds: started.elapsed().as_secs_f64(),
            drawn,
        });
        control
            .parts_done
            .store(index as u64 + 1, Ordering::Relaxed);
        if part.count.is_zero() {
            counted.count = Count::ZERO;
            counted.exact = part.exact;
            break;
        }
        counted.count.mul(&part.count);
        if !part.exact {
            counted.exact = false;
            if index + 1 < parts.len() {
                counted.count = Count::ZERO; // the components after it may have no solution
            }
            break;
        }
    }
    if counted.exact && !counted.count.is_zero() {
        counted.witness = witness(&mut counter, &counted.parts, control);
    }
    control.publish(&counter.stats, counter.store.len());
    counted.nodes = counter.stats.nodes;
    counted.hits = counter.stats.hits;
    counted.stored = counter.store.len();
    counted.store_clears = counter.store.clears;
    counted
}

/// One solution of the counted components: drawn from the store where the search counted,
/// traced back where a sweep kept its trace, else searched for (the solver's search, then
/// `find`); None when the stop flag comes first.
fn witness<const W: usize>(
    counter: &mut Counter<'_, W>,
    parts: &[Part],
    control: &Control,
) -> Option<Vec<u128>> {
    let mark = counter.board.mark();
    let mut random = Random::new(1);
    let mut dead = find::Dead::default();
    let mut found = true;
    let mut searched = Vec::new();
    for part in parts.iter().filter(|part| part.drawn.is_none()) {
        counter.choose_direction(&part.cells);
        let one = std::slice::from_ref(&part.cells);
        found = found
            && match part.method {
                Method::Search => counter.sample(one, &mut random),
                Method::Sweep => match find::searched(counter, &part.cells, control) {
                    Some(drawn) => {
                        searched.extend(drawn);
                        true
                    }
                    None => counter.find(one, &mut dead) == find::Found::Yes,
                },
            };
    }
    let mut domains = found.then(|| counter.board.grid.domains(counter.puzzle()));
    counter.board.undo(mark);
    if let Some(domains) = domains.as_mut() {
        let drawn = parts.iter().flat_map(|part| part.drawn.iter().flatten());
        for &(cell, color) in drawn.chain(&searched) {
            domains[cell] = 1u128 << color;
        }
    }
    domains
}

/// One component by the sweep when it is narrow (or narrow enough to finish within the trial
/// budget), else by the search; with a solution traced back through the sweep where it kept
/// its trace (`trace_budget`).
fn count_part<const W: usize>(
    counter: &mut Counter<'_, W>,
    cells: &[u32],
    options: Options,
    control: &Control,
) -> (search::Partial, Method, Option<Vec<(usize, u8)>>) {
    counter.choose_direction(cells);
    let sweeping =
        options.sweep_width > 0 && narrow(counter.puzzle(), cells, counter.by_columns(), options);
    control.sweeping.store(sweeping, Ordering::Relaxed);
    if options.sweep_width > 0 {
        let (swept, drawn) = turned::sweep_raced(counter, cells, options, control);
        match swept {
            Swept::Counted(count) => {
                return (search::Partial { count, exact: true }, Method::Sweep, drawn);
            }
            Swept::Stopped => {
                let stopped = search::Partial {
                    count: Count::ZERO,
                    exact: false,
                };
                return (stopped, Method::Sweep, None);
            }
            Swept::TooWide => {}
        }
    }
    // Out of bytes, the sweep gives way to the search, and counters may join it.
    control.sweeping.store(false, Ordering::Relaxed);
    (counter.product(&[cells.to_vec()]), Method::Search, None)
}

/// The bytes a sweep of `cells` may take: the whole memory budget when it crosses at most
/// `sweep_width` lines (a narrow board), else the trial budget.
fn sweep_budget(puzzle: &Puzzle, cells: &[u32], by_columns: bool, options: Options) -> usize {
    if narrow(puzzle, cells, by_columns, options) {
        options.memory
    } else {
        options.sweep_trial.min(options.memory)
    }
}

/// Whether a sweep of `cells` crosses at most `sweep_width` lines: a narrow board, which the
/// sweep counts within the whole memory budget (else it only tries, within the trial's).
fn narrow(puzzle: &Puzzle, cells: &[u32], by_columns: bool, options: Options) -> bool {
    crossing_width(puzzle, cells, by_columns) <= options.sweep_width
}

/// A component's sweep with its layers kept (to draw from, or to find its colors), where the
/// count would sweep it: each layer within the count's sweep budget, all of them within the
/// memory budget; `grouped`, a layer before each group of cells (draws, colors), else
/// before each cell (the listing steps back one cell at a time).
pub(crate) fn swept_layers<const W: usize>(
    counter: &mut Counter<'_, W>,
    cells: &[u32],
    options: Options,
    control: &Control,
    grouped: bool,
) -> Option<Layers> {
    if options.sweep_width == 0 {
        return None;
    }
    counter.choose_direction(cells);
    turned::layers_raced(counter, (cells, grouped), options, control)
}

/// The lines a sweep of `cells` crosses: its rows when it goes column by column, else its
/// columns.
fn crossing_width(puzzle: &Puzzle, cells: &[u32], by_columns: bool) -> usize {
    let mut seen = vec![false; puzzle.width.max(puzzle.height)];
    for &cell in cells {
        let cell = cell as usize;
        let crossing = if by_columns {
            cell / puzzle.width
        } else {
            cell % puzzle.width
        };
        seen[crossing] = true;
    }
    seen.iter().filter(|&&on| on).count()
}

#[cfg(test)]
pub mod tests;
