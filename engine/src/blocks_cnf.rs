//! The blocks CNF of a residual (encodings/blocks-cnf.md): each block's start in order
//! encoding, the formula the SAT backend hands the probed residual to CaDiCaL in. Written here
//! because the Python encoder (satnono/encode/lines.py, the reference this one is held to clause
//! for clause, in the same order, with the same variables) took a sixth of the time of every
//! hand-over on the tournament sets (30-35 ms for a 25x25 residual's 10,500 clauses); this
//! takes about 2 ms of the 5 ms the call takes with Python's lists (0.48 s for a random
//! 160x160 grid's 2.1 million clauses).
//!
//! Lines whose clue has a blotted number have no known block lengths; the Python encoder gives
//! them the automaton, so a scope holding one is left to it (`residual` says None).

use std::collections::HashMap;
use std::time::Instant;

use crate::bits::Bits;
use crate::clue::{Block, Puzzle};
use crate::cnf::{cells_of, unfinished, Builder, Formula, Stopped, FALSE, TRUE};
use crate::engine::{with_words, words_for};
use crate::line::{self, Workspace};

/// The clause families, as the Python encoder names them (its `families` counts).
const FAMILIES: [&str; 8] = [
    "cell-at-least-one",
    "cell-at-most-one",
    "line-contradiction",
    "start-order",
    "start-hole",
    "block-order",
    "cover-color",
    "gap-background",
];
const AT_LEAST_ONE: usize = 0;
const AT_MOST_ONE: usize = 1;
const CONTRADICTION: usize = 2;
const ORDER: usize = 3;
const HOLE: usize = 4;
const BLOCK_ORDER: usize = 5;
const COVER: usize = 6;
const GAP: usize = 7;

/// One line's blocks' start variables: (lo, [y(lo + 1), ..., y(hi)]) per block, y(p) meaning
/// "the block starts at p or later" (it starts at lo or later, and at hi at the latest).
pub type Starts = Vec<(usize, Vec<i32>)>;

/// A residual's formula as satnono.encode.formula.CnfFormula holds it.
pub struct BlocksCnf {
    /// The variables, the clauses in the order they were made (the first is the unit clause
    /// of TRUE) and the cells' literals.
    pub formula: Formula,
    /// For every encoded line with blocks: (line, its blocks' start variables).
    pub start_variables: Vec<(usize, Starts)>,
    /// Clauses made per family, in the order each family first appeared.
    pub families: Vec<(&'static str, usize)>,
}

/// The blocks formula of `scope`'s lines under `domains`; None when one of them has a
/// blotted number (the Python encoder takes those); stopped when `deadline` passes (looked at
/// first, for the cells' literals take a while on a large grid, and before each line).
pub fn residual(
    puzzle: &Puzzle,
    domains: &[u128],
    scope: &[usize],
    deadline: Option<Instant>,
) -> Result<Option<BlocksCnf>, Stopped> {
    if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
        return Err(Stopped::Timeout);
    }
    let lines = unfinished(puzzle, domains, scope.iter().copied());
    if lines
        .iter()
        .any(|&line| puzzle.clues[line].iter().any(Block::blotted))
    {
        return Ok(None);
    }
    let mut encoder = Encoder {
        builder: Builder::new(puzzle.cells()),
        counts: [0; FAMILIES.len()],
        first_seen: Vec::new(),
    };
    let cells = cells_of(puzzle, &lines);
    encoder.builder.encode_cells(domains, &cells);
    for &cell in &cells {
        let colors = encoder.builder.literals_of_cells[cell].len();
        if colors > 2 {
            encoder.count(AT_LEAST_ONE, 1);
            encoder.count(AT_MOST_ONE, colors * (colors - 1) / 2);
        }
    }
    let mut start_variables = Vec::new();
    for &line in &lines {
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            return Err(Stopped::Timeout);
        }
        let line_cells: Vec<usize> = puzzle.line_cells(line).collect();
        let colors = (&puzzle.line_colors[line][..], puzzle.colors);
        if let Some(starts) = encoder.line(&puzzle.clues[line], &line_cells, domains, colors) {
            start_variables.push((line, starts));
        }
    }
    let Encoder {
        mut builder,
        counts,
        first_seen,
    } = encoder;
    // The cells are distinct (`cells_of`): each one's literals are moved out once.
    let cell_literals = cells
        .into_iter()
        .filter_map(|cell| {
            let literals = std::mem::take(&mut builder.literals_of_cells[cell]);
            (!literals.is_empty()).then_some((cell, literals))
        })
        .collect();
    Ok(Some(BlocksCnf {
        formula: Formula {
            variables: builder.variables,
            literals: builder.literals,
            ends: builder.ends,
            cell_literals,
        },
        start_variables,
        families: first_seen
            .into_iter()
            .map(|family| (FAMILIES[family], counts[family]))
            .collect(),
    }))
}

/// The formula being built, with its clauses counted by family.
struct Encoder {
    builder: Builder,
    counts: [usize; FAMILIES.len()],
    first_seen: Vec<usize>,
}

impl Encoder {
    fn count(&mut self, family: usize, clauses: usize) {
        if clauses > 0 && self.counts[family] == 0 {
            self.first_seen.push(family);
        }
        self.counts[family] += clauses;
    }

    fn add(&mut self, clause: &[i32], family: usize) {
        if self.builder.add(clause) {
            self.count(family, 1);
        }
    }

    /// One line's blocks (satnono.encode.lines.encode_line_blocks): its blocks' start
    /// variables, or None when it has no block or cannot fit.
    /// `colors`: the line's colors and the puzzle's palette size.
    fn line(
        &mut self,
        clue: &[Block],
        cells: &[usize],
        domains: &[u128],
        (colors, palette): (&[u8], usize),
    ) -> Option<Starts> {
        let line: Vec<u128> = cells.iter().map(|&cell| domains[cell]).collect();
        let x = |builder: &Builder, j: usize, color: u8| -> i32 {
            builder.color_literal(cells[j], line[j], color)
        };
        let Some(starts) = block_starts(clue, &line, colors, palette) else {
            self.add(&[FALSE], CONTRADICTION);
            return None;
        };
        if clue.is_empty() {
            for j in 0..line.len() {
                let background = x(&self.builder, j, 0);
                self.add(&[background], GAP);
            }
            return None;
        }
        let bounds: Vec<(usize, usize)> = starts.iter().map(|s| (s[0], s[s.len() - 1])).collect();
        // at[i][p - lo] is y(i, p) for p in lo..=hi + 1: TRUE at lo, FALSE past hi.
        let mut at: Vec<Vec<i32>> = Vec::with_capacity(clue.len());
        for &(lo, hi) in &bounds {
            let mut variables = vec![TRUE];
            variables.extend((lo + 1..=hi).map(|_| self.builder.new_variable()));
            variables.push(FALSE);
            at.push(variables);
        }
        let y = |i: usize, p: i64| -> i32 {
            let (lo, hi) = bounds[i];
            if p <= lo as i64 {
                TRUE
            } else if p > hi as i64 {
                FALSE
            } else {
                at[i][(p - lo as i64) as usize]
            }
        };
        let n = line.len() as i64;
        for (i, block) in clue.iter().enumerate() {
            let (lo, hi) = (bounds[i].0 as i64, bounds[i].1 as i64);
            let length = i64::from(block.length);
            for p in lo + 1..hi {
                self.add(&[-y(i, p + 1), y(i, p)], ORDER);
                if starts[i].binary_search(&(p as usize)).is_err() {
                    self.add(&[-y(i, p), y(i, p + 1)], HOLE);
                }
            }
            if let Some(next) = clue.get(i + 1) {
                let distance = length + i64::from(next.color == block.color);
                for p in lo + 1..=hi {
                    self.add(&[-y(i, p), y(i + 1, p + distance)], BLOCK_ORDER);
                }
            }
            for j in lo..hi + length {
                let painted = x(&self.builder, j as usize, block.color);
                self.add(&[y(i, j + 1), -y(i, j - length + 1), painted], COVER);
            }
        }
        // Gap g lies after block g - 1 and before block g (g = 0: before the first block).
        for g in 0..=clue.len() {
            let first = if g == 0 {
                0
            } else {
                bounds[g - 1].0 as i64 + i64::from(clue[g - 1].length)
            };
            let last = if g == clue.len() {
                n - 1
            } else {
                bounds[g].1 as i64 - 1
            };
            for j in first..=last {
                let mut clause = vec![x(&self.builder, j as usize, 0)];
                if g < clue.len() {
                    clause.push(-y(g, j + 1));
                }
                if g > 0 {
                    clause.push(y(g - 1, j - i64::from(clue[g - 1].length) + 1));
                }
                self.add(&clause, GAP);
            }
        }
        let variables = bounds
            .iter()
            .zip(at)
            .map(|(&(lo, _), variables)| (lo, variables[1..variables.len() - 1].to_vec()))
            .collect();
        Some(variables)
    }
}

/// Each block's feasible start cells under the domains `line` (ascending), or None when the
/// clue cannot fit (satnono.encode.lines.block_starts): block i starts at p iff some
/// arrangement of the clue that fits the domains puts it there (`line::block_starts`, the
/// line solver's own passes; `colors`: the line's, `palette`: the puzzle's).
fn block_starts(
    clue: &[Block],
    line: &[u128],
    colors: &[u8],
    palette: usize,
) -> Option<Vec<Vec<usize>>> {
    with_words!(
        words_for(line.len()),
        starts_in_words(clue, line, colors, palette)
    )
}

fn starts_in_words<const W: usize>(
    clue: &[Block],
    line: &[u128],
    colors: &[u8],
    palette: usize,
) -> Option<Vec<Vec<usize>>> {
    let mut state = vec![Bits::<W>::zero(); palette];
    for (cell, &domain) in line.iter().enumerate() {
        for &color in colors {
            if domain >> color & 1 == 1 {
                state[usize::from(color)].set(cell);
            }
        }
    }
    let starts = line::block_starts(
        line.len(),
        clue,
        colors,
        &state,
        &mut Workspace::new(palette),
    )?;
    Some(
        starts
            .into_iter()
            .map(|bits| bits.ones().collect())
            .collect(),
    )
}

/// Probing's implications (`probe::implications`: cell, color, other cell, other color; other
/// cell `u32::MAX`: the color itself ruled out) as clauses (their literals one after the
/// other, and where each ends) over a formula's cell literals
/// (`literals`: each cell's (color, literal) pairs): "cell has color" rules out "other cell has
/// other color", a binary clause, or a unit clause when the color is ruled out itself. Those on
/// a cell or color the formula does not hold are left out. Here rather than in Python, whose
/// mapping of the tuples cost about 0.6 ms more a tournament hand-over (2,300 implications
/// each; 0.50 s against 0.32 s on 300 of taai2014's, BENCHMARKS.md round 22).
pub fn implication_clauses(
    found: &[[u32; 4]],
    literals: &[(usize, Vec<(u8, i32)>)],
) -> (Vec<i32>, Vec<usize>) {
    let literal: HashMap<(u32, u32), i32> = literals
        .iter()
        .flat_map(|(cell, options)| {
            options.iter().map(move |&(color, literal)| {
                let cell = u32::try_from(*cell).unwrap_or(u32::MAX);
                ((cell, u32::from(color)), literal)
            })
        })
        .collect();
    // One arena, as `cnf::Formula` keeps its clauses: what Python receives (`Clauses`).
    let (mut flat, mut ends) = (
        Vec::with_capacity(2 * found.len()),
        Vec::with_capacity(found.len()),
    );
    for &[cell, color, other, other_color] in found {
        let Some(&first) = literal.get(&(cell, color)) else {
            continue;
        };
        if other == u32::MAX {
            flat.push(-first);
        } else if let Some(&second) = literal.get(&(other, other_color)) {
            flat.extend([-first, -second]);
        } else {
            continue;
        }
        ends.push(flat.len());
    }
    (flat, ends)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clue::tests::black_and_white as puzzle;

    #[test]
    fn a_one_cell_puzzle_is_its_cell() {
        let one = puzzle(&[&[1]], &[&[1]]);
        let built = residual(&one, &one.initial_domains(), &[0, 1], None)
            .unwrap()
            .unwrap();
        let formula = &built.formula;
        // The cell's variable (2); each line's block starts at 0 (no start variable), covers
        // the cell (the clause "cell painted", once per line).
        assert_eq!(formula.variables, 2);
        let clauses: Vec<&[i32]> = formula.clauses().collect();
        assert_eq!(clauses, vec![&[1][..], &[2], &[2]]);
        assert_eq!(formula.cell_literals, vec![(0, vec![(0, -2), (1, 2)])]);
        assert_eq!(built.families, vec![("cover-color", 2)]);
        assert_eq!(
            built.start_variables,
            vec![(0, vec![(0, vec![])]), (1, vec![(0, vec![])])]
        );
    }

    #[test]
    fn a_clue_that_cannot_fit_is_the_empty_clause() {
        let wrong = puzzle(&[&[3]], &[&[1], &[1]]);
        let built = residual(&wrong, &wrong.initial_domains(), &[0, 1, 2], None)
            .unwrap()
            .unwrap();
        assert!(built.formula.clauses().any(|clause| clause == [FALSE]));
    }

    #[test]
    fn a_passed_deadline_stops_it() {
        let one = puzzle(&[&[1]], &[&[1]]);
        let stopped = residual(&one, &one.initial_domains(), &[0], Some(Instant::now()));
        assert!(matches!(stopped, Err(Stopped::Timeout)));
    }

    #[test]
    fn implications_become_clauses_over_the_formulas_literals() {
        let literals = vec![
            (0, vec![(0, -2), (1, 2)]),
            (3, vec![(0, 5), (1, 6), (2, 7)]),
        ];
        let found = [
            [0, 1, 3, 2],        // cell 0 black rules out cell 3 color 2
            [3, 0, u32::MAX, 0], // cell 3 color 0 ruled out itself
            [0, 0, 9, 1],        // cell 9 is not in the formula: left out
            [4, 1, 0, 0],        // nor is cell 4
            [3, 2, 0, 0],
        ];
        assert_eq!(
            implication_clauses(&found, &literals),
            (vec![-2, -7, -5, -7, 2], vec![2, 3, 5])
        );
    }
}
