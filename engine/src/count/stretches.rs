//! A component's stretches as a sweep walks them: each line's cells in the component cut
//! where the line splits (`segments`), the steps of each stretch's classes from cell to cell,
//! and the order the sweep takes the cells in (`order`), with each stretch's place in the
//! sweep's state.

use std::collections::HashMap;

use crate::clue::Puzzle;
use crate::count::lines::Lines;
use crate::count::order::Spot;
use crate::count::segments::{Analysis, Machine, NONE};
use crate::count::sweep::Chooser;
use crate::grid::Grid;

/// One stretch of a line in the component: its cells in order, and for the k-th cell the
/// class reached at the next cell's boundary (or at the stretch's end) from each class before
/// it, per line color: `steps[k][class * colors + i]`, NONE when that fails. Classes are
/// those of the line's analysis; the stretch starts in class 0 (its first boundary has one).
pub(super) struct Stretch {
    pub(super) colors: Vec<u8>,
    pub(super) steps: Vec<Vec<u16>>,
    /// Where in a state this stretch's class is kept (`order::Plan`), and its bit width.
    pub(super) shift: u32,
    pub(super) bits: usize,
}

/// A spot's two stretches as a sweep's state holds them: where their classes are, and their
/// step tables at the spot.
pub(super) struct Crossing<'a> {
    shifts: [u32; 2],
    masks: [u128; 2],
    steps: [&'a [u16]; 2],
    /// How many colors each stretch's line has (a step table's row length).
    colors: [usize; 2],
}

impl<'a> Crossing<'a> {
    pub(super) fn new(stretches: &'a [Stretch], spot: &Spot) -> Self {
        let [(first, first_at), (second, second_at)] = spot.stretches;
        let (a, b) = (&stretches[first], &stretches[second]);
        Self {
            shifts: [a.shift, b.shift],
            masks: [(1u128 << a.bits) - 1, (1u128 << b.bits) - 1],
            steps: [&a.steps[first_at], &b.steps[second_at]],
            colors: [a.colors.len(), b.colors.len()],
        }
    }

    /// The two stretches' classes in `key`, and `key` without them.
    #[inline]
    pub(super) fn split(&self, key: u128) -> (usize, usize, u128) {
        let [shift_a, shift_b] = self.shifts;
        let [mask_a, mask_b] = self.masks;
        let class_a = ((key >> shift_a) & mask_a) as usize;
        let class_b = ((key >> shift_b) & mask_b) as usize;
        (
            class_a,
            class_b,
            key & !(mask_a << shift_a) & !(mask_b << shift_b),
        )
    }

    /// `cleared` (a key without the two stretches) with their classes `a` and `b`.
    #[inline]
    pub(super) fn join(&self, cleared: u128, a: usize, b: usize) -> u128 {
        cleared | (a as u128) << self.shifts[0] | (b as u128) << self.shifts[1]
    }

    /// Every pair of classes before the cell that `choice` takes to classes `a` and `b`.
    pub(super) fn back(
        &self,
        a: usize,
        b: usize,
        choice: (usize, usize),
        mut found: impl FnMut(usize, usize),
    ) {
        let from = |side: usize, to: usize, i: usize| {
            let (steps, colors) = (self.steps[side], self.colors[side]);
            (0..steps.len() / colors).filter(move |&c| usize::from(steps[c * colors + i]) == to)
        };
        for from_a in from(0, a, choice.0) {
            for from_b in from(1, b, choice.1) {
                found(from_a, from_b);
            }
        }
    }
}

/// The line colors' positions in the spot's two stretches, for each palette color `domain`
/// allows.
pub(super) fn choices(domain: u128, stretches: &[Stretch], spot: &Spot) -> Vec<(usize, usize)> {
    let [(first, _), (second, _)] = spot.stretches;
    let (a, b) = (&stretches[first], &stretches[second]);
    a.colors
        .iter()
        .enumerate()
        .filter(|&(_, &color)| domain >> color & 1 == 1)
        .filter_map(|(i, &color)| b.colors.iter().position(|&c| c == color).map(|j| (i, j)))
        .collect()
}

/// The stretches the component's cells lie on, each with its place in the state, and the
/// cells in the sweep's order (`choose`); None when a line's analysis fails
/// (propagation rules that out first) or no order fits the state's 128 bits.
pub(super) fn plan<const W: usize>(
    puzzle: &Puzzle,
    grid: &Grid<W>,
    lines: &mut Lines<W>,
    cells: &[u32],
    choose: &Chooser<'_>,
) -> Option<(Vec<Stretch>, Vec<Spot>)> {
    let width = puzzle.width;
    // The cells on each line, in order along it.
    let mut on_line: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for &cell in cells {
        let cell = cell as usize;
        let (row, column) = puzzle.lines_of(cell);
        on_line.entry(row).or_default().push((cell % width, cell));
        on_line
            .entry(column)
            .or_default()
            .push((cell / width, cell));
    }
    let mut stretches: Vec<Stretch> = Vec::new();
    let mut lengths: Vec<usize> = Vec::new();
    // Per cell: (row stretch, place), (column stretch, place).
    let mut place: HashMap<usize, [(usize, usize); 2]> = HashMap::new();
    let mut lines_sorted: Vec<usize> = on_line.keys().copied().collect();
    lines_sorted.sort_unstable();
    for line in lines_sorted {
        let mut spots = on_line.remove(&line).unwrap_or_default();
        spots.sort_unstable();
        let (machine, analysis) = lines.with_machine(puzzle, grid, line)?;
        let side = usize::from(!puzzle.is_row(line));
        let mut first = 0;
        while first < spots.len() {
            let mut last = first;
            while last + 1 < spots.len() && analysis.joined(spots[last].0, spots[last + 1].0) {
                last += 1;
            }
            let positions: Vec<usize> = spots[first..=last].iter().map(|s| s.0).collect();
            let (steps, classes) = steps(puzzle, grid, line, machine, analysis, &positions);
            let bits = usize::BITS as usize - classes.saturating_sub(1).leading_zeros() as usize;
            for (k, &(_, cell)) in spots[first..=last].iter().enumerate() {
                place.entry(cell).or_insert([(0, 0); 2])[side] = (stretches.len(), k);
            }
            lengths.push(positions.len());
            stretches.push(Stretch {
                colors: machine.colors().to_vec(),
                steps,
                shift: 0,
                bits,
            });
            first = last + 1;
        }
    }
    let spots: Vec<Spot> = cells
        .iter()
        .map(|&cell| Spot {
            cell: cell as usize,
            stretches: place[&(cell as usize)],
        })
        .collect();
    let bits: Vec<usize> = stretches.iter().map(|stretch| stretch.bits).collect();
    let plan = choose(&spots, &lengths, &bits)?;
    for (stretch, shift) in stretches.iter_mut().zip(plan.shifts) {
        stretch.shift = shift;
    }
    Some((stretches, plan.spots))
}

/// A stretch's step tables (see `Stretch`) for its cells at `positions`, and the most
/// classes any of its boundaries has.
fn steps<const W: usize>(
    puzzle: &Puzzle,
    grid: &Grid<W>,
    line: usize,
    machine: &Machine,
    analysis: &Analysis,
    positions: &[usize],
) -> (Vec<Vec<u16>>, usize) {
    let colors = machine.colors();
    let mut most = 1;
    let mut tables = Vec::with_capacity(positions.len());
    for (k, &p) in positions.iter().enumerate() {
        let (live, classes) = (analysis.live(p), analysis.classes(p));
        let count = usize::from(classes.iter().copied().max().unwrap_or(0)) + 1;
        most = most.max(count);
        // Where the step ends: the next cell's boundary, or just past this cell.
        let end = positions.get(k + 1).copied().unwrap_or(p + 1);
        let mut table = vec![NONE; count * colors.len()];
        let last = k + 1 == positions.len();
        for class in 0..count {
            let Some(index) = classes.iter().position(|&c| usize::from(c) == class) else {
                continue;
            };
            let state = usize::from(live[index]);
            for i in 0..colors.len() {
                let reached = walk(puzzle, grid, line, machine, analysis, state, i, p, end);
                // Past its last cell a stretch is done (any live state is completed by the
                // rest of its line): its slot goes back to 0 for the next stretch there.
                table[class * colors.len() + i] = if last && reached != NONE { 0 } else { reached };
            }
        }
        tables.push(table);
    }
    (tables, most)
}

/// The class reached at boundary `end` from `state` at boundary `p`, the cell at p taking the
/// line's i-th color and the cells after it (decided) their colors; NONE when it dies.
#[allow(clippy::too_many_arguments)]
fn walk<const W: usize>(
    puzzle: &Puzzle,
    grid: &Grid<W>,
    line: usize,
    machine: &Machine,
    analysis: &Analysis,
    state: usize,
    i: usize,
    p: usize,
    end: usize,
) -> u16 {
    let mut state = machine.next(state, i);
    for position in p + 1..end {
        if state == NONE {
            return NONE;
        }
        let domain = grid.domain(puzzle, puzzle.cell(line, position));
        let color = domain.trailing_zeros() as u8; // decided: one color
        let Some(j) = machine.colors().iter().position(|&c| c == color) else {
            return NONE;
        };
        state = machine.next(usize::from(state), j);
    }
    if state == NONE {
        return NONE;
    }
    match analysis.live(end).binary_search(&state) {
        Ok(at) => analysis.classes(end)[at],
        Err(_) => NONE,
    }
}
