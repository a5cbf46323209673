//! The exact line solver: which colors each cell of one line can still take, given its clue.
//!
//! A line's state is one bitset per color: the cells where that color is still possible (the
//! background is color 0, so in black and white the two sets are "not known black" and "not
//! known white"). The solver keeps a color in a cell iff some arrangement of the clue that fits
//! the state puts it there, so it is complete, not a heuristic.
//!
//! It is the classic dynamic program over blocks (can the first j blocks fill the cells before
//! position p?), with each step taken for every position at once on bitsets, so a line costs
//! O(k log n) word operations for k blocks:
//! - `fill`: positions reachable from a set of seeds by crossing cells of one color, in one
//!   addition (the carry runs along a run of ones and stops at its end);
//! - `run` and `smear`: "a block of length L fits at s" and "cover L cells from s", by doubling;
//! - the backward pass is the forward pass on the mirrored line.
//!
//! Colors need nothing more than black and white: two neighbouring blocks need a background
//! cell between them only when they have the same color. A blotted number (a run of unknown
//! length) is a block whose end is found by a fill through its color instead of a fixed shift.

use crate::bits::Bits;
use crate::clue::Block;

/// Scratch space kept between solves, so that solving a line allocates nothing.
pub struct Workspace<const W: usize> {
    /// Forward pass: the positions where block j may start (the cells before it hold blocks
    /// 0..j, with the gap the clue requires).
    starts: Vec<Bits<W>>,
    /// Forward pass: the positions p such that cells 0..p hold exactly blocks 0..j.
    tails: Vec<Bits<W>>,
    /// Per block: the positions where its run of cells fits the state (fixed lengths only).
    runs: Vec<Bits<W>>,
    back_starts: Vec<Bits<W>>,
    back_tails: Vec<Bits<W>>,
    /// The state mirrored, per color.
    mirrored: Vec<Bits<W>>,
}

impl<const W: usize> Workspace<W> {
    pub fn new(colors: usize) -> Self {
        Self {
            starts: Vec::new(),
            tails: Vec::new(),
            runs: Vec::new(),
            back_starts: Vec::new(),
            back_tails: Vec::new(),
            mirrored: vec![Bits::zero(); colors],
        }
    }

    fn reserve(&mut self, blocks: usize) {
        if self.tails.len() <= blocks {
            let size = blocks + 1;
            for list in [
                &mut self.starts,
                &mut self.tails,
                &mut self.runs,
                &mut self.back_starts,
                &mut self.back_tails,
            ] {
                list.resize(size, Bits::zero());
            }
        }
    }
}

/// The positions reachable from `seeds` by stepping from p to p + 1 over cells in `through`.
#[inline]
fn fill<const W: usize>(seeds: Bits<W>, through: Bits<W>) -> Bits<W> {
    seeds | (through.add(seeds & through) ^ through)
}

/// The positions s such that cells s..s + length all lie in `cells`.
#[inline]
fn run<const W: usize>(cells: Bits<W>, length: usize) -> Bits<W> {
    let mut fits = cells;
    let mut covered = 1;
    while covered < length {
        let step = covered.min(length - covered);
        fits = fits & fits.shr(step);
        covered += step;
    }
    fits
}

/// Every cell s..s + length for each s in `starts`.
#[inline]
fn smear<const W: usize>(starts: Bits<W>, length: usize) -> Bits<W> {
    let mut cover = starts;
    let mut covered = 1;
    while covered < length {
        let step = covered.min(length - covered);
        cover |= cover.shl(step);
        covered += step;
    }
    cover
}

/// One pass of the dynamic program over the blocks in `order` (the clue's indices, forwards or
/// backwards) on a line of `n` cells whose state is `state` (indexed by color). Fills
/// `starts[j]` and `tails[j]` (and `runs[j]` when given) and says whether the clue fits.
#[inline]
fn sweep<const W: usize>(
    n: usize,
    clue: &[Block],
    backwards: bool,
    state: &[Bits<W>],
    starts: &mut [Bits<W>],
    tails: &mut [Bits<W>],
    mut runs: Option<&mut [Bits<W>]>,
) -> bool {
    let k = clue.len();
    let background = state[0];
    // Positions just after the last block placed so far (the empty prefix to begin with).
    let mut ends = Bits::bit(0);
    let mut previous: Option<u8> = None;
    for j in 0..k {
        let block = clue[if backwards { k - 1 - j } else { j }];
        let tail = fill(ends, background);
        tails[j] = tail;
        let start = if previous == Some(block.color) {
            fill((ends & background).shl(1), background) // at least one background cell
        } else {
            tail
        };
        starts[j] = start;
        let cells = state[usize::from(block.color)];
        ends = if block.blotted() {
            fill((start & cells).shl(1), cells)
        } else {
            let length = block.length as usize;
            let fits = run(cells, length);
            if let Some(runs) = runs.as_deref_mut() {
                runs[j] = fits;
            }
            (start & fits).shl(length)
        };
        if ends.is_zero() {
            return false;
        }
        previous = Some(block.color);
    }
    let tail = fill(ends, background);
    tails[k] = tail;
    tail.test(n)
}

/// Narrow one line: `state[c]` holds the cells where color c is still possible (for every
/// palette color c); `colors` are the colors the clue allows on the line (the background and
/// the clue's colors). Writes the narrowed state to `out` (same layout) and returns true, or
/// returns false when no arrangement of the clue fits `state` (`out` is then unspecified).
pub fn solve<const W: usize>(
    n: usize,
    clue: &[Block],
    colors: &[u8],
    state: &[Bits<W>],
    out: &mut [Bits<W>],
    space: &mut Workspace<W>,
) -> bool {
    let k = clue.len();
    if colors.len() == 2 {
        let all = Bits::below(n);
        if state[0] == all
            && state[usize::from(colors[1])] == all
            && !clue.iter().any(|block| block.blotted())
        {
            return solve_empty(n, clue, colors[1], out);
        }
    }
    if !passes(n, clue, colors, state, space) {
        return false;
    }
    let Workspace {
        starts,
        tails,
        back_starts,
        back_tails,
        mirrored,
        ..
    } = &*space;
    for cells in out.iter_mut() {
        *cells = Bits::zero();
    }
    let positions = n + 1;
    let mut background = Bits::zero();
    for j in 0..=k {
        background |= tails[j] & back_tails[k - j].reversed(positions).shr(1);
    }
    out[0] = background & state[0];
    for (j, block) in clue.iter().enumerate() {
        let c = usize::from(block.color);
        if block.blotted() {
            let cells = state[c];
            let forward = fill(starts[j] & cells, cells) & cells;
            let mirror = mirrored[c];
            let backward = fill(back_starts[k - 1 - j] & mirror, mirror) & mirror;
            out[c] |= forward & backward.reversed(n);
        } else {
            out[c] |= smear(placed(n, clue, j, space), block.length as usize);
        }
    }
    true
}

/// Where each block of `clue` (no blotted number) can start in some arrangement that fits
/// `state` (laid out as `solve`'s): per block, its possible first cells; None when no
/// arrangement fits. What the blocks CNF of a line is built on (`blocks_cnf`).
pub fn block_starts<const W: usize>(
    n: usize,
    clue: &[Block],
    colors: &[u8],
    state: &[Bits<W>],
    space: &mut Workspace<W>,
) -> Option<Vec<Bits<W>>> {
    debug_assert!(!clue.iter().any(|block| block.blotted()));
    if !passes(n, clue, colors, state, space) {
        return None;
    }
    Some((0..clue.len()).map(|j| placed(n, clue, j, space)).collect())
}

/// The forward and the backward pass of the dynamic program into `space`: whether the clue
/// fits `state` at all. Inlined: `solve` is the engine's hottest function (a call here cost
/// the tournament slices 1.2% more instructions).
#[inline(always)]
fn passes<const W: usize>(
    n: usize,
    clue: &[Block],
    colors: &[u8],
    state: &[Bits<W>],
    space: &mut Workspace<W>,
) -> bool {
    space.reserve(clue.len());
    let Workspace {
        starts,
        tails,
        runs,
        back_starts,
        back_tails,
        mirrored,
    } = space;
    if !sweep(n, clue, false, state, starts, tails, Some(runs)) {
        return false;
    }
    for &color in colors {
        let c = usize::from(color);
        mirrored[c] = state[c].reversed(n);
    }
    // Cannot fail once the forward pass succeeded; kept for safety.
    sweep(n, clue, true, mirrored, back_starts, back_tails, None)
}

/// The cells where block `j` (of a fixed length) starts in some arrangement, after `passes`:
/// those the blocks before it reach, where it fits, and from whose end the blocks after it
/// fit.
#[inline(always)]
fn placed<const W: usize>(n: usize, clue: &[Block], j: usize, space: &Workspace<W>) -> Bits<W> {
    let length = clue[j].length as usize;
    let back = clue.len() - 1 - j;
    space.starts[j] & space.runs[j] & space.back_starts[back].reversed(n + 1).shr(length)
}

/// `solve` on a line of two colors where nothing is known yet (every line of a new puzzle):
/// in closed form, O(k). With the blocks packed to the left, block j starts at `left` and can
/// move `slack` cells right; it covers at most `left..left + slack + length` and surely
/// `left + slack..left + length`. (The Python reference takes the same shortcut: without it
/// the native solver was only 8-23x faster on such lines, against 50-190x on partly decided.)
fn solve_empty<const W: usize>(n: usize, clue: &[Block], color: u8, out: &mut [Bits<W>]) -> bool {
    let needed = clue
        .iter()
        .map(|block| block.length as usize + 1)
        .sum::<usize>();
    let needed = needed.saturating_sub(1);
    if needed > n {
        return false;
    }
    let slack = n - needed;
    let (mut maybe, mut surely) = (Bits::zero(), Bits::zero());
    let mut left = 0;
    for block in clue {
        let length = block.length as usize;
        maybe |= Bits::below(left + slack + length).and_not(Bits::below(left));
        if length > slack {
            surely |= Bits::below(left + length).and_not(Bits::below(left + slack));
        }
        left += length + 1;
    }
    for cells in out.iter_mut() {
        *cells = Bits::zero();
    }
    out[0] = Bits::below(n).and_not(surely);
    out[usize::from(color)] = maybe;
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{block_starts, solve, Workspace};
    use crate::bits::Bits;
    use crate::clue::Block;

    /// Every coloring of `n` cells over `colors` colors, as vectors of color indices.
    fn all_lines(n: usize, colors: usize) -> Vec<Vec<u8>> {
        let mut lines = vec![vec![]];
        for _ in 0..n {
            let mut longer = Vec::new();
            for line in &lines {
                for color in 0..colors {
                    let mut next = line.clone();
                    next.push(color as u8);
                    longer.push(next);
                }
            }
            lines = longer;
        }
        lines
    }

    /// Whether a fully colored line satisfies a clue (blotted numbers match any length).
    pub(crate) fn matches(line: &[u8], clue: &[Block]) -> bool {
        let mut runs: Vec<(u8, u32)> = Vec::new();
        let mut previous = 0u8;
        for &cell in line {
            if cell != 0 {
                match runs.last_mut() {
                    Some((color, length)) if previous == cell && *color == cell => *length += 1,
                    _ => runs.push((cell, 1)),
                }
            }
            previous = cell;
        }
        runs.len() == clue.len()
            && runs.iter().zip(clue).all(|(&(color, length), block)| {
                color == block.color && (block.blotted() || length == block.length)
            })
    }

    pub(crate) fn pseudo_random(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// The clue a line spells, with each number blotted with probability 1/4 when asked.
    pub(crate) fn clue_of(line: &[u8], blot: bool, seed: &mut u64) -> Vec<Block> {
        let mut clue: Vec<Block> = Vec::new();
        let mut previous = 0u8;
        for &cell in line {
            if cell != 0 {
                if previous == cell {
                    clue.last_mut().unwrap().length += 1;
                } else {
                    clue.push(Block {
                        length: 1,
                        color: cell,
                    });
                }
            }
            previous = cell;
        }
        if blot {
            for block in clue.iter_mut() {
                if pseudo_random(seed).is_multiple_of(4) {
                    block.length = 0;
                }
            }
        }
        clue
    }

    /// The brute-force answer: per color, the cells where some matching line within the state
    /// has that color; None when no line matches.
    fn brute_force(
        n: usize,
        clue: &[Block],
        colors: usize,
        state: &[Vec<bool>],
    ) -> Option<Vec<Vec<bool>>> {
        let mut out = vec![vec![false; n]; colors];
        let mut any = false;
        for line in all_lines(n, colors) {
            if line
                .iter()
                .enumerate()
                .all(|(i, &c)| state[usize::from(c)][i])
                && matches(&line, clue)
            {
                any = true;
                for (i, &c) in line.iter().enumerate() {
                    out[usize::from(c)][i] = true;
                }
            }
        }
        any.then_some(out)
    }

    /// Per block, the cells where some matching line within the state starts it.
    fn brute_force_starts(
        n: usize,
        clue: &[Block],
        colors: usize,
        state: &[Vec<bool>],
    ) -> Vec<Vec<bool>> {
        let mut starts = vec![vec![false; n]; clue.len()];
        for line in all_lines(n, colors) {
            let fits = line
                .iter()
                .enumerate()
                .all(|(i, &c)| state[usize::from(c)][i]);
            if !fits || !matches(&line, clue) {
                continue;
            }
            let mut block = 0;
            for (i, &cell) in line.iter().enumerate() {
                if cell != 0 && (i == 0 || line[i - 1] != cell) {
                    starts[block][i] = true;
                    block += 1;
                }
            }
        }
        starts
    }

    fn check_against_brute_force<const W: usize>(
        max_n: usize,
        colors: usize,
        cases: usize,
        blot: bool,
    ) {
        let mut seed = 0x2545_F491_4F6C_DD1D ^ (colors as u64 * 7919) ^ u64::from(blot);
        let mut space = Workspace::<W>::new(colors);
        for case in 0..cases {
            let n = 1 + (pseudo_random(&mut seed) as usize) % max_n;
            // A clue read off a random line, so that most clues fit.
            let picture: Vec<u8> = (0..n)
                .map(|_| {
                    if pseudo_random(&mut seed).is_multiple_of(2) {
                        0
                    } else {
                        (1 + pseudo_random(&mut seed) % (colors as u64 - 1)) as u8
                    }
                })
                .collect();
            let clue = clue_of(&picture, blot, &mut seed);
            // A random state; with probability 1/2 one that keeps the picture possible, with
            // 1/4 one where nothing is known (the closed form for those).
            let keep = case.is_multiple_of(2);
            let mut state = vec![vec![true; n]; colors];
            for i in (0..n).filter(|_| case % 4 != 1) {
                for (c, row) in state.iter_mut().enumerate() {
                    if pseudo_random(&mut seed).is_multiple_of(4)
                        && !(keep && usize::from(picture[i]) == c)
                    {
                        row[i] = false;
                    }
                }
            }
            let mut colors_used: Vec<u8> = vec![0];
            for block in &clue {
                if !colors_used.contains(&block.color) {
                    colors_used.push(block.color);
                }
            }
            let masks: Vec<Bits<W>> = state
                .iter()
                .enumerate()
                .map(|(c, row)| {
                    let mut bits = Bits::zero();
                    for (i, &on) in row.iter().enumerate() {
                        if on && colors_used.contains(&(c as u8)) {
                            bits.set(i);
                        }
                    }
                    bits
                })
                .collect();
            let restricted: Vec<Vec<bool>> = (0..colors)
                .map(|c| (0..n).map(|i| masks[c].test(i)).collect())
                .collect();
            let expected = brute_force(n, &clue, colors, &restricted);
            let mut out = vec![Bits::<W>::zero(); colors];
            let fits = solve(n, &clue, &colors_used, &masks, &mut out, &mut space);
            if !blot {
                let starts = block_starts(n, &clue, &colors_used, &masks, &mut space);
                assert_eq!(
                    starts.is_some(),
                    expected.is_some(),
                    "case {case}: {clue:?}"
                );
                let wanted = brute_force_starts(n, &clue, colors, &restricted);
                for (block, got) in starts.iter().flatten().enumerate() {
                    let got: Vec<bool> = (0..n).map(|i| got.test(i)).collect();
                    assert_eq!(got, wanted[block], "case {case}: block {block} of {clue:?}");
                }
            }
            match expected {
                None => assert!(
                    !fits,
                    "case {case}: {clue:?} on {restricted:?} should not fit"
                ),
                Some(cells) => {
                    assert!(fits, "case {case}: {clue:?} on {restricted:?} should fit");
                    for c in 0..colors {
                        let got: Vec<bool> = (0..n).map(|i| out[c].test(i)).collect();
                        assert_eq!(
                            got, cells[c],
                            "case {case}: color {c} of {clue:?} on {restricted:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn black_and_white_lines_match_brute_force() {
        check_against_brute_force::<1>(12, 2, 4000, false);
    }

    #[test]
    fn color_lines_match_brute_force() {
        check_against_brute_force::<1>(8, 3, 3000, false);
        check_against_brute_force::<1>(6, 4, 1500, false);
    }

    #[test]
    fn blotted_lines_match_brute_force() {
        check_against_brute_force::<1>(11, 2, 3000, true);
        check_against_brute_force::<1>(7, 3, 2000, true);
    }

    #[test]
    fn multi_word_lines_agree_with_single_word_lines() {
        check_against_brute_force::<2>(12, 2, 1000, false);
        check_against_brute_force::<4>(8, 3, 500, true);
    }

    /// A long line: a solution's clue on a state that knows some of its cells; the solver must
    /// keep the solution's colors and fit, on every word count that holds the line.
    fn long_line<const W: usize>(n: usize) {
        let mut seed = 77 + n as u64;
        let mut space = Workspace::<W>::new(2);
        for _ in 0..50 {
            let picture: Vec<u8> = (0..n)
                .map(|_| u8::from(pseudo_random(&mut seed).is_multiple_of(3)))
                .collect();
            let clue = clue_of(&picture, false, &mut seed);
            let mut masks = [Bits::<W>::below(n), Bits::<W>::below(n)];
            for (i, &cell) in picture.iter().enumerate() {
                if pseudo_random(&mut seed).is_multiple_of(3) {
                    masks[1 - usize::from(cell)].clear(i);
                }
            }
            let mut out = [Bits::zero(); 2];
            assert!(solve(n, &clue, &[0, 1], &masks, &mut out, &mut space));
            for (i, &cell) in picture.iter().enumerate() {
                assert!(out[usize::from(cell)].test(i));
            }
            assert_eq!(out[0] | out[1], Bits::below(n), "every cell keeps a color");
        }
    }

    #[test]
    fn long_lines_fit_their_own_solution() {
        long_line::<2>(127);
        long_line::<4>(200);
        long_line::<16>(1023);
    }
}
