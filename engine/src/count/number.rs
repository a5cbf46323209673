//! Counts of any size: a `u128` while it fits, an arbitrary-size integer past that.
//!
//! Almost every sub-count of a search or a sweep fits in 128 bits, and adding two `u128`s is
//! one instruction where a big integer allocates; so a count promotes itself to `BigUint` only
//! when an operation would overflow, and the result is exact whatever its size.

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Count {
    Small(u128),
    Big(Box<BigUint>),
}

impl Default for Count {
    fn default() -> Self {
        Count::Small(0)
    }
}

impl Count {
    pub const ZERO: Count = Count::Small(0);
    pub const ONE: Count = Count::Small(1);

    pub fn from_big(value: BigUint) -> Self {
        match value.to_u128() {
            Some(small) => Count::Small(small),
            None => Count::Big(Box::new(value)),
        }
    }

    pub fn to_big(&self) -> BigUint {
        match self {
            Count::Small(value) => BigUint::from(*value),
            Count::Big(value) => (**value).clone(),
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(self, Count::Small(0))
    }

    pub fn add(&mut self, other: &Count) {
        if let (Count::Small(a), Count::Small(b)) = (&*self, other) {
            if let Some(sum) = a.checked_add(*b) {
                *self = Count::Small(sum);
                return;
            }
        }
        *self = Count::from_big(self.to_big() + other.to_big());
    }

    pub fn mul(&mut self, other: &Count) {
        if let (Count::Small(a), Count::Small(b)) = (&*self, other) {
            if let Some(product) = a.checked_mul(*b) {
                *self = Count::Small(product);
                return;
            }
        }
        *self = Count::from_big(self.to_big() * other.to_big());
    }

    /// `self - other`; `other` must not be larger.
    pub fn sub(&mut self, other: &Count) {
        if let (Count::Small(a), Count::Small(b)) = (&*self, other) {
            *self = Count::Small(a - b);
            return;
        }
        *self = Count::from_big(self.to_big() - other.to_big());
    }

    pub fn less_than(&self, other: &Count) -> bool {
        match (self, other) {
            (Count::Small(a), Count::Small(b)) => a < b,
            _ => self.to_big() < other.to_big(),
        }
    }

    /// Bytes this count takes beyond its own slot (for the memory bound).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Count::Small(_) => 0,
            Count::Big(value) => 32 + value.bits().div_ceil(8) as usize,
        }
    }

    /// A number drawn uniformly from 0..self (self > 0), from a source of random words.
    pub fn uniform_below(&self, next_word: &mut impl FnMut() -> u64) -> Count {
        let bound = self.to_big();
        debug_assert!(!bound.is_zero());
        let bits = bound.bits();
        let words = bits.div_ceil(64) as usize;
        let top = bits - 64 * (words as u64 - 1); // bits used in the highest word
        loop {
            // Rejection sampling: a number of `bits` bits is below the bound with probability
            // above 1/2, and every number below it is equally likely.
            let mut digits: Vec<u64> = (0..words).map(|_| next_word()).collect();
            if top < 64 {
                digits[words - 1] &= (1u64 << top) - 1;
            }
            let drawn = BigUint::from_slice(
                &digits
                    .iter()
                    .flat_map(|&word| [word as u32, (word >> 32) as u32])
                    .collect::<Vec<u32>>(),
            );
            if drawn < bound {
                return Count::from_big(drawn);
            }
        }
    }
}

impl From<u128> for Count {
    fn from(value: u128) -> Self {
        Count::Small(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_counts_promote_on_overflow_and_stay_exact() {
        let mut count = Count::from(u128::MAX);
        count.add(&Count::ONE);
        assert_eq!(count.to_big(), BigUint::from(u128::MAX) + 1u32);
        let mut square = Count::from(u128::MAX);
        square.mul(&Count::from(u128::MAX));
        let expected = BigUint::from(u128::MAX) * BigUint::from(u128::MAX);
        assert_eq!(square.to_big(), expected);
        // 720^11: the permutation squares' count, past 2^128 when multiplied a few more times.
        let mut power = Count::ONE;
        for _ in 0..30 {
            power.mul(&Count::from(720));
        }
        assert_eq!(power.to_big(), BigUint::from(720u32).pow(30));
        let mut back = power.clone();
        back.sub(&power);
        assert!(back.is_zero());
        assert!(Count::from(3).less_than(&power));
    }

    #[test]
    fn uniform_below_stays_below_and_reaches_every_value() {
        let mut state = 0x1234_5678_9ABC_DEF1u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let bound = Count::from(5);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            match bound.uniform_below(&mut next) {
                Count::Small(value) => seen[value as usize] += 1,
                Count::Big(_) => unreachable!(),
            }
        }
        assert!(seen.iter().all(|&times| times > 800), "{seen:?}");
        let mut huge = Count::ONE;
        for _ in 0..10 {
            huge.mul(&Count::from(u128::MAX));
        }
        for _ in 0..100 {
            assert!(huge.uniform_below(&mut next).less_than(&huge));
        }
    }
}
