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
pub struct StateMap {
    keys: Vec<u128>,
    places: Vec<u32>,
    mask: usize,
    len: usize,
}

const EMPTY: u32 = u32::MAX;

impl StateMap {
    pub fn new() -> Self {
        Self {
            keys: vec![0; 16],
            places: vec![EMPTY; 16],
            mask: 15,
            len: 0,
        }
    }

    pub fn clear(&mut self) {
        self.places.iter_mut().for_each(|place| *place = EMPTY);
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
        loop {
            let place = self.places[at];
            if place == EMPTY {
                return None;
            }
            if self.keys[at] == key {
                return Some(place as usize);
            }
            at = (at + 1) & self.mask;
        }
    }

    /// Start loading the slot where `key`'s probe begins, so that `place` finds it in cache:
    /// a sweep's table outgrows the caches, and its probes were two thirds of its time, each
    /// waiting on memory alone; touched a batch ahead, their loads overlap.
    #[inline]
    pub fn touch(&self, key: u128) {
        let at = self.slot(key);
        prefetch(&self.places[at]);
        prefetch(&self.keys[at]);
    }

    /// The place of `key`, made by `make` when it is new.
    #[inline]
    pub fn place(&mut self, key: u128, make: impl FnOnce() -> u32) -> u32 {
        if 2 * (self.len + 1) > self.places.len() {
            self.grow();
        }
        let mut at = self.slot(key);
        loop {
            let place = self.places[at];
            if place == EMPTY {
                let made = make();
                self.keys[at] = key;
                self.places[at] = made;
                self.len += 1;
                return made;
            }
            if self.keys[at] == key {
                return place;
            }
            at = (at + 1) & self.mask;
        }
    }

    fn grow(&mut self) {
        let size = self.places.len() * 2;
        let keys = std::mem::replace(&mut self.keys, vec![0; size]);
        let places = std::mem::replace(&mut self.places, vec![EMPTY; size]);
        self.mask = size - 1;
        for (key, place) in keys.into_iter().zip(places) {
            if place != EMPTY {
                let mut at = self.slot(key);
                while self.places[at] != EMPTY {
                    at = (at + 1) & self.mask;
                }
                self.keys[at] = key;
                self.places[at] = place;
            }
        }
    }
}
