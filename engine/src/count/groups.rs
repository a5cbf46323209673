//! The groups of cells a sweep steps over at once, and the ways through one.
//!
//! A sweep that made a layer of states after every cell spent most of its table work on the
//! layers inside a column of a thin board, where few states meet (each cell branches; few
//! paths merge). So a count's sweep takes a run of cells along one line at once and places
//! only the states at its end (BENCHMARKS.md, issue 40 round 10).
//!
//! Within a group, the line it runs along (its *along* stretch) is the only stretch two of its
//! cells share: every other stretch it touches crosses it at one cell. So the ways through a
//! group are the ways its along stretch allows from its class (listed once per class, `Path`),
//! and a state keeps those whose every cell's color its crossing stretch allows there: one
//! mask test a way, where walking the cells one at a time from every state spent most of a
//! thin board's sweep on steps that died (BENCHMARKS.md, issue 40 round 12).

use std::ops::Range;

use crate::count::order::Spot;
use crate::count::segments::NONE;
use crate::count::stretches::Stretch;

/// Spots a group may hold: its colors are a byte each of a trace's path.
pub(super) const GROUP_MOST: usize = 8;
/// Ways through a group at most (the product of its cells' choices): a state's successors are
/// placed before the sweep looks at its memory again, so a group of many colorful cells could
/// otherwise pass its budget many times over first. Eight black-and-white cells.
pub(super) const PATHS_MOST: usize = 256;
/// Choices a group's cells have in all: a state's allowed choices are one bit each of a mask.
const CHOICES_MOST: usize = 128;

/// The spots cut into groups a sweep steps over at once (`run`): each run of spots along one
/// line (a column's cells, taken column by column), at most GROUP_MOST cells, PATHS_MOST ways
/// through and CHOICES_MOST choices. A layer is made only at a group's end: inside one, few
/// states meet (each cell branches; few paths merge), and the layers between were most of a
/// sweep's table work.
pub(super) fn groups(spots: &[Spot], choices: &[Vec<(usize, usize)>]) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    let (mut paths, mut bits) = (1, 0);
    for (at, spot) in spots.iter().enumerate() {
        let ways = choices[at].len().max(1);
        if let Some(last) = groups.last_mut() {
            let along = along(&spots[last.clone()]);
            let joins = (0..2).any(|side| {
                spot.stretches[side].0 == spots[last.start].stretches[side].0
                    && along.is_none_or(|along| along == side)
            });
            if joins
                && last.len() < GROUP_MOST
                && paths * ways <= PATHS_MOST
                && bits + ways <= CHOICES_MOST
            {
                last.end = at + 1;
                paths *= ways;
                bits += ways;
                continue;
            }
        }
        groups.push(at..at + 1);
        (paths, bits) = (ways, ways);
    }
    groups
}

/// One side of a choice: its color's index in the row's colors (side 0) or the column's.
#[inline]
fn pick(choice: (usize, usize), side: usize) -> usize {
    if side == 0 {
        choice.0
    } else {
        choice.1
    }
}

/// The side whose stretch a group's spots share (None for a single spot).
fn along(spots: &[Spot]) -> Option<usize> {
    let [first, second, ..] = spots else {
        return None;
    };
    Some(usize::from(first.stretches[0].0 != second.stretches[0].0))
}

/// A way through a group from one class of its along stretch: the choices it takes (a bit
/// each, at the spot's offset), the along stretch's class after it, each spot's color index
/// on its crossing stretch, and the colors (the k-th spot's in the k-th byte).
struct Path {
    mask: u128,
    end: u16,
    across: [u8; GROUP_MOST],
    colors: u64,
}

/// One spot's crossing stretch: where its class is in a state, its step table at the spot,
/// the choices each class allows (a mask, from the spot's offset), and whether the spot is
/// the stretch's first cell (its class is 0 there, whatever the state's bits say: another
/// stretch that ended earlier in the group may have held them).
struct Across<'a> {
    shift: u32,
    mask: u128,
    steps: &'a [u16],
    colors: usize,
    allowed: Vec<u128>,
    first: bool,
}

/// A group ready to step states over: its along stretch's place and step tables, its spots'
/// crossings and choices, and the ways through it per along class (listed when first met).
pub(super) struct Group<'a> {
    along: Across<'a>,
    along_steps: Vec<&'a [u16]>,
    spots: Vec<Across<'a>>,
    choices: Vec<&'a [(usize, usize)]>,
    /// The side of the choices' pairs that indexes the along stretch's colors.
    side: usize,
    /// Each spot's row colors, for the path's bytes.
    row_colors: Vec<&'a [u8]>,
    offsets: Vec<u32>,
    /// Every bit of the stretches the group touches.
    fields: u128,
    paths: Vec<Option<Vec<Path>>>,
    /// Each spot's crossing stretch, and the along stretch (indices among the sweep's).
    crossing: Vec<usize>,
    along_id: usize,
    /// The ways the look-ahead keeps (`ahead`), when it was asked.
    narrowing: Option<Narrowing>,
}

/// The ways through a group that the look-ahead keeps (`ahead::Ahead::narrowing`): for pairs
/// of stretches in the state (each crossing the group at one of its spots, or a field of the
/// key the group leaves alone), per pair of their classes, a mask over the ways from the along
/// stretch's first class (`words` words each); a state takes the ways in every mask of its
/// classes.
pub(super) struct Narrowing {
    words: usize,
    /// Per pair: its two sides, their classes, and where its masks start.
    pairs: Vec<([Side; 2], [usize; 2], usize)>,
    masks: Vec<u64>,
}

/// Where a narrowing reads a stretch's class: at a spot of the group, or in the key.
#[derive(Clone, Copy)]
pub(super) enum Side {
    Spot(usize),
    Field(u32, u128),
}

impl Narrowing {
    pub(super) fn new(words: usize) -> Self {
        Self {
            words,
            pairs: Vec::new(),
            masks: Vec::new(),
        }
    }

    /// A pair's masks, `classes[0] * classes[1]` of them, row by row.
    pub(super) fn add(&mut self, sides: [Side; 2], classes: [usize; 2], masks: Vec<u64>) {
        self.pairs.push((sides, classes, self.masks.len()));
        self.masks.extend(masks);
    }

    /// Whether it holds any pair.
    pub(super) fn useful(&self) -> bool {
        !self.pairs.is_empty()
    }

    /// The ways kept from `key`, whose spots' classes are `classes`, a bit each (as `words`
    /// words).
    #[inline]
    fn kept(&self, key: u128, classes: &[usize; GROUP_MOST]) -> [u64; PATHS_MOST / 64] {
        let class = |side: Side| match side {
            Side::Spot(k) => classes[k],
            Side::Field(shift, mask) => ((key >> shift) & mask) as usize,
        };
        let mut kept = [0; PATHS_MOST / 64];
        if self.words == 1 {
            // One word (at most 64 ways: a column of six cells), kept in a register: ANDed
            // through the array, every pair waited on the last one's store (BENCHMARKS.md,
            // round 25: 4.5% of a thin board's sweep).
            let mut word = u64::MAX;
            for &([a, b], [classes_a, classes_b], start) in &self.pairs {
                let (a, b) = (class(a), class(b));
                if a < classes_a && b < classes_b {
                    word &= self.masks[start + a * classes_b + b];
                }
            }
            kept[0] = word;
            return kept;
        }
        kept[..self.words].fill(u64::MAX);
        for &([a, b], [classes_a, classes_b], start) in &self.pairs {
            let (a, b) = (class(a), class(b));
            if a >= classes_a || b >= classes_b {
                continue; // (no class the tables know: judged by nothing)
            }
            let at = start + (a * classes_b + b) * self.words;
            for (word, mask) in kept.iter_mut().zip(&self.masks[at..at + self.words]) {
                *word &= mask;
            }
        }
        kept
    }
}

impl<'a> Group<'a> {
    pub(super) fn new(
        stretches: &'a [Stretch],
        spots: &[Spot],
        choices: &'a [Vec<(usize, usize)>],
        group: Range<usize>,
    ) -> Self {
        let side = along(&spots[group.clone()]).unwrap_or(1);
        let first = &spots[group.start];
        let along_stretch = &stretches[first.stretches[side].0];
        let crossing = |(stretch, at): (usize, usize)| {
            let stretch = &stretches[stretch];
            Across {
                shift: stretch.shift,
                mask: (1u128 << stretch.bits) - 1,
                steps: &stretch.steps[at],
                colors: stretch.colors.len(),
                allowed: Vec::new(),
                first: at == 0,
            }
        };
        let along = crossing(first.stretches[side]);
        let mut fields = along.mask << along.shift;
        let (mut across, mut offsets, mut along_steps) = (Vec::new(), Vec::new(), Vec::new());
        let crossing_ids = group
            .clone()
            .map(|at| spots[at].stretches[1 - side].0)
            .collect();
        let mut offset = 0;
        for at in group.clone() {
            let spot = &spots[at];
            along_steps.push(along_stretch.steps[spot.stretches[side].1].as_slice());
            let mut spot_across = crossing(spot.stretches[1 - side]);
            let classes = spot_across.steps.len() / spot_across.colors.max(1);
            spot_across.allowed = (0..classes)
                .map(|class| {
                    choices[at]
                        .iter()
                        .enumerate()
                        .fold(0u128, |mask, (i, choice)| {
                            let to = spot_across.steps
                                [class * spot_across.colors + pick(*choice, 1 - side)];
                            mask | u128::from(to != NONE) << (offset + i as u32)
                        })
                })
                .collect();
            fields |= spot_across.mask << spot_across.shift;
            across.push(spot_across);
            offsets.push(offset);
            offset += choices[at].len() as u32;
        }
        let classes = along.steps.len() / along.colors.max(1);
        Self {
            along,
            along_steps,
            spots: across,
            choices: choices[group.clone()].iter().map(Vec::as_slice).collect(),
            side,
            row_colors: spots[group]
                .iter()
                .map(|spot| stretches[spot.stretches[0].0].colors.as_slice())
                .collect(),
            offsets,
            fields,
            paths: (0..classes).map(|_| None).collect(),
            crossing: crossing_ids,
            along_id: first.stretches[side].0,
            narrowing: None,
        }
    }

    /// The spots' crossing stretches as the look-ahead reads them (`ahead`): per spot, the
    /// stretch, its step table there and its colors, and whether the spot is its first cell.
    pub(super) fn crossings(&self) -> Vec<(usize, &'a [u16], usize, bool)> {
        self.spots
            .iter()
            .zip(&self.crossing)
            .map(|(across, &stretch)| (stretch, across.steps, across.colors, across.first))
            .collect()
    }

    /// The ways from the along stretch's first class, in the order `expand` takes them (a
    /// narrowing's bits).
    pub(super) fn paths_across(&mut self) -> Vec<[u8; GROUP_MOST]> {
        self.listed(0).iter().map(|path| path.across).collect()
    }

    /// Take only the ways `narrowing` keeps (`ahead`); for a group that starts its along
    /// stretch.
    pub(super) fn narrow(&mut self, narrowing: Narrowing) {
        self.narrowing = Some(narrowing);
    }

    /// The stretch the group's spots run along.
    pub(super) fn along_stretch(&self) -> usize {
        self.along_id
    }

    /// Whether the group starts its along stretch (so its ways start from class 0).
    pub(super) fn starts_along(&self) -> bool {
        self.along.first
    }

    /// Every way through the group, from any class its along stretch may hold before it, as
    /// the color index each spot takes on its crossing stretch (the look-ahead's view); None
    /// when listing them could take more than `most` steps (classes times ways from each).
    pub(super) fn ways_across(&mut self, most: usize) -> Option<Vec<[u8; GROUP_MOST]>> {
        let starts = if self.along.first {
            1
        } else {
            self.paths.len()
        };
        if starts.saturating_mul(self.ways()) > most {
            return None;
        }
        let mut ways: Vec<[u8; GROUP_MOST]> = Vec::new();
        for start in 0..starts {
            ways.extend(self.listed(start).iter().map(|path| path.across));
        }
        ways.sort_unstable();
        ways.dedup();
        Some(ways)
    }

    /// Ways through the group at most (the product of its cells' choices).
    pub(super) fn ways(&self) -> usize {
        self.choices
            .iter()
            .fold(1usize, |ways, choices| ways.saturating_mul(choices.len()))
    }

    /// Every way through the group from `key`: each state after its last spot, with the
    /// colors taken on the way (`path`: the k-th spot's in its k-th byte).
    #[inline]
    pub(super) fn expand(&mut self, key: u128, found: &mut impl FnMut(u128, u64)) {
        let class_of = |across: &Across<'_>| {
            if across.first {
                0
            } else {
                ((key >> across.shift) & across.mask) as usize
            }
        };
        let start = class_of(&self.along);
        let mut classes = [0usize; GROUP_MOST];
        let mut allowed = 0u128;
        for (k, across) in self.spots.iter().enumerate() {
            classes[k] = class_of(across);
            allowed |= across.allowed[classes[k]];
        }
        self.listed(start);
        let cleared = key & !self.fields;
        let paths = self.paths[start].as_deref().unwrap_or_default();
        let mut take = |path: &Path| {
            if path.mask & !allowed != 0 {
                return;
            }
            let mut moved = cleared | u128::from(path.end) << self.along.shift;
            for (k, across) in self.spots.iter().enumerate() {
                let to = across.steps[classes[k] * across.colors + usize::from(path.across[k])];
                moved |= u128::from(to) << across.shift;
            }
            found(moved, path.colors);
        };
        match &self.narrowing {
            Some(narrowing) => {
                // (start is 0: a narrowed group starts its along stretch)
                for (word, mut bits) in narrowing.kept(key, &classes).into_iter().enumerate() {
                    while bits != 0 {
                        let way = 64 * word + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if let Some(path) = paths.get(way) {
                            take(path);
                        }
                    }
                }
            }
            None => paths.iter().for_each(take),
        }
    }

    /// The ways from class `start` (`list`), listed when first asked for and kept.
    fn listed(&mut self, start: usize) -> &[Path] {
        if self.paths[start].is_none() {
            self.paths[start] = Some(self.list(start));
        }
        self.paths[start].as_deref().unwrap_or_default()
    }

    /// The ways through the group its along stretch allows from class `start`, in the order
    /// of the cells' choices (the first way to a state is the one a trace keeps).
    fn list(&self, start: usize) -> Vec<Path> {
        let mut listed = Vec::new();
        let first = Path {
            mask: 0,
            end: start as u16,
            across: [0; GROUP_MOST],
            colors: 0,
        };
        self.extend(0, first, &mut listed);
        listed
    }

    fn extend(&self, k: usize, path: Path, listed: &mut Vec<Path>) {
        if k == self.choices.len() {
            listed.push(path);
            return;
        }
        let colors = self.along.colors;
        for (i, choice) in self.choices[k].iter().enumerate() {
            let to = self.along_steps[k][usize::from(path.end) * colors + pick(*choice, self.side)];
            if to == NONE {
                continue;
            }
            let mut across = path.across;
            across[k] = pick(*choice, 1 - self.side) as u8;
            let color = u64::from(self.row_colors[k][choice.0]);
            let next = Path {
                mask: path.mask | 1u128 << (self.offsets[k] + i as u32),
                end: to,
                across,
                colors: path.colors | color << (8 * k),
            };
            self.extend(k + 1, next, listed);
        }
    }
}
