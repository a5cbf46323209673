//! Where a line falls apart into independent segments, and what each segment's count
//! depends on.
//!
//! A line's clue is a deterministic automaton (`automaton`), so every way of filling the line
//! is one path through it. At a boundary between two cells, the states on some accepted path
//! are its *live* states. When all of them have the same future (the same fillings of the
//! rest of the line take each of them to acceptance: future-equivalent, given the cells'
//! colors still possible), the fillings of the line are every filling of the part before the
//! boundary paired with every filling of the part after it: the line splits there. A single
//! live state is the plain case; "the last cell of block j" and "a gap after block j" are
//! equivalent when the next cell can only be background, and so on.
//!
//! Counting uses this twice: cells that no unsplit stretch of any line joins are independent
//! (their counts multiply), and a stretch's number of fillings depends only on its first live
//! state's class (represented by its smallest state), its cells' colors, and the set of live
//! states it must end in, which is what a cache key holds.

use crate::automaton::Automaton;

/// One line's automaton as a table of transitions of single states.
pub struct Machine {
    states: usize,
    /// The line's colors (the background first), as the clue allows them.
    colors: Vec<u8>,
    /// `target[q * colors.len() + i]`: the state after `q` on the line's i-th color, or NONE.
    target: Vec<u16>,
    accepting: Vec<bool>,
}

pub const NONE: u16 = u16::MAX;

impl Machine {
    pub fn new(automaton: &Automaton, colors: &[u8]) -> Self {
        let states = automaton.entry.len();
        let count = colors.len();
        let mut target = vec![NONE; states * count];
        let mut moves = Vec::new();
        for q in 0..states {
            automaton.transitions(q, &mut moves);
            for &(color, next) in &moves {
                if let Some(i) = colors.iter().position(|&c| c == color) {
                    target[q * count + i] = next as u16;
                }
            }
        }
        Self {
            states,
            colors: colors.to_vec(),
            target,
            accepting: automaton.accepting.clone(),
        }
    }

    pub fn states(&self) -> usize {
        self.states
    }

    pub fn colors(&self) -> &[u8] {
        &self.colors
    }

    /// The state after `state` on the line's `i`-th color, or NONE.
    #[inline]
    pub fn next(&self, state: usize, i: usize) -> u16 {
        self.target[state * self.colors.len() + i]
    }
}

/// What one line's cells allow: its live states at every boundary, each boundary's classes
/// of future-equivalent live states, and where the line splits.
#[derive(Default)]
pub struct Analysis {
    /// Boundary p's live states, sorted: `states[starts[p]..starts[p + 1]]`.
    starts: Vec<u32>,
    states: Vec<u16>,
    /// The class of each live state (in the order of `states`), numbered from 0 per boundary.
    classes: Vec<u16>,
    /// Boundary p splits the line: all its live states are future-equivalent.
    splits: Vec<bool>,
    /// `split_count[p]`: the splits among boundaries 1..=p.
    split_count: Vec<u32>,
    // Scratch: the states reached going forwards, boundary by boundary, their classes
    // (NONE: dead), a stamp per state, and per state its class at the boundary after.
    reached: Vec<u16>,
    reached_starts: Vec<u32>,
    reached_classes: Vec<u16>,
    stamps: Vec<u32>,
    stamp: u32,
    class_of: Vec<u16>,
    signatures: Vec<u16>,
    distinct: Vec<usize>,
}

impl Analysis {
    /// Analyse a line whose cell at position p may take the colors of `domains[p]`; false
    /// when no filling fits (then nothing else is set).
    ///
    /// Forwards: the states reached at each boundary (sets of a few states, kept as sorted
    /// lists: most of a line is decided once a search is under way). Backwards: a reached
    /// state is live when some color the cell allows takes it to a live state, and its class
    /// is the classes it moves to on each color (at the end, every live state accepts: one
    /// class).
    pub fn run(&mut self, machine: &Machine, domains: &[u128]) -> bool {
        let n = domains.len();
        let colors = machine.colors();
        if self.stamps.len() < machine.states() {
            self.stamps.resize(machine.states(), 0);
            self.class_of.resize(machine.states(), NONE);
        }
        self.reached.clear();
        self.reached_starts.clear();
        self.reached_starts.push(0);
        self.reached.push(0);
        for (p, &domain) in domains.iter().enumerate() {
            let stamp = self.next_stamp();
            let (from, to) = (self.reached_starts[p] as usize, self.reached.len());
            self.reached_starts.push(to as u32);
            for k in from..to {
                let q = usize::from(self.reached[k]);
                for (i, &color) in colors.iter().enumerate() {
                    let target = machine.next(q, i);
                    if domain >> color & 1 == 1
                        && target != NONE
                        && self.stamps[usize::from(target)] != stamp
                    {
                        self.stamps[usize::from(target)] = stamp;
                        self.reached.push(target);
                    }
                }
            }
            let new = &mut self.reached[to..];
            if new.is_empty() {
                return false;
            }
            new.sort_unstable();
        }
        let last = self.reached_starts[n] as usize;
        self.reached_starts.push(self.reached.len() as u32);
        self.reached_classes.clear();
        self.reached_classes.resize(self.reached.len(), NONE);
        let mut any = false;
        for k in last..self.reached.len() {
            if machine.accepting[usize::from(self.reached[k])] {
                self.reached_classes[k] = 0;
                any = true;
            }
        }
        if !any {
            return false;
        }
        self.splits.clear();
        self.splits.resize(n + 1, false);
        self.splits[n] = true;
        let width = colors.len();
        for p in (0..n).rev() {
            let next = self.reached_starts[p + 1] as usize..self.reached_starts[p + 2] as usize;
            for k in next.clone() {
                self.class_of[usize::from(self.reached[k])] = self.reached_classes[k];
            }
            self.signatures.clear();
            self.distinct.clear();
            for k in self.reached_starts[p] as usize..self.reached_starts[p + 1] as usize {
                let q = usize::from(self.reached[k]);
                let at = self.signatures.len();
                let mut live = false;
                for (i, &color) in colors.iter().enumerate() {
                    let target = machine.next(q, i);
                    let class = if domains[p] >> color & 1 == 1 && target != NONE {
                        self.class_of[usize::from(target)]
                    } else {
                        NONE
                    };
                    live |= class != NONE;
                    self.signatures.push(class);
                }
                if !live {
                    self.signatures.truncate(at);
                    continue;
                }
                let signatures = &self.signatures;
                let found = self
                    .distinct
                    .iter()
                    .position(|&first| signatures[first..first + width] == signatures[at..]);
                let class = match found {
                    Some(class) => {
                        self.signatures.truncate(at);
                        class
                    }
                    None => {
                        self.distinct.push(at);
                        self.distinct.len() - 1
                    }
                };
                self.reached_classes[k] = class as u16;
            }
            self.splits[p] = self.distinct.len() == 1;
            for k in next {
                self.class_of[usize::from(self.reached[k])] = NONE;
            }
        }
        // The live states: those reached that have a class.
        self.starts.clear();
        self.states.clear();
        self.classes.clear();
        for p in 0..=n {
            self.starts.push(self.states.len() as u32);
            for k in self.reached_starts[p] as usize..self.reached_starts[p + 1] as usize {
                if self.reached_classes[k] != NONE {
                    self.states.push(self.reached[k]);
                    self.classes.push(self.reached_classes[k]);
                }
            }
        }
        self.starts.push(self.states.len() as u32);
        self.split_count.clear();
        self.split_count.push(0);
        for p in 1..=n {
            let before = self.split_count[p - 1];
            self.split_count.push(before + u32::from(self.splits[p]));
        }
        true
    }

    /// Bytes its vectors hold (their capacity): what a table of analyses keeps per slot.
    pub fn heap_bytes(&self) -> usize {
        fn held<T>(items: &Vec<T>) -> usize {
            items.capacity() * std::mem::size_of::<T>()
        }
        held(&self.starts)
            + held(&self.states)
            + held(&self.classes)
            + held(&self.splits)
            + held(&self.split_count)
            + held(&self.reached)
            + held(&self.reached_starts)
            + held(&self.reached_classes)
            + held(&self.stamps)
            + held(&self.class_of)
            + held(&self.signatures)
            + held(&self.distinct)
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.iter_mut().for_each(|stamp| *stamp = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// The live states at boundary p, sorted.
    pub fn live(&self, p: usize) -> &[u16] {
        &self.states[self.starts[p] as usize..self.starts[p + 1] as usize]
    }

    /// The classes of boundary p's live states (in the order of `live(p)`).
    pub fn classes(&self, p: usize) -> &[u16] {
        &self.classes[self.starts[p] as usize..self.starts[p + 1] as usize]
    }

    #[cfg(test)]
    pub fn splits(&self, p: usize) -> bool {
        self.splits[p]
    }

    /// Whether no split lies between cell positions `first` < `second`: the two cells are in
    /// one segment.
    #[inline]
    pub fn joined(&self, first: usize, second: usize) -> bool {
        self.split_count[second] == self.split_count[first]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clue::Block;

    fn machine(lengths: &[u32]) -> Machine {
        let clue: Vec<Block> = lengths
            .iter()
            .map(|&length| Block { length, color: 1 })
            .collect();
        Machine::new(&Automaton::new(&clue), &[0, 1])
    }

    #[test]
    fn a_decided_line_splits_everywhere() {
        let m = machine(&[2, 1]);
        let mut analysis = Analysis::default();
        // ##.#.
        assert!(analysis.run(&m, &[2, 2, 1, 2, 1]));
        assert!((0..=5).all(|p| analysis.splits(p)));
    }

    #[test]
    fn a_free_block_joins_its_cells_and_a_forced_gap_splits() {
        // Clue 1 on ? ? . ? ?: the block is left or right of the white cell; the state at
        // the white cell's boundaries says which, so the line does not split there.
        let m = machine(&[1]);
        let mut analysis = Analysis::default();
        assert!(analysis.run(&m, &[3, 3, 1, 3, 3]));
        assert!(!analysis.splits(2) && !analysis.splits(3));
        // Clue 1,1 on ? ? . ? ?: one block on each side: the line splits at the white cell.
        let m = machine(&[1, 1]);
        assert!(analysis.run(&m, &[3, 3, 1, 3, 3]));
        assert!(analysis.splits(2) && analysis.splits(3));
        assert!(!analysis.splits(1) && !analysis.splits(4));
        assert_eq!(analysis.live(2), &[1, 2]); // the block's last cell, or the gap after it
        assert_eq!(analysis.classes(2), &[0, 0]);
        assert!(analysis.joined(0, 1) && !analysis.joined(1, 3));
    }

    #[test]
    fn a_clue_that_cannot_fit_is_refused() {
        let m = machine(&[3]);
        let mut analysis = Analysis::default();
        assert!(!analysis.run(&m, &[3, 1, 3, 3]));
    }

    #[test]
    fn long_lines_use_several_words() {
        // 40 blocks of 1 on 80 cells: 80 states (two words); the lone filling splits everywhere.
        let m = machine(&[1; 40]);
        let mut analysis = Analysis::default();
        let domains: Vec<u128> = (0..80).map(|p| if p % 2 == 0 { 2 } else { 1 }).collect();
        assert!(analysis.run(&m, &domains));
        assert!((0..=80).all(|p| analysis.splits(p)));
        assert_eq!(analysis.live(80), &[79]);
        let free: Vec<u128> = vec![3; 81];
        assert!(analysis.run(&m, &free));
        assert_eq!(analysis.live(1).len(), 2);
    }
}
