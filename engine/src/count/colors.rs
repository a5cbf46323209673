//! The ambiguity map: every color each cell takes in some solution, by the counting search's
//! own scheme (branch, propagate, split into independent components, remember what each
//! component came to), with sets of colors where the count has numbers.
//!
//! A branch's solutions are its propagated cells' colors with every combination of its
//! components' solutions, so its colors are those cells' colors and its components' colors,
//! when each component has a solution. A component stops branching as soon as every one of
//! its cells shows every color still possible there: on an ambiguous puzzle that comes after
//! a few solutions, not after all of them. A component the sweep counts takes its colors from
//! the sweep's layers instead (`layers`).

use crate::clue::Puzzle;
use crate::count::search::Counter;
use crate::count::store::FastMap;
use crate::count::{start, swept_layers, Control, Options, Start};
use crate::propagate::Outcome;

/// The colors each cell takes in some solution.
pub struct Ambiguity {
    /// Per cell: its colors in the solutions (exact where settled), or the colors line logic
    /// and probing left it where not.
    pub colors: Vec<u128>,
    /// Cells not settled (the deadline or a stop came first).
    pub unsettled: Vec<u32>,
    /// False when there is no solution.
    pub solvable: bool,
}

impl Ambiguity {
    fn unsolvable(colors: Vec<u128>) -> Self {
        Self {
            colors,
            unsettled: Vec::new(),
            solvable: false,
        }
    }

    /// Stopped before anything was settled: every cell as `domains` leave it.
    fn stopped(domains: &[u128]) -> Self {
        Self {
            colors: domains.to_vec(),
            unsettled: (0..domains.len() as u32).collect(),
            solvable: true,
        }
    }
}

/// Every color each cell takes in some solution, component by component.
pub fn ambiguity<const W: usize>(
    puzzle: &Puzzle,
    domains: &[u128],
    options: Options,
    control: &Control,
) -> Ambiguity {
    let (mut counter, parts) = match start::<W>(puzzle, domains, options, control) {
        Start::Ready(counter, parts) => (counter, parts),
        Start::Zero => return Ambiguity::unsolvable(domains.to_vec()),
        Start::Stopped => return Ambiguity::stopped(domains),
    };
    let mut colors = counter.board.grid.domains(puzzle);
    let mut unsettled = Vec::new();
    let mut seen = Seen::new(options.memory);
    for part in &parts {
        if let Some(layers) = swept_layers(&mut counter, part, options, control, true) {
            if layers.total().is_zero() {
                return Ambiguity::unsolvable(colors);
            }
            for (cell, found) in layers.colors() {
                colors[cell] = found;
            }
            continue;
        }
        counter.choose_direction(part);
        match counter.colors(part, &mut seen) {
            Colors::Exact(found) => {
                for (&cell, color) in part.iter().zip(found) {
                    colors[cell as usize] = color;
                }
            }
            Colors::Empty => {
                return Ambiguity::unsolvable(colors);
            }
            Colors::Stopped => unsettled.extend_from_slice(part),
        }
    }
    unsettled.sort_unstable();
    Ambiguity {
        colors,
        unsettled,
        solvable: true,
    }
}

/// Bytes an entry of the colors' store costs beyond its key and cells.
const ENTRY_OVERHEAD: usize = 64;

/// Each component's colors, by its key: one bitmask per cell, in the component's order.
pub struct Seen {
    colors: FastMap<Box<[u8]>, Option<Box<[u128]>>>,
    bytes: usize,
    budget: usize,
}

impl Seen {
    pub fn new(budget: usize) -> Self {
        Self {
            colors: FastMap::default(),
            bytes: 0,
            budget,
        }
    }

    fn put(&mut self, key: Box<[u8]>, colors: Option<Box<[u128]>>) {
        let size = key.len() + ENTRY_OVERHEAD + colors.as_ref().map_or(0, |c| 16 * c.len());
        if self.bytes + size > self.budget {
            self.colors = FastMap::default();
            self.bytes = 0;
        }
        self.bytes += size;
        self.colors.insert(key, colors);
    }
}

/// What a component's colors came to.
pub enum Colors {
    /// Every color each cell takes in some solution (in the order of the component's cells).
    Exact(Vec<u128>),
    /// The component has no solution.
    Empty,
    /// The search was stopped first.
    Stopped,
}

impl<const W: usize> Counter<'_, W> {
    /// The colors every cell of the component `cells` (sorted, all undecided) takes in some
    /// solution.
    pub fn colors(&mut self, cells: &[u32], seen: &mut Seen) -> Colors {
        if self.stopped() || self.look_now() {
            return Colors::Stopped;
        }
        self.stats.nodes += 1;
        let key: Box<[u8]> = self.key_of(cells).into();
        if let Some(known) = seen.colors.get(&key) {
            self.stats.hits += 1;
            return match known {
                Some(colors) => Colors::Exact(colors.to_vec()),
                None => Colors::Empty,
            };
        }
        let puzzle = self.puzzle();
        let domains: Vec<u128> = cells
            .iter()
            .map(|&cell| self.board.grid.domain(puzzle, cell as usize))
            .collect();
        let mut union = vec![0u128; cells.len()];
        let cell = self.pick(cells);
        let mut left = self.board.grid.domain(puzzle, cell);
        while left != 0 && union != domains {
            let color = left.trailing_zeros();
            left &= left - 1;
            let mark = self.board.mark();
            self.board.grid.clock += 1;
            self.board.assign(puzzle, cell, 1u128 << color);
            let branch = if self.board.propagate(puzzle, None) == Outcome::Fixpoint {
                self.branch_colors(cells, seen)
            } else {
                Colors::Empty
            };
            self.board.undo(mark);
            match branch {
                Colors::Exact(colors) => {
                    for (all, more) in union.iter_mut().zip(colors) {
                        *all |= more;
                    }
                }
                Colors::Empty => {}
                Colors::Stopped => return Colors::Stopped,
            }
        }
        let found = union.iter().all(|&colors| colors != 0);
        seen.put(key, found.then(|| union.clone().into_boxed_slice()));
        if found {
            Colors::Exact(union)
        } else {
            Colors::Empty
        }
    }

    /// The colors of one branch (its cells decided and its components' colors), read in the
    /// order of `cells`, as the board now holds the branch.
    fn branch_colors(&mut self, cells: &[u32], seen: &mut Seen) -> Colors {
        let parts = self.components(cells);
        let puzzle = self.puzzle();
        let mut colors: Vec<u128> = cells
            .iter()
            .map(|&cell| self.board.grid.domain(puzzle, cell as usize))
            .collect();
        for part in &parts {
            match self.colors(part, seen) {
                Colors::Exact(found) => {
                    for (&cell, color) in part.iter().zip(found) {
                        let at = cells.binary_search(&cell).unwrap_or(0);
                        colors[at] = color;
                    }
                }
                other => return other,
            }
        }
        Colors::Exact(colors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::tests::{after_line_logic, every_color, layers_of, mixed_puzzle};
    use crate::count::Control;

    #[test]
    fn the_colors_are_those_of_the_solutions() {
        // By the search, and from the sweep's layers in both directions, kept both ways.
        let mut seed = 0x5EED_0030u64;
        for case in 0..150 {
            let puzzle = mixed_puzzle(case, 3, (6, 5), (4, 4), &mut seed);
            let expected = every_color(&puzzle);
            let control = Control::new(None);
            let (mut counter, parts) = after_line_logic(&puzzle, &control).expect("a picture's");
            let mut got = counter.board.grid.domains(&puzzle);
            let mut seen = Seen::new(1 << 24);
            for part in &parts {
                let Colors::Exact(found) = counter.colors(part, &mut seen) else {
                    panic!("case {case}: no colors");
                };
                for (&cell, colors) in part.iter().zip(found) {
                    got[cell as usize] = colors;
                }
            }
            assert_eq!(got, expected, "case {case}: {:?}", puzzle.clues);
            // Kept a layer a cell, or a layer a group (looking ahead, as a count does).
            for by in [(false, false), (true, false), (false, true), (true, true)] {
                let (mut swept, layers) = layers_of(&puzzle, by).expect("small: swept");
                for part in &layers {
                    for (cell, colors) in part.colors() {
                        swept[cell] = colors;
                    }
                }
                assert_eq!(swept, expected, "case {case} {by:?}: {:?}", puzzle.clues);
            }
        }
    }
}
