//! The automaton CNF of a whole puzzle (encodings/automaton-cnf.md), the formula every
//! certificate is about. Written here, not only in Python, because a certificate's maker and
//! its checker both build it from the clues, and the Python encoder (satnono/encode/cnf.py, the
//! reference this one is held to clause for clause) took 0.9 s on the survey's larger
//! puzzles where this takes milliseconds.
//!
//! Same variables, same clauses, same order as `encode_puzzle(..., encoding="automaton")` on
//! the puzzle's initial domains, then exported as DIMACS exports them: repeated literals
//! dropped, tautologies left out.

use std::time::Instant;

use crate::automaton::Automaton;
use crate::clue::Puzzle;

/// Variable 1 is the constant true (a unit clause pins it), so constants fold like literals.
pub(crate) const TRUE: i32 = 1;
pub(crate) const FALSE: i32 = -1;

/// A formula, its clauses in one arena (clause i is `literals[ends[i - 1]..ends[i]]`): 307,000
/// clauses made one by one cost more than the encoding itself. The whole puzzle's is exported
/// as DIMACS gets it; a residual's blocks formula (`blocks_cnf`) keeps its clauses as made.
pub struct Formula {
    pub variables: i32,
    /// Every clause's literals, one after the other.
    pub literals: Vec<i32>,
    /// Where each clause ends in `literals`.
    pub ends: Vec<usize>,
    /// For every undecided cell of an encoded line: (cell, [(color, literal)]).
    pub cell_literals: Vec<(usize, Vec<(u8, i32)>)>,
}

impl Formula {
    /// The clauses, one by one.
    pub fn clauses(&self) -> impl Iterator<Item = &[i32]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.literals[start..end])
    }

    /// The clause lines of the DIMACS text (no header, no `p cnf` line).
    pub fn dimacs_body(&self) -> String {
        let mut text = String::with_capacity(self.literals.len() * 7 + self.ends.len() * 2);
        for clause in self.clauses() {
            for &literal in clause {
                push_number(&mut text, literal);
                text.push(' ');
            }
            text.push_str("0\n");
        }
        text
    }
}

/// `number` in decimal at the end of `text` (the `write!` machinery took a third of the
/// time of writing a formula).
fn push_number(text: &mut String, number: i32) {
    if number < 0 {
        text.push('-');
    }
    let mut digits = [0u8; 10];
    let mut value = number.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        text.push(char::from(digit));
    }
}

/// Why `whole_puzzle` stopped before the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    Timeout,
    /// Past this many clauses (a random 400x400 puzzle's formula has 97 million: 2.4 GB of
    /// text, more than a certificate can be made of on most machines).
    TooLarge(usize),
}

/// The formula of `puzzle` from its initial domains (each cell: the colors both its lines
/// use); stopped when `deadline` passes or past `max_clauses` (looked at after each line).
pub fn whole_puzzle(
    puzzle: &Puzzle,
    deadline: Option<Instant>,
    max_clauses: usize,
) -> Result<Formula, Stopped> {
    let domains = puzzle.initial_domains();
    let mut builder = Builder::new(puzzle.cells());
    let unfinished = unfinished(puzzle, &domains, 0..puzzle.lines());
    let cells = cells_of(puzzle, &unfinished);
    builder.encode_cells(&domains, &cells);
    for &line in &unfinished {
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            return Err(Stopped::Timeout);
        }
        if builder.ends.len() > max_clauses {
            return Err(Stopped::TooLarge(max_clauses));
        }
        let automaton = Automaton::new(&puzzle.clues[line]);
        let line_cells: Vec<usize> = puzzle.line_cells(line).collect();
        builder.encode_line(&automaton, &line_cells, &domains);
    }
    if builder.ends.len() > max_clauses {
        return Err(Stopped::TooLarge(max_clauses));
    }
    Ok(builder.finish())
}

/// The lines of `scope` to encode: every line with an undecided cell, and every decided line
/// that does not fit its clue (its empty clause): a row `1` crossing a column `0`, colors
/// that cannot meet.
pub(crate) fn unfinished(
    puzzle: &Puzzle,
    domains: &[u128],
    scope: impl Iterator<Item = usize>,
) -> Vec<usize> {
    scope
        .filter(|&line| {
            let states: Vec<u128> = puzzle.line_cells(line).map(|cell| domains[cell]).collect();
            !states.iter().all(|&domain| single(domain))
                || Automaton::new(&puzzle.clues[line])
                    .live_states(&states)
                    .is_none()
        })
        .collect()
}

/// The cells of `lines`, in order, each once.
pub(crate) fn cells_of(puzzle: &Puzzle, lines: &[usize]) -> Vec<usize> {
    let mut cells: Vec<usize> = lines
        .iter()
        .flat_map(|&line| puzzle.line_cells(line))
        .collect();
    cells.sort_unstable();
    cells.dedup();
    cells
}

pub(crate) fn single(domain: u128) -> bool {
    domain & domain.wrapping_sub(1) == 0
}

fn colors_of(domain: u128) -> Vec<u8> {
    (0..128u8).filter(|&c| domain >> c & 1 == 1).collect()
}

/// The formula being built, as satnono.encode.cnf.CnfFormula builds it.
pub(crate) struct Builder {
    pub(crate) variables: i32,
    pub(crate) literals: Vec<i32>,
    pub(crate) ends: Vec<usize>,
    /// cell -> [(color, literal)], for cells with several colors.
    pub(crate) literals_of_cells: Vec<Vec<(u8, i32)>>,
}

impl Builder {
    pub(crate) fn new(cells: usize) -> Self {
        Self {
            variables: 1,
            literals: vec![TRUE],
            ends: vec![1],
            literals_of_cells: vec![Vec::new(); cells],
        }
    }

    pub(crate) fn new_variable(&mut self) -> i32 {
        self.variables += 1;
        self.variables
    }

    /// Add a clause, folding the constants TRUE and FALSE away; false when it is true.
    pub(crate) fn add(&mut self, clause: &[i32]) -> bool {
        if clause.contains(&TRUE) {
            return false;
        }
        let start = self.literals.len();
        if clause.contains(&FALSE) {
            self.literals
                .extend(clause.iter().copied().filter(|&literal| literal != FALSE));
            if self.literals.len() == start {
                self.literals.push(FALSE);
            }
        } else {
            self.literals.extend_from_slice(clause);
        }
        self.ends.push(self.literals.len());
        true
    }

    /// Add a clause as it is (no constant in it).
    fn push(&mut self, clause: &[i32]) {
        self.literals.extend_from_slice(clause);
        self.ends.push(self.literals.len());
    }

    /// A literal for a AND b (a new variable only when neither is constant).
    fn conjunction(&mut self, a: i32, b: i32) -> i32 {
        if a == TRUE {
            return b;
        }
        if b == TRUE {
            return a;
        }
        if a == FALSE || b == FALSE {
            return FALSE;
        }
        let t = self.new_variable();
        self.push(&[-t, a]);
        self.push(&[-t, b]);
        self.push(&[t, -a, -b]);
        t
    }

    pub(crate) fn color_literal(&self, cell: usize, domain: u128, color: u8) -> i32 {
        if single(domain) {
            return if domain == 1 << color { TRUE } else { FALSE };
        }
        self.literals_of_cells[cell]
            .iter()
            .find(|&&(option, _)| option == color)
            .map_or(FALSE, |&(_, literal)| literal)
    }

    pub(crate) fn encode_cells(&mut self, domains: &[u128], cells: &[usize]) {
        for &cell in cells {
            let domain = domains[cell];
            if single(domain) {
                continue;
            }
            if domain.count_ones() == 2 {
                // The lowest color and the highest, without a list of them: a large grid has
                // a million such cells (a 1000x1000's took half a second).
                let (low, high) = (domain.trailing_zeros(), 127 - domain.leading_zeros());
                let v = self.new_variable();
                self.literals_of_cells[cell] = vec![(low as u8, -v), (high as u8, v)];
                continue;
            }
            let colors = colors_of(domain);
            let literals: Vec<i32> = colors.iter().map(|_| self.new_variable()).collect();
            self.literals_of_cells[cell] = colors
                .iter()
                .copied()
                .zip(literals.iter().copied())
                .collect();
            self.add(&literals);
            for (i, &a) in literals.iter().enumerate() {
                for &b in &literals[i + 1..] {
                    self.add(&[-a, -b]);
                }
            }
        }
    }

    /// Unroll the clue's automaton over one line (satnono.encode.cnf.encode_line_automaton, with
    /// its `redundant` families: unit propagation on them is line logic).
    fn encode_line(&mut self, automaton: &Automaton, cells: &[usize], domains: &[u128]) {
        let line: Vec<u128> = cells.iter().map(|&cell| domains[cell]).collect();
        let Some(live) = automaton.live_states(&line) else {
            self.add(&[FALSE]);
            return;
        };
        let plain = automaton.plain();
        let last = automaton.entry.len() - 1;
        let states = automaton.entry.len();
        // (state, literal) of every live state at the current boundary, in insertion order.
        let mut current: Vec<(usize, i32)> = vec![(live[0][0], TRUE)];
        let mut literal_of = vec![0i32; states];
        // Per state: its ways out at this cell, and its slot in `incoming` / `outgoing`;
        // `stamp` tells this cell's entries from older ones without clearing.
        let mut ways_out = vec![(usize::MAX, 0usize); states];
        let mut slot_in = vec![(usize::MAX, 0usize); states];
        let mut slot_out = vec![(usize::MAX, 0usize); states];
        let mut moves = Vec::new();
        for (j, &cell) in cells.iter().enumerate() {
            let stamp = j;
            let domain = line[j];
            let colors = colors_of(domain);
            let undecided = colors.len() > 1;
            let after = &live[j + 1];
            let lives = |state: usize| after.binary_search(&state).is_ok();
            let mut transitions: Vec<(usize, u8, usize)> = Vec::new();
            for &(q, literal) in &current {
                literal_of[q] = literal;
                if plain {
                    for &color in &colors {
                        if q < last && automaton.entry[q + 1] == color && lives(q + 1) {
                            transitions.push((q, color, q + 1));
                        } else if color == 0 && automaton.loops[q] && lives(q) {
                            transitions.push((q, color, q));
                        }
                    }
                } else {
                    automaton.transitions(q, &mut moves);
                    transitions.extend(
                        moves
                            .iter()
                            .filter(|&&(color, target)| domain >> color & 1 == 1 && lives(target))
                            .map(|&(color, target)| (q, color, target)),
                    );
                }
            }
            for &(q, _, _) in &transitions {
                let count = &mut ways_out[q];
                *count = if count.0 == stamp {
                    (stamp, count.1 + 1)
                } else {
                    (stamp, 1)
                };
            }
            let single_after = after.len() <= 1;
            // Keyed lists in first-insertion order, as Python's dicts keep them.
            let mut incoming: Vec<(usize, Vec<i32>)> = Vec::new();
            let mut outgoing: Vec<(usize, Vec<i32>)> = Vec::new();
            let mut supports: Vec<Vec<i32>> = vec![Vec::new(); colors.len()];
            for &(q, color, target) in &transitions {
                let source = literal_of[q];
                let x = if undecided {
                    self.color_literal(cell, domain, color)
                } else {
                    TRUE
                };
                let transition = if ways_out[q].1 == 1 {
                    if undecided {
                        self.add(&[-source, x]);
                    }
                    source
                } else {
                    self.conjunction(source, x)
                };
                if let Some(at) = colors.iter().position(|&c| c == color) {
                    supports[at].push(transition);
                }
                push_keyed(&mut outgoing, &mut slot_out[q], stamp, q, transition);
                push_keyed(
                    &mut incoming,
                    &mut slot_in[target],
                    stamp,
                    target,
                    transition,
                );
            }
            let mut following = Vec::with_capacity(incoming.len());
            for (target, into) in incoming {
                let state = if single_after {
                    self.add(&into);
                    TRUE
                } else if into.len() == 1 {
                    into[0]
                } else {
                    let state = self.new_variable();
                    for &transition in &into {
                        self.add(&[-transition, state]);
                    }
                    let mut support = vec![-state];
                    support.extend(into);
                    self.add(&support);
                    state
                };
                following.push((target, state));
            }
            for (q, out) in outgoing {
                if out.len() > 1 {
                    let mut continues = vec![-literal_of[q]];
                    continues.extend(out);
                    self.add(&continues);
                }
            }
            if undecided {
                for (at, &color) in colors.iter().enumerate() {
                    let x = self.color_literal(cell, domain, color);
                    let mut support = vec![-x];
                    support.extend(supports[at].iter().copied());
                    self.add(&support);
                }
            }
            current = following;
        }
        if current.len() > 1 {
            let last: Vec<i32> = current.iter().map(|&(_, literal)| literal).collect();
            self.add(&last);
        }
    }

    /// The formula, exported: repeated literals dropped, tautologies left out.
    fn finish(self) -> Formula {
        let mut literals = Vec::with_capacity(self.literals.len());
        let mut ends = Vec::with_capacity(self.ends.len());
        let mut start = 0;
        for &end in &self.ends {
            let kept = literals.len();
            let mut tautology = false;
            for &literal in &self.literals[start..end] {
                let so_far = &literals[kept..];
                if so_far.contains(&-literal) {
                    tautology = true;
                    break;
                }
                if !so_far.contains(&literal) {
                    literals.push(literal);
                }
            }
            if tautology {
                literals.truncate(kept);
            } else {
                ends.push(literals.len());
            }
            start = end;
        }
        let cell_literals = self
            .literals_of_cells
            .into_iter()
            .enumerate()
            .filter(|(_, options)| !options.is_empty())
            .collect();
        Formula {
            variables: self.variables,
            literals,
            ends,
            cell_literals,
        }
    }
}

/// Append `value` to the list of `key` in `lists` (made at the end on the key's first value
/// at this `stamp`; `slot` remembers where).
fn push_keyed(
    lists: &mut Vec<(usize, Vec<i32>)>,
    slot: &mut (usize, usize),
    stamp: usize,
    key: usize,
    value: i32,
) {
    if slot.0 == stamp {
        lists[slot.1].1.push(value);
    } else {
        *slot = (stamp, lists.len());
        lists.push((key, vec![value]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clue::tests::black_and_white as puzzle;

    #[test]
    fn a_one_cell_puzzle_is_its_cell() {
        let formula = whole_puzzle(&puzzle(&[&[1]], &[&[1]]), None, 100).unwrap();
        // One cell variable (2), the unit clause of TRUE, and each line saying the cell is
        // painted (TRUE is its only source state, so the cell is forced).
        assert_eq!(formula.variables, 2);
        let clauses: Vec<&[i32]> = formula.clauses().collect();
        assert_eq!(clauses[0], &[1]);
        assert!(clauses.contains(&&[2][..]));
        assert_eq!(formula.cell_literals, vec![(0, vec![(0, -2), (1, 2)])]);
    }

    #[test]
    fn a_clue_that_cannot_fit_is_the_empty_clause() {
        let formula = whole_puzzle(&puzzle(&[&[3]], &[&[1], &[1]]), None, 100).unwrap();
        assert!(formula.clauses().any(|clause| clause == [FALSE]));
    }

    #[test]
    fn a_decided_line_that_does_not_fit_is_the_empty_clause() {
        // Found by an audit: a row `1` crossing a column `0` left its only cell decided (the
        // column uses no color), the row was skipped, and the CNF was satisfiable.
        let formula = whole_puzzle(&puzzle(&[&[1]], &[&[]]), None, 100).unwrap();
        assert!(formula.clauses().any(|clause| clause == [FALSE]));
    }

    #[test]
    fn the_body_is_dimacs() {
        let formula = whole_puzzle(&puzzle(&[&[1]], &[&[1]]), None, 100).unwrap();
        assert!(formula.dimacs_body().starts_with("1 0\n"));
    }

    #[test]
    fn a_passed_deadline_stops_it() {
        let past = Instant::now();
        let stopped = whole_puzzle(&puzzle(&[&[1]], &[&[1]]), Some(past), 100).err();
        assert_eq!(stopped, Some(Stopped::Timeout));
    }

    #[test]
    fn past_its_clause_limit_it_stops() {
        let stopped = whole_puzzle(&puzzle(&[&[1]], &[&[1]]), None, 2).err();
        assert_eq!(stopped, Some(Stopped::TooLarge(2)));
    }
}
