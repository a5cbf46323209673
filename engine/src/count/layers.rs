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
//! solution: the ambiguity map of a swept component. And every solution is listed by a
//! depth-first walk backwards from the last layer (`Listing`): every state kept has a count,
//! so every step back reaches the start, and the walk never meets a dead end.

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

    /// Every color each spot's cell takes in some solution: (cell, colors as a bitmask).
    pub fn colors(&self) -> Vec<(usize, u128)> {
        let end = self.spots.len();
        // Per layer: whether each state reaches the end (every state of the last does).
        let mut alive: Vec<bool> = vec![true; self.layers[end].keys.len()];
        let mut colors = vec![0u128; end];
        for at in (0..end).rev() {
            let crossing = Crossing::new(&self.stretches, &self.spots[at]);
            let layer = &self.layers[at];
            let mut alive_before = vec![false; layer.keys.len()];
            for (state, &key) in layer.keys.iter().enumerate() {
                let (class_a, class_b, cleared) = crossing.split(key);
                for &choice in &self.choices[at] {
                    let Some(moved) = crossing.step(cleared, class_a, class_b, choice) else {
                        continue;
                    };
                    if self.find(at + 1, moved).is_some_and(|next| alive[next]) {
                        alive_before[state] = true;
                        colors[at] |= 1u128 << self.color(at, choice);
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
