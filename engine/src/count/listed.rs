//! Every solution of a puzzle whose components the sweep counts, listed from the sweeps'
//! layers: each component's solutions by a walk back through its layers that never meets a
//! dead end (`layers::Listing`), and the puzzle's as every combination of them, the last
//! component's changing fastest.
//!
//! A search lists a component such as webpbn's Flag (213 cells, 1,263,904 solutions, bands
//! that line logic sees little of) at a few thousand solutions a second, most of its nodes
//! dead ends; from the layers each solution costs the few steps back that differ from the
//! last one's.

use std::time::Instant;

use crate::clue::Puzzle;
use crate::count::layers::{Layers, Listing};
use crate::count::{start, swept_layers, Control, Options, Start};

/// The components' layers and where each listing is.
pub struct Listed {
    /// Every cell's domain after line logic and probing.
    root: Vec<u128>,
    parts: Vec<Part>,
    started: bool,
}

/// One component: its layers, where its listing is, and the solution it is at (each cell
/// with its color).
type Part = (Layers, Listing, Vec<(usize, u8)>);

/// What trying to list from the layers gave.
pub enum Tried {
    Listed(Box<Listed>),
    /// No solution at all.
    Zero,
    /// A component the sweep does not count, layers past the memory budget, or the deadline
    /// came first.
    Not,
}

impl Listed {
    /// The listing of `domains`' solutions from layers, where every component is swept.
    pub fn try_new<const W: usize>(
        puzzle: &Puzzle,
        domains: &[u128],
        options: Options,
        deadline: Option<Instant>,
    ) -> Tried {
        let control = Control::new(deadline);
        let (mut counter, cells) = match start::<W>(puzzle, domains, options, &control) {
            Start::Ready(counter, parts) => (counter, parts),
            Start::Zero => return Tried::Zero,
            Start::Stopped => return Tried::Not,
        };
        let mut parts = Vec::with_capacity(cells.len());

        for part in &cells {
            let Some(layers) = swept_layers(&mut counter, part, options, &control, false) else {
                return Tried::Not;
            };
            if layers.total().is_zero() {
                return Tried::Zero;
            }
            parts.push((layers, Listing::default(), Vec::new()));
        }
        Tried::Listed(Box::new(Self {
            root: counter.board.grid.domains(puzzle),
            parts,
            started: false,
        }))
    }

    /// The next solution (every cell's domain), or None once all have been listed.
    pub fn next_solution(&mut self) -> Option<Vec<u128>> {
        // The last component that has another solution takes it; those after it start over.
        let mut from = if self.started {
            let mut moved = None;
            for (place, (layers, listing, cells)) in self.parts.iter_mut().enumerate().rev() {
                if let Some(next) = layers.next_solution(listing) {
                    *cells = next;
                    moved = Some(place + 1);
                    break;
                }
            }
            moved?
        } else {
            self.started = true;
            0
        };
        while from < self.parts.len() {
            let (layers, listing, cells) = &mut self.parts[from];
            *listing = Listing::default();
            *cells = layers.next_solution(listing)?;
            from += 1;
        }
        let mut domains = self.root.clone();
        for (_, _, cells) in &self.parts {
            for &(cell, color) in cells {
                domains[cell] = 1u128 << color;
            }
        }
        Some(domains)
    }
}
