//! A sweep's layers kept: exactly uniform draws, and every color each cell takes.
//!
//! A sweep that keeps every layer of states (`sweep::sweep_kept`) holds, for each spot, how
//! many fillings of the cells before it reach each state. A solution is drawn backwards: from
//! the last state, each step back takes one of the states (and the cell's color) that lead to
//! the current one, with probability its count over the current state's count, so every
//! solution comes out with probability exactly 1/N, and a draw costs a few lookups per cell
//! instead of a counting search (webpbn's Center, a frame of bands: counted by the sweep in
//! 0.06 s, where the search-based draws needed 5 s). A backward pass over the same layers
//! marks the states that reach the end, and with them every color a cell takes in some
//! solution: the ambiguity map of a swept component.

use crate::count::number::Count;
use crate::count::order::Spot;
use crate::count::sample::Random;
use crate::count::segments::NONE;
use crate::count::sweep::{count_of, Layer, Stretch};

/// The layers of one component's sweep (see the module's comment).
pub struct Layers {
    stretches: Vec<Stretch>,
    spots: Vec<Spot>,
    /// Per spot: its colors' positions in its two stretches' colors.
    choices: Vec<Vec<(usize, usize)>>,
    /// The states before each spot, then the last layer.
    layers: Vec<Layer>,
    words: usize,
}

impl Layers {
    pub(super) fn new(
        stretches: Vec<Stretch>,
        spots: Vec<Spot>,
        choices: Vec<Vec<(usize, usize)>>,
        layers: Vec<Layer>,
        words: usize,
    ) -> Self {
        Self {
            stretches,
            spots,
            choices,
            layers,
            words,
        }
    }

    /// The number of solutions.
    pub fn total(&self) -> Count {
        let last = &self.layers[self.spots.len()];
        let mut total = Count::ZERO;
        for state in 0..last.keys.len() {
            total.add(&self.count(self.spots.len(), state));
        }
        total
    }

    fn count(&self, layer: usize, state: usize) -> Count {
        count_of(&self.layers[layer].counts[state * self.words..(state + 1) * self.words])
    }

    fn find(&self, layer: usize, key: u128) -> Option<usize> {
        self.layers[layer].index.get(key)
    }

    /// One solution drawn with probability exactly 1/N: each cell with its color. None when
    /// there is none (the total is zero).
    pub fn draw(&self, random: &mut Random) -> Option<Vec<(usize, u8)>> {
        let end = self.spots.len();
        let last = &self.layers[end];
        // The last layer: one state per way the open stretches can end (all of them closed:
        // one state), drawn by its count.
        let counts: Vec<Count> = (0..last.keys.len()).map(|s| self.count(end, s)).collect();
        let mut key = last.keys[pick(&counts, random)?];
        let mut drawn = Vec::with_capacity(end);
        for at in (0..end).rev() {
            let spot = &self.spots[at];
            // Every (state before, color) that leads here, weighed by the state's count: the
            // same state may come twice, with two colors (both end the cell's stretches).
            let mut ways: Vec<(u128, u8)> = Vec::new();
            let mut counts: Vec<Count> = Vec::new();
            self.each_step_back(at, key, |before, color| {
                if let Some(state) = self.find(at, before) {
                    ways.push((before, color));
                    counts.push(self.count(at, state));
                }
            });
            let (before, color) = ways[pick(&counts, random)?];
            drawn.push((spot.cell, color));
            key = before;
        }
        Some(drawn)
    }

    /// Calls `found(state before, color)` for every state before spot `at` that some color
    /// of the cell takes to `key`, with that color (the state may not be in the layer).
    fn each_step_back(&self, at: usize, key: u128, mut found: impl FnMut(u128, u8)) {
        let spot = &self.spots[at];
        let [(first, first_at), (second, second_at)] = spot.stretches;
        let (a, b) = (&self.stretches[first], &self.stretches[second]);
        let (shift_a, mask_a) = (a.shift, (1u128 << a.bits) - 1);
        let (shift_b, mask_b) = (b.shift, (1u128 << b.bits) - 1);
        let (steps_a, steps_b) = (&a.steps[first_at], &b.steps[second_at]);
        let (count_a, count_b) = (a.colors.len(), b.colors.len());
        let to_a = ((key >> shift_a) & mask_a) as u16;
        let to_b = ((key >> shift_b) & mask_b) as u16;
        let cleared = key & !(mask_a << shift_a) & !(mask_b << shift_b);
        for &(i, j) in &self.choices[at] {
            for from_a in (0..steps_a.len() / count_a).filter(|&c| steps_a[c * count_a + i] == to_a)
            {
                for from_b in
                    (0..steps_b.len() / count_b).filter(|&c| steps_b[c * count_b + j] == to_b)
                {
                    let before =
                        cleared | (from_a as u128) << shift_a | (from_b as u128) << shift_b;
                    found(before, a.colors[i]);
                }
            }
        }
        debug_assert!(to_a != NONE && to_b != NONE);
    }

    /// Every color each spot's cell takes in some solution: (cell, colors as a bitmask).
    pub fn colors(&self) -> Vec<(usize, u128)> {
        let end = self.spots.len();
        // Per layer: whether each state reaches the end (every state of the last does).
        let mut alive: Vec<bool> = vec![true; self.layers[end].keys.len()];
        let mut colors = vec![0u128; end];
        for at in (0..end).rev() {
            let spot = &self.spots[at];
            let [(first, first_at), (second, second_at)] = spot.stretches;
            let (a, b) = (&self.stretches[first], &self.stretches[second]);
            let (shift_a, mask_a) = (a.shift, (1u128 << a.bits) - 1);
            let (shift_b, mask_b) = (b.shift, (1u128 << b.bits) - 1);
            let (steps_a, steps_b) = (&a.steps[first_at], &b.steps[second_at]);
            let (count_a, count_b) = (a.colors.len(), b.colors.len());
            let layer = &self.layers[at];
            let mut alive_before = vec![false; layer.keys.len()];
            for (state, &key) in layer.keys.iter().enumerate() {
                let class_a = ((key >> shift_a) & mask_a) as usize;
                let class_b = ((key >> shift_b) & mask_b) as usize;
                let cleared = key & !(mask_a << shift_a) & !(mask_b << shift_b);
                for &(i, j) in &self.choices[at] {
                    let to_a = steps_a[class_a * count_a + i];
                    let to_b = steps_b[class_b * count_b + j];
                    if to_a == NONE || to_b == NONE {
                        continue;
                    }
                    let moved = cleared | u128::from(to_a) << shift_a | u128::from(to_b) << shift_b;
                    if self.find(at + 1, moved).is_some_and(|next| alive[next]) {
                        alive_before[state] = true;
                        colors[at] |= 1u128 << a.colors[i];
                    }
                }
            }
            alive = alive_before;
        }
        self.spots
            .iter()
            .zip(colors)
            .map(|(spot, colors)| (spot.cell, colors))
            .collect()
    }
}

/// The place of one of `counts` drawn with probability it over their sum; None when all are
/// zero.
fn pick(counts: &[Count], random: &mut Random) -> Option<usize> {
    let mut total = Count::ZERO;
    for count in counts {
        total.add(count);
    }
    if total.is_zero() {
        return None;
    }
    let mut drawn = total.uniform_below(&mut || random.word());
    for (place, count) in counts.iter().enumerate() {
        if drawn.less_than(count) {
            return Some(place);
        }
        drawn.sub(count);
    }
    None
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::clue::Puzzle;
    use crate::count::enumerate::{Enumerator, Step};
    use crate::count::search::Counter;
    use crate::count::sweep::sweep_kept;
    use crate::count::tests::{mixed_puzzle, random_puzzle};
    use crate::count::Control;
    use crate::line::tests::pseudo_random;
    use crate::propagate::{Board, Outcome};

    /// The puzzle after line logic (its decided cells' domains), and each component's layers
    /// swept `by_columns` first; None when a component does not sweep.
    fn layers_of(puzzle: &Puzzle, by_columns: bool) -> Option<(Vec<u128>, Vec<Layers>)> {
        let control = Control::new(None);
        let mut board = Board::<1>::new(puzzle, &puzzle.initial_domains()).ok()?;
        board.set_scope(puzzle, &[]);
        if board.propagate(puzzle, None) != Outcome::Fixpoint {
            return None;
        }
        let domains = board.grid.domains(puzzle);
        let cells: Vec<u32> = (0..puzzle.cells() as u32)
            .filter(|&cell| !board.grid.decided(puzzle, cell as usize))
            .collect();
        let mut counter = Counter::<1>::new(puzzle, board, 1 << 24, &control);
        let parts = counter.components(&cells);
        let mut layers = Vec::new();
        for part in &parts {
            let grid = &counter.board.grid;
            let lines = &mut counter.lines;
            let kept = sweep_kept(
                puzzle,
                grid,
                lines,
                part,
                by_columns,
                1 << 24,
                1 << 26,
                &control,
            );
            layers.push(kept.ok()?);
        }
        Some((domains, layers))
    }

    #[test]
    fn the_layers_find_the_colors_of_the_solutions() {
        let mut seed = 0x5EED_0040u64;
        for case in 0..150 {
            let puzzle = mixed_puzzle(case, 3, (6, 5), (4, 4), &mut seed);
            // The union of every solution, listed.
            let mut expected = vec![0u128; puzzle.cells()];
            let mut enumerator = Enumerator::<1>::new(&puzzle, &puzzle.initial_domains());
            while let Step::Solution(domains) = enumerator.next(&puzzle, None) {
                for (all, one) in expected.iter_mut().zip(domains) {
                    *all |= one;
                }
            }
            for by_columns in [false, true] {
                let (mut got, layers) = layers_of(&puzzle, by_columns).expect("small: it sweeps");
                for part in &layers {
                    for (cell, colors) in part.colors() {
                        got[cell] = colors;
                    }
                }
                assert_eq!(got, expected, "case {case}: {:?}", puzzle.clues);
            }
        }
    }

    #[test]
    fn the_layers_draw_every_solution_uniformly() {
        let mut seed = 0x5EED_0041u64;
        let mut tried = 0;
        while tried < 6 {
            let density = 30 + pseudo_random(&mut seed) % 20;
            let puzzle = random_puzzle(6, 5, 2, density, false, &mut seed);
            let (domains, layers) = layers_of(&puzzle, tried % 2 == 1).expect("it sweeps");
            let mut total = Count::ONE;
            for part in &layers {
                total.mul(&part.total());
            }
            let Count::Small(n) = total else {
                unreachable!()
            };
            if !(4..=60).contains(&n) {
                continue;
            }
            tried += 1;
            let mut random = Random::new(seed);
            let mut seen: HashMap<Vec<u128>, u64> = HashMap::new();
            let draws = 200 * n as u64;
            for _ in 0..draws {
                let mut drawn = domains.clone();
                for part in &layers {
                    for (cell, color) in part.draw(&mut random).expect("a solution") {
                        drawn[cell] = 1u128 << color;
                    }
                }
                assert!(crate::count::tests::fits(&puzzle, &drawn));
                *seen.entry(drawn).or_default() += 1;
            }
            assert_eq!(seen.len() as u128, n, "every solution drawn");
            // n - 1 degrees of freedom; the 99.99th percentile is below 3n + 40 for n <= 60.
            let expected = draws as f64 / n as f64;
            let statistic: f64 = seen
                .values()
                .map(|&times| (times as f64 - expected).powi(2) / expected)
                .sum();
            assert!(
                statistic < 3.0 * n as f64 + 40.0,
                "chi-square {statistic} over {n}"
            );
        }
    }
}
