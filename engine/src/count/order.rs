//! The order a sweep takes a component's cells in, and where each stretch's class is kept in
//! the sweep's 128-bit state.
//!
//! A sweep may take the cells in any order that takes every stretch's cells in their order
//! along its line (its step tables run that way); its state holds the class of every stretch
//! it has entered and not yet left, so the fewer and narrower the open stretches, the fewer
//! states. Row by row or column by column suits a component that is narrow one way; one bent
//! round corners (webpbn's Center: a frame of bands three or four cells wide) is narrow only
//! along its own course: row by row in its upright bands, column by column in its level
//! ones. So the rows (or the columns) are cut into bands, each taken its own way, the cut
//! chosen so that the widest moment is narrowest (Center: 47 bits at most instead of 76, and
//! a count in 0.06 s where row by row did not finish within its trial budget).

/// One cell of the component and, for its row's stretch and its column's, the stretch's
/// number and the cell's place along it.
#[derive(Clone, Copy, Debug)]
pub struct Spot {
    pub cell: usize,
    pub stretches: [(usize, usize); 2],
}

/// An order of the spots with each stretch's place in the state (its bit offset), and the
/// most bits the state held at once.
pub struct Plan {
    pub spots: Vec<Spot>,
    pub shifts: Vec<u32>,
    pub widest: usize,
}

/// Bands, and orders tried for them, beyond which only the plain orders are tried: the
/// program below walks every band's cells, about bands² x cells / 3 steps per direction.
const BAND_WORK: usize = 20_000_000;

/// The narrowest of the orders tried for `spots` (any order), given the stretches' lengths
/// and bit widths: row by row, column by column, and the best cut into bands either way
/// (`bands`); `by_columns` says which plain order is tried first (and kept on a tie). None
/// when no order fits the state's 128 bits.
pub fn choose(
    spots: &[Spot],
    lengths: &[usize],
    bits: &[usize],
    width: usize,
    by_columns: bool,
    stopped: &dyn Fn() -> bool,
) -> Option<Plan> {
    let mut best: Option<Plan> = None;
    let mut consider = |order: Vec<Spot>| {
        if let Some(plan) = place(order, lengths, bits) {
            if best.as_ref().is_none_or(|kept| plan.widest < kept.widest) {
                best = Some(plan);
            }
        }
    };
    for across in [by_columns, !by_columns] {
        let mut plain = spots.to_vec();
        plain.sort_unstable_by_key(|spot| major_minor(spot.cell, width, across));
        consider(plain);
    }
    for across in [by_columns, !by_columns] {
        if let Some(order) = bands(spots, lengths, bits, width, across, stopped) {
            consider(order);
        }
    }
    best
}

/// The spots cut into bands at random, each band taken a random way, placed: any order of
/// this kind takes every stretch in order (the tests sweep in such orders).
#[cfg(test)]
pub fn random_bands(
    spots: &[Spot],
    lengths: &[usize],
    bits: &[usize],
    width: usize,
    random: &mut crate::count::sample::Random,
) -> Option<Plan> {
    let across = random.word() % 2 == 1;
    let mut order = spots.to_vec();
    sort(&mut order, width, across, false);
    let mut start = 0;
    while start < order.len() {
        let major = |spot: &Spot| major_minor(spot.cell, width, across).0;
        let mut end = start + 1;
        // Whole rows to the band, each one more with probability 1/2.
        loop {
            while end < order.len() && major(&order[end]) == major(&order[end - 1]) {
                end += 1;
            }
            if end == order.len() || random.word().is_multiple_of(2) {
                break;
            }
            end += 1;
        }
        let turned = random.word() % 2 == 1;
        sort(&mut order[start..end], width, across, turned);
        start = end;
    }
    place(order, lengths, bits)
}

/// A cell's (row, column), or (column, row) `across`.
fn major_minor(cell: usize, width: usize, across: bool) -> (usize, usize) {
    let (row, column) = (cell / width, cell % width);
    if across {
        (column, row)
    } else {
        (row, column)
    }
}

/// Sort `spots` row by row (in the rows' sense of `across`), or column by column `turned`.
fn sort(spots: &mut [Spot], width: usize, across: bool, turned: bool) {
    spots.sort_unstable_by_key(|spot| {
        let (major, minor) = major_minor(spot.cell, width, across);
        if turned {
            (minor, major)
        } else {
            (major, minor)
        }
    });
}

/// The component cut into bands of whole rows (whole columns `across`), each band taken row
/// by row or column by column, the cut and the ways chosen so that the widest moment is
/// narrowest (then the state's bits summed over the cells fewest), by a dynamic program over
/// where the bands end: a row's stretches lie in its band and the column stretches open
/// between two bands are the same whichever ways the bands were taken, so each band's cost
/// depends on its own rows and way alone. Any such order takes every stretch's cells in
/// order. None when that would be too much work (BAND_WORK).
fn bands(
    spots: &[Spot],
    lengths: &[usize],
    bits: &[usize],
    width: usize,
    across: bool,
    stopped: &dyn Fn() -> bool,
) -> Option<Vec<Spot>> {
    let mut sorted = spots.to_vec();
    sort(&mut sorted, width, across, false);
    // Where each group (the cells of one row, or column `across`) starts in `sorted`.
    let mut starts = vec![0];
    for at in 1..sorted.len() {
        if major_minor(sorted[at].cell, width, across).0
            != major_minor(sorted[at - 1].cell, width, across).0
        {
            starts.push(at);
        }
    }
    let groups = starts.len();
    starts.push(sorted.len());
    if groups * groups * sorted.len() / 3 > BAND_WORK {
        return None;
    }
    // The bits held when a band starts at each group: the stretches begun before it and
    // ended at or after it.
    let mut first = vec![usize::MAX; lengths.len()];
    let mut last = vec![0; lengths.len()];
    for group in 0..groups {
        for spot in &sorted[starts[group]..starts[group + 1]] {
            for &(stretch, _) in &spot.stretches {
                first[stretch] = first[stretch].min(group);
                last[stretch] = group;
            }
        }
    }
    let mut entry = vec![0usize; groups + 1];
    for stretch in 0..lengths.len() {
        if first[stretch] < last[stretch] {
            for held in &mut entry[first[stretch] + 1..=last[stretch]] {
                *held += bits[stretch];
            }
        }
    }
    // best[j]: (widest, bits summed, where its last band starts, turned) for groups < j.
    let mut best = vec![(usize::MAX, usize::MAX, 0, false); groups + 1];
    best[0] = (0, 0, 0, false);
    let mut turner = Turner::new(&sorted, width, across);
    for start in 0..groups {
        if stopped() {
            return None; // its deadline: up to BAND_WORK steps took Faase's count 0.2 s
        }
        let (before, summed_before, _, _) = best[start];
        for end in start + 1..=groups {
            for turned in [false, true] {
                // `sorted` is in the plain order already; turned, the band is laid out anew.
                let plain = &sorted[starts[start]..starts[end]];
                let band = if turned { turner.turn(plain) } else { plain };
                let (widest, summed) = cost(band, lengths, bits, entry[start]);
                let candidate = (before.max(widest), summed_before + summed, start, turned);
                if (candidate.0, candidate.1) < (best[end].0, best[end].1) {
                    best[end] = candidate;
                }
            }
        }
    }
    let mut cuts = Vec::new();
    let mut end = groups;
    while end > 0 {
        let (_, _, start, turned) = best[end];
        cuts.push((start, end, turned));
        end = start;
    }
    let mut order = Vec::with_capacity(sorted.len());
    for &(start, end, turned) in cuts.iter().rev() {
        let at = order.len();
        order.extend_from_slice(&sorted[starts[start]..starts[end]]);
        sort(&mut order[at..], width, across, turned);
    }
    Some(order)
}

/// A band's spots taken column by column (in the rows' sense of `across`): a counting sort by
/// the minor coordinate of spots that come in the plain order (row by row), which keeps each
/// column's spots row by row, as `sort(.., true)` orders them. The band program lays out
/// bands² of them: sorting each anew took Faase's 6,176-cell component a second, with no look
/// at the deadline.
struct Turner {
    width: usize,
    across: bool,
    /// Spots per minor coordinate, then where each minor's spots start.
    starts: Vec<usize>,
    band: Vec<Spot>,
}

impl Turner {
    fn new(spots: &[Spot], width: usize, across: bool) -> Self {
        let span = spots
            .iter()
            .map(|spot| major_minor(spot.cell, width, across).1 + 1)
            .max()
            .unwrap_or(0);
        Self {
            width,
            across,
            starts: vec![0; span + 1],
            band: Vec::with_capacity(spots.len()),
        }
    }

    /// `plain` (spots in the plain order, minors within the span `new` saw) column by column.
    fn turn(&mut self, plain: &[Spot]) -> &[Spot] {
        let minor = |spot: &Spot| major_minor(spot.cell, self.width, self.across).1;
        self.starts.fill(0);
        for spot in plain {
            self.starts[minor(spot) + 1] += 1;
        }
        for at in 1..self.starts.len() {
            self.starts[at] += self.starts[at - 1];
        }
        self.band.clear();
        self.band.extend_from_slice(plain); // every place is written over below
        for spot in plain {
            let place = &mut self.starts[minor(spot)];
            self.band[*place] = *spot;
            *place += 1;
        }
        &self.band
    }
}

/// The widest moment of taking `band` in order, `held` bits held as it starts, and the bits
/// held summed over its cells.
fn cost(band: &[Spot], lengths: &[usize], bits: &[usize], mut held: usize) -> (usize, usize) {
    let (mut widest, mut summed) = (held, 0);
    for spot in band {
        for &(stretch, at) in &spot.stretches {
            if at == 0 {
                held += bits[stretch];
            }
        }
        widest = widest.max(held);
        summed += held;
        for &(stretch, at) in &spot.stretches {
            if at + 1 == lengths[stretch] {
                held -= bits[stretch];
            }
        }
    }
    (widest, summed)
}

/// Each stretch's bit offset for `order` (first fit, a stretch's bits freed once its last
/// cell is passed), with the widest moment; None when the order does not take every
/// stretch's cells in their order or the open stretches do not fit in 128 bits.
pub(super) fn place(order: Vec<Spot>, lengths: &[usize], bits: &[usize]) -> Option<Plan> {
    let mut shifts = vec![u32::MAX; lengths.len()];
    let mut reached = vec![0usize; lengths.len()];
    let mut used = 0u128;
    let (mut widest, mut held) = (0usize, 0usize);
    for spot in &order {
        for &(stretch, at) in &spot.stretches {
            if reached[stretch] != at {
                return None;
            }
            reached[stretch] = at + 1;
            if at == 0 {
                let width = bits[stretch];
                let mask = if width == 0 {
                    0
                } else {
                    u128::MAX >> (128 - width)
                };
                let shift = (0..=128 - width).find(|&s| used & (mask << s) == 0)?;
                used |= mask << shift;
                shifts[stretch] = shift as u32;
                held += width;
            }
        }
        widest = widest.max(held);
        for &(stretch, at) in &spot.stretches {
            if at + 1 == lengths[stretch] {
                let width = bits[stretch];
                let mask = if width == 0 {
                    0
                } else {
                    u128::MAX >> (128 - width)
                };
                used &= !(mask << shifts[stretch]);
                held -= width;
            }
        }
    }
    Some(Plan {
        spots: order,
        shifts,
        widest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::sample::Random;

    /// The spots of `cells` (row-major, on a grid `width` wide) with every line's cells one
    /// stretch, cut where `cut(line, place)` says; the stretches' lengths.
    fn layout(
        cells: &[usize],
        width: usize,
        mut cut: impl FnMut(usize, usize) -> bool,
    ) -> (Vec<Spot>, Vec<usize>) {
        let mut lengths: Vec<usize> = Vec::new();
        let mut spots: Vec<Spot> = cells
            .iter()
            .map(|&cell| Spot {
                cell,
                stretches: [(0, 0); 2],
            })
            .collect();
        for side in 0..2 {
            let line_of = |cell: usize| {
                if side == 0 {
                    cell / width
                } else {
                    width * 1000 + cell % width
                }
            };
            let along = |cell: usize| {
                if side == 0 {
                    cell % width
                } else {
                    cell / width
                }
            };
            let mut order: Vec<usize> = (0..spots.len()).collect();
            order.sort_unstable_by_key(|&n| (line_of(spots[n].cell), along(spots[n].cell)));
            let mut previous: Option<usize> = None;
            for n in order {
                let (line, place) = (line_of(spots[n].cell), along(spots[n].cell));
                let fresh = match previous {
                    Some(p) => line_of(spots[p].cell) != line || cut(line, place),
                    None => true,
                };
                if fresh {
                    lengths.push(0);
                }
                let stretch = lengths.len() - 1;
                spots[n].stretches[side] = (stretch, lengths[stretch]);
                lengths[stretch] += 1;
                previous = Some(n);
            }
        }
        (spots, lengths)
    }

    fn takes_every_stretch_in_order(order: &[Spot], lengths: &[usize]) -> bool {
        let mut reached = vec![0; lengths.len()];
        for spot in order {
            for &(stretch, at) in &spot.stretches {
                if reached[stretch] != at {
                    return false;
                }
                reached[stretch] += 1;
            }
        }
        reached == lengths
    }

    #[test]
    fn a_frame_is_taken_band_by_band_narrower_than_row_by_row() {
        // A frame three cells wide round a 30x30 hole, every line one stretch on each side:
        // row by row holds the 36 columns of the top band at once, bands hold 12 lines.
        let width = 36;
        let cells: Vec<usize> = (0..width * width)
            .filter(|&cell| {
                let (row, column) = (cell / width, cell % width);
                row < 3 || row >= width - 3 || column < 3 || column >= width - 3
            })
            .collect();
        // A row of the upright bands is two stretches, one each side of the hole.
        let (spots, lengths) = layout(&cells, width, |line, place| {
            line < 1000 && place == width - 3
        });
        let bits = vec![2; lengths.len()];
        let mut plain = spots.clone();
        plain.sort_unstable_by_key(|spot| spot.cell);
        let row_by_row = place(plain, &lengths, &bits).map(|plan| plan.widest);
        assert_eq!(row_by_row, Some(2 * (width + 1)));
        let chosen = choose(&spots, &lengths, &bits, width, false, &|| false).expect("it fits");
        assert!(takes_every_stretch_in_order(&chosen.spots, &lengths));
        assert!(chosen.widest <= 2 * 13, "widest {}", chosen.widest);
        // Told to stop (its deadline), it gives up on bands and keeps the plain orders.
        let stopped = choose(&spots, &lengths, &bits, width, false, &|| true).expect("it fits");
        assert_eq!(Some(stopped.widest), row_by_row);
    }

    #[test]
    fn a_band_is_turned_as_sorting_it_turns_it() {
        let mut random = Random::new(11);
        for _ in 0..200 {
            let width = 1 + (random.word() % 12) as usize;
            let height = 1 + (random.word() % 12) as usize;
            let cells: Vec<usize> = (0..width * height)
                .filter(|_| !random.word().is_multiple_of(3))
                .collect();
            let (spots, _) = layout(&cells, width, |_, _| false);
            for across in [false, true] {
                let mut plain = spots.clone();
                sort(&mut plain, width, across, false);
                let mut turner = Turner::new(&plain, width, across);
                let (from, to) = (random.word() as usize, random.word() as usize);
                let (from, to) = (from % (plain.len() + 1), to % (plain.len() + 1));
                let band = &plain[from.min(to)..from.max(to)];
                let mut sorted = band.to_vec();
                sort(&mut sorted, width, across, true);
                let turned: Vec<usize> = turner.turn(band).iter().map(|s| s.cell).collect();
                assert_eq!(turned, sorted.iter().map(|s| s.cell).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn every_band_order_takes_every_stretch_in_order() {
        let mut random = Random::new(7);
        for round in 0..300 {
            let width = 2 + (random.word() % 9) as usize;
            let height = 2 + (random.word() % 9) as usize;
            let cells: Vec<usize> = (0..width * height)
                .filter(|_| !random.word().is_multiple_of(3))
                .collect();
            if cells.is_empty() {
                continue;
            }
            let (spots, lengths) = layout(&cells, width, |_, _| random.word().is_multiple_of(4));
            let bits: Vec<usize> = lengths
                .iter()
                .map(|_| (random.word() % 3) as usize)
                .collect();
            for across in [false, true] {
                let order =
                    bands(&spots, &lengths, &bits, width, across, &|| false).expect("small");
                assert_eq!(order.len(), spots.len(), "round {round}");
                assert!(
                    takes_every_stretch_in_order(&order, &lengths),
                    "round {round}"
                );
                let plan = place(order, &lengths, &bits).expect("fits 128 bits");
                assert!(plan.shifts.iter().all(|&shift| shift < 128));
            }
        }
    }
}
