//! The bytes a sweep may take (`Bytes`), and how a racing sweep's share of them grows to the
//! whole once its rival is gone.

use std::sync::atomic::Ordering;

use crate::count::Control;

/// The bytes a sweep may take: for its layer in flight, and for what it keeps (its layers or
/// its trace). A sweep racing another (`turned`) takes a share of them, and the whole once
/// the other is gone (`Control::alone`): else the one left would run out of its share where
/// the whole would have held it, and be run again from the start.
#[derive(Clone, Copy)]
pub struct Bytes {
    flight: usize,
    kept: usize,
    whole: Option<(usize, usize)>,
}

impl From<(usize, usize)> for Bytes {
    fn from((flight, kept): (usize, usize)) -> Self {
        Self {
            flight,
            kept,
            whole: None,
        }
    }
}

impl Bytes {
    /// `share` while the race lasts, `whole` once the sweep runs alone.
    pub fn shared(share: (usize, usize), whole: (usize, usize)) -> Self {
        Self {
            whole: Some(whole),
            ..share.into()
        }
    }

    /// The bytes for the layer in flight while it races.
    pub fn flight(&self) -> usize {
        self.flight
    }

    /// Whether a racing sweep whose layers kept (`held` bytes) have outgrown its share, but
    /// not the whole, has the whole now: it says so (`Control::starved`) and waits for the
    /// race to stop the other sweep, or to stop it (then false). Else its share was all the
    /// race could give it, and it would run again from the start with the whole.
    pub(super) fn waited_for_whole(&self, held: usize, control: &Control) -> bool {
        let Some((_, whole)) = self.whole else {
            return false;
        };
        if held > whole {
            return false;
        }
        control.starved.store(true, Ordering::Relaxed);
        loop {
            if control.alone.load(Ordering::Relaxed) {
                return true;
            }
            if control.should_stop() {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// The bytes for the layer in flight and for what is kept, as of now.
    pub(super) fn now(&self, control: &Control) -> (usize, usize) {
        match self.whole {
            Some(whole) if control.alone.load(Ordering::Relaxed) => whole,
            _ => (self.flight, self.kept),
        }
    }
}
