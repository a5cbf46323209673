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

/// Entries from which a table is freed apart (`free_apart`) rather than in place.
pub const FREED_APART: usize = 1 << 16;

/// Drop `value` on a thread of its own (in place where no thread can be started): freeing a
/// table of a million boxed keys one by one took 2.1 s (Sierp's store, full at its 2 GB
/// budget, each key about 2 KB), and the count's deadline waited for it, at the end of a count
/// and at each emptying of the store. Its memory comes back within those seconds, while the
/// count goes on.
pub fn free_apart<T: Send + 'static>(value: T) {
    // An error hands the closure, and with it `value`, back to be dropped here.
    let _ = std::thread::Builder::new()
        .name("satnono free".into())
        .spawn(move || drop(value));
}

/// `table` dropped apart when it is large (`free_apart`), else here.
fn free<K: Send + 'static, V: Send + 'static>(table: FastMap<K, V>) {
    if table.len() >= FREED_APART {
        free_apart(table);
    }
}

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
            free(std::mem::take(&mut self.counts)); // the table itself, not only its entries
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

impl Drop for Store {
    fn drop(&mut self) {
        free(std::mem::take(&mut self.counts));
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

    /// Tells, when dropped, the name of the thread that dropped it.
    struct Witness(std::sync::mpsc::Sender<Option<String>>);

    impl Drop for Witness {
        fn drop(&mut self) {
            let name = std::thread::current().name().map(str::to_owned);
            let _ = self.0.send(name);
        }
    }

    #[test]
    fn a_large_table_is_freed_on_a_thread_of_its_own_and_a_small_one_in_place() {
        let here = std::thread::current().name().map(str::to_owned);
        for (entries, apart) in [(FREED_APART, true), (FREED_APART - 1, false)] {
            let (send, receive) = std::sync::mpsc::channel();
            let mut table = FastMap::default();
            for key in 0..entries {
                table.insert(key, Witness(send.clone()));
            }
            drop(send);
            free(table);
            let names: Vec<Option<String>> = receive.iter().collect();
            assert_eq!(names.len(), entries);
            let expected = if apart {
                Some("satnono free".to_owned())
            } else {
                here.clone()
            };
            assert!(
                names.iter().all(|name| *name == expected),
                "{entries}: {:?}",
                names[0]
            );
        }
    }
}
