//! The two halves of a met count (`meet`) joined at their cut: every stretch that crosses the
//! cut holds a class on each side, and whether a filling before the cut and one after it make
//! a line depends only on the two classes (a class is every filling with the same
//! completions: future-equivalent states one way, past-equivalent the other). Which pairs do
//! is found per crossing stretch by walking its line's two automata together from the line's
//! end back to the cut (`relation`); then each state before the cut meets the states after it
//! that every crossing stretch allows, a few look-ups each, and the count is the sum of the
//! products of their counts. The stretches that do not cross are whole on one side.

use crate::clue::Puzzle;
use crate::count::lines::Lines;
use crate::count::meet::{Drawn, Half};
use crate::count::number::Count;
use crate::count::order::Spot;
use crate::count::segments::{Analysis, Machine, NONE};
use crate::count::sweep::{add, count_of, traced};
use crate::grid::Grid;

/// One side of a join: the puzzle it swept (the turned one for the turned half), its grid and
/// its lines' analyses, and its half.
pub(super) type Side<'a, const W: usize> = (&'a Puzzle, &'a Grid<W>, &'a mut Lines<W>, &'a Half);

/// A stretch that crosses the cut, read from one half: where its class is in that half's
/// keys, and per class, the other half's classes that make a line with it, each shifted into
/// place in the other half's keys.
struct Crossing {
    shift: u32,
    mask: u128,
    partners: Vec<Vec<u128>>,
}

/// The count of the component from the two halves at their cut, and a solution (the
/// puzzle's cells, each with its color) traced back through both, when their traces were
/// kept; None when the halves do not meet at one cut or a line's analysis fails, or once
/// `stop` says so (a join of two large layers takes about as long as a sweep's step).
pub(super) fn join<const W: usize>(
    forward: Side<'_, W>,
    turned: Side<'_, W>,
    stop: &dyn Fn() -> bool,
) -> Option<(Count, Drawn)> {
    let (before, after, last) = (forward.3, turned.3, forward.0.cells() - 1);
    if before.cut + after.cut != before.walk.groups.len() {
        return None;
    }
    // The smaller layer's states look up their partners in the larger's table (thin-30169:
    // 18,368 states one side, 1.8 million the other).
    let flip = after.layer.keys.len() < before.layer.keys.len();
    let crossings = &crossings(forward, turned)?[usize::from(flip)];
    let (outer, inner) = if flip {
        (&after.layer, &before.layer)
    } else {
        (&before.layer, &after.layer)
    };
    let words = before.walk.words;
    let (mut total, mut partners) = (vec![0u64; words], vec![0u64; words]);
    let (outer_width, inner_width) = (outer.width, inner.width);
    let mut found = None;
    // A run of states' keys to look up, each slot touched as it is listed: the larger
    // layer's table outgrows the caches, and a look-up waits on memory alone (`StateMap`).
    let mut looked: Vec<(u32, u128)> = Vec::new();
    let keys = &outer.keys;
    for (run, chunk) in keys.chunks(JOINED_AT_ONCE).enumerate() {
        if (cfg!(test) || run % 4096 == 4095) && stop() {
            return None;
        }
        looked.clear();
        for (offset, &state_key) in chunk.iter().enumerate() {
            let state = run * JOINED_AT_ONCE + offset;
            partner_keys(state_key, crossings, &mut |key| {
                inner.index.touch(key);
                looked.push((state as u32, key));
            });
        }
        let mut at = 0;
        while at < looked.len() {
            let state = looked[at].0 as usize;
            partners.fill(0);
            while at < looked.len() && looked[at].0 as usize == state {
                if let Some(place) = inner.index.get(looked[at].1) {
                    let first = place * inner_width;
                    add(&mut partners, &inner.counts[first..first + inner_width]);
                    found = found.or(Some(if flip { (place, state) } else { (state, place) }));
                }
                at += 1;
            }
            let count = &outer.counts[state * outer_width..(state + 1) * outer_width];
            multiply_add(&mut total, count, &partners);
        }
    }
    let count = count_of(&total);
    let whole = |half: &Half| half.trace.len() == half.cut;
    let found = found.filter(|_| !count.is_zero() && whole(before) && whole(after));
    let drawn = found.map(|(a, b)| {
        let mut drawn = traced(&before.walk, &before.trace, a);
        let back = traced(&after.walk, &after.trace, b);
        drawn.extend(back.into_iter().map(|(cell, color)| (last - cell, color)));
        drawn
    });
    Some((count, drawn))
}

/// States whose partners are looked up at once (`join`).
const JOINED_AT_ONCE: usize = 16;

/// Every key of the other half that a state of one (`key`) may meet: one of the partners of
/// each crossing stretch's class (none when one has none).
fn partner_keys(key: u128, crossings: &[Crossing], found: &mut impl FnMut(u128)) {
    fn from(key: u128, crossings: &[Crossing], partial: u128, found: &mut impl FnMut(u128)) {
        let Some((crossing, rest)) = crossings.split_first() else {
            return found(partial);
        };
        let class = ((key >> crossing.shift) & crossing.mask) as usize;
        for &partner in crossing.partners.get(class).map_or(&[][..], Vec::as_slice) {
            from(key, rest, partial | partner, found);
        }
    }
    from(key, crossings, 0, found);
}

/// The stretches crossing the cut, each with the classes its two sides pair (`relation`):
/// read from the forward half's keys, and from the turned half's.
fn crossings<const W: usize>(
    (puzzle, grid, lines, before): Side<'_, W>,
    (turned, turned_grid, turned_lines, after): Side<'_, W>,
) -> Option<[Vec<Crossing>; 2]> {
    let (spots, last) = (&before.walk.spots, puzzle.cells() - 1);
    let cut = before
        .walk
        .groups
        .get(before.cut)
        .map_or(spots.len(), |g| g.start);
    // Per stretch: its last cell before the cut and its first after it.
    let count = before.walk.stretches.len();
    let (mut last_before, mut first_after) = (vec![None; count], vec![None; count]);
    for (at, spot) in spots.iter().enumerate() {
        for (side, &(stretch, _)) in spot.stretches.iter().enumerate() {
            if at < cut {
                last_before[stretch] = Some((spot.cell, side));
            } else if first_after[stretch].is_none() {
                first_after[stretch] = Some(spot.cell);
            }
        }
    }
    let turned_spot: std::collections::HashMap<usize, &Spot> = after
        .walk
        .spots
        .iter()
        .map(|spot| (spot.cell, spot))
        .collect();
    let mut crossings = [Vec::new(), Vec::new()];
    for (stretch, ends) in last_before.iter().zip(&first_after).enumerate() {
        let (Some((previous, side)), Some(next)) = (*ends.0, *ends.1) else {
            continue;
        };
        let on_side = |(row, column): (usize, usize)| if side == 0 { row } else { column };
        let line = on_side(puzzle.lines_of(previous));
        let turned_line = on_side(turned.lines_of(last - previous));
        let position = |cell: usize| {
            if side == 0 {
                cell % puzzle.width
            } else {
                cell / puzzle.width
            }
        };
        let (a, b) = (position(next), position(previous) + 1);
        let length = puzzle.length(line);
        let domains: Vec<u128> = (0..length)
            .map(|p| grid.domain(puzzle, puzzle.cell(line, p)))
            .collect();
        let (machine, analysis) = lines.with_machine(puzzle, grid, line)?;
        let turned_stretch = turned_spot.get(&(last - previous))?.stretches[side].0;
        let there = &after.walk.stretches[turned_stretch];
        let (back_machine, back) = turned_lines.with_machine(turned, turned_grid, turned_line)?;
        let pairs = relation((machine, analysis), (back_machine, back), &domains, (a, b));
        let here = &before.walk.stretches[stretch];
        let mut partners = [
            vec![Vec::new(); 1 << here.bits],
            vec![Vec::new(); 1 << there.bits],
        ];
        for (class, other) in pairs {
            partners[0][usize::from(class)].push(u128::from(other) << there.shift);
            partners[1][usize::from(other)].push(u128::from(class) << here.shift);
        }
        let [from_here, from_there] = partners;
        crossings[0].push(Crossing {
            shift: here.shift,
            mask: (1u128 << here.bits) - 1,
            partners: from_here,
        });
        crossings[1].push(Crossing {
            shift: there.shift,
            mask: (1u128 << there.bits) - 1,
            partners: from_there,
        });
    }
    Some(crossings)
}

/// The pairs of classes (one of `forward`'s at boundary `a`, one of the turned line's
/// `backward` at the boundary that is this line's `b`) that some filling of the line takes:
/// the two automata walked together from the line's end back to `a` (the forward one
/// backwards through its live states, the turned one forwards), then the turned one alone
/// over the decided cells from `a` back to `b`. The line's cells may take `domains`.
fn relation(
    (machine, analysis): (&Machine, &Analysis),
    (back_machine, back): (&Machine, &Analysis),
    domains: &[u128],
    (a, b): (usize, usize),
) -> Vec<(u16, u16)> {
    let n = domains.len();
    let colors = machine.colors();
    let turned_color: Vec<Option<usize>> = colors
        .iter()
        .map(|color| back_machine.colors().iter().position(|c| c == color))
        .collect();
    let mut pairs: Vec<(u16, u16)> = analysis.live(n).iter().map(|&q| (q, 0)).collect();
    let mut next = Vec::new();
    for p in (b..n).rev() {
        next.clear();
        for &(q, s) in &pairs {
            for (i, &color) in colors.iter().enumerate() {
                let Some(j) = turned_color[i].filter(|_| domains[p] >> color & 1 == 1) else {
                    continue;
                };
                let s = back_machine.next(usize::from(s), j);
                if s == NONE {
                    continue;
                }
                if p < a {
                    next.push((q, s)); // a decided cell between the stretch's two: behind `a`
                    continue;
                }
                for &from in analysis.live(p) {
                    if machine.next(usize::from(from), i) == q {
                        next.push((from, s));
                    }
                }
            }
        }
        next.sort_unstable();
        next.dedup();
        std::mem::swap(&mut pairs, &mut next);
    }
    let class = |analysis: &Analysis, at: usize, state: u16| {
        let found = analysis.live(at).binary_search(&state).ok()?;
        Some(analysis.classes(at)[found])
    };
    let mut classes: Vec<(u16, u16)> = pairs
        .into_iter()
        .filter_map(|(q, s)| Some((class(analysis, a, q)?, class(back, n - b, s)?)))
        .collect();
    classes.sort_unstable();
    classes.dedup();
    classes
}

/// `total += a * b`, as words, least significant first (`total`'s width holds the result:
/// it never passes the component's count).
fn multiply_add(total: &mut [u64], a: &[u64], b: &[u64]) {
    for (i, &x) in a.iter().enumerate().filter(|&(_, &x)| x != 0) {
        let mut carry = 0u128;
        for (j, word) in total.iter_mut().enumerate().skip(i) {
            let y = b.get(j - i).copied().unwrap_or(0);
            let sum = u128::from(*word) + u128::from(x) * u128::from(y) + carry;
            *word = sum as u64;
            carry = sum >> 64;
        }
    }
}
