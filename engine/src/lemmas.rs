//! Probing that writes down why, for certificates: the lemmas that let unit propagation on the
//! automaton CNF (`cnf`) reach what line logic and probing decide, as DRUP proofs state them.
//!
//! Unit propagation on that CNF is line logic (encodings/automaton-cnf.md), so nothing line
//! logic finds needs a lemma. Probing does: a color whose branch fails is the lemma "the cell
//! does not have it" (its negation propagates to a conflict); what every fitting branch of a
//! cell rules out in another cell takes one lemma per branch ("this color there rules that
//! color out here") and then the unit. Made so, a proof of a puzzle that probing solves or
//! refutes is a few hundred lemmas where CaDiCaL, from scratch, wrote tens of thousands
//! (BENCHMARKS.md, "Certificates"). This prober is plain (every undecided cell, every pass);
//! `probe` is the fast one the solver uses, and it keeps no reasons.

use std::collections::HashMap;
use std::time::Instant;

use crate::clue::Puzzle;
use crate::propagate::{past, Board, Outcome};

/// A lemma, on cells and colors (the caller names their CNF literals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lemma {
    /// `cell` does not have `color`.
    Not { cell: usize, color: u8 },
    /// When `cell` has `color`, `other` does not have `other_color`.
    Implies {
        cell: usize,
        color: u8,
        other: usize,
        other_color: u8,
    },
}

impl Lemma {
    /// (cell, color, other cell, other color), other cell -1 for `Not`: the shape the Python
    /// surface hands the lemma over in.
    pub fn as_tuple(self) -> (u32, u32, i64, u32) {
        match self {
            Lemma::Not { cell, color } => (cell as u32, u32::from(color), -1, 0),
            Lemma::Implies {
                cell,
                color,
                other,
                other_color,
            } => (
                cell as u32,
                u32::from(color),
                other as i64,
                u32::from(other_color),
            ),
        }
    }
}

/// Where probing ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every cell decided.
    Solved,
    /// No probe decides anything more; cells are left.
    Stable,
    /// No grid fits: unit propagation on the CNF and the lemmas finds the empty clause.
    Conflict,
    Timeout,
}

impl Ending {
    pub fn name(self) -> &'static str {
        match self {
            Ending::Solved => "solved",
            Ending::Stable => "stable",
            Ending::Conflict => "conflict",
            Ending::Timeout => "timeout",
        }
    }
}

/// Line logic then probing from `domains` to the fixpoint, with the lemmas in the order a
/// proof states them, and the domains reached (empty after a conflict).
pub fn probing_lemmas<const W: usize>(
    puzzle: &Puzzle,
    domains: &[u128],
    deadline: Option<Instant>,
) -> (Ending, Vec<Lemma>, Vec<u128>) {
    let mut lemmas = Vec::new();
    let Ok(mut board) = Board::<W>::new(puzzle, domains) else {
        return (Ending::Conflict, lemmas, Vec::new());
    };
    let cells = board.set_scope(puzzle, &[]);
    match board.propagate(puzzle, deadline) {
        Outcome::Fixpoint => {}
        Outcome::Conflict(_) => return (Ending::Conflict, lemmas, Vec::new()),
        Outcome::Timeout => return (Ending::Timeout, lemmas, board.grid.domains(puzzle)),
    }
    board.trail.clear();
    loop {
        let mut changed = false;
        for &cell in &cells {
            if board.grid.decided(puzzle, cell) {
                continue;
            }
            if past(deadline) {
                return (Ending::Timeout, lemmas, board.grid.domains(puzzle));
            }
            match probe_cell(puzzle, &mut board, cell, &mut lemmas, deadline) {
                Some(Outcome::Fixpoint) => {}
                Some(Outcome::Conflict(_)) => return (Ending::Conflict, lemmas, Vec::new()),
                Some(Outcome::Timeout) => {
                    return (Ending::Timeout, lemmas, board.grid.domains(puzzle));
                }
                None => continue,
            }
            changed = true;
            board.trail.clear();
        }
        if board.grid.known == puzzle.cells() {
            return (Ending::Solved, lemmas, board.grid.domains(puzzle));
        }
        if !changed {
            return (Ending::Stable, lemmas, board.grid.domains(puzzle));
        }
    }
}

/// Probe every color of `cell`; apply and write down what that proves. None when it proves
/// nothing, else how propagating it ended.
fn probe_cell<const W: usize>(
    puzzle: &Puzzle,
    board: &mut Board<W>,
    cell: usize,
    lemmas: &mut Vec<Lemma>,
    deadline: Option<Instant>,
) -> Option<Outcome> {
    let domain = board.grid.domain(puzzle, cell);
    // Per fitting color: the domain of every cell of every row the branch changed.
    let mut fitting: Vec<(u8, Vec<(usize, u128)>)> = Vec::new();
    let mut failed = false;
    for color in (0..128u8).filter(|&c| domain >> c & 1 == 1) {
        let mark = board.mark();
        board.assign(puzzle, cell, 1 << color);
        match board.propagate(puzzle, deadline) {
            Outcome::Fixpoint => {
                let mut changes = Vec::new();
                for &line in board.trail.lines_since(mark) {
                    let line = line as usize;
                    if puzzle.is_row(line) {
                        for x in 0..puzzle.width {
                            let changed = puzzle.cell(line, x);
                            changes.push((changed, board.grid.domain(puzzle, changed)));
                        }
                    }
                }
                fitting.push((color, changes));
            }
            Outcome::Conflict(_) => {
                lemmas.push(Lemma::Not { cell, color });
                failed = true;
            }
            Outcome::Timeout => {
                board.undo(mark);
                return Some(Outcome::Timeout);
            }
        }
        board.undo(mark);
    }
    if fitting.is_empty() {
        return Some(Outcome::Conflict(usize::MAX)); // every color fails: no line to name
    }
    // What every fitting branch rules out in another cell.
    let mut unions: HashMap<usize, (u128, usize)> = HashMap::new();
    for (_, changes) in &fitting {
        for &(other, narrowed) in changes {
            let entry = unions.entry(other).or_insert((0, 0));
            entry.0 |= narrowed;
            entry.1 += 1;
        }
    }
    // (other cell, the union of its branches' domains, the colors that union rules out)
    let mut agreed: Vec<(usize, u128, u128)> = unions
        .into_iter()
        .filter(|&(other, (_, count))| other != cell && count == fitting.len())
        .map(|(other, (union, _))| (other, union, board.grid.domain(puzzle, other) & !union))
        .filter(|&(_, _, ruled_out)| ruled_out != 0)
        .collect();
    agreed.sort_unstable();
    if !failed && agreed.is_empty() {
        return None;
    }
    for &(other, _, ruled_out) in &agreed {
        for other_color in (0..128u8).filter(|&c| ruled_out >> c & 1 == 1) {
            for &(color, _) in &fitting {
                lemmas.push(Lemma::Implies {
                    cell,
                    color,
                    other,
                    other_color,
                });
            }
            lemmas.push(Lemma::Not {
                cell: other,
                color: other_color,
            });
        }
    }
    let fits = fitting
        .iter()
        .fold(0u128, |mask, &(color, _)| mask | 1 << color);
    board.assign(puzzle, cell, fits);
    for &(other, union, _) in &agreed {
        board.assign(puzzle, other, union);
    }
    Some(board.propagate(puzzle, deadline))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clue::tests::black_and_white as puzzle;

    #[test]
    fn line_logic_alone_needs_no_lemma() {
        let solved = puzzle(&[&[2], &[1]], &[&[2], &[1]]);
        let (ending, lemmas, domains) = probing_lemmas::<1>(&solved, &[3; 4], None);
        assert_eq!((ending, lemmas.len()), (Ending::Solved, 0));
        assert_eq!(domains, vec![2, 2, 2, 1]);
    }

    #[test]
    fn two_solutions_leave_probing_stable() {
        // The two diagonals: no probe decides anything.
        let diagonal = puzzle(&[&[1], &[1]], &[&[1], &[1]]);
        let (ending, lemmas, _) = probing_lemmas::<1>(&diagonal, &[3; 4], None);
        assert_eq!((ending, lemmas.len()), (Ending::Stable, 0));
    }

    #[test]
    fn a_passed_deadline_is_a_timeout() {
        let diagonal = puzzle(&[&[1], &[1]], &[&[1], &[1]]);
        let (ending, _, _) = probing_lemmas::<1>(&diagonal, &[3; 4], Some(Instant::now()));
        assert_eq!(ending, Ending::Timeout);
    }
}
