//! The lookahead split of a residual into cubes, for the cubes backend and counting by cubes
//! (satnono/backends/lookahead.py is its one user): the cell whose colors, each tried and
//! propagated, decide the most cells in all branches (the product of the cells decided plus
//! one, as march does) splits the cube with the most undecided cells, until there are enough
//! cubes. A color that leads to a contradiction is a failed literal: the cell keeps its other
//! colors in that cube, for free. The cubes partition the solutions. Each trial propagates
//! from the cell's two lines on the board's trail and is undone: no copy of the grid.

use std::cmp::Reverse;
use std::time::Instant;

use crate::clue::Puzzle;
use crate::engine::Start;
use crate::propagate::{past, Board, Outcome};

/// A part of the search space: the colors decided on the way down (cell, color as a bitmask)
/// and every cell's domain under them, after line logic.
pub struct Cube {
    pub decisions: Vec<(usize, u128)>,
    pub domains: Vec<u128>,
}

/// What a split came to: the cubes (none when line logic refuted every branch) and the
/// failed literals found; None when the deadline passed first.
pub type Split = Option<(Vec<Cube>, u64)>;

/// At least `count` cubes of `domains` (at line logic's fixpoint) over the `scope` lines (all
/// when empty), fewer when the space is smaller; `candidates` cells tried at each split.
pub fn split<const W: usize>(
    puzzle: &Puzzle,
    start: Start<'_>,
    count: usize,
    candidates: usize,
) -> Split {
    let Start {
        domains,
        scope,
        deadline,
    } = start;
    let Ok(mut board) = Board::<W>::new(puzzle, domains) else {
        return Some((Vec::new(), 0));
    };
    let cells = board.set_scope(puzzle, scope);
    let open = |cube: Cube| {
        (
            cells
                .iter()
                .filter(|&&c| open_domain(cube.domains[c]))
                .count(),
            cube,
        )
    };
    // Each cube with its undecided cells, counted once when it is made.
    let mut cubes = vec![open(Cube {
        decisions: Vec::new(),
        domains: domains.to_vec(),
    })];
    let mut failed = 0;
    while cubes.len() < count {
        // The cube with the most undecided cells is split next: likely the hardest.
        cubes.sort_by_key(|(undecided, _)| *undecided);
        let Some((undecided, cube)) = cubes.pop() else {
            break;
        };
        if undecided == 0 {
            cubes.push((undecided, cube));
            break;
        }
        let (children, found) =
            split_cube::<W>(puzzle, &cube, &cells, scope, candidates, deadline)?;
        failed += found;
        cubes.extend(children.into_iter().map(open));
        if cubes.is_empty() {
            break;
        }
    }
    // The most open cubes first: they take longest (longest processing time first).
    cubes.sort_by_key(|(undecided, _)| Reverse(*undecided));
    let cubes = cubes.into_iter().map(|(_, cube)| cube).collect();
    Some((cubes, failed))
}

fn open_domain(domain: u128) -> bool {
    domain & domain.wrapping_sub(1) != 0
}

/// The cube's children on its best lookahead cell, after its failed literals are set; None
/// when the deadline passed.
fn split_cube<const W: usize>(
    puzzle: &Puzzle,
    cube: &Cube,
    cells: &[usize],
    scope: &[usize],
    candidates: usize,
    deadline: Option<Instant>,
) -> Option<(Vec<Cube>, u64)> {
    let Ok(mut board) = Board::<W>::new(puzzle, &cube.domains) else {
        return Some((Vec::new(), 0));
    };
    board.set_scope(puzzle, scope);
    board.propagator.clear_queue(); // the cube's domains are at their fixpoint
    let mut decisions = cube.decisions.clone();
    let mut failed = 0;
    'restart: loop {
        // Looked at before each round as well: a round's trials each solve a few lines, fewer
        // than the propagation looks at the clock after, and on a 1000x1000 grid the rounds
        // after failed literals ran a split 10 s past a 3 s deadline.
        if past(deadline) {
            return None;
        }
        let mut best: Option<(f64, usize, Vec<u128>)> = None;
        for cell in candidate_cells(puzzle, &board, cells, candidates) {
            let domain = board.grid.domain(puzzle, cell);
            let (mut branches, mut fixed) = (Vec::new(), Vec::new());
            for color in (0..128)
                .map(|bit| 1u128 << bit)
                .filter(|bit| domain & bit != 0)
            {
                match trial(puzzle, &mut board, cell, color, deadline)? {
                    Some(decided) => {
                        branches.push(color);
                        fixed.push(decided);
                    }
                    None => failed += 1,
                }
            }
            match branches.len() {
                0 => return Some((Vec::new(), failed)), // every color fails: no solution here
                1 => {
                    // A failed literal: the cell has its one color left, for good.
                    decisions.push((cell, branches[0]));
                    board.assign(puzzle, cell, branches[0]);
                    match board.propagate(puzzle, deadline) {
                        Outcome::Fixpoint => continue 'restart,
                        Outcome::Conflict(_) => return Some((Vec::new(), failed)),
                        Outcome::Timeout => return None,
                    }
                }
                _ => {}
            }
            let score: f64 = fixed.iter().map(|&n| n as f64 + 1.0).product();
            if best.as_ref().is_none_or(|(top, _, _)| score > *top) {
                best = Some((score, cell, branches));
            }
        }
        let Some((_, cell, branches)) = best else {
            // Every cell of the scope is decided.
            let domains = board.grid.domains(puzzle);
            return Some((vec![Cube { decisions, domains }], failed));
        };
        let children = board
            .children(puzzle, cell, branches, deadline)?
            .into_iter()
            .map(|(color, domains)| {
                let mut made = decisions.clone();
                made.push((cell, color));
                Cube {
                    decisions: made,
                    domains,
                }
            })
            .collect();
        return Some((children, failed));
    }
}

/// `cell` set to `color` and propagated, then undone: Some(the cells it decided, or None on a
/// contradiction), or None when the deadline passed.
fn trial<const W: usize>(
    puzzle: &Puzzle,
    board: &mut Board<W>,
    cell: usize,
    color: u128,
    deadline: Option<Instant>,
) -> Option<Option<usize>> {
    let before = board.grid.known;
    let mark = board.mark();
    board.assign(puzzle, cell, color);
    let outcome = board.propagate(puzzle, deadline);
    let decided = board.grid.known - before;
    board.propagator.clear_queue();
    board.undo(mark);
    match outcome {
        Outcome::Fixpoint => Some(Some(decided)),
        Outcome::Conflict(_) => Some(None),
        Outcome::Timeout => None,
    }
}

/// The undecided cells of the scope whose row and column have the fewest undecided cells
/// (ties in cell order), at most `candidates` of them.
fn candidate_cells<const W: usize>(
    puzzle: &Puzzle,
    board: &Board<W>,
    cells: &[usize],
    candidates: usize,
) -> Vec<usize> {
    let mut undecided_in = vec![0usize; puzzle.lines()];
    for cell in 0..puzzle.cells() {
        if !board.grid.decided(puzzle, cell) {
            let (row, column) = puzzle.lines_of(cell);
            undecided_in[row] += 1;
            undecided_in[column] += 1;
        }
    }
    let mut open: Vec<usize> = cells
        .iter()
        .copied()
        .filter(|&cell| !board.grid.decided(puzzle, cell))
        .collect();
    // The fewest first, ties in cell order: the `candidates` least picked out, then only they
    // sorted (a whole 1000x1000 grid's sorted every round took a tenth of a second).
    let key = |&cell: &usize| {
        let (row, column) = puzzle.lines_of(cell);
        (undecided_in[row] + undecided_in[column], cell)
    };
    if candidates < open.len() {
        open.select_nth_unstable_by_key(candidates, key);
        open.truncate(candidates);
    }
    open.sort_unstable_by_key(key);
    open
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::tests::random_puzzle;
    use std::time::Duration;

    #[test]
    fn a_large_split_stops_near_its_deadline() {
        // A random 300x300 at line logic's fixpoint: each round of trials solves a few lines
        // (the propagation looked at the clock after 256 in one run), and each round sorted
        // the whole grid's cells.
        let mut seed = 0x5EED_0012u64;
        let puzzle = random_puzzle(300, 300, 2, 45, false, &mut seed);
        let mut board = Board::<8>::new(&puzzle, &puzzle.initial_domains()).unwrap();
        board.set_scope(&puzzle, &[]);
        assert!(matches!(board.propagate(&puzzle, None), Outcome::Fixpoint));
        let domains = board.grid.domains(&puzzle);
        let deadline = Instant::now() + Duration::from_millis(20);
        let start = Start {
            domains: &domains,
            scope: &[],
            deadline: Some(deadline),
        };
        let split = split::<8>(&puzzle, start, 4096, 16);
        let late = Instant::now().saturating_duration_since(deadline);
        assert!(split.is_none(), "split within 20 ms");
        assert!(
            late < Duration::from_millis(100),
            "{late:?} past the deadline"
        );
    }
}
