//! Several probing searches listing every solution of one space at once, each in a thread of
//! its own: both cores on one listing, in one process. Each thread takes a part of the space
//! from a shared queue and lists it depth first; when another thread waits for work, it gives
//! away the rest of its part (`Search::give_away`: every color not yet tried under each of its
//! branches, parts holding none of the solutions it reported), so nothing is searched twice
//! and no thread idles while another has work to share. The listing ends when the queue is
//! empty and no thread is busy. A panic in a thread stops them all and is raised again in the
//! caller's thread (which the Python surface turns into an error).

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Event, Search};
use crate::clue::Puzzle;

/// Threads a listing may run in at most (the Python surface refuses more, and says so).
pub const MAX_THREADS: usize = 64;
/// How long a thread searches between two looks at whether another waits for work.
const LOOK: Duration = Duration::from_millis(20);
/// Solutions found and not yet taken, at most (then the threads wait for the caller).
const WAITING_SOLUTIONS: usize = 4_096;

#[derive(Default)]
struct Work {
    parts: VecDeque<Vec<u128>>,
    busy: usize,
}

#[derive(Default)]
struct Shared {
    work: Mutex<Work>,
    changed: Condvar,
    stop: AtomicBool,
    hungry: AtomicUsize,
    panicked: AtomicBool,
}

impl Shared {
    /// The next part to list (the thread is busy from then on); None when nothing is left
    /// anywhere, or on stop.
    fn take(&self) -> Option<Vec<u128>> {
        let mut work = self.work.lock().ok()?;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(part) = work.parts.pop_front() {
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
    fn finished(&self, parts: Vec<Vec<u128>>) {
        if let Ok(mut work) = self.work.lock() {
            work.parts.extend(parts);
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
    /// `threads` searches (at least 1) over every line of `puzzle`, from `domains`, none
    /// reporting a solution of `excluded`.
    pub fn new<const W: usize>(
        puzzle: &Arc<Puzzle>,
        domains: Vec<u128>,
        excluded: Vec<Vec<u128>>,
        threads: usize,
    ) -> Self {
        let shared = Arc::new(Shared::default());
        if let Ok(mut work) = shared.work.lock() {
            work.parts.push_back(domains);
        }
        let excluded = Arc::new(excluded);
        let (sender, receiver) = sync_channel(WAITING_SOLUTIONS);
        let threads = (0..threads.max(1))
            .map(|_| {
                let (puzzle, shared) = (Arc::clone(puzzle), Arc::clone(&shared));
                let (excluded, sender) = (Arc::clone(&excluded), sender.clone());
                std::thread::spawn(move || {
                    let worked = catch_unwind(AssertUnwindSafe(|| {
                        work::<W>(&puzzle, &shared, &excluded, &sender);
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

/// One thread's work: parts from the queue, each listed until done or given away.
fn work<const W: usize>(
    puzzle: &Arc<Puzzle>,
    shared: &Shared,
    excluded: &[Vec<u128>],
    sender: &SyncSender<Vec<u128>>,
) {
    while let Some(part) = shared.take() {
        let listed = list::<W>(puzzle, shared, excluded, sender, &part);
        let stopped = listed.is_err();
        shared.finished(listed.unwrap_or_default());
        if stopped {
            return;
        }
    }
}

/// List `part`'s solutions: Ok(the parts given away, none when listed to the end), Err when
/// the listing stopped (its caller gone).
fn list<const W: usize>(
    puzzle: &Arc<Puzzle>,
    shared: &Shared,
    excluded: &[Vec<u128>],
    sender: &SyncSender<Vec<u128>>,
    part: &[u128],
) -> Result<Vec<Vec<u128>>, ()> {
    let Some(mut search) = Search::<W>::listing(puzzle, part, &[]) else {
        return Ok(Vec::new()); // no grid fits this part
    };
    for solution in excluded {
        search.exclude(solution);
    }
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return Err(());
        }
        if shared.hungry.load(Ordering::Relaxed) > 0 {
            if let Some((solutions, parts)) = search.give_away() {
                for domains in solutions {
                    sender.send(domains).map_err(|_| ())?;
                }
                return Ok(parts);
            }
        }
        match search.run(Some(Instant::now() + LOOK)) {
            Event::Solution(domains) => sender.send(domains).map_err(|_| ())?,
            Event::Exhausted | Event::Budget => return Ok(Vec::new()),
            Event::Paused => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::count::tests::{brute_force, mixed_puzzle};

    /// Two and three threads list every solution once, whatever is excluded.
    #[test]
    fn threads_list_every_solution_once() {
        let mut seed = 0x5EED_0045u64;
        for case in 0..200 {
            let puzzle = Arc::new(mixed_puzzle(case, 3, (4, 4), (3, 3), &mut seed));
            let domains = puzzle.initial_domains();
            let mut every = HashSet::new();
            let mut single = Listing::new::<1>(&puzzle, domains.clone(), Vec::new(), 1);
            while let Event::Solution(found) = single.next(None) {
                every.insert(found);
            }
            assert_eq!(every.len() as u128, brute_force(&puzzle), "case {case}");
            let excluded: Vec<Vec<u128>> = every.iter().take(case % 3).cloned().collect();
            for threads in [2, 3] {
                let mut listing =
                    Listing::new::<1>(&puzzle, domains.clone(), excluded.clone(), threads);
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
        let mut listing = Listing::new::<1>(&puzzle, puzzle.initial_domains(), Vec::new(), 2);
        let _ = listing.next(None);
        drop(listing);
    }
}
