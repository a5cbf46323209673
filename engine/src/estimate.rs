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
//! Sums are kept as logarithms, so that long lines cannot underflow. Lines with a blotted
//! number send no message (a uniform one), and their blocks get no start.

use crate::clue::{Block, Puzzle};

/// The guesses belief propagation ends on.
pub struct Estimate {
    /// Per cell: its most likely color.
    pub colors: Vec<u8>,
    /// Per line, per block: the first start position by which the block has started with
    /// probability at least one half (empty for a line with a blotted number or none).
    pub starts: Vec<Vec<u32>>,
}

const NEVER: f64 = f64::NEG_INFINITY;

#[inline]
fn log_add(a: f64, b: f64) -> f64 {
    if a == NEVER {
        return b;
    }
    if b == NEVER {
        return a;
    }
    let (high, low) = if a > b { (a, b) } else { (b, a) };
    high + (low - high).exp().ln_1p()
}

/// A line's arrangements, weighed: `weights[i * colors + c]` is the log-likelihood of color c
/// in cell i (NEVER when impossible).
struct LineWeights<'a> {
    n: usize,
    colors: usize,
    weights: &'a [f64],
    clue: &'a [Block],
}

/// Prefix sums along a line for one color.
struct Prefix {
    weight: Vec<f64>,
    ruled_out: Vec<u32>,
}

/// The forward sums of one direction: `background[j][i]` for cells 0..i holding blocks 0..j
/// with cell i - 1 background (or nothing yet), `ended[j][i]` with block j - 1 ending at
/// cell i - 1. Indexed [j * (n + 1) + i].
struct Sums {
    background: Vec<f64>,
    ended: Vec<f64>,
}

impl LineWeights<'_> {
    #[inline]
    fn weight(&self, cell: usize, color: usize) -> f64 {
        self.weights[cell * self.colors + color]
    }

    /// Log-weight of `block` over cells start..start + length, or NEVER.
    fn block_weight(&self, prefix: &[Prefix], block: &Block, start: usize) -> f64 {
        let length = block.length as usize;
        if start + length > self.n {
            return NEVER;
        }
        let sums = &prefix[usize::from(block.color)];
        if sums.ruled_out[start + length] != sums.ruled_out[start] {
            return NEVER;
        }
        sums.weight[start + length] - sums.weight[start]
    }

    /// Per color, prefix sums of the cells' log-weights and counts of the cells where it is
    /// ruled out.
    fn prefixes(&self) -> Vec<Prefix> {
        (0..self.colors)
            .map(|color| {
                let mut sums = Prefix {
                    weight: vec![0.0; self.n + 1],
                    ruled_out: vec![0; self.n + 1],
                };
                for cell in 0..self.n {
                    let weight = self.weight(cell, color);
                    let never = weight == NEVER;
                    sums.weight[cell + 1] = sums.weight[cell] + if never { 0.0 } else { weight };
                    sums.ruled_out[cell + 1] = sums.ruled_out[cell] + u32::from(never);
                }
                sums
            })
            .collect()
    }

    fn forward(&self, prefix: &[Prefix]) -> Sums {
        let (n, k) = (self.n, self.clue.len());
        let mut background = vec![NEVER; (k + 1) * (n + 1)];
        let mut ended = vec![NEVER; (k + 1) * (n + 1)];
        background[0] = 0.0;
        for i in 0..=n {
            for j in 0..=k {
                let (here, end) = (background[j * (n + 1) + i], ended[j * (n + 1) + i]);
                if here == NEVER && end == NEVER {
                    continue;
                }
                if i < n {
                    let step = log_add(here, end) + self.weight(i, 0);
                    let at = j * (n + 1) + i + 1;
                    background[at] = log_add(background[at], step);
                }
                if j < k {
                    let block = &self.clue[j];
                    let same = j > 0 && self.clue[j - 1].color == block.color;
                    let from = if same { here } else { log_add(here, end) };
                    let weight = self.block_weight(prefix, block, i);
                    if from != NEVER && weight != NEVER {
                        let at = (j + 1) * (n + 1) + i + block.length as usize;
                        ended[at] = log_add(ended[at], from + weight);
                    }
                }
            }
        }
        Sums { background, ended }
    }
}

/// The posterior of every cell's colors on one line (cells × colors, probabilities) and the
/// distribution of every block's start (blocks × n); None when no arrangement has weight.
fn line_posterior(
    n: usize,
    colors: usize,
    weights: &[f64],
    clue: &[Block],
) -> Option<(Vec<f64>, Vec<Vec<f64>>)> {
    let k = clue.len();
    let line = LineWeights {
        n,
        colors,
        weights,
        clue,
    };
    let prefix = line.prefixes();
    let ahead = line.forward(&prefix);
    let mut mirrored_weights = vec![0.0; n * colors];
    for cell in 0..n {
        let from = (n - 1 - cell) * colors;
        mirrored_weights[cell * colors..(cell + 1) * colors]
            .copy_from_slice(&weights[from..from + colors]);
    }
    let mirrored_clue: Vec<Block> = clue.iter().rev().copied().collect();
    let mirror = LineWeights {
        n,
        colors,
        weights: &mirrored_weights,
        clue: &mirrored_clue,
    };
    let behind = mirror.forward(&mirror.prefixes());
    let last = k * (n + 1) + n;
    let total = log_add(ahead.background[last], ahead.ended[last]);
    if !total.is_finite() {
        return None;
    }
    let mut posterior = vec![0.0; n * colors];
    let mut starts = vec![vec![0.0; n]; k];
    for (j, block) in clue.iter().enumerate() {
        let length = block.length as usize;
        let color = usize::from(block.color);
        let same_before = j > 0 && clue[j - 1].color == block.color;
        let same_after = j + 1 < k && clue[j + 1].color == block.color;
        let rest = k - 1 - j; // blocks after this one, counted from the mirrored start
        let mut cover = vec![0.0; n + 1];
        for p in 0..(n + 1).saturating_sub(length) {
            let here = ahead.background[j * (n + 1) + p];
            let end = ahead.ended[j * (n + 1) + p];
            let before = if same_before {
                here
            } else {
                log_add(here, end)
            };
            let weight = line.block_weight(&prefix, block, p);
            if before == NEVER || weight == NEVER {
                continue;
            }
            let m = n - p - length;
            let tail = behind.background[rest * (n + 1) + m];
            let tail_end = behind.ended[rest * (n + 1) + m];
            let after = if same_after {
                tail
            } else {
                log_add(tail, tail_end)
            };
            if after == NEVER {
                continue;
            }
            let probability = (before + weight + after - total).exp();
            starts[j][p] = probability;
            cover[p] += probability;
            cover[p + length] -= probability;
        }
        let mut running = 0.0;
        for (cell, change) in cover.iter().take(n).enumerate() {
            running += change;
            posterior[cell * colors + color] += running.max(0.0);
        }
    }
    for cell in 0..n {
        let painted: f64 = (1..colors).map(|c| posterior[cell * colors + c]).sum();
        posterior[cell * colors] = (1.0 - painted).max(0.0);
    }
    Some((posterior, starts))
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
                    weights.push(if value > 0.0 { value.ln() } else { NEVER });
                }
            }
            let Some((posterior, _)) = line_posterior(n, colors, &weights, &puzzle.clues[line])
            else {
                return;
            };
            for p in 0..n {
                let cell = puzzle.cell(line, p);
                let mut message = vec![0.0; colors];
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
    let best = (0..cells)
        .map(|cell| {
            let domain = domains[cell];
            (0..colors)
                .filter(|&c| domain >> c & 1 == 1)
                .max_by(|&a, &b| {
                    let belief =
                        |c: usize| from_rows[cell * colors + c] * from_columns[cell * colors + c];
                    belief(a).total_cmp(&belief(b))
                })
                .unwrap_or(0) as u8
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
                .map(|value| if value > 0.0 { value.ln() } else { NEVER })
                .collect();
            match line_posterior(n, colors, &weights, &puzzle.clues[line]) {
                None => Vec::new(),
                Some((_, starts)) => starts
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
                    .collect(),
            }
        })
        .collect();
    Estimate {
        colors: best,
        starts,
    }
}

#[cfg(test)]
mod tests {
    use super::line_posterior;
    use crate::clue::Block;
    use crate::line::tests::{clue_of, matches, pseudo_random};

    /// Every coloring of `n` cells over `colors` colors.
    fn all_lines(n: usize, colors: usize) -> Vec<Vec<u8>> {
        (0..colors.pow(n as u32))
            .map(|mut code| {
                (0..n)
                    .map(|_| {
                        let c = (code % colors) as u8;
                        code /= colors;
                        c
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn posteriors_match_weighted_enumeration() {
        let mut seed = 12345u64;
        for case in 0..400 {
            let colors = 2 + case % 2;
            let n = 1 + (pseudo_random(&mut seed) as usize) % 7;
            let picture: Vec<u8> = (0..n)
                .map(|_| (pseudo_random(&mut seed) % colors as u64) as u8)
                .collect();
            let clue: Vec<Block> = clue_of(&picture, false, &mut seed);
            // Random positive likelihoods, with some colors ruled out (never the picture's).
            let mut probability = vec![0.0; n * colors];
            for i in 0..n {
                for c in 0..colors {
                    let ruled_out =
                        pseudo_random(&mut seed).is_multiple_of(5) && usize::from(picture[i]) != c;
                    probability[i * colors + c] = if ruled_out {
                        0.0
                    } else {
                        0.05 + (pseudo_random(&mut seed) % 100) as f64 / 100.0
                    };
                }
            }
            let weights: Vec<f64> = probability
                .iter()
                .map(|&p| if p > 0.0 { p.ln() } else { f64::NEG_INFINITY })
                .collect();
            let (posterior, starts) =
                line_posterior(n, colors, &weights, &clue).expect("the picture fits");
            let mut expected = vec![0.0; n * colors];
            let mut total = 0.0;
            for line in all_lines(n, colors) {
                if !matches(&line, &clue) {
                    continue;
                }
                let weight: f64 = line
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| probability[i * colors + usize::from(c)])
                    .product();
                total += weight;
                for (i, &c) in line.iter().enumerate() {
                    expected[i * colors + usize::from(c)] += weight;
                }
            }
            for (got, want) in posterior.iter().zip(&expected) {
                assert!(
                    (got - want / total).abs() < 1e-9,
                    "case {case}: {posterior:?} against {expected:?} / {total}"
                );
            }
            for distribution in &starts {
                let sum: f64 = distribution.iter().sum();
                assert!(
                    (sum - 1.0).abs() < 1e-9,
                    "case {case}: a block's starts sum to {sum}"
                );
            }
        }
    }
}
