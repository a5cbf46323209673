//! One line's posterior under belief propagation's messages: every cell's colors and every
//! block's start, weighed over all the arrangements of the line's clue (a forward-backward sum
//! over blocks, O(k n)). Sums are kept as plain numbers scaled by powers of two (`split`), so
//! that long lines cannot underflow.

use crate::clue::Block;

/// A positive number split into a mantissa in [1, 2) and a power of two (`split`), so that
/// products of hundreds of probabilities neither underflow nor need logarithms: the sums of
/// a line's arrangements are kept as plain numbers, each position's scaled by a power of two
/// of its own. (In logarithms, as before, `exp` and `ln_1p` took 44% of the estimate's time.)
pub(super) fn split(value: f64) -> (f64, i64) {
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    if biased == 0 {
        // Subnormal (or zero): scaled up into the normal range first.
        if value == 0.0 {
            return (0.0, 0);
        }
        let (mantissa, exponent) = split(value * TWO_TO_64);
        return (mantissa, exponent - 64);
    }
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1023 << 52));
    (mantissa, biased - 1023)
}

const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;

/// 2 to the power `exponent`, 0 below the smallest subnormal, infinite above the largest.
pub(super) fn power_of_two(exponent: i64) -> f64 {
    if exponent > 1023 {
        f64::INFINITY
    } else if exponent >= -1022 {
        f64::from_bits(((exponent + 1023) as u64) << 52)
    } else if exponent >= -1074 {
        f64::from_bits(1 << (exponent + 1074))
    } else {
        0.0
    }
}

/// A line's arrangements, weighed: `weights[i * colors + c]` is the likelihood of color c in
/// cell i (0 when impossible).
struct LineWeights<'a> {
    n: usize,
    colors: usize,
    weights: &'a [f64],
    clue: &'a [Block],
}

/// Prefix products along a line for one color, of the cells where it is possible (mantissa
/// and power of two), and counts of the cells where it is ruled out.
#[derive(Default)]
struct Prefix {
    mantissa: Vec<f64>,
    /// 1 / `mantissa`: a block's weight is then a product (a division per block and start
    /// held up the forward sums).
    inverse: Vec<f64>,
    exponent: Vec<i64>,
    ruled_out: Vec<u32>,
}

/// The forward sums of one direction: `background[j][i]` for cells 0..i holding blocks 0..j
/// with cell i - 1 background (or nothing yet), `ended[j][i]` with block j - 1 ending at
/// cell i - 1. Indexed [j * (n + 1) + i]; every sum at position i is in units of
/// 2^`scale[i]`.
#[derive(Default)]
struct Sums {
    background: Vec<f64>,
    ended: Vec<f64>,
    scale: Vec<i64>,
}

impl Sums {
    /// The sum at `at` that a block may follow (or, mirrored, precede): `beside`'s.
    fn beside(&self, at: usize, same_color: bool) -> f64 {
        beside(&self.background, &self.ended, at, same_color)
    }
}

/// What a block may follow at index `at` of a direction's sums: a background cell only when
/// the block beside it is of the same color, else a background cell or another block's end.
fn beside(background: &[f64], ended: &[f64], at: usize, same_color: bool) -> f64 {
    if same_color {
        background[at]
    } else {
        background[at] + ended[at]
    }
}

impl LineWeights<'_> {
    #[inline]
    fn weight(&self, cell: usize, color: usize) -> f64 {
        self.weights[cell * self.colors + color]
    }

    /// Weight of `block` over cells start..start + length as (mantissa, power of two); a
    /// mantissa of 0 when the block cannot lie there.
    fn block_weight(&self, prefix: &[Prefix], block: &Block, start: usize) -> (f64, i64) {
        let end = start + block.length as usize;
        if end > self.n {
            return (0.0, 0);
        }
        let sums = &prefix[usize::from(block.color)];
        if sums.ruled_out[end] != sums.ruled_out[start] {
            return (0.0, 0);
        }
        (
            sums.mantissa[end] * sums.inverse[start],
            sums.exponent[end] - sums.exponent[start],
        )
    }

    /// Per color, prefix products of the cells' weights and counts of the cells where it is
    /// ruled out, into `out` (its buffers reused).
    fn prefixes(&self, out: &mut Vec<Prefix>) {
        out.resize_with(self.colors, Prefix::default);
        for (color, sums) in out.iter_mut().enumerate() {
            sums.mantissa.clear();
            sums.inverse.clear();
            sums.exponent.clear();
            sums.ruled_out.clear();
            let (mut mantissa, mut exponent, mut ruled_out) = (1.0, 0, 0);
            sums.mantissa.push(mantissa);
            sums.inverse.push(1.0);
            sums.exponent.push(exponent);
            sums.ruled_out.push(ruled_out);
            for cell in 0..self.n {
                let weight = self.weight(cell, color);
                if weight > 0.0 {
                    let (m, e) = split(mantissa * weight);
                    mantissa = m;
                    exponent += e;
                } else {
                    ruled_out += 1;
                }
                sums.mantissa.push(mantissa);
                sums.inverse.push(1.0 / mantissa);
                sums.exponent.push(exponent);
                sums.ruled_out.push(ruled_out);
            }
        }
    }

    /// The forward sums, position by position: each position's from the one before (a
    /// background cell) and from where each block would start (the block ending here),
    /// then scaled so that its largest sum lies in [1, 2). Only the blocks that can have
    /// ended by a position, with room left for the others, are summed there (the rest stay
    /// 0).
    fn forward(&self, prefix: &[Prefix], sums: &mut Sums) {
        let (n, k) = (self.n, self.clue.len());
        let width = n + 1;
        // needs[j]: the fewest cells blocks 0..j fill; room[j]: blocks j..k.
        let gap =
            |j: usize| usize::from(j > 0 && j < k && self.clue[j - 1].color == self.clue[j].color);
        let mut needs = vec![0; k + 1];
        for j in 1..=k {
            needs[j] = needs[j - 1] + self.clue[j - 1].length as usize + gap(j - 1);
        }
        let mut room = vec![0; k + 1];
        for j in (0..k).rev() {
            room[j] = room[j + 1] + self.clue[j].length as usize + gap(j + 1);
        }
        let (mut lowest, mut highest) = (0, 0);
        let Sums {
            background,
            ended,
            scale,
        } = sums;
        for table in [&mut *background, &mut *ended] {
            table.clear();
            table.resize((k + 1) * width, 0.0);
        }
        scale.clear();
        scale.resize(width, 0);
        background[0] = 1.0;
        for i in 1..=n {
            let back = self.weight(i - 1, 0);
            let mut largest = 0.0f64;
            while highest < k && needs[highest + 1] <= i {
                highest += 1;
            }
            while lowest < k && room[lowest] > n - i {
                lowest += 1;
            }
            for j in lowest..=highest {
                let before = j * width + i - 1;
                let here = (background[before] + ended[before]) * back;
                background[j * width + i] = here;
                largest = largest.max(here);
                if j == 0 {
                    continue;
                }
                let block = &self.clue[j - 1];
                let length = block.length as usize;
                if length > i {
                    continue;
                }
                let start = i - length;
                let same = j > 1 && self.clue[j - 2].color == block.color;
                let from = beside(background, ended, (j - 1) * width + start, same);
                if from == 0.0 {
                    continue;
                }
                let (weight, exponent) = self.block_weight(prefix, block, start);
                if weight == 0.0 {
                    continue;
                }
                let end = from * weight * power_of_two(scale[start] + exponent - scale[i - 1]);
                ended[j * width + i] = end;
                largest = largest.max(end);
            }
            let (_, shift) = if largest > 0.0 {
                split(largest)
            } else {
                (0.0, 0)
            };
            scale[i] = scale[i - 1] + shift;
            if shift != 0 {
                let factor = power_of_two(-shift);
                for j in lowest..=highest {
                    background[j * width + i] *= factor;
                    ended[j * width + i] *= factor;
                }
            }
        }
    }
}

/// What one line's posterior is computed in, kept from line to line (most of the estimate's
/// time went to allocating these afresh).
#[derive(Default)]
pub(super) struct Scratch {
    prefix: Vec<Prefix>,
    mirrored_prefix: Vec<Prefix>,
    ahead: Sums,
    behind: Sums,
    mirrored_weights: Vec<f64>,
    mirrored_clue: Vec<Block>,
    cover: Vec<f64>,
    /// The posterior of every cell's colors (cells × colors, probabilities).
    pub(super) posterior: Vec<f64>,
}

/// The posterior of every cell's colors on one line, into `scratch.posterior`, and with
/// `starts` the distribution of every block's start (blocks × n); false when no arrangement
/// has weight.
pub(super) fn line_posterior(
    n: usize,
    colors: usize,
    weights: &[f64],
    clue: &[Block],
    scratch: &mut Scratch,
    mut starts: Option<&mut Vec<Vec<f64>>>,
) -> bool {
    let k = clue.len();
    let line = LineWeights {
        n,
        colors,
        weights,
        clue,
    };
    line.prefixes(&mut scratch.prefix);
    line.forward(&scratch.prefix, &mut scratch.ahead);
    scratch.mirrored_weights.clear();
    for cell in (0..n).rev() {
        scratch
            .mirrored_weights
            .extend_from_slice(&weights[cell * colors..(cell + 1) * colors]);
    }
    scratch.mirrored_clue.clear();
    scratch.mirrored_clue.extend(clue.iter().rev().copied());
    let mirror = LineWeights {
        n,
        colors,
        weights: &scratch.mirrored_weights,
        clue: &scratch.mirrored_clue,
    };
    mirror.prefixes(&mut scratch.mirrored_prefix);
    mirror.forward(&scratch.mirrored_prefix, &mut scratch.behind);
    let (ahead, behind, prefix) = (&scratch.ahead, &scratch.behind, &scratch.prefix);
    let width = n + 1;
    let last = k * width + n;
    let total = ahead.background[last] + ahead.ended[last];
    if total <= 0.0 || !total.is_finite() {
        return false;
    }
    let posterior = &mut scratch.posterior;
    posterior.clear();
    posterior.resize(n * colors, 0.0);
    if let Some(starts) = starts.as_deref_mut() {
        starts.clear();
        starts.resize(k, vec![0.0; n]);
    }
    let cover = &mut scratch.cover;
    for (j, block) in clue.iter().enumerate() {
        let length = block.length as usize;
        let color = usize::from(block.color);
        let same_before = j > 0 && clue[j - 1].color == block.color;
        let same_after = j + 1 < k && clue[j + 1].color == block.color;
        let rest = k - 1 - j; // blocks after this one, counted from the mirrored start
        cover.clear();
        cover.resize(n + 1, 0.0);
        for p in 0..(n + 1).saturating_sub(length) {
            let before = ahead.beside(j * width + p, same_before);
            if before == 0.0 {
                continue;
            }
            let (weight, exponent) = line.block_weight(prefix, block, p);
            if weight == 0.0 {
                continue;
            }
            let m = n - p - length;
            let after = behind.beside(rest * width + m, same_after);
            if after == 0.0 {
                continue;
            }
            let scale = ahead.scale[p] + exponent + behind.scale[m] - ahead.scale[n];
            let probability = before * weight * after / total * power_of_two(scale);
            if let Some(starts) = starts.as_deref_mut() {
                starts[j][p] = probability;
            }
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
    true
}
