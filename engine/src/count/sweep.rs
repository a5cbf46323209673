//! Counting a narrow component by a dynamic program that sweeps along it.
//!
//! The cells are taken column by column, row by row, or band by band (`order`: whichever
//! keeps the state narrowest, along the longer side on a tie; `stretches`), and the state
//! between two cells is, for every stretch of a line the sweep has entered and not yet
//! left, the class of its live automaton state there (`segments`): every filling of the cells
//! behind the sweep that leaves the same classes has the same completions, so it is counted
//! once, with its multiplicity. On a board of a few rows and hundreds of columns that is a few
//! thousand states per column, where a search would list the solutions or a counter would
//! meet the same sub-problems again and again (the transfer-matrix method).

use std::ops::Range;
use std::sync::atomic::Ordering;

use crate::clue::Puzzle;
use crate::count::ahead::{narrowed, shifts_of, Ahead};
use crate::count::bytes::Bytes;
use crate::count::groups::{groups, Group};
use crate::count::layers::Layers;
use crate::count::lines::Lines;
use crate::count::number::Count;
use crate::count::order::{self, Spot};
use crate::count::states::{reserve_huge, StateMap};
use crate::count::stretches::{choices, plan, Stretch};
use crate::count::Control;
use crate::grid::Grid;

/// What can still be finished, looked at from the end (`ahead`), for a sweep that steps a
/// group of cells at a time (one that steps one cell at a time has no two crossings to pair).
pub(super) fn look_ahead(walk: &Walk, control: &Control) -> Option<Ahead> {
    if !walk.grouped {
        return None;
    }
    let stretches = &walk.stretches;
    let group_of = |range| Group::new(stretches, &walk.spots, &walk.choices, range);
    Ahead::new(stretches, &walk.groups, group_of, &|| control.should_stop())
}

/// Successors of states whose slots are touched before any of them is placed.
const AHEAD: usize = 32;

/// How a sweep ended.
pub enum Swept {
    Counted(Count),
    /// Its states passed the budget, or their key would not fit in 128 bits.
    TooWide,
    Stopped,
}

/// The states before one spot of a sweep (or after the last), their counts (`width` words
/// each) and where each key is among them.
pub(super) struct Layer {
    pub(super) keys: Vec<u128>,
    pub(super) counts: Vec<u64>,
    pub(super) index: StateMap,
    /// Words of each count.
    pub(super) width: usize,
}

/// A component to sweep: its cells (sorted row by row, all undecided, nothing outside joined
/// to them), and the grid and the lines' analyses they are read from.
pub struct Component<'a, const W: usize> {
    pub puzzle: &'a Puzzle,
    pub grid: &'a Grid<W>,
    pub lines: &'a mut Lines<W>,
    pub cells: &'a [u32],
}

/// The chooser of every sweep but the tests': `order::choose`, `by_columns`' plain order
/// first; its search of bands gives up once `control` says stop (the plain orders are kept).
pub fn plain(
    width: usize,
    by_columns: bool,
    control: &Control,
) -> impl Fn(&[Spot], &[usize], &[usize]) -> Option<order::Plan> + '_ {
    move |spots, lengths, bits| {
        let stopped = || control.should_stop();
        order::choose(spots, lengths, bits, width, by_columns, &stopped)
    }
}

/// How a sweep's order is chosen from the component's spots and its stretches' lengths and
/// bit widths (`plain`; the tests hold the sweep to brute force on other orders).
pub type Chooser<'a> = dyn Fn(&[Spot], &[usize], &[usize]) -> Option<order::Plan> + 'a;

/// A component laid out for its sweep: its stretches (each placed in the state), its cells in
/// the order chosen, each cell's choices of color (`choices`), and the words of a count.
pub(super) struct Walk {
    pub(super) stretches: Vec<Stretch>,
    pub(super) spots: Vec<Spot>,
    choices: Vec<Vec<(usize, usize)>>,
    pub(super) words: usize,
    pub(super) groups: Vec<Range<usize>>,
    /// Whether it steps a group of cells at a time (else each group is one cell).
    grouped: bool,
    /// Bits the keys take (below the highest stretch's).
    key_bits: u32,
}

impl Walk {
    /// None when the component has no order that fits (`plan`).
    pub(super) fn new<const W: usize>(
        part: Component<'_, W>,
        choose: &Chooser<'_>,
        grouped: bool,
    ) -> Option<Self> {
        let Component {
            puzzle,
            grid,
            lines,
            cells,
        } = part;
        let (stretches, spots) = plan(puzzle, grid, lines, cells, choose)?;
        let choices: Vec<Vec<(usize, usize)>> = spots
            .iter()
            .map(|spot| choices(grid.domain(puzzle, spot.cell), &stretches, spot))
            .collect();
        let groups = if grouped {
            groups(&spots, &choices)
        } else {
            (0..spots.len()).map(|at| at..at + 1).collect()
        };
        let key_bits = stretches
            .iter()
            .map(|stretch| stretch.shift.saturating_add(stretch.bits as u32).min(128))
            .max()
            .unwrap_or(0);
        Some(Self {
            stretches,
            spots,
            choices,
            words: words_for(puzzle, cells.len()),
            groups,
            grouped,
            key_bits,
        })
    }
}

/// The sweep keeping every layer of states, to draw solutions from or find every color a cell
/// takes (`layers`), each layer within the bytes for the one in flight (`Bytes`, as
/// `sweep_traced`) and all of them within those for what it keeps (past them, TooWide); the
/// layers come only with a count. `grouped`, it steps a group of cells at a time and looks
/// ahead, as a count does (far fewer states: draws and colors), else one cell at a time (a
/// layer before every cell: the listing).
pub fn sweep_kept<const W: usize>(
    part: Component<'_, W>,
    bytes: impl Into<Bytes>,
    control: &Control,
    choose: &Chooser<'_>,
    grouped: bool,
) -> (Swept, Option<Layers>) {
    let Some(walk) = Walk::new(part, choose, grouped) else {
        return (Swept::TooWide, None);
    };
    let mut kept = Vec::with_capacity(walk.spots.len() + 1);
    let ahead = look_ahead(&walk, control);
    let keep = Some(Keep::Layers(&mut kept));
    let (swept, _) = run(
        (&walk, ahead.as_ref()),
        (bytes.into(), keep),
        (control, None),
    );
    if !matches!(swept, Swept::Counted(_)) {
        return (swept, None);
    }
    let Walk {
        stretches,
        spots,
        choices,
        groups,
        ..
    } = walk;
    let layers = Layers::new(stretches, spots, choices, (kept, groups, ahead));
    (swept, Some(layers))
}

/// Count the component by sweeping along it in the order `choose` makes, its layer in flight
/// within its bytes (`Bytes`), and trace one solution (each cell with its color) back from its
/// last state: each state keeps the state before it and the colors of the group's cells that
/// first made it (16 bytes a state at each group's end, far less than the layers), within the
/// bytes for what it keeps, past which the trace is let go (None) and the count goes on. It
/// steps a group of cells at a time (`groups`).
pub fn sweep_traced<const W: usize>(
    part: Component<'_, W>,
    bytes: impl Into<Bytes>,
    control: &Control,
    choose: &Chooser<'_>,
) -> (Swept, Option<Vec<(usize, u8)>>) {
    let Some(walk) = Walk::new(part, choose, true) else {
        return (Swept::TooWide, None);
    };
    let mut trace = Vec::with_capacity(walk.groups.len());
    let ahead = look_ahead(&walk, control);
    let keep = Some(Keep::Trace(&mut trace));
    let (swept, _) = run(
        (&walk, ahead.as_ref()),
        (bytes.into(), keep),
        (control, None),
    );
    let whole = trace.len() == walk.groups.len() && trace.last().is_some_and(|l| !l.is_empty());
    if !matches!(swept, Swept::Counted(_)) || !whole {
        return (swept, None); // not counted, no solution, or the trace was let go
    }
    // The last layer's first state: every state there ends a solution.
    (swept, Some(traced(&walk, &trace, 0)))
}

/// The cells (each with its color) of the groups a trace holds, traced back from `state` of
/// the layer after them.
pub(super) fn traced(walk: &Walk, trace: &[Vec<(u32, u64)>], mut state: usize) -> Vec<(usize, u8)> {
    let mut drawn = Vec::new();
    for (group, made) in walk.groups.iter().zip(trace).rev() {
        let (before, path) = made[state];
        for (depth, spot) in walk.spots[group.clone()].iter().enumerate() {
            drawn.push((spot.cell, (path >> (8 * depth)) as u8));
        }
        state = before as usize;
    }
    drawn
}

/// What a sweep keeps beside its count.
pub(super) enum Keep<'a> {
    /// Every layer, within its bytes (past them the sweep gives up).
    Layers(&'a mut Vec<Layer>),
    /// Per layer, for each state the state before it and the colors that first made it (the
    /// group's k-th cell's in the k-th byte), within its bytes (past them the trace is let go
    /// and the sweep goes on).
    Trace(&'a mut Vec<Vec<(u32, u64)>>),
}

/// Words of a count of `cells` cells: no count can pass colors^cells.
fn words_for(puzzle: &Puzzle, cells: usize) -> usize {
    let bits_per_cell = usize::BITS as usize - (puzzle.colors - 1).leading_zeros() as usize;
    (cells * bits_per_cell + 1).div_ceil(64)
}

/// The sweep itself, in the order `spots`, each layer within the bytes for the one in flight;
/// with `kept`, every layer of states (the states before each group, then the last) or the
/// trace is kept there, within the bytes for what is kept (`Bytes::now`). With `take`, each
/// group is swept only if it says so: else the sweep stops there (`Stopped`) and gives the
/// layer it holds, the states before that group, and the groups swept (`meet`).
pub(super) fn run(
    (walk, ahead): (&Walk, Option<&Ahead>),
    (bytes, mut kept): (Bytes, Option<Keep<'_>>),
    (control, take): (&Control, Option<&dyn Fn() -> bool>),
) -> (Swept, Option<(usize, Layer)>) {
    let _shown = Sweeping(control);
    let (stretches, words) = (&walk.stretches, walk.words);
    // Counts as fixed-width numbers, in one arena per layer: adding two of them is a loop over
    // words, no allocation.
    // The layers kept, in bytes (their keys, their counts at their width, their tables); the
    // trace, in states (16 bytes each).
    let mut held = 0; // bytes of the layers kept, or states traced

    // Each layer's counts take as many words as its largest could need (`layer_words`), not
    // the whole count's: a thin board's states hold one word where the bound is five, and the
    // sweep waits on memory (a layer kept says its width).
    let mut width = 1;
    let mut keys: Vec<u128> = vec![0];
    let mut counts: Vec<u64> = vec![0; width];
    counts[0] = 1;
    let mut next_keys: Vec<u128> = Vec::new();
    let mut next_counts: Vec<u64> = Vec::new();
    let mut index = StateMap::for_keys(walk.key_bits);
    // Where the keys of the current layer are (kept with it).
    let mut current = StateMap::for_keys(walk.key_bits);
    current.place(0, || 0);
    let shifts = shifts_of(stretches);
    for (at, group) in walk.groups.iter().cloned().enumerate() {
        if control.should_stop() {
            return (Swept::Stopped, None);
        }
        if take.is_some_and(|take| !take()) {
            // In a count, `index` still places the keys of the layer made last.
            let index = if at == 0 { current } else { index };
            let layer = Layer {
                keys,
                counts,
                index,
                width,
            };
            return (Swept::Stopped, Some((at, layer)));
        }
        let end = group.end;
        let mut group = Group::new(stretches, &walk.spots, &walk.choices, group);
        narrowed(ahead, (at, &mut group), keys.len(), &shifts);
        let tracing = matches!(kept, Some(Keep::Trace(..)));
        let (budget, most_kept) = bytes.now(control);
        let next_width = layer_words(&counts, width, group.ways()).min(words);
        // The next layer's states within the budget: a key, a count, a slot of the table each.
        let most = budget / (16 + 8 * next_width + 32);
        let mut made: Vec<(u32, u64)> = Vec::new();
        index.clear_for(4 * keys.len()); // a layer may be many times the last: growing costs more
        next_keys.clear();
        next_counts.clear();
        let mut place_batch = |batch: &mut Vec<(u128, u32, u64)>, index: &mut StateMap| {
            for &(moved, state, path) in batch.iter() {
                let target = index.place(moved, || {
                    next_keys.push(moved);
                    let len = next_counts.len() + next_width;
                    reserve_huge(&mut next_counts, len);
                    next_counts.resize(len, 0);
                    if tracing {
                        made.push((state, path));
                    }
                    (next_keys.len() - 1) as u32
                }) as usize;
                let state = state as usize;
                add(
                    &mut next_counts[target * next_width..(target + 1) * next_width],
                    &counts[state * width..(state + 1) * width],
                );
            }
            batch.clear();
            next_keys.len()
        };
        // Each state's successors are placed a batch at a time, their slots touched first.
        let mut batch: Vec<(u128, u32, u64)> = Vec::with_capacity(2 * AHEAD);
        for (state, &key) in keys.iter().enumerate() {
            if state % 65_536 == 65_535 && control.should_stop() {
                return (Swept::Stopped, None);
            }
            group.expand(key, &mut |moved, path| {
                index.touch(moved);
                batch.push((moved, state as u32, path));
            });
            // Within the budget however many states the group makes.
            if batch.len() >= AHEAD && place_batch(&mut batch, &mut index) > most {
                return (Swept::TooWide, None);
            }
        }
        place_batch(&mut batch, &mut index);
        match kept.as_mut() {
            Some(Keep::Layers(layers)) => {
                let next = std::mem::replace(&mut index, StateMap::for_keys(walk.key_bits));
                let layer = Layer {
                    keys: std::mem::take(&mut keys),
                    counts: std::mem::take(&mut counts),
                    index: std::mem::replace(&mut current, next),
                    width,
                };
                held += layer.keys.capacity() * 16 + layer.counts.capacity() * 8;
                held += layer.index.bytes();
                layers.push(layer);
                if held > most_kept && !bytes.waited_for_whole(held, control) {
                    return (Swept::TooWide, None);
                }
            }
            Some(Keep::Trace(trace)) => {
                held += made.len();
                trace.push(made);
                if held > most_kept / 16 {
                    trace.clear(); // let go: the count goes on without it
                    kept = None;
                }
            }
            None => {}
        }
        std::mem::swap(&mut keys, &mut next_keys);
        std::mem::swap(&mut counts, &mut next_counts);
        width = next_width;
        if keys.len() > most {
            return (Swept::TooWide, None);
        }
        control.swept.store(end as u64, Ordering::Relaxed);
        control.states.store(keys.len() as u64, Ordering::Relaxed);
    }
    let mut total = vec![0u64; words];
    for state in 0..keys.len() {
        add(&mut total, &counts[state * width..(state + 1) * width]);
    }
    if let Some(Keep::Layers(layers)) = kept {
        layers.push(Layer {
            keys,
            counts,
            index: current,
            width,
        });
    }
    (Swept::Counted(count_of(&total)), None)
}

/// While it lives, a sweep runs: its progress (cells passed, states held) reads 0 again once
/// the sweep has ended, however it ended, so that none is shown for a sweep that is over.
struct Sweeping<'a>(&'a Control);

impl Drop for Sweeping<'_> {
    fn drop(&mut self) {
        self.0.swept.store(0, Ordering::Relaxed);
        self.0.states.store(0, Ordering::Relaxed);
    }
}

/// A count written as words, least significant first.
pub(super) fn count_of(words: &[u64]) -> Count {
    if let [low, high] = words {
        return Count::from(u128::from(*low) | u128::from(*high) << 64);
    }
    if let [low] = words {
        return Count::from(u128::from(*low));
    }
    let digits: Vec<u32> = words
        .iter()
        .flat_map(|&word| [word as u32, (word >> 32) as u32])
        .collect();
    Count::from_big(num_bigint::BigUint::from_slice(&digits))
}

/// `sum += value`, numbers of any widths whose sum fits in `sum`'s (no carry leaves its last
/// word: see `words_for` and `layer_words`).
#[inline]
pub(super) fn add(sum: &mut [u64], value: &[u64]) {
    if let ([word], [other]) = (&mut *sum, value) {
        *word += *other;
        return;
    }
    let mut carry = false;
    for (at, word) in sum.iter_mut().enumerate() {
        let other = value.get(at).copied().unwrap_or(0);
        let (total, first) = word.overflowing_add(other);
        let (total, second) = total.overflowing_add(u64::from(carry));
        *word = total;
        carry = first || second;
    }
}

/// Words enough for every count of the layer after one whose counts (`width` words each) are
/// `counts`, when a state has `choices` successors at most: no successor's count passes the
/// largest count times the states times the choices.
fn layer_words(counts: &[u64], width: usize, choices: usize) -> usize {
    let bits = |value: usize| usize::BITS as usize - value.leading_zeros() as usize;
    let largest = counts
        .chunks_exact(width)
        .map(|count| {
            count
                .iter()
                .rposition(|&word| word != 0)
                .map_or(0, |top| 64 * top + 64 - count[top].leading_zeros() as usize)
        })
        .max()
        .unwrap_or(0);
    (largest + bits(counts.len() / width) + bits(choices))
        .div_ceil(64)
        .max(1)
}
