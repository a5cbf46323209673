//! Belief propagation over the lines: for every cell, its most likely color, and for every
//! block, its most likely start; a SAT solver takes them as its first guesses (phases).
//!
//! Each line is a factor over its cells. Given, for each cell, how likely each color is by the
//! crossing line (its message), the line weighs every arrangement of its clue by the product
//! of those likelihoods (a forward-backward sum over blocks, O(k n) per line) and sends back,
//! for each cell, what it adds to that prior (the posterior divided by the prior, the
//! "extrinsic" message). Rows and columns take turns, damped by half, for a fixed number of
//! rounds. On hard puzzles these guesses are what lets a CDCL solver find a solution at once:
//! Knotty's first solution in 0.1 s instead of nothing in minutes (BENCHMARKS.md).
//!
//! One line's posterior is `line`'s job; this module passes the messages between the lines.
//! Lines with a blotted number send no message (a uniform one), and their blocks get no start.

mod line;
#[cfg(test)]
mod tests;

use crate::clue::{Block, Puzzle};
use line::{line_posterior, Scratch};

/// The guesses belief propagation ends on.
pub struct Estimate {
    /// Per cell: its most likely color.
    pub colors: Vec<u8>,
    /// Per line, per block: the first start position by which the block has started with
    /// probability at least one half (empty for a line with a blotted number or none).
    pub starts: Vec<Vec<u32>>,
    /// Per cell: how likely its most likely color is (1 for a decided cell).
    pub confidence: Vec<f64>,
}

/// Belief propagation for `rounds` rounds from `domains` (one color bitmask per cell).
pub fn estimate(puzzle: &Puzzle, domains: &[u128], rounds: usize) -> Estimate {
    let colors = puzzle.colors;
    let cells = puzzle.cells();
    // messages[line kind][cell * colors + color]: rows' and columns' beliefs, as probabilities.
    let uniform = |cell: usize| -> Vec<f64> {
        let domain = domains[cell];
        let count = domain.count_ones().max(1) as f64;
        (0..colors)
            .map(|c| {
                if domain >> c & 1 == 1 {
                    1.0 / count
                } else {
                    0.0
                }
            })
            .collect()
    };
    let mut from_rows: Vec<f64> = (0..cells).flat_map(uniform).collect();
    let mut from_columns = from_rows.clone();
    let usable: Vec<bool> = puzzle
        .clues
        .iter()
        .enumerate()
        .map(|(line, clue)| {
            !clue.iter().any(Block::blotted)
                && (0..puzzle.length(line)).any(|p| {
                    let domain = domains[puzzle.cell(line, p)];
                    domain & (domain - 1) != 0
                })
        })
        .collect();
    let mut weights = Vec::new();
    let mut scratch = Scratch::default();
    let mut message = vec![0.0; colors];
    let mut line_pass =
        |line: usize, into_rows: bool, from_rows: &mut Vec<f64>, from_columns: &mut Vec<f64>| {
            let n = puzzle.length(line);
            let (out, prior) = if into_rows {
                (from_rows, &*from_columns)
            } else {
                (from_columns, &*from_rows)
            };
            weights.clear();
            for p in 0..n {
                let cell = puzzle.cell(line, p);
                for c in 0..colors {
                    let value = prior[cell * colors + c];
                    weights.push(value.max(0.0));
                }
            }
            if !line_posterior(n, colors, &weights, &puzzle.clues[line], &mut scratch, None) {
                return;
            }
            let posterior = &scratch.posterior;
            for p in 0..n {
                let cell = puzzle.cell(line, p);
                message.fill(0.0);
                let mut sum = 0.0;
                for c in 0..colors {
                    let before = prior[cell * colors + c];
                    if before > 0.0 {
                        let after = posterior[p * colors + c].clamp(1e-9, 1.0);
                        message[c] = after / before.max(1e-12);
                        sum += message[c];
                    }
                }
                if sum <= 0.0 || !sum.is_finite() {
                    continue;
                }
                for (c, value) in message.iter().enumerate() {
                    if prior[cell * colors + c] > 0.0 {
                        let fresh = (value / sum).clamp(1e-6, 1.0 - 1e-6);
                        let old = &mut out[cell * colors + c];
                        *old = 0.5 * *old + 0.5 * fresh;
                    }
                }
            }
        };
    for _ in 0..rounds {
        // Rows, then columns: each pass reads the other's latest messages.
        for (line, &use_it) in usable.iter().enumerate() {
            if use_it {
                line_pass(line, puzzle.is_row(line), &mut from_rows, &mut from_columns);
            }
        }
    }
    let belief =
        |cell: usize, c: usize| from_rows[cell * colors + c] * from_columns[cell * colors + c];
    let best: Vec<u8> = (0..cells)
        .map(|cell| {
            let domain = domains[cell];
            (0..colors)
                .filter(|&c| domain >> c & 1 == 1)
                .max_by(|&a, &b| belief(cell, a).total_cmp(&belief(cell, b)))
                .unwrap_or(0) as u8
        })
        .collect();
    let confidence = (0..cells)
        .map(|cell| {
            let domain = domains[cell];
            let total: f64 = (0..colors)
                .filter(|&c| domain >> c & 1 == 1)
                .map(|c| belief(cell, c))
                .sum();
            if domain & (domain.wrapping_sub(1)) == 0 {
                1.0
            } else if total > 0.0 && total.is_finite() {
                belief(cell, usize::from(best[cell])) / total
            } else {
                0.0
            }
        })
        .collect();
    // Each block's median start, weighed by what the crossing lines believe.
    let starts = (0..puzzle.lines())
        .map(|line| {
            if !usable[line] {
                return Vec::new();
            }
            let n = puzzle.length(line);
            let prior = if puzzle.is_row(line) {
                &from_columns
            } else {
                &from_rows
            };
            let weights: Vec<f64> = (0..n)
                .flat_map(|p| {
                    let cell = puzzle.cell(line, p);
                    (0..colors).map(move |c| prior[cell * colors + c])
                })
                .map(|value: f64| value.max(0.0))
                .collect();
            let mut starts = Vec::new();
            if !line_posterior(
                n,
                colors,
                &weights,
                &puzzle.clues[line],
                &mut scratch,
                Some(&mut starts),
            ) {
                return Vec::new();
            }
            starts
                .iter()
                .map(|distribution| {
                    let mut sum = 0.0;
                    let mut median = n.saturating_sub(1) as u32;
                    for (p, share) in distribution.iter().enumerate() {
                        sum += share;
                        if sum >= 0.5 {
                            median = p as u32;
                            break;
                        }
                    }
                    median
                })
                .collect()
        })
        .collect();
    Estimate {
        colors: best,
        starts,
        confidence,
    }
}
