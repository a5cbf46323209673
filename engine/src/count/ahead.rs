//! Looking ahead: the ways through a group that lead a sweep's state where it can never be
//! finished, dropped before they are taken.
//!
//! A sweep along a thin board holds, at each column, every combination of its rows' classes
//! that the columns behind allow; most cannot be finished: on thin-9016, 94% of the states
//! the sweep made reached no solution, and most of its time went to placing and stepping
//! them. Knowing exactly which states reach the end is a sweep of its own, from the other
//! end. But it is enough to know it of every two stretches in the state (two rows): before
//! each group (a column), which pairs of their classes some way through the groups ahead can
//! still finish together, each group's ways read on those two rows only, the others let do as
//! they like: a backward sweep per pair over a few hundred pairs of classes a group, made once
//! before the sweep (`Ahead::new`). A row with no cell in a group (one line logic decided
//! there) keeps its class over it, and its pairs are carried across. Then, stepping a state
//! over a group, each way is taken only if every two of its rows land on a pair that can still
//! finish (`Ahead::narrowing`: a mask of the group's ways per pair of classes, so a state's
//! ways are a few ANDs). The pairs kept are a superset of those of the states that do finish,
//! so no way to a solution is dropped and no count changes (the tests hold every sweep to
//! brute force, narrowed at every layer). The sweep and the colors' backward pass over its
//! layers narrow a group the same way (`narrowed`).

use std::collections::HashMap;
use std::ops::Range;

use crate::count::groups::{Group, Narrowing, Side, GROUP_MOST, PATHS_MOST};
use crate::count::segments::NONE;
use crate::count::stretches::Stretch;

/// States of a layer from which its ways are narrowed by the look-ahead: below,
/// making the masks costs more than they save. Every layer in the tests, which hold the
/// narrowed sweeps to brute force.
#[cfg(not(test))]
const NARROWED_FROM: usize = 1024;
#[cfg(test)]
const NARROWED_FROM: usize = 1;

/// Bits of pair tables the look-ahead may hold in all, and steps it may take to fill them
/// (past either it holds none: a wide component, whose sweep gives way to the search anyway).
const MOST_BITS: usize = 1 << 26;
const MOST_WORK: usize = 1 << 24;
/// Ways the look-ahead lists through one group at most (from every class its along stretch
/// may hold before it): past them it reads nothing of the group.
const MOST_LISTED: usize = 1 << 12;

/// A pair's table before one group: where it starts among the bits and its classes on each
/// side (the lower-numbered stretch first).
#[derive(Clone, Copy)]
struct Table {
    start: usize,
    classes: [usize; 2],
}

impl Table {
    fn finishes(&self, bits: &[u64], [a, b]: [usize; 2]) -> bool {
        let at = self.start + a * self.classes[1] + b;
        a < self.classes[0] && b < self.classes[1] && bits[at / 64] >> (at % 64) & 1 == 1
    }
}

/// A stretch in the state before a group, as one side of a pair: the group's spot it
/// crosses, with its step table and colors there (None: it has no spot in the group and
/// keeps its class).
#[derive(Clone, Copy)]
struct Open<'a> {
    spot: Option<(usize, &'a [u16], usize)>,
}

impl<'a> Open<'a> {
    /// The stretch `id` as the group of `crossings` meets it.
    fn at(id: usize, crossings: &[(usize, &'a [u16], usize, bool)]) -> Self {
        let spot = crossings.iter().position(|crossing| crossing.0 == id);
        Self {
            spot: spot.map(|k| (k, crossings[k].1, crossings[k].2)),
        }
    }

    /// The color `way` takes at its spot (0 without one: its step keeps the class).
    fn color(&self, way: &[u8; GROUP_MOST]) -> u8 {
        self.spot.map_or(0, |(k, ..)| way[k])
    }

    /// Its class after the group from `class`, the way taking `color` at its spot.
    fn step(&self, class: usize, color: u8) -> Option<usize> {
        match self.spot {
            None => Some(class),
            Some((_, steps, colors)) => {
                let to = steps[class * colors + usize::from(color)];
                (to != NONE).then_some(usize::from(to))
            }
        }
    }
}

/// Per group, the tables of the pairs of stretches in the state before it (see the module's
/// comment), and which stretches are there.
pub(super) struct Ahead {
    tables: Vec<HashMap<(usize, usize), Table>>,
    bits: Vec<u64>,
}

/// The sweep's stretches as the look-ahead reads them: for each, its spots' groups in order
/// (with the step table and colors of each spot), and whether it runs along any group.
struct Spots<'a> {
    crossed: Vec<Vec<(usize, &'a [u16], usize)>>,
    along: Vec<bool>,
}

impl<'a> Spots<'a> {
    fn new(stretches: usize, groups: &[Group<'a>]) -> Self {
        let mut crossed = vec![Vec::new(); stretches];
        let mut along = vec![false; stretches];
        for (at, group) in groups.iter().enumerate() {
            along[group.along_stretch()] = true;
            for (stretch, steps, colors, _) in group.crossings() {
                crossed[stretch].push((at, steps, colors));
            }
        }
        Self { crossed, along }
    }

    /// The stretches in the state before group `at` that only ever cross groups, each with
    /// how it meets the group (`Open::at` of its `crossings`) and its classes there.
    fn open(
        &self,
        at: usize,
        crossings: &[(usize, &'a [u16], usize, bool)],
    ) -> Vec<(usize, Open<'a>, usize)> {
        let mut open = Vec::new();
        for (stretch, crossed) in self.crossed.iter().enumerate() {
            if self.along[stretch] {
                continue;
            }
            let next = crossed.partition_point(|&(group, ..)| group < at);
            if next == 0 || next == crossed.len() {
                continue; // not entered yet, or left
            }
            let (_, steps, colors) = crossed[next];
            let classes = steps.len() / colors.max(1);
            open.push((stretch, Open::at(stretch, crossings), classes));
        }
        open
    }
}

impl Ahead {
    /// The tables before each of `groups` (in the sweep's order, made by `group`), for the
    /// sweep's `stretches`. A group whose along stretch began before it is read from every
    /// class that stretch may hold, or, past MOST_LISTED ways, not at all: no tables before
    /// it look past it. None past MOST_BITS or MOST_WORK, or once `stop` says so.
    pub(super) fn new<'a>(
        stretches: &[Stretch],
        groups: &[Range<usize>],
        group: impl Fn(Range<usize>) -> Group<'a>,
        stop: &dyn Fn() -> bool,
    ) -> Option<Self> {
        let mut built: Vec<Group<'a>> = groups.iter().cloned().map(&group).collect();
        let spots = Spots::new(stretches.len(), &built);
        let mut bits: Vec<u64> = Vec::new();
        let mut tables: Vec<HashMap<(usize, usize), Table>> = Vec::with_capacity(groups.len() + 1);
        tables.push(HashMap::new()); // after the last group
        let mut work = 0usize;
        // Each group let go once read (its ways listed from every class can be many).
        while let Some(mut group) = built.pop() {
            let at = built.len();
            let group = &mut group;
            let mut here = HashMap::new();
            if stop() {
                return None;
            }
            let Some(ways) = group.ways_across(MOST_LISTED) else {
                tables.push(here); // no look past this group
                continue;
            };
            work += ways.len();
            let crossings = group.crossings();
            let open = spots.open(at, &crossings);
            let after = tables.last().expect("the tables after this group");
            for (x, &(id_a, a, classes_a)) in open.iter().enumerate() {
                for &(id_b, b, classes_b) in &open[x + 1..] {
                    let mut colors: Vec<(u8, u8)> = ways
                        .iter()
                        .map(|way| (a.color(way), b.color(way)))
                        .collect();
                    colors.sort_unstable();
                    colors.dedup();
                    let classes = [classes_a, classes_b];
                    let start = bits.len() * 64;
                    let size = classes[0] * classes[1];
                    work += size * colors.len();
                    if start + size > MOST_BITS || work > MOST_WORK {
                        return None;
                    }
                    bits.resize((start + size).div_ceil(64), 0);
                    let next = after.get(&(id_a, id_b)).copied();
                    for class_a in 0..classes[0] {
                        for class_b in 0..classes[1] {
                            let finishes = colors.iter().any(|&(color_a, color_b)| {
                                match (a.step(class_a, color_a), b.step(class_b, color_b)) {
                                    (Some(to_a), Some(to_b)) => {
                                        next.is_none_or(|table| table.finishes(&bits, [to_a, to_b]))
                                    }
                                    _ => false,
                                }
                            });
                            if finishes {
                                let at = start + class_a * classes[1] + class_b;
                                bits[at / 64] |= 1 << (at % 64);
                            }
                        }
                    }
                    here.insert((id_a, id_b), Table { start, classes });
                }
            }
            tables.push(here);
        }
        tables.reverse();
        Some(Self { tables, bits })
    }

    /// For group `at` (`group`, which starts its along stretch), per pair of stretches in the
    /// state with a table after it, one of them crossing the group, the ways from each pair of
    /// their classes that land where the two can still finish; None when no pair has one, or
    /// when making the masks would test more ways than `states` states take through the group
    /// without them. `shifts`: each stretch's place and mask in the key.
    pub(super) fn narrowing(
        &self,
        at: usize,
        group: &mut Group<'_>,
        states: usize,
        shifts: &[(u32, u128)],
    ) -> Option<Narrowing> {
        let after = self.tables.get(at + 1)?;
        let here = self.tables.get(at)?;
        if after.is_empty() || !group.starts_along() {
            return None;
        }
        let crossings = group.crossings();
        let paths = group.paths_across();
        let crosses = |id: usize| crossings.iter().any(|crossing| crossing.0 == id);
        let pairs: Vec<((usize, usize), Table)> = here
            .iter()
            .filter(|(&(a, b), _)| after.contains_key(&(a, b)) && (crosses(a) || crosses(b)))
            .map(|(&ids, &table)| (ids, table))
            .collect();
        let work: usize = pairs
            .iter()
            .map(|(_, table)| table.classes[0] * table.classes[1])
            .sum();
        if pairs.is_empty() || paths.len() > PATHS_MOST || work > states {
            return None;
        }
        let words = paths.len().div_ceil(64).max(1);
        let mut narrowing = Narrowing::new(words);
        for ((id_a, id_b), table) in pairs {
            let next = after[&(id_a, id_b)];
            let (a, b) = (Open::at(id_a, &crossings), Open::at(id_b, &crossings));
            let side = |id: usize, open: Open<'_>| {
                open.spot
                    .map_or(Side::Field(shifts[id].0, shifts[id].1), |(k, ..)| {
                        Side::Spot(k)
                    })
            };
            let (side_a, side_b) = (side(id_a, a), side(id_b, b));
            let classes = table.classes;
            let mut masks = vec![0u64; classes[0] * classes[1] * words];
            for class_a in 0..classes[0] {
                for class_b in 0..classes[1] {
                    let base = (class_a * classes[1] + class_b) * words;
                    for (p, way) in paths.iter().enumerate() {
                        let to = (a.step(class_a, a.color(way)), b.step(class_b, b.color(way)));
                        if let (Some(to_a), Some(to_b)) = to {
                            if next.finishes(&self.bits, [to_a, to_b]) {
                                masks[base + p / 64] |= 1 << (p % 64);
                            }
                        }
                    }
                }
            }
            narrowing.add([side_a, side_b], classes, masks);
        }
        narrowing.useful().then_some(narrowing)
    }
}

/// The states a layer's masks may cost as much as (`Ahead::narrowing`): the layer's own,
/// or in the tests any number.
fn narrowing_budget(states: usize) -> usize {
    if cfg!(test) {
        usize::MAX
    } else {
        states
    }
}

/// Each stretch's place in a state and its mask there.
pub(super) fn shifts_of(stretches: &[Stretch]) -> Vec<(u32, u128)> {
    stretches
        .iter()
        .map(|stretch| (stretch.shift, (1u128 << stretch.bits) - 1))
        .collect()
}

/// `group` (the `at`-th) told to take only the ways the look-ahead keeps, when its layer has
/// `states` states (NARROWED_FROM or more) and the masks pay (`Ahead::narrowing`).
pub(super) fn narrowed(
    ahead: Option<&Ahead>,
    (at, group): (usize, &mut Group<'_>),
    states: usize,
    shifts: &[(u32, u128)],
) {
    if states < NARROWED_FROM {
        return;
    }
    let budget = narrowing_budget(states);
    if let Some(narrowing) = ahead.and_then(|ahead| ahead.narrowing(at, group, budget, shifts)) {
        group.narrow(narrowing);
    }
}
