//! A sweep's layers kept: exactly uniform draws, and every color each cell takes.
//!
//! A sweep that keeps every layer of states (`sweep::sweep_kept`) holds, for each spot (or
//! each group of spots, a column of a thin board), how many fillings of the cells before it
//! reach each state. A solution is drawn backwards: from the last state, each step back takes
//! one of the states (and the colors of the cells between) that lead to the current one, with
//! probability its count over the current state's count, so every solution comes out with
//! probability exactly 1/N, and a draw costs a few lookups per cell instead of a counting
//! search (webpbn's Center, a frame of bands: counted by the sweep in 0.06 s, where the
//! search-based draws needed 5 s). Kept by groups, the sweep looks ahead as a count's does
//! and holds far fewer states (a thin board of 6 x 137: 10 s and more one cell at a time); a
//! step back over a group goes back over its cells one by one, and only the states before it
//! are looked up: a state on the way back to the end has a completion, so no way into it was
//! dropped by the look-ahead, and its count is whole. A backward pass over the same layers
//! marks the states that reach the end, and with them every color a cell takes in some
//! solution: the ambiguity map of a swept component. And every solution is listed by a
//! depth-first walk backwards from the last layer (`Listing`): every state kept has a count,
//! so every step back reaches the start, and the walk never meets a dead end.

use std::ops::Range;

use crate::count::ahead::{narrowed, shifts_of, Ahead};
use crate::count::groups::{Group, GROUP_MOST};
use crate::count::number::Count;
use crate::count::order::Spot;
use crate::count::sample::Random;
use crate::count::stretches::{Crossing, Stretch};
use crate::count::sweep::{count_of, Layer};

/// The layers of one component's sweep (see the module's comment).
pub struct Layers {
    stretches: Vec<Stretch>,
    spots: Vec<Spot>,
    /// Per spot: its colors' positions in its two stretches' colors.
    choices: Vec<Vec<(usize, usize)>>,
    /// The states before each group of spots, then the last layer.
    layers: Vec<Layer>,
    /// The spots each layer's step takes: one each, or groups.
    groups: Vec<Range<usize>>,
    /// The sweep's look-ahead (by groups): the colors' backward pass skips the ways it did.
    ahead: Option<Ahead>,
}

impl Layers {
    pub(super) fn new(
        stretches: Vec<Stretch>,
        spots: Vec<Spot>,
        choices: Vec<Vec<(usize, usize)>>,
        (layers, groups, ahead): (Vec<Layer>, Vec<Range<usize>>, Option<Ahead>),
    ) -> Self {
        Self {
            stretches,
            spots,
            choices,
            layers,
            groups,
            ahead,
        }
    }

    /// The layers of a sweep of the puzzle turned half round, its cells named as the puzzle's
    /// own (its cell c is the puzzle's `last - c`): draws and colors then read as this
    /// puzzle's.
    pub(super) fn turned_back(mut self, last: usize) -> Self {
        for spot in &mut self.spots {
            spot.cell = last - spot.cell;
        }
        self
    }

    /// Whether there is a layer before every spot (else only before each group).
    fn by_spot(&self) -> bool {
        self.layers.len() == self.spots.len() + 1
    }

    /// The number of solutions.
    pub fn total(&self) -> Count {
        let end = self.groups.len();
        let mut total = Count::ZERO;
        for state in 0..self.layers[end].keys.len() {
            total.add(&self.count(end, state));
        }
        total
    }

    fn count(&self, layer: usize, state: usize) -> Count {
        let Layer { counts, width, .. } = &self.layers[layer];
        count_of(&counts[state * width..(state + 1) * width])
    }

    fn find(&self, layer: usize, key: u128) -> Option<usize> {
        self.layers[layer].index.get(key)
    }

    /// One solution drawn with probability exactly 1/N: each cell with its color. None when
    /// there is none (the total is zero).
    pub fn draw(&self, random: &mut Random) -> Option<Vec<(usize, u8)>> {
        let end = self.groups.len();
        let last = &self.layers[end];
        // The last layer: one state per way the open stretches can end (all of them closed:
        // one state), drawn by its count.
        let counts: Vec<Count> = (0..last.keys.len()).map(|s| self.count(end, s)).collect();
        let mut key = last.keys[pick(&counts, random)?];
        let mut drawn = Vec::with_capacity(self.spots.len());
        let mut colors = Vec::new();
        for (at, group) in self.groups.iter().enumerate().rev() {
            // Every (state before, the group's colors) that leads here, weighed by the
            // state's count: the same state may come several times, with other colors.
            let mut ways: Vec<(u128, Vec<u8>)> = Vec::new();
            let mut counts: Vec<Count> = Vec::new();
            self.each_path_back(group.clone(), key, &mut colors, &mut |before, colors| {
                if let Some(state) = self.find(at, before) {
                    ways.push((before, colors.to_vec()));
                    counts.push(self.count(at, state));
                }
            });
            let (before, colors) = &ways[pick(&counts, random)?];
            // The colors go from the group's last spot back to its first.
            let spots = self.spots[group.clone()].iter().rev();
            drawn.extend(spots.zip(colors).map(|(spot, &color)| (spot.cell, color)));
            key = *before;
        }
        Some(drawn)
    }

    /// Calls `found(state before, colors)` for every state before the spots `group` that the
    /// colors (of the spots from the last back) take to `key` (the state may not be in the
    /// layer).
    fn each_path_back(
        &self,
        group: Range<usize>,
        key: u128,
        colors: &mut Vec<u8>,
        found: &mut dyn FnMut(u128, &[u8]),
    ) {
        if group.is_empty() {
            found(key, colors);
            return;
        }
        let at = group.end - 1;
        self.each_step_back(at, key, |before, color| {
            colors.push(color);
            self.each_path_back(group.start..at, before, colors, found);
            colors.pop();
        });
    }

    /// Calls `found(state before, color)` for every state before spot `at` that some color
    /// of the cell takes to `key`, with that color (the state may not be in the layer).
    fn each_step_back(&self, at: usize, key: u128, mut found: impl FnMut(u128, u8)) {
        let crossing = Crossing::new(&self.stretches, &self.spots[at]);
        let (to_a, to_b, cleared) = crossing.split(key);
        for &choice in &self.choices[at] {
            crossing.back(to_a, to_b, choice, |from_a, from_b| {
                found(
                    crossing.join(cleared, from_a, from_b),
                    self.color(at, choice),
                );
            });
        }
    }

    /// The steps back from `key` before spot `at` to states of the layer there (each with a
    /// count: reached from the start), with the cell's color.
    fn steps_back(&self, at: usize, key: u128) -> Vec<(u128, u8)> {
        let mut steps = Vec::new();
        self.each_step_back(at, key, |before, color| {
            if self.find(at, before).is_some() {
                steps.push((before, color));
            }
        });
        steps
    }

    /// The next solution of `listing` (each spot's cell with its color), or None once every
    /// one has been listed.
    pub fn next_solution(&self, listing: &mut Listing) -> Option<Vec<(usize, u8)>> {
        assert!(self.by_spot(), "a listing steps back one cell at a time");
        let end = self.spots.len();
        let stack = &mut listing.stack;
        if listing.started {
            // The deepest frame with a step not taken yet takes it; those below it go.
            loop {
                let frame = stack.last_mut()?;
                frame.1 += 1;
                if frame.1 < frame.0.len() {
                    break;
                }
                stack.pop();
            }
        } else {
            listing.started = true;
            let last = &self.layers[end];
            let ends = last.keys.iter().map(|&key| (key, 0)).collect();
            stack.push((ends, 0));
        }
        // Down to the start, the first step back each time (frame k steps back over spot
        // end - k from the state frame k - 1 took).
        while stack.len() <= end {
            let at = end - stack.len();
            let (steps, taken) = stack.last()?;
            let steps = self.steps_back(at, steps[*taken].0);
            if steps.is_empty() {
                return None; // cannot be: a kept state has a count
            }
            stack.push((steps, 0));
        }
        Some(
            stack[1..]
                .iter()
                .enumerate()
                .map(|(k, (steps, taken))| (self.spots[end - 1 - k].cell, steps[*taken].1))
                .collect(),
        )
    }

    /// The palette color of `choice` at spot `at`.
    fn color(&self, at: usize, choice: (usize, usize)) -> u8 {
        self.stretches[self.spots[at].stretches[0].0].colors[choice.0]
    }

    /// Every color each spot's cell takes in some solution: (cell, colors as a bitmask). A
    /// backward pass over the layers marks the states that reach the end; each way through a
    /// group from a state of its layer to a marked one gives its cells' colors. Kept by
    /// groups, the layers hold only the states the look-ahead let through, but a way to a
    /// state that reaches the end is never dropped, so none of its colors is missed.
    pub fn colors(&self) -> Vec<(usize, u128)> {
        let end = self.groups.len();
        // Per layer: whether each state reaches the end (every state of the last does).
        let mut alive: Vec<bool> = vec![true; self.layers[end].keys.len()];
        let mut colors = vec![0u128; self.spots.len()];
        let shifts = shifts_of(&self.stretches);
        for (at, spots) in self.groups.iter().enumerate().rev() {
            let mut group = Group::new(&self.stretches, &self.spots, &self.choices, spots.clone());
            let (layer, next) = (&self.layers[at], &self.layers[at + 1]);
            // The ways the sweep did not take lead to no state that reaches the end.
            narrowed(
                self.ahead.as_ref(),
                (at, &mut group),
                layer.keys.len(),
                &shifts,
            );
            let mut alive_before = vec![false; layer.keys.len()];
            let mut found = [0u128; GROUP_MOST];
            for (state, &key) in layer.keys.iter().enumerate() {
                group.expand(key, &mut |moved, path| {
                    if !next.index.get(moved).is_some_and(|after| alive[after]) {
                        return;
                    }
                    alive_before[state] = true;
                    for (k, found) in found.iter_mut().enumerate().take(spots.len()) {
                        *found |= 1u128 << (path >> (8 * k) & 0xff);
                    }
                });
            }
            colors[spots.clone()].copy_from_slice(&found[..spots.len()]);
            alive = alive_before;
        }
        self.spots
            .iter()
            .zip(colors)
            .map(|(spot, colors)| (spot.cell, colors))
            .collect()
    }
}

/// Where a listing of a component's solutions is (`Layers::next_solution`): per frame, the
/// steps back it may take and the one taken.
#[derive(Default)]
pub struct Listing {
    stack: Vec<(Vec<(u128, u8)>, usize)>,
    started: bool,
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
    use crate::count::sweep::{self, Swept};
    use crate::count::tests::{after_line_logic, component, random_puzzle};
    use crate::count::Control;

    #[test]
    fn layers_kept_past_their_bytes_give_way() {
        let mut seed = 0x5EED_0301u64;
        let puzzle = random_puzzle(40, 4, 2, 40, false, &mut seed);
        let control = Control::new(None);
        let (mut counter, parts) = after_line_logic(&puzzle, &control).expect("a solution");
        let choose = sweep::plain(puzzle.width, true, &control);
        for grouped in [false, true] {
            for (kept_bytes, fits) in [(1 << 9, false), (1 << 28, true)] {
                let largest = parts.iter().max_by_key(|part| part.len()).expect("a part");
                let part = component(&mut counter, largest);
                let budgets = (1 << 28, kept_bytes);
                let (swept, layers) = sweep::sweep_kept(part, budgets, &control, &choose, grouped);
                assert_eq!(
                    matches!(swept, Swept::Counted(_)),
                    fits,
                    "{kept_bytes} bytes"
                );
                assert_eq!(layers.is_some(), fits);
            }
        }
    }
}
