//! The counts of sub-problems already counted, by their keys (`search`), within a byte
//! budget: past it the store is emptied and counting goes on without what it held (slower,
//! never wrong, never past the bound).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::count::number::Count;

/// A fast hash of byte strings, a word at a time (the keys are long and hashed once each;
/// SipHash's resistance to chosen keys buys nothing here).
#[derive(Default)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        let mut hash = self.0;
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        hash ^ (hash >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(word) ^ (rest.len() as u64) << 56);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.mix(value);
    }
}

impl WordHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// Bytes an entry costs beyond its key: the table's slot, the box's header, the count.
const ENTRY_OVERHEAD: usize = 64;

pub struct Store {
    counts: FastMap<Box<[u8]>, Count>,
    bytes: usize,
    budget: usize,
    /// Times the store was emptied for the budget.
    pub clears: u64,
}

impl Store {
    pub fn new(budget: usize) -> Self {
        Self {
            counts: FastMap::default(),
            bytes: 0,
            budget,
            clears: 0,
        }
    }

    pub fn get(&self, key: &[u8]) -> Option<&Count> {
        self.counts.get(key)
    }

    pub fn put(&mut self, key: Box<[u8]>, count: Count) {
        let size = key.len() + ENTRY_OVERHEAD + count.heap_bytes();
        if self.bytes + size > self.budget {
            self.counts = FastMap::default(); // frees the table itself, not only its entries
            self.bytes = 0;
            self.clears += 1;
        }
        self.bytes += size;
        self.counts.insert(key, count);
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_empties_itself_at_its_budget() {
        let mut store = Store::new(1000);
        for i in 0u32..100 {
            store.put(
                i.to_le_bytes().to_vec().into_boxed_slice(),
                Count::from(u128::from(i)),
            );
            assert!(store.bytes() <= 1000);
        }
        assert!(store.clears > 0);
        assert_eq!(store.get(&99u32.to_le_bytes()), Some(&Count::from(99)));
    }
}
