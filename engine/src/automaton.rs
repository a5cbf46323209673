//! The regular language of one clue as a small deterministic automaton over palette colors,
//! as satnono/encode/automaton.py defines it (that module's docstring says why it has this shape),
//! and the states on some accepted path at every boundary of a line: what the certificates'
//! CNF (`cnf`) unrolls. The engine's line solver (`line`) needs no automaton.

use crate::clue::Block;

/// The automaton of one clue, as satnono/encode/automaton.py builds it: state q >= 1 is entered by
/// `entry[q]`; `loops`: loops on the background; `color_loops`: a blotted block's state
/// loops on its color; `skips`: q may advance to q + 2; `accepting`: the accepting states.
pub struct Automaton {
    pub entry: Vec<u8>,
    pub loops: Vec<bool>,
    pub color_loops: Vec<bool>,
    pub skips: Vec<bool>,
    pub accepting: Vec<bool>,
}

impl Automaton {
    pub fn new(clue: &[Block]) -> Self {
        let mut automaton = Self {
            entry: vec![0],    // entry[0] is never read
            loops: vec![true], // leading background on the start state
            color_loops: vec![false],
            skips: vec![false],
            accepting: Vec::new(),
        };
        for (i, block) in clue.iter().enumerate() {
            if i > 0 {
                let previous = clue[i - 1];
                let last = automaton.entry.len() - 1;
                if previous.color == block.color {
                    automaton.push(0, true, false); // the mandatory gap cell, which loops
                } else if previous.blotted() {
                    // A gap state of its own, which the block's state may also skip.
                    automaton.skips[last] = true;
                    automaton.push(0, true, false);
                } else {
                    automaton.loops[last] = true; // optional gap: the block's end loops
                }
            }
            if block.blotted() {
                automaton.push(block.color, false, true);
            } else {
                for _ in 0..block.length {
                    automaton.push(block.color, false, false);
                }
            }
        }
        if clue.last().is_some_and(Block::blotted) {
            automaton.push(0, true, false); // the trailing gap, its own state
            let states = automaton.entry.len();
            automaton.accepting = vec![false; states];
            automaton.accepting[states - 2] = true; // the block's state and the gap's
            automaton.accepting[states - 1] = true;
        } else {
            let states = automaton.entry.len();
            if !clue.is_empty() {
                automaton.loops[states - 1] = true; // trailing background
            }
            automaton.accepting = vec![false; states];
            automaton.accepting[states - 1] = true;
        }
        automaton
    }

    fn push(&mut self, color: u8, looping: bool, color_looping: bool) {
        self.entry.push(color);
        self.loops.push(looping);
        self.color_loops.push(color_looping);
        self.skips.push(false);
    }

    pub fn plain(&self) -> bool {
        !self.color_loops.iter().any(|&l| l) && !self.skips.iter().any(|&s| s)
    }

    /// Every (color, next state) out of `state`, in satnono/encode/automaton.py's order.
    pub fn transitions(&self, state: usize, out: &mut Vec<(u8, usize)>) {
        out.clear();
        let last = self.entry.len() - 1;
        if state < last {
            out.push((self.entry[state + 1], state + 1));
        }
        if self.skips[state] && state + 2 <= last {
            out.push((self.entry[state + 2], state + 2));
        }
        if self.loops[state] {
            out.push((0, state));
        }
        if self.color_loops[state] {
            out.push((self.entry[state], state));
        }
    }

    /// The states from which `state` is entered on a cell of `domain`.
    fn predecessors(&self, state: usize, domain: u128, out: &mut Vec<usize>) {
        let entered = state >= 1 && domain >> self.entry[state] & 1 == 1;
        if entered {
            out.push(state - 1);
            if state >= 2 && self.skips[state - 2] {
                out.push(state - 2);
            }
        }
        if (self.loops[state] && domain & 1 == 1) || (self.color_loops[state] && entered) {
            out.push(state);
        }
    }

    /// The states on some accepted path at each boundary (sorted), or None when none is:
    /// reachable from the start (forward) and reaching an accepting state (backward).
    pub fn live_states(&self, line: &[u128]) -> Option<Vec<Vec<usize>>> {
        let mut moves = Vec::new();
        let n = line.len();
        let mut reached = vec![vec![0usize]];
        for &domain in line {
            let mut next = Vec::new();
            for &q in reached.last().into_iter().flatten() {
                self.transitions(q, &mut moves);
                next.extend(
                    moves
                        .iter()
                        .filter(|&&(color, _)| domain >> color & 1 == 1)
                        .map(|&(_, target)| target),
                );
            }
            next.sort_unstable();
            next.dedup();
            reached.push(next);
        }
        let mut after: Vec<usize> = reached[n]
            .iter()
            .copied()
            .filter(|&q| self.accepting[q])
            .collect();
        if after.is_empty() {
            return None;
        }
        let mut live = vec![Vec::new(); n + 1];
        live[n].clone_from(&after);
        for j in (0..n).rev() {
            let mut before = Vec::new();
            for &t in &after {
                self.predecessors(t, line[j], &mut before);
            }
            before.sort_unstable();
            before.dedup();
            live[j] = before
                .iter()
                .copied()
                .filter(|q| reached[j].binary_search(q).is_ok())
                .collect();
            after = before;
        }
        Some(live)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(length: u32) -> Block {
        Block { length, color: 1 }
    }

    #[test]
    fn a_one_cell_block_on_two_cells_is_live_on_both_paths() {
        let automaton = Automaton::new(&[block(1)]);
        assert!(automaton.plain());
        // White then black, or black then white: state 0 or 1 after the first cell.
        let live = automaton.live_states(&[3, 3]).unwrap();
        assert_eq!(live, vec![vec![0], vec![0, 1], vec![1]]);
        // The first cell black: only the path through state 1.
        assert_eq!(automaton.live_states(&[2, 3]).unwrap()[1], vec![1]);
    }

    #[test]
    fn a_clue_that_cannot_fit_has_no_live_state() {
        assert!(Automaton::new(&[block(3)]).live_states(&[3, 3]).is_none());
        assert!(Automaton::new(&[block(1), block(1)])
            .live_states(&[3, 3])
            .is_none());
    }

    #[test]
    fn a_blotted_block_loops_on_its_color_and_accepts_twice() {
        let automaton = Automaton::new(&[block(0)]);
        assert!(!automaton.plain());
        assert_eq!(automaton.accepting, vec![false, true, true]);
        // Any run of one cell or more: three cells all black fit, all white do not.
        assert!(automaton.live_states(&[2, 2, 2]).is_some());
        assert!(automaton.live_states(&[1, 1, 1]).is_none());
    }
}
