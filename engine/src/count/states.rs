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

    pub fn clear(&mut self) {
        match &mut self.slots {
            Slots::Wide { places, .. } => places.iter_mut().for_each(|place| *place = EMPTY),
            Slots::Packed { words, .. } => words.iter_mut().for_each(|word| *word = 0),
        }
        self.len = 0;
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
        match &self.slots {
            Slots::Wide { places, .. } => places.len() / 2,
            Slots::Packed { words, key_bits } => {
                let fitting = (1u64 << (64 - key_bits)) - 2;
                (words.len() / 2).min(usize::try_from(fitting).unwrap_or(usize::MAX))
            }
        }
    }

    /// Twice the slots when half full; a packed table whose places would no longer fit beside
    /// its keys turns wide.
    fn grow(&mut self) {
        let (capacity, places) = match &self.slots {
            Slots::Wide { places, .. } => (places.len(), None),
            Slots::Packed { words, key_bits } => (words.len(), Some((1u64 << (64 - key_bits)) - 2)),
        };
        let size = if 2 * (self.len + 1) > capacity {
            capacity * 2
        } else {
            capacity
        };
        let entries: Vec<(u128, u32)> = match &self.slots {
            Slots::Wide { keys, places } => keys
                .iter()
                .zip(places)
                .filter(|(_, &place)| place != EMPTY)
                .map(|(&key, &place)| (key, place))
                .collect(),
            Slots::Packed { words, key_bits } => words
                .iter()
                .filter(|&&word| word != 0)
                .map(|&word| unpacked(word, *key_bits))
                .collect(),
        };
        self.slots = match (&self.slots, places) {
            (Slots::Packed { key_bits, .. }, Some(fitting)) if (self.len as u64) < fitting => {
                Slots::Packed {
                    words: vec![0; size],
                    key_bits: *key_bits,
                }
            }
            _ => Slots::Wide {
                keys: vec![0; size],
                places: vec![EMPTY; size],
            },
        };
        self.mask = size - 1;
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
        table.clear();
        assert_eq!(table.get(placed[0]), None);
    }

    #[test]
    fn a_packed_table_finds_every_key_and_turns_wide_when_places_outgrow_it() {
        holds_every_key(30, 100_000); // packed throughout
        holds_every_key(47, 200_000); // 17 bits of places: wide past 131,070 of them
        holds_every_key(100, 50_000); // wide from the start
        holds_every_key(1, 10);
    }
}
