//! Each line's analysis (`segments`) as the grid now holds it, kept in a direct-mapped table:
//! the counting search and the sweep ask for the same lines' analyses again and again as they
//! go back and forth between a node's state and its branches'. The table keeps within a byte
//! budget (a share of the count's memory): an analysis of a long line with many blocks holds
//! tens of kilobytes, and 65,536 of them passed half a gigabyte (a 6 x 138 board's count
//! under `--memory 16` held 700 MB); past the budget the table is emptied and fills again.

use crate::bits::Bits;
use crate::clue::Puzzle;
use crate::count::segments::{Analysis, Machine};
use crate::count::store::free_apart;
use crate::grid::Grid;

/// Every line's automaton and, per line, its last analysis with the state it was made for.
pub struct Lines<const W: usize> {
    machines: Vec<Machine>,
    slots: Vec<Slot<W>>,
    domains: Vec<u128>,
    /// Bytes the slots hold, and the most they may.
    held: usize,
    budget: usize,
    /// Times the table was emptied for its budget.
    clears: u64,
}

/// Line analyses by (line, state), direct-mapped: a search goes back and forth between a node's
/// state and its branches', at every depth.
struct Slot<const W: usize> {
    line: usize,
    state: Vec<Bits<W>>,
    fits: bool,
    analysis: Analysis,
}

/// Slots of the analyses' table at most, and at least (powers of two): as many as a quarter
/// of the budget holds empty, within these.
const ANALYSES: usize = 1 << 16;
const FEWEST: usize = 1 << 8;
/// Bytes of analyses from which the table is freed on a thread of its own when dropped.
const FREED_APART_BYTES: usize = 16 << 20;

impl<const W: usize> Slot<W> {
    fn empty() -> Self {
        Self {
            line: usize::MAX,
            state: Vec::new(),
            fits: false,
            analysis: Analysis::default(),
        }
    }

    /// Bytes the slot holds beyond itself.
    fn bytes(&self) -> usize {
        self.state.capacity() * std::mem::size_of::<Bits<W>>() + self.analysis.heap_bytes()
    }
}

impl<const W: usize> Lines<W> {
    /// The lines of `puzzle`, their analyses kept within about `budget` bytes.
    pub fn new(puzzle: &Puzzle, budget: usize) -> Self {
        let fit = budget / 4 / std::mem::size_of::<Slot<W>>();
        let slots = ((fit + 1).next_power_of_two() / 2).clamp(FEWEST, ANALYSES);
        let machines = (0..puzzle.lines())
            .map(|line| {
                let automaton = crate::automaton::Automaton::new(&puzzle.clues[line]);
                Machine::new(&automaton, &puzzle.line_colors[line])
            })
            .collect();
        Self {
            machines,
            slots: (0..slots).map(|_| Slot::empty()).collect(),
            domains: Vec::new(),
            held: slots * std::mem::size_of::<Slot<W>>(),
            budget,
            clears: 0,
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
        let index = (hash as usize) & (self.slots.len() - 1);
        let slot = &mut self.slots[index];
        if slot.line != line || slot.state != state {
            let before = slot.bytes();
            slot.line = line;
            slot.state.clear();
            slot.state.extend_from_slice(state);
            line_domains(puzzle, line, state, &mut self.domains);
            slot.fits = slot.analysis.run(&self.machines[line], &self.domains);
            self.held = self.held - before + slot.bytes();
            if self.held > self.budget {
                self.clear_but(index);
            }
        }
        let slot = &self.slots[index];
        slot.fits.then_some((&self.machines[line], &slot.analysis))
    }

    /// Empty every slot but `kept` (their memory given back apart, as the store's: up to
    /// 256 MB of analyses, 0.15 s to free on Sierp), for the budget.
    fn clear_but(&mut self, kept: usize) {
        let empty = (0..self.slots.len()).map(|_| Slot::empty()).collect();
        let mut old = std::mem::replace(&mut self.slots, empty);
        std::mem::swap(&mut self.slots[kept], &mut old[kept]);
        free_apart(old);
        self.held = self.slots.len() * std::mem::size_of::<Slot<W>>() + self.slots[kept].bytes();
        self.clears += 1;
    }
}

impl<const W: usize> Drop for Lines<W> {
    /// The analyses freed apart when they hold much (see `clear_but`), else here.
    fn drop(&mut self) {
        if self.held >= FREED_APART_BYTES {
            free_apart(std::mem::take(&mut self.slots));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::tests::random_puzzle;
    use crate::line::tests::pseudo_random;

    /// Every line's analysis as a comparable value: None when nothing fits, else each
    /// boundary's live states and classes.
    type Seen = Option<Vec<(Vec<u16>, Vec<u16>)>>;

    fn seen<const W: usize>(
        lines: &mut Lines<W>,
        puzzle: &Puzzle,
        grid: &Grid<W>,
        line: usize,
    ) -> Seen {
        let analysis = lines.analysis(puzzle, grid, line)?;
        Some(
            (0..=puzzle.length(line))
                .map(|p| (analysis.live(p).to_vec(), analysis.classes(p).to_vec()))
                .collect(),
        )
    }

    #[test]
    fn the_analyses_keep_within_their_budget_and_stay_right() {
        let mut seed = 0x5EED_0201u64;
        let puzzle = random_puzzle(60, 8, 3, 45, false, &mut seed);
        let budget = 64 << 10;
        let mut small = Lines::<1>::new(&puzzle, budget);
        let mut large = Lines::<1>::new(&puzzle, 1 << 30);
        let most_one = 64 << 10; // an analysis of one of these lines holds less
        for _ in 0..300 {
            let domains: Vec<u128> = (0..puzzle.cells())
                .map(|_| 1 | u128::from(pseudo_random(&mut seed) % 8))
                .collect();
            let grid = Grid::<1>::new(&puzzle, &domains).expect("every cell keeps a color");
            for line in 0..puzzle.lines() {
                let kept = seen(&mut small, &puzzle, &grid, line);
                assert_eq!(kept, seen(&mut large, &puzzle, &grid, line));
                assert!(small.held <= budget + most_one, "{} bytes held", small.held);
            }
        }
        assert!(small.clears > 0);
        assert_eq!(large.clears, 0);
    }
}
