//! Exactly uniform samples, drawn from the counts: at each branch of the counting search, a
//! color is chosen with probability (solutions with it) / (solutions of the node), and
//! independent components are drawn independently, so every solution comes out with
//! probability exactly 1/N (the counts are exact integers, and so is the draw). A component
//! the sweep counts is drawn from the sweep's layers instead (`layers`).

use crate::clue::Puzzle;
use crate::count::layers::Layers;
use crate::count::number::Count;
use crate::count::search::{Counter, Weighed};
use crate::count::{start, swept_layers, Control, Options, Start};
use crate::propagate::Outcome;

/// What a draw of samples ended on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// Every draw asked for was made.
    Done,
    /// There is no solution to draw.
    Zero,
    Stopped,
}

/// Solutions each drawn with probability exactly 1/N from the N solutions: each component
/// counted by the sweep (whose layers the draws read) or else the search (whose store they
/// read), then drawn as `next` asks. `next(total, drawn)` is called once the count is known
/// (nothing drawn yet) and after every batch of draws, with them (every cell's domain, all
/// decided); it says how many to draw next, or None to end.
pub fn sample<const W: usize>(
    puzzle: &Puzzle,
    domains: &[u128],
    seed: u64,
    options: Options,
    control: &Control,
    mut next: impl FnMut(&Count, Vec<Vec<u128>>) -> Option<usize>,
) -> Drawn {
    let (mut counter, parts) = match start::<W>(puzzle, domains, options, control) {
        Start::Ready(counter, parts) => (counter, parts),
        Start::Zero => return Drawn::Zero,
        Start::Stopped => return Drawn::Stopped,
    };
    let mut total = Count::ONE;
    // Per part: its sweep's layers, where it was swept (draws read them), else None (the
    // counting search's store).
    let mut swept: Vec<Option<Layers>> = Vec::with_capacity(parts.len());
    for part in &parts {
        let count = match swept_layers(&mut counter, part, options, control, true) {
            Some(layers) => {
                let count = layers.total();
                swept.push(Some(layers));
                count
            }
            None => {
                counter.choose_direction(part);
                let counted = counter.product(std::slice::from_ref(part));
                if !counted.exact {
                    return Drawn::Stopped;
                }
                swept.push(None);
                counted.count
            }
        };
        if count.is_zero() {
            return Drawn::Zero;
        }
        total.mul(&count);
    }
    let mut random = Random::new(seed);
    let mut samples = Vec::new();
    while let Some(wanted) = next(&total, std::mem::take(&mut samples)) {
        for _ in 0..wanted {
            let mark = counter.board.mark();
            let mut drawn = true;
            let mut chosen: Vec<(usize, u8)> = Vec::new();
            for (part, layers) in parts.iter().zip(&swept) {
                drawn = drawn
                    && match layers {
                        Some(layers) => layers
                            .draw(&mut random)
                            .map(|cells| chosen.extend(cells))
                            .is_some(),
                        None => {
                            counter.choose_direction(part);
                            counter.sample(std::slice::from_ref(part), &mut random)
                        }
                    };
            }
            if !drawn {
                return Drawn::Stopped;
            }
            let mut domains = counter.board.grid.domains(puzzle);
            for (cell, color) in chosen {
                domains[cell] = 1u128 << color;
            }
            samples.push(domains);
            counter.board.undo(mark);
        }
    }
    Drawn::Done
}

/// Components whose branch weights are kept for the next draws, at most.
const BRANCHES: usize = 1 << 20;

/// A small, fast source of random words (xorshift64*), seeded; not for secrets.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn word(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl<const W: usize> Counter<'_, W> {
    /// Draw one solution of the components `parts` (each all undecided), leaving it on the
    /// board (the caller reads it, then undoes to its own mark). False when the count was
    /// stopped before the draw could finish, or there is no solution. Each component's branch
    /// cell and weights are kept by its key (`branches`): a draw then costs one propagation
    /// per branch taken.
    pub fn sample(&mut self, parts: &[Vec<u32>], random: &mut Random) -> bool {
        parts.iter().all(|part| self.sample_component(part, random))
    }

    fn sample_component(&mut self, cells: &[u32], random: &mut Random) -> bool {
        let key: Box<[u8]> = self.key_of(cells).into();
        let (cell, weights) = match self.branches.get(&key) {
            Some(known) => known.clone(),
            None => {
                let Some(found) = self.weigh(cells) else {
                    return false;
                };
                if self.branches.len() >= BRANCHES {
                    self.branches.clear(); // a bound on memory: they are made again as needed
                }
                self.branches.insert(key, found.clone());
                found
            }
        };
        let mut total = Count::ZERO;
        for (_, weight) in &weights {
            total.add(weight);
        }
        if total.is_zero() {
            return false;
        }
        let mut drawn = total.uniform_below(&mut || random.word());
        let mut chosen = weights[weights.len() - 1].0;
        for (color, weight) in &weights {
            if drawn.less_than(weight) {
                chosen = *color;
                break;
            }
            drawn.sub(weight);
        }
        // Keep the choice on the board (the caller undoes it all at once) and draw the rest.
        self.board.grid.clock += 1;
        self.board.assign(self.puzzle(), cell, 1u128 << chosen);
        if self.board.propagate(self.puzzle(), None) != Outcome::Fixpoint {
            return false; // cannot happen: the color's count is not zero
        }
        let parts = self.components(cells);
        self.sample(&parts, random)
    }

    /// The cell a component branches on and each of its colors' numbers of solutions (those
    /// with any), counted or read from the store; None when the count was stopped.
    fn weigh(&mut self, cells: &[u32]) -> Option<Weighed> {
        let cell = self.pick(cells);
        let weights = self.branch_counts(cells, cell).ok()?;
        Some((cell, weights))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::tests::{after_line_logic, assert_uniform, fits, layers_of, random_puzzle};
    use crate::count::Control;
    use crate::line::tests::pseudo_random;

    #[test]
    fn draws_are_uniform_over_the_solutions() {
        // From the search's counts, and from the sweep's layers (one direction or the other).
        let mut seed = 0x5EED_0020u64;
        let mut tried = 0;
        while tried < 6 {
            let density = 30 + pseudo_random(&mut seed) % 20;
            let puzzle = random_puzzle(6, 5, 2, density, false, &mut seed);
            let control = Control::new(None);
            let (mut counter, parts) = after_line_logic(&puzzle, &control).expect("a picture's");
            let Count::Small(n) = counter.product(&parts).count else {
                unreachable!()
            };
            if !(4..=60).contains(&n) {
                continue;
            }
            tried += 1;
            assert_uniform(n, seed, |random| {
                let mark = counter.board.mark();
                assert!(counter.sample(&parts, random));
                let drawn = counter.board.grid.domains(&puzzle);
                counter.board.undo(mark);
                drawn
            });
            // Layers before every cell, and before every group of cells (looking ahead).
            for (grouped, salt) in [(false, 1), (true, 2)] {
                let by = (tried % 2 == 1, grouped);
                let (domains, layers) = layers_of(&puzzle, by).expect("it sweeps");
                assert_uniform(n, seed ^ salt, |random| {
                    let mut drawn = domains.clone();
                    for part in &layers {
                        for (cell, color) in part.draw(random).expect("a solution") {
                            drawn[cell] = 1u128 << color;
                        }
                    }
                    assert!(fits(&puzzle, &drawn));
                    drawn
                });
            }
        }
    }
}
