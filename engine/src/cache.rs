//! The line cache: solved lines, direct-mapped by a hash of (line, state), so that probing and
//! search, which solve the same partial lines over and over, look them up instead.

use crate::bits::{copy_sets, Bits};
use crate::clue::Puzzle;

/// Bytes the line cache may take.
const CACHE_BYTES: usize = 48 << 20;

/// Solved lines, direct-mapped by a hash of (line, state). Each slot is one run of sets, so
/// that a lookup reads one or two cache lines: a header (the line + 1, 0 for an empty slot, in
/// its first word, and whether the state fits in its second bit... see `header`), the state
/// looked up (`colors` sets) and the narrowed state (`colors` sets). Kept in three separate
/// arrays, the lookups' memory latency was a third of the search's time.
pub struct LineCache<const W: usize> {
    slots: Vec<Bits<W>>,
    stride: usize,
    colors: usize,
    mask: usize,
}

impl<const W: usize> LineCache<W> {
    pub fn new(puzzle: &Puzzle) -> Self {
        let colors = puzzle.colors;
        let stride = 2 * colors + 1;
        let slot_bytes = stride * std::mem::size_of::<Bits<W>>();
        // Small enough to stay in a core's L2 cache: on taai2011 #731 (707,000 probes) 2^14
        // slots took 0.63 s, 2^12 0.67, 2^16 0.71 and nonosolve's 2^18 0.76 (a lookup missing
        // to memory costs more than solving the line again).
        let wanted = (puzzle.lines() * 4096)
            .next_power_of_two()
            .clamp(1 << 12, 1 << 14);
        let mut slots = wanted;
        while slots > 1 << 8 && slots * slot_bytes > CACHE_BYTES {
            slots /= 2;
        }
        Self {
            slots: vec![Bits::zero(); slots * stride],
            stride,
            colors,
            mask: slots - 1,
        }
    }

    /// The first word of a slot's header: the line + 1, shifted, and whether its state fits.
    #[inline]
    fn header(line: usize, fits: bool) -> u64 {
        ((line as u64 + 1) << 1) | u64::from(fits)
    }

    #[inline]
    pub fn slot(&self, line: usize, state: &[Bits<W>]) -> usize {
        let mut hash = (line as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for cells in state {
            for &word in &cells.0 {
                hash = (hash ^ word).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                hash ^= hash >> 29;
            }
        }
        ((hash as usize) & self.mask) * self.stride
    }

    /// The narrowed state of `line` in `state` and whether it fits, when the cache has it.
    #[inline]
    pub fn get(
        &self,
        at: usize,
        line: usize,
        state: &[Bits<W>],
        out: &mut [Bits<W>],
    ) -> Option<bool> {
        let head = self.slots[at].0[0];
        if head >> 1 != line as u64 + 1 {
            return None;
        }
        let colors = self.colors;
        if self.slots[at + 1..at + 1 + colors] != *state {
            return None;
        }
        copy_sets(out, &self.slots[at + 1 + colors..at + 1 + 2 * colors]);
        Some(head & 1 == 1)
    }

    /// `get` for a line of two colors (black and white), on values rather than slices.
    #[inline]
    pub fn get_two(
        &self,
        at: usize,
        line: usize,
        state: [Bits<W>; 2],
    ) -> Option<([Bits<W>; 2], bool)> {
        let slot = &self.slots[at..at + 5];
        let head = slot[0].0[0];
        if head >> 1 != line as u64 + 1 || slot[1] != state[0] || slot[2] != state[1] {
            return None;
        }
        Some(([slot[3], slot[4]], head & 1 == 1))
    }

    #[inline]
    pub fn put_two(
        &mut self,
        at: usize,
        line: usize,
        state: [Bits<W>; 2],
        out: [Bits<W>; 2],
        fits: bool,
    ) {
        let slot = &mut self.slots[at..at + 5];
        slot[0].0[0] = Self::header(line, fits);
        slot[1] = state[0];
        slot[2] = state[1];
        slot[3] = out[0];
        slot[4] = out[1];
    }

    #[inline]
    pub fn put(&mut self, at: usize, line: usize, state: &[Bits<W>], out: &[Bits<W>], fits: bool) {
        let colors = self.colors;
        self.slots[at].0[0] = Self::header(line, fits);
        copy_sets(&mut self.slots[at + 1..at + 1 + colors], state);
        copy_sets(&mut self.slots[at + 1 + colors..at + 1 + 2 * colors], out);
    }
}
