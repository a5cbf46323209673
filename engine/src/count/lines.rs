//! Each line's analysis (`segments`) as the grid now holds it, kept in a direct-mapped table:
//! the counting search and the sweep ask for the same lines' analyses again and again as they
//! go back and forth between a node's state and its branches'.

use crate::bits::Bits;
use crate::clue::Puzzle;
use crate::count::segments::{Analysis, Machine};
use crate::grid::Grid;

/// Every line's automaton and, per line, its last analysis with the state it was made for.
pub struct Lines<const W: usize> {
    machines: Vec<Machine>,
    slots: Vec<Slot<W>>,
    domains: Vec<u128>,
}

/// Line analyses by (line, state), direct-mapped: a search goes back and forth between a node's
/// state and its branches', at every depth.
struct Slot<const W: usize> {
    line: usize,
    state: Vec<Bits<W>>,
    fits: bool,
    analysis: Analysis,
}

/// Slots of the analyses' table (a power of two).
const ANALYSES: usize = 1 << 16;

impl<const W: usize> Lines<W> {
    pub fn new(puzzle: &Puzzle) -> Self {
        let machines = (0..puzzle.lines())
            .map(|line| {
                let automaton = crate::automaton::Automaton::new(&puzzle.clues[line]);
                Machine::new(&automaton, &puzzle.line_colors[line])
            })
            .collect();
        Self {
            machines,
            slots: (0..ANALYSES)
                .map(|_| Slot {
                    line: usize::MAX,
                    state: Vec::new(),
                    fits: false,
                    analysis: Analysis::default(),
                })
                .collect(),
            domains: Vec::new(),
        }
    }

    /// The analysis of `line` as the grid now holds it (made again only when the table has
    /// lost it); None when no filling fits it (propagation rules that out first).
    pub fn analysis(&mut self, puzzle: &Puzzle, grid: &Grid<W>, line: usize) -> Option<&Analysis> {
        self.with_machine(puzzle, grid, line)
            .map(|(_, analysis)| analysis)
    }

    /// `analysis`, with the line's machine.
    pub fn with_machine(
        &mut self,
        puzzle: &Puzzle,
        grid: &Grid<W>,
        line: usize,
    ) -> Option<(&Machine, &Analysis)> {
        let state = grid.line(line);
        let mut hash = (line as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for cells in state {
            for &word in &cells.0 {
                hash = (hash ^ word).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                hash ^= hash >> 29;
            }
        }
        let slot = &mut self.slots[(hash as usize) & (ANALYSES - 1)];
        if slot.line != line || slot.state != state {
            slot.line = line;
            slot.state.clear();
            slot.state.extend_from_slice(state);
            line_domains(puzzle, line, state, &mut self.domains);
            slot.fits = slot.analysis.run(&self.machines[line], &self.domains);
        }
        let slot = &self.slots[(hash as usize) & (ANALYSES - 1)];
        slot.fits.then_some((&self.machines[line], &slot.analysis))
    }
}

/// The colors each cell of `line` may take, as bitmasks, from the line's state.
pub fn line_domains<const W: usize>(
    puzzle: &Puzzle,
    line: usize,
    state: &[Bits<W>],
    out: &mut Vec<u128>,
) {
    out.clear();
    out.resize(puzzle.length(line), 0);
    for &color in &puzzle.line_colors[line] {
        for position in state[usize::from(color)].ones() {
            if position < out.len() {
                out[position] |= 1u128 << color;
            }
        }
    }
}
