//! Fixed-width bitsets of `W` machine words: one bit per cell of a line, plus one past its end.
//!
//! The line solver works on whole lines at once through these: a line of up to 63 cells is one
//! `u64` (`W = 1`), longer lines take more words. Every operation is a loop over `W` words that
//! the compiler unrolls, so `Bits<1>` costs what a bare `u64` costs.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Self([0; W])
    }
}

impl<const W: usize> Bits<W> {
    /// How many bits the set holds.
    pub const CAPACITY: usize = 64 * W;

    #[inline]
    pub fn zero() -> Self {
        Self([0; W])
    }

    /// Bits `0..n` set (`n <= CAPACITY`).
    #[inline]
    pub fn below(n: usize) -> Self {
        let mut words = [0u64; W];
        for (i, word) in words.iter_mut().enumerate() {
            let low = 64 * i;
            if n >= low + 64 {
                *word = u64::MAX;
            } else if n > low {
                *word = (1u64 << (n - low)) - 1;
            }
        }
        Self(words)
    }

    /// Only bit `i` set.
    #[inline]
    pub fn bit(i: usize) -> Self {
        let mut words = [0u64; W];
        words[i / 64] = 1u64 << (i % 64);
        Self(words)
    }

    #[inline]
    pub fn test(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1u64 << (i % 64);
    }

    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1u64 << (i % 64));
    }

    #[inline]
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&word| word == 0)
    }

    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|word| word.count_ones()).sum()
    }

    /// `self & !other`.
    #[inline]
    pub fn and_not(self, other: Self) -> Self {
        let mut words = self.0;
        for (word, o) in words.iter_mut().zip(other.0) {
            *word &= !o;
        }
        Self(words)
    }

    /// Every bit moved `k` places up (towards the end of the line); bits past the top are lost.
    #[inline]
    pub fn shl(self, k: usize) -> Self {
        if W == 1 {
            return Self([if k >= 64 { 0 } else { self.0[0] << k }; W]);
        }
        let (words, bits) = (k / 64, k % 64);
        let mut out = [0u64; W];
        for i in (words..W).rev() {
            let mut value = self.0[i - words] << bits;
            if bits > 0 && i > words {
                value |= self.0[i - words - 1] >> (64 - bits);
            }
            out[i] = value;
        }
        Self(out)
    }

    /// Every bit moved `k` places down (towards the start of the line).
    #[inline]
    pub fn shr(self, k: usize) -> Self {
        if W == 1 {
            return Self([if k >= 64 { 0 } else { self.0[0] >> k }; W]);
        }
        let (words, bits) = (k / 64, k % 64);
        let mut out = [0u64; W];
        for (i, word) in out.iter_mut().enumerate().take(W.saturating_sub(words)) {
            let mut value = self.0[i + words] >> bits;
            if bits > 0 && i + words + 1 < W {
                value |= self.0[i + words + 1] << (64 - bits);
            }
            *word = value;
        }
        Self(out)
    }

    /// The sum as one `64 * W`-bit number (the carry runs across words; the last is dropped).
    #[inline]
    pub fn add(self, other: Self) -> Self {
        let mut out = [0u64; W];
        let mut carry = false;
        for (i, word) in out.iter_mut().enumerate() {
            let (sum, first) = self.0[i].overflowing_add(other.0[i]);
            let (sum, second) = sum.overflowing_add(u64::from(carry));
            *word = sum;
            carry = first || second;
        }
        Self(out)
    }

    /// Bit `i` moved to bit `n - 1 - i`, for a set whose bits all lie below `n`.
    #[inline]
    pub fn reversed(self, n: usize) -> Self {
        let mut out = [0u64; W];
        for (i, word) in self.0.iter().enumerate() {
            out[W - 1 - i] = word.reverse_bits();
        }
        Self(out).shr(Self::CAPACITY - n)
    }

    /// The positions of the set bits, in increasing order.
    #[inline]
    pub fn ones(self) -> Ones<W> {
        Ones {
            words: self.0,
            index: 0,
        }
    }
}

/// `to.copy_from_slice(from)`, with the two sets of a black-and-white line copied without a
/// call (a slice copy of runtime length goes through `memmove`: 5% of a search's time).
#[inline(always)]
pub fn copy_sets<const W: usize>(to: &mut [Bits<W>], from: &[Bits<W>]) {
    if let ([a, b], [c, d]) = (&mut *to, from) {
        *a = *c;
        *b = *d;
    } else {
        to.copy_from_slice(from);
    }
}

/// `to.extend_from_slice(from)`, likewise.
#[inline(always)]
pub fn push_sets<const W: usize>(to: &mut Vec<Bits<W>>, from: &[Bits<W>]) {
    if let [a, b] = from {
        to.push(*a);
        to.push(*b);
    } else {
        to.extend_from_slice(from);
    }
}

/// Iterator over the set bits of a `Bits`.
pub struct Ones<const W: usize> {
    words: [u64; W],
    index: usize,
}

impl<const W: usize> Iterator for Ones<W> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.index < W {
            let word = self.words[self.index];
            if word != 0 {
                self.words[self.index] = word & (word - 1);
                return Some(64 * self.index + word.trailing_zeros() as usize);
            }
            self.index += 1;
        }
        None
    }
}

macro_rules! word_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $op:tt) => {
        impl<const W: usize> $assign_trait for Bits<W> {
            #[inline]
            fn $assign(&mut self, other: Self) {
                for (word, o) in self.0.iter_mut().zip(other.0) {
                    *word $op o;
                }
            }
        }
        impl<const W: usize> $trait for Bits<W> {
            type Output = Self;
            #[inline]
            fn $method(mut self, other: Self) -> Self {
                self.$assign(other);
                self
            }
        }
    };
}

word_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &=);
word_op!(BitOr, bitor, BitOrAssign, bitor_assign, |=);

impl<const W: usize> BitXor for Bits<W> {
    type Output = Self;
    #[inline]
    fn bitxor(self, other: Self) -> Self {
        let mut words = self.0;
        for (word, o) in words.iter_mut().zip(other.0) {
            *word ^= o;
        }
        Self(words)
    }
}

impl<const W: usize> Not for Bits<W> {
    type Output = Self;
    #[inline]
    fn not(self) -> Self {
        let mut words = self.0;
        for word in words.iter_mut() {
            *word = !*word;
        }
        Self(words)
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    /// The set as a plain vector of bools, for checking against.
    fn plain<const W: usize>(bits: Bits<W>) -> Vec<bool> {
        (0..Bits::<W>::CAPACITY).map(|i| bits.test(i)).collect()
    }

    fn from_plain<const W: usize>(cells: &[bool]) -> Bits<W> {
        let mut bits = Bits::<W>::zero();
        for (i, &on) in cells.iter().enumerate() {
            if on {
                bits.set(i);
            }
        }
        bits
    }

    fn pseudo_random(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn check_shifts<const W: usize>() {
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200 {
            let mut words = [0u64; W];
            for word in words.iter_mut() {
                *word = pseudo_random(&mut seed);
            }
            let bits = Bits(words);
            let cells = plain(bits);
            let capacity = Bits::<W>::CAPACITY;
            for k in [0, 1, 5, 63, 64, 65, 100, capacity - 1, capacity] {
                let up: Vec<bool> = (0..capacity).map(|i| i >= k && cells[i - k]).collect();
                assert_eq!(plain(bits.shl(k)), up, "shl {k}");
                let down: Vec<bool> = (0..capacity)
                    .map(|i| i + k < capacity && cells[i + k])
                    .collect();
                assert_eq!(plain(bits.shr(k)), down, "shr {k}");
            }
            for n in [1, 7, 63, 64, capacity - 1, capacity] {
                let below = bits & Bits::below(n);
                let mut expected = vec![false; capacity];
                for i in 0..n {
                    expected[n - 1 - i] = below.test(i);
                }
                assert_eq!(plain(below.reversed(n)), expected, "reversed {n}");
            }
        }
    }

    #[test]
    fn shifts_and_reversal_match_a_plain_model() {
        check_shifts::<1>();
        check_shifts::<2>();
        check_shifts::<4>();
    }

    #[test]
    fn addition_carries_across_words() {
        let a = Bits::<2>([u64::MAX, 0]);
        assert_eq!(a.add(Bits::bit(0)), Bits([0, 1]));
        let b = Bits::<4>([u64::MAX, u64::MAX, 5, 0]);
        assert_eq!(b.add(Bits::bit(3)), Bits([7, 0, 6, 0]));
    }

    #[test]
    fn below_bit_count_and_ones() {
        assert_eq!(Bits::<2>::below(70).count(), 70);
        assert_eq!(Bits::<1>::below(64).count(), 64);
        let cells = [true, false, true, true, false, false, true];
        let bits: Bits<2> = from_plain(&cells);
        assert_eq!(bits.ones().collect::<Vec<_>>(), vec![0, 2, 3, 6]);
        let mut wide = Bits::<2>::zero();
        wide.set(3);
        wide.set(64);
        wide.set(127);
        assert_eq!(wide.ones().collect::<Vec<_>>(), vec![3, 64, 127]);
        wide.clear(64);
        assert!(!wide.test(64));
        assert_eq!(wide.and_not(Bits::bit(3)), Bits::bit(127));
    }
}
