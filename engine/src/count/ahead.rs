//! Looking ahead: the ways through a group that lead a sweep's state where it can never be
//! finished, dropped before they are taken.
//!
//! A sweep along a thin board holds, at each column, every combination of its rows' classes
//! that the columns behind allow; most cannot be finished: on thin-9016, 94% of the states
//! the sweep made reached no solution, and most of its time went to placing and stepping
//! them. Knowing exactly which states reach the end is a sweep of its own, from the other
//! end. But it is enough to know it of every two crossing stretches (two rows): before each
//! group (a column), which pairs of their classes some way through the groups ahead can still
//! finish together, each group's ways read on those two rows only, the others let do as they
//! like: a backward sweep per pair over a few hundred pairs of classes a group, made once
//! before the sweep (`Ahead::new`). Then, stepping a state over a group, each way is taken
//! only if every two of its rows land on a pair that can still finish (`Ahead::narrowing`: a
//! mask of the group's ways per pair of classes, so a state's ways are a few ANDs). The pairs
//! kept are a superset of those of the states that do finish, so no way to a solution is
//! dropped and no count changes (the tests hold every sweep to brute force).

use std::collections::HashMap;

use crate::count::groups::{Group, Narrowing, GROUP_MOST, PATHS_MOST};
use crate::count::segments::NONE;

/// Bits of pair tables the look-ahead may hold in all, and steps it may take to fill them
/// (past either it holds none: a wide component, whose sweep gives way to the search anyway).
const MOST_BITS: usize = 1 << 26;
const MOST_WORK: usize = 1 << 24;

/// A crossing stretch at a group as the look-ahead reads it (`Group::crossings`): the
/// stretch, its step table at its spot, its colors, and whether the spot is its first cell.
type Crossing<'a> = (usize, &'a [u16], usize, bool);

/// A pair's table before one group: where it starts among the bits, its classes on each
/// side, and which stretch is its first side.
#[derive(Clone, Copy)]
struct Table {
    start: usize,
    classes: [usize; 2],
    first: usize,
}

impl Table {
    /// Whether the first stretch in class `a` and the second in `b` can still finish
    /// together (`a` and `b` given for stretches `ids`, in either order).
    fn finishes(&self, bits: &[u64], ids: (usize, usize), (a, b): (usize, usize)) -> bool {
        let (first, second) = if self.first == ids.0 { (a, b) } else { (b, a) };
        let at = self.start + first * self.classes[1] + second;
        first < self.classes[0] && second < self.classes[1] && bits[at / 64] >> (at % 64) & 1 == 1
    }
}

/// Per group, the tables of the pairs of stretches crossing it (see the module's comment).
pub(super) struct Ahead {
    tables: Vec<HashMap<(usize, usize), Table>>,
    bits: Vec<u64>,
}

impl Ahead {
    /// The tables before each of `groups` groups (in the sweep's order, the g-th made by
    /// `group(g)`). Only groups that take their along stretch from its start are read (a thin
    /// board's columns): before any other, no tables, and no table before it looks past it.
    /// None past MOST_BITS or MOST_WORK.
    pub(super) fn new<'a>(groups: usize, group: impl Fn(usize) -> Group<'a>) -> Option<Self> {
        let mut bits: Vec<u64> = Vec::new();
        let mut tables: Vec<HashMap<(usize, usize), Table>> = Vec::with_capacity(groups + 1);
        tables.push(HashMap::new()); // after the last group
        let mut work = 0usize;
        for at in (0..groups).rev() {
            let mut group = group(at);
            let mut here = HashMap::new();
            if !group.starts_along() {
                tables.push(here);
                continue;
            }
            let crossings = group.crossings();
            let ways = group.ways_across();
            let after = tables.last().expect("the tables after this group");
            for i in 0..crossings.len() {
                for j in i + 1..crossings.len() {
                    let (a, b) = (&crossings[i], &crossings[j]);
                    if a.3 || b.3 {
                        continue; // a stretch starting here: not in the state before
                    }
                    let classes = [a.1.len() / a.2.max(1), b.1.len() / b.2.max(1)];
                    let ids = (a.0.min(b.0), a.0.max(b.0));
                    let mut pairs: Vec<(u8, u8)> =
                        ways.iter().map(|way| (way[i], way[j])).collect();
                    pairs.sort_unstable();
                    pairs.dedup();
                    let start = bits.len() * 64;
                    let size = classes[0] * classes[1];
                    work += size * pairs.len();
                    if start + size > MOST_BITS || work > MOST_WORK {
                        return None;
                    }
                    bits.resize((start + size).div_ceil(64), 0);
                    let next = after.get(&ids).copied();
                    for class_a in 0..classes[0] {
                        for class_b in 0..classes[1] {
                            let finishes = pairs.iter().any(|&(color_a, color_b)| {
                                let to_a = a.1[class_a * a.2 + usize::from(color_a)];
                                let to_b = b.1[class_b * b.2 + usize::from(color_b)];
                                to_a != NONE
                                    && to_b != NONE
                                    && next.is_none_or(|table| {
                                        let to = (usize::from(to_a), usize::from(to_b));
                                        table.finishes(&bits, (a.0, b.0), to)
                                    })
                            });
                            if finishes {
                                let at = start + class_a * classes[1] + class_b;
                                bits[at / 64] |= 1 << (at % 64);
                            }
                        }
                    }
                    let first = a.0;
                    here.insert(
                        ids,
                        Table {
                            start,
                            classes,
                            first,
                        },
                    );
                }
            }
            tables.push(here);
        }
        tables.reverse();
        Some(Self { tables, bits })
    }

    /// For group `at` (`group`, which starts its along stretch), per pair of its spots whose
    /// stretches have a table after it, the ways from each pair of their classes that land
    /// where the two can still finish; None when no pair has one, or when making the masks
    /// would test more ways than `states` states take through the group without them.
    pub(super) fn narrowing(
        &self,
        at: usize,
        group: &mut Group<'_>,
        states: usize,
    ) -> Option<Narrowing> {
        let after = self.tables.get(at + 1)?;
        if after.is_empty() || !group.starts_along() {
            return None;
        }
        let crossings = group.crossings();
        let paths = group.paths_across();
        let classes = |crossing: &Crossing<'_>| crossing.1.len() / crossing.2.max(1);
        let work: usize = (0..crossings.len())
            .flat_map(|i| (i + 1..crossings.len()).map(move |j| (i, j)))
            .map(|(i, j)| classes(&crossings[i]) * classes(&crossings[j]))
            .sum();
        if paths.len() > PATHS_MOST || work > states {
            return None;
        }
        let words = paths.len().div_ceil(64).max(1);
        let mut narrowing = Narrowing::new(words);
        for i in 0..crossings.len() {
            for j in i + 1..crossings.len() {
                let (a, b) = (&crossings[i], &crossings[j]);
                let Some(table) = after.get(&(a.0.min(b.0), a.0.max(b.0))) else {
                    continue;
                };
                let classes = [a.1.len() / a.2.max(1), b.1.len() / b.2.max(1)];
                let mut masks = vec![0u64; classes[0] * classes[1] * words];
                for class_a in 0..classes[0] {
                    for class_b in 0..classes[1] {
                        let base = (class_a * classes[1] + class_b) * words;
                        for (p, way) in paths.iter().enumerate() {
                            let to_a = a.1[class_a * a.2 + usize::from(way[i])];
                            let to_b = b.1[class_b * b.2 + usize::from(way[j])];
                            let to = (usize::from(to_a), usize::from(to_b));
                            if to_a != NONE
                                && to_b != NONE
                                && table.finishes(&self.bits, (a.0, b.0), to)
                            {
                                masks[base + p / 64] |= 1 << (p % 64);
                            }
                        }
                    }
                }
                narrowing.add((i, j), classes, masks);
            }
        }
        narrowing.useful().then_some(narrowing)
    }
}

/// The look-ahead reads one color per spot of a group.
const _: () = assert!(GROUP_MOST <= 8);
