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
pub(crate) mod tests;
