//! Several probing searches listing every solution of one space at once, each in a thread of
//! its own: both cores on one listing, in one process. Each thread takes a part of the space
//! from a shared queue and lists it depth first; when another thread waits for work, it gives
//! away the rest of its part (`Search::give_away`: every color not yet tried under each of its
//! branches, parts holding none of the solutions it reported), so nothing is searched twice
//! and no thread idles while another has work to share; a part that goes dry is rotated to
//! the back of the queue (`rotation.rs`). The listing ends when the queue is
//! empty and no thread is busy. A panic in a thread stops them all and is raised again in the
//! caller's thread (which the Python surface turns into an error).

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::rotation::{enqueue, room_for, Lister, Part, Stepped, Told};
use super::Event;
use crate::clue::Puzzle;

/// Threads a listing may run in at most (the Python surface refuses more, and says so).
pub const MAX_THREADS: usize = 64;
/// How long a thread searches between two looks at whether another waits for work.
const LOOK: Duration = Duration::from_millis(20);
/// Solutions found and not yet taken, at most (then the threads wait for the caller).
const WAITING_SOLUTIONS: usize = 4_096;

#[derive(Default)]
struct Work {
    parts: VecDeque<Part>,
    busy: usize,
}

#[derive(Default)]
struct Shared {
    work: Mutex<Work>,
    /// Parts in the queue, as last changed (read without the lock).
    queued: AtomicUsize,
    changed: Condvar,
    stop: AtomicBool,
    hungry: AtomicUsize,
    panicked: AtomicBool,
}

impl Shared {
    /// The next part to list (the thread is busy from then on); None when nothing is left
    /// anywhere, or on stop.
    fn take(&self) -> Option<Part> {
        let mut work = self.work.lock().ok()?;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(part) = work.parts.pop_front() {
                self.queued.store(work.parts.len(), Ordering::Relaxed);
                work.busy += 1;
                return Some(part);
            }
            if work.busy == 0 {
                return None;
            }
            self.hungry.fetch_add(1, Ordering::Relaxed);
            let waited = self.changed.wait(work);
            self.hungry.fetch_sub(1, Ordering::Relaxed);
            work = waited.ok()?;
        }
    }

    /// A thread is done with its part, having given away `parts` (none when it listed it to
    /// the end).
    fn finished(&self, parts: Vec<Part>) {
        if let Ok(mut work) = self.work.lock() {
            enqueue(&mut work.parts, parts);
            self.queued.store(work.parts.len(), Ordering::Relaxed);
            work.busy -= 1;
        }
        self.changed.notify_all();
    }

    fn halt(&self) {
        self.stop.store(true, Ordering::Relaxed);
        // Under the lock, so that a thread about to wait sees the stop first.
        drop(self.work.lock());
        self.changed.notify_all();
    }
}

/// Every solution of `domains` but those excluded, listed by several threads.
pub struct Listing {
    shared: Arc<Shared>,
    /// In a mutex only so that the listing may be shared between threads (a Python object).
    solutions: Option<Mutex<Receiver<Vec<u128>>>>,
    threads: Vec<JoinHandle<()>>,
}

impl Listing {
    /// `threads` searches (at least 1) over every line of `puzzle`, from `parts` (domains
    /// that partition the space to list), each part's search as `told`, each part rotated
    /// after `rotate` nodes without a solution in its first round (ROTATE_NODES; u64::MAX:
    /// never).
    pub fn new<const W: usize>(
        puzzle: &Arc<Puzzle>,
        parts: Vec<Vec<u128>>,
        told: Told,
        threads: usize,
        rotate: u64,
    ) -> Self {
        let shared = Arc::new(Shared::default());
        if let Ok(mut work) = shared.work.lock() {
            work.parts = told.queue(parts);
        }
        let told = Arc::new(told);
        let (sender, receiver) = sync_channel(WAITING_SOLUTIONS);
        let threads = (0..threads.max(1))
            .map(|_| {
                let (puzzle, shared) = (Arc::clone(puzzle), Arc::clone(&shared));
                let (told, sender) = (Arc::clone(&told), sender.clone());
                std::thread::spawn(move || {
                    let worked = catch_unwind(AssertUnwindSafe(|| {
                        work::<W>(&puzzle, &shared, &told, &sender, rotate);
                    }));
                    if worked.is_err() {
                        shared.panicked.store(true, Ordering::Relaxed);
                        shared.halt();
                    }
                })
            })
            .collect();
        Self {
            shared,
            solutions: Some(Mutex::new(receiver)),
            threads,
        }
    }

    /// The next solution, the end (every one listed), or `deadline`.
    pub fn next(&mut self, deadline: Option<Instant>) -> Event {
        let Some(Ok(solutions)) = self.solutions.as_ref().map(Mutex::lock) else {
            return Event::Exhausted;
        };
        loop {
            let wait = deadline.map_or(LOOK, |at| {
                at.saturating_duration_since(Instant::now()).min(LOOK)
            });
            let received = solutions.recv_timeout(wait);
            assert!(
                !self.shared.panicked.load(Ordering::Relaxed),
                "a thread of the parallel listing panicked"
            );
            match received {
                Ok(domains) => return Event::Solution(domains),
                Err(RecvTimeoutError::Disconnected) => return Event::Exhausted,
                Err(RecvTimeoutError::Timeout) => {
                    if deadline.is_some_and(|at| Instant::now() >= at) {
                        return Event::Paused;
                    }
                }
            }
        }
    }
}

impl Drop for Listing {
    fn drop(&mut self) {
        self.shared.halt();
        self.solutions = None; // a thread waiting to hand over a solution is let go
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// One thread's work: parts from the queue, each listed until done, given away to a thread
/// that waits for work, or rotated to the back of the queue when dry.
fn work<const W: usize>(
    puzzle: &Arc<Puzzle>,
    shared: &Shared,
    told: &Told,
    sender: &SyncSender<Vec<u128>>,
    rotate: u64,
) {
    while let Some(part) = shared.take() {
        let Some(mut lister) = Lister::<W>::new(puzzle, &part, told, rotate) else {
            shared.finished(Vec::new()); // no grid fits this part
            continue;
        };
        loop {
            if shared.stop.load(Ordering::Relaxed) {
                shared.finished(Vec::new());
                return;
            }
            let hungry = shared.hungry.load(Ordering::Relaxed) > 0;
            let room = room_for(shared.queued.load(Ordering::Relaxed), part.cells());
            let until = Some(Instant::now() + LOOK);
            let (solutions, parts) = match lister.step(until, hungry, room) {
                Stepped::Solution(domains) => (vec![domains], None),
                Stepped::Paused => (Vec::new(), None),
                Stepped::Ended(solutions, parts) => (solutions, Some(parts)),
            };
            let sent = solutions
                .into_iter()
                .try_for_each(|domains| sender.send(domains));
            if sent.is_err() {
                shared.finished(Vec::new()); // the listing stopped: its caller is gone
                return;
            }
            if let Some(parts) = parts {
                shared.finished(parts);
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::count::tests::{brute_force, mixed_puzzle};
    use crate::search::rotation::ROTATE_NODES;

    /// Two and three threads list every solution once, whatever is excluded.
    #[test]
    fn threads_list_every_solution_once() {
        let mut seed = 0x5EED_0045u64;
        for case in 0..200 {
            let puzzle = Arc::new(mixed_puzzle(case, 3, (4, 4), (3, 3), &mut seed));
            let domains = puzzle.initial_domains();
            let mut every = HashSet::new();
            let mut single = Listing::new::<1>(
                &puzzle,
                vec![domains.clone()],
                Told::default(),
                1,
                ROTATE_NODES,
            );
            while let Event::Solution(found) = single.next(None) {
                every.insert(found);
            }
            assert_eq!(every.len() as u128, brute_force(&puzzle), "case {case}");
            let excluded: Vec<Vec<u128>> = every.iter().take(case % 3).cloned().collect();
            for (threads, rotate) in [(2, ROTATE_NODES), (3, ROTATE_NODES), (2, 0), (2, 1)] {
                let mut listing = Listing::new::<1>(
                    &puzzle,
                    vec![domains.clone()],
                    Told {
                        excluded: excluded.clone(),
                        guide: None,
                    },
                    threads,
                    rotate,
                );
                let mut found = HashSet::new();
                loop {
                    match listing.next(None) {
                        Event::Solution(domains) => {
                            assert!(found.insert(domains), "case {case}: a solution twice");
                        }
                        Event::Exhausted => break,
                        other => panic!("case {case}: {other:?}"),
                    }
                }
                assert_eq!(found.len() + excluded.len(), every.len(), "case {case}");
                assert!(excluded.iter().all(|solution| !found.contains(solution)));
            }
        }
    }

    /// Dropped part-way, the listing stops its threads (the test ends).
    #[test]
    fn a_listing_dropped_part_way_stops() {
        let mut seed = 0x5EED_0046u64;
        let puzzle = Arc::new(mixed_puzzle(0, 3, (6, 6), (3, 3), &mut seed));
        let mut listing = Listing::new::<1>(
            &puzzle,
            vec![puzzle.initial_domains()],
            Told::default(),
            2,
            ROTATE_NODES,
        );
        let _ = listing.next(None);
        drop(listing);
    }
}
