//! The table a sweep finds its states in by their keys: open addressing on a table at most
//! half full, whose probes can be started ahead of time.

/// Ask the processor to bring `value`'s cache line in, without waiting for it.
#[inline]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that reads nothing into the program and cannot fault, and
    // the pointer comes from a reference, so it is valid besides.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// `len` copies of `value` in memory backed by 2 MB pages where Linux has them (transparent
/// huge pages on request): a sweep's table is probed at random over tens of megabytes (32 MB
/// at thin-9004's widest layer), more than the TLB covers with 4 KB pages, so nearly every
/// probe also walked the page tables.
pub fn huge_vec<T: Clone>(value: T, len: usize) -> Vec<T> {
    let mut made = huge_capacity(len);
    made.resize(len, value);
    made
}

/// `vec`, with room for at least `len` items, in memory as `huge_vec`'s when it has to move:
/// for the arrays a sweep adds into at random (the next layer's counts).
pub fn reserve_huge<T: Copy>(vec: &mut Vec<T>, len: usize) {
    if len > vec.capacity() {
        let mut moved = huge_capacity(len.max(2 * vec.capacity()));
        moved.extend_from_slice(vec);
        *vec = moved;
    }
}

/// An empty vector with room for `capacity` items, its whole 2 MB pages advised huge.
fn huge_capacity<T>(capacity: usize) -> Vec<T> {
    let mut made: Vec<T> = Vec::with_capacity(capacity);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = made.as_mut_ptr() as usize;
        let bytes = capacity * std::mem::size_of::<T>();
        let (first, end) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
        if bytes >= 4 * HUGE && end > first {
            // SAFETY: madvise(MADV_HUGEPAGE) only tells the kernel how to back these pages; it
            // reads and writes no memory and changes nothing a program can see, and the range
            // (whole pages, within the allocation just made) belongs to this process. Its
            // result is ignored: without huge pages the memory works the same.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    made
}

/// Where each state of the layer being built is, by its key: open addressing on a table at
/// most half full (a general hash map spent half of a sweep's time on its own bookkeeping).
///
/// Where a key and its place fit in 64 bits together (a thin board's keys take 28 to 35 bits),
/// each slot is one word holding both: a probe then loads one cache line where keys and places
/// side by side took two, and the table takes 16 bytes a state instead of 40. A sweep waits on
/// those loads (BENCHMARKS.md, issue 40), and the processor keeps only so many in flight.
pub struct StateMap {
    slots: Slots,
    mask: usize,
    len: usize,
    /// Places the table holds before it grows (half its slots) or, packed, turns wide (the
    /// places no longer fit beside the keys): one comparison an insertion.
    room: usize,
}

enum Slots {
    /// Keys and places apart; an empty slot's place is EMPTY.
    Wide { keys: Vec<u128>, places: Vec<u32> },
    /// `(place + 1) << key_bits | key` per slot; 0 is empty.
    Packed { words: Vec<u64>, key_bits: u32 },
}

const EMPTY: u32 = u32::MAX;

/// A packed slot's key and place (the slot not empty).
#[inline]
fn unpacked(word: u64, key_bits: u32) -> (u128, u32) {
    let key = word & ((1u64 << key_bits) - 1);
    (u128::from(key), (word >> key_bits) as u32 - 1)
}

impl StateMap {
    /// A table for keys below 2^`key_bits`: packed while the places fit beside them, else
    /// keys and places apart.
    pub fn for_keys(key_bits: u32) -> Self {
        let key_bits = key_bits.max(1);
        let slots = if key_bits + 16 > 64 {
            Slots::Wide {
                keys: vec![0; 16],
                places: vec![EMPTY; 16],
            }
        } else {
            Slots::Packed {
                words: vec![0; 16],
                key_bits,
            }
        };
        let mut table = Self {
            slots,
            mask: 15,
            len: 0,
            room: 0,
        };
        table.room = table.room();
        table
    }

    /// Empty the table for about `expected` keys: only the slots in use (a prefix of those
    /// allocated, at most half full) are emptied, and as many are used next as `expected`
    /// keys need, more as they come (`grow`). A table kept at the widest layer's size was
    /// emptied whole before every layer, however narrow: 9% of a sweep of thin-9004.
    pub fn clear_for(&mut self, expected: usize) {
        let in_use = self.mask + 1;
        match &mut self.slots {
            Slots::Wide { places, .. } => places[..in_use].fill(EMPTY),
            Slots::Packed { words, .. } => words[..in_use].fill(0),
        }
        let size = (2 * expected.max(1)).next_power_of_two().max(16);
        self.mask = size.min(self.allocated()) - 1;
        self.room = self.room();
        self.len = 0;
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> usize {
        match &self.slots {
            Slots::Wide { keys, places } => keys.capacity() * 16 + places.capacity() * 4,
            Slots::Packed { words, .. } => words.capacity() * 8,
        }
    }

    /// Slots allocated (those past `mask` are empty).
    fn allocated(&self) -> usize {
        match &self.slots {
            Slots::Wide { places, .. } => places.len(),
            Slots::Packed { words, .. } => words.len(),
        }
    }

    #[inline]
    fn slot(&self, key: u128) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & self.mask
    }

    /// The place of `key`, if it is there.
    #[inline]
    pub fn get(&self, key: u128) -> Option<usize> {
        let mut at = self.slot(key);
        match &self.slots {
            Slots::Wide { keys, places } => loop {
                let place = places[at];
                if place == EMPTY {
                    return None;
                }
                if keys[at] == key {
                    return Some(place as usize);
                }
                at = (at + 1) & self.mask;
            },
            Slots::Packed { words, key_bits } => loop {
                let word = words[at];
                if word == 0 {
                    return None;
                }
                let (found, place) = unpacked(word, *key_bits);
                if found == key {
                    return Some(place as usize);
                }
                at = (at + 1) & self.mask;
            },
        }
    }

    /// Start loading the slot where `key`'s probe begins, so that `place` finds it in cache:
    /// a sweep's table outgrows the caches, and its probes were two thirds of its time, each
    /// waiting on memory alone; touched a batch ahead, their loads overlap.
    #[inline]
    pub fn touch(&self, key: u128) {
        let at = self.slot(key);
        match &self.slots {
            Slots::Wide { keys, places } => {
                prefetch(&places[at]);
                prefetch(&keys[at]);
            }
            Slots::Packed { words, .. } => prefetch(&words[at]),
        }
    }

    /// The place of `key`, made by `make` when it is new.
    #[inline]
    pub fn place(&mut self, key: u128, make: impl FnOnce() -> u32) -> u32 {
        if self.len + 1 > self.room {
            self.grow();
        }
        let mut at = self.slot(key);
        let mask = self.mask;
        match &mut self.slots {
            Slots::Wide { keys, places } => loop {
                let place = places[at];
                if place == EMPTY {
                    let made = make();
                    keys[at] = key;
                    places[at] = made;
                    self.len += 1;
                    return made;
                }
                if keys[at] == key {
                    return place;
                }
                at = (at + 1) & mask;
            },
            Slots::Packed { words, key_bits } => loop {
                let word = words[at];
                if word == 0 {
                    let made = make();
                    // `room` saw to it that the place fits beside the key.
                    words[at] = (u64::from(made) + 1) << *key_bits | key as u64;
                    self.len += 1;
                    return made;
                }
                let (found, place) = unpacked(word, *key_bits);
                if found == key {
                    return place;
                }
                at = (at + 1) & mask;
            },
        }
    }

    /// Places the table may hold as it is: half its slots and, packed, as many as fit beside
    /// the keys (stored plus one, 0 being empty).
    fn room(&self) -> usize {
        let half = self.mask.div_ceil(2); // half the slots in use (a power of two)
        match &self.slots {
            Slots::Wide { .. } => half,
            Slots::Packed { key_bits, .. } => {
                let fitting = (1u64 << (64 - key_bits)) - 2;
                half.min(usize::try_from(fitting).unwrap_or(usize::MAX))
            }
        }
    }

    /// Twice the slots when half full; a packed table whose places would no longer fit beside
    /// its keys turns wide.
    fn grow(&mut self) {
        let in_use = self.mask + 1;
        let fitting = match &self.slots {
            Slots::Wide { .. } => None,
            Slots::Packed { key_bits, .. } => Some((1u64 << (64 - key_bits)) - 2),
        };
        let size = if 2 * (self.len + 1) > in_use {
            in_use * 2
        } else {
            in_use
        };
        let entries: Vec<(u128, u32)> = match &self.slots {
            Slots::Wide { keys, places } => keys[..in_use]
                .iter()
                .zip(&places[..in_use])
                .filter(|(_, &place)| place != EMPTY)
                .map(|(&key, &place)| (key, place))
                .collect(),
            Slots::Packed { words, key_bits } => words[..in_use]
                .iter()
                .filter(|&&word| word != 0)
                .map(|&word| unpacked(word, *key_bits))
                .collect(),
        };
        let stays_packed = fitting.is_some_and(|fitting| (self.len as u64) < fitting);
        if stays_packed == fitting.is_some() && size <= self.allocated() {
            // The same kind of slots, room enough: a larger prefix of them, emptied first.
            self.clear_for(0);
            self.mask = size - 1;
        } else {
            self.slots = match &self.slots {
                Slots::Packed { key_bits, .. } if stays_packed => Slots::Packed {
                    words: huge_vec(0, size),
                    key_bits: *key_bits,
                },
                _ => Slots::Wide {
                    keys: huge_vec(0, size),
                    places: huge_vec(EMPTY, size),
                },
            };
            self.mask = size - 1;
        }
        self.room = self.room();
        self.len = 0;
        for (key, place) in entries {
            self.place(key, || place);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys spread over `bits` bits, each placed once in order: the table finds every one at
    /// its place, packed or not, also once the places no longer fit beside the keys.
    fn holds_every_key(key_bits: u32, keys: u64) {
        let mut table = StateMap::for_keys(key_bits);
        let key_of = |n: u64| {
            let spread = u128::from(n.wrapping_mul(0x2545_F491_4F6C_DD1D));
            if key_bits > 64 {
                spread << (key_bits - 64)
            } else {
                spread >> (64 - key_bits)
            }
        };
        let mut placed: Vec<u128> = Vec::new();
        for n in 0..keys {
            let key = key_of(n);
            table.touch(key);
            let place = table.place(key, || placed.len() as u32) as usize;
            if place == placed.len() {
                placed.push(key);
            }
            assert_eq!(placed[place], key);
        }
        for (place, &key) in placed.iter().enumerate() {
            assert_eq!(table.get(key), Some(place));
        }
        assert_eq!(table.get(u128::MAX), None);
        table.clear_for(0);
        assert_eq!(table.get(placed[0]), None);
    }

    /// A table emptied for few keys uses a small prefix of its slots, then grows within them
    /// again: every key placed since is found, none from before, packed or wide.
    #[test]
    fn a_table_emptied_for_few_keys_still_finds_every_key_as_it_grows_again() {
        for key_bits in [30, 100] {
            let mut table = StateMap::for_keys(key_bits);
            let key_of = |n: u64| u128::from(n.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 36);
            for n in 0..100_000 {
                table.place(key_of(n), || n as u32);
            }
            for (expected, keys) in [(10, 50), (3, 200_000), (100_000, 7), (0, 1)] {
                table.clear_for(expected);
                assert_eq!(table.get(key_of(0)), None);
                for n in 1000..1000 + keys {
                    table.touch(key_of(n));
                    assert_eq!(table.place(key_of(n), || n as u32), n as u32);
                }
                for n in 1000..1000 + keys {
                    assert_eq!(table.get(key_of(n)), Some(n as usize));
                }
                assert_eq!(table.get(key_of(999)), None);
            }
        }
    }

    #[test]
    fn a_packed_table_finds_every_key_and_turns_wide_when_places_outgrow_it() {
        holds_every_key(30, 100_000); // packed throughout
        holds_every_key(47, 200_000); // 17 bits of places: wide past 131,070 of them
        holds_every_key(100, 50_000); // wide from the start
        holds_every_key(1, 10);
    }
}
