//! A listing that does not stay in a barren subtree: the space to list is a queue of parts,
//! each listed depth first by a probing search until it has gone its round's budget of nodes
//! without a solution; then the rest of it goes to the back of the queue, in parts
//! (`Search::give_away`), each with twice the budget. Without it, a depth-first listing is held
//! in the first subtree it enters, however barren: a random 25x25 with millions of solutions
//! gave none in 20 s from one thread, and 38,000 in 10 s rotated (BENCHMARKS.md, round 29).
//! Nothing is searched twice, every rotation follows nodes not searched before, and the space
//! is finite, so the listing ends. `Rotation` is the listing on the caller's thread;
//! `parallel.rs` runs `Lister`s in threads over a shared queue.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use super::{Event, Guide, Search};
use crate::clue::Puzzle;

/// Search nodes a part is listed for without a solution before it is rotated to the back of
/// the queue, in its first round; each rotation doubles it for the parts given away.
pub const ROTATE_NODES: u64 = 64;
/// Rounds after which a part's budget stops doubling (it is then practically unbounded).
const MOST_ROUNDS: u32 = 40;
/// Bytes the parts waiting in a queue may take before no part is rotated (a dry part is then
/// listed on, depth first): 64 MB. A listing of a random 25x25 rotated 60 s long held under
/// 45 MB of parts.
pub const QUEUED_BYTES: usize = 64 << 20;

/// A part of the space to list, how many times the parts it came from were rotated, and
/// whether it holds the guide (`Search::guide`): that part is listed first, and not rotated
/// before its first solution, so that the search goes down to the guide's solution and lists
/// around it (a part given away or rotated on the way there went to the back of the queue,
/// behind parts without a solution in sight: on Sierp half the streams gave none in 10 s).
pub struct Part {
    domains: Vec<u128>,
    round: u32,
    guided: bool,
}

impl Part {
    /// A part of `round` (0: the whole space, or one of the cubes it starts as).
    pub fn new(domains: Vec<u128>, round: u32, guide: Option<&Guide>) -> Self {
        let guided = guide.is_some_and(|guide| {
            domains.len() == guide.len()
                && domains
                    .iter()
                    .zip(guide.iter())
                    .all(|(&domain, &color)| domain >> color & 1 == 1)
        });
        Self {
            domains,
            round,
            guided,
        }
    }

    pub fn cells(&self) -> usize {
        self.domains.len()
    }
}

/// What every part's search is told: the solutions it must not report, and the guide it
/// follows (`Search::guide`), if any.
#[derive(Default)]
pub struct Told {
    pub excluded: Vec<Vec<u128>>,
    pub guide: Option<Guide>,
}

impl Told {
    /// The queue a listing of `parts` (domains that partition the space) starts from.
    pub fn queue(&self, parts: Vec<Vec<u128>>) -> VecDeque<Part> {
        let mut queue = VecDeque::new();
        let parts = parts
            .into_iter()
            .map(|domains| Part::new(domains, 0, self.guide.as_ref()));
        enqueue(&mut queue, parts.collect());
        queue
    }
}

/// Put `parts` into `queue`: the one that holds the guide first, the others at the back.
pub fn enqueue(queue: &mut VecDeque<Part>, parts: Vec<Part>) {
    for part in parts {
        if part.guided {
            queue.push_front(part);
        } else {
            queue.push_back(part);
        }
    }
}

/// What one step of a part's listing came to.
pub enum Stepped {
    Solution(Vec<u128>),
    /// Its slice of time is over; the part goes on.
    Paused,
    /// The part is done with: the solutions found and not yet taken, and the rest of it
    /// (none when it was listed to the end; else given away or rotated, in parts).
    Ended(Vec<Vec<u128>>, Vec<Part>),
}

/// Whether a queue of `queued` parts of `cells` cells has room for more (QUEUED_BYTES).
pub fn room_for(queued: usize, cells: usize) -> bool {
    queued.saturating_mul(cells * std::mem::size_of::<u128>()) < QUEUED_BYTES
}

/// One part listed depth first by a probing search, which gives its rest away when asked to
/// (another thread waits for work) or when it has gone its round's budget of nodes without a
/// solution.
pub struct Lister<const W: usize> {
    search: Box<Search<W>>,
    round: u32,
    /// Nodes without a solution before the part is rotated, in round 0.
    rotate: u64,
    dry_since: u64,
    /// The guide the parts it gives away are checked against.
    guide: Option<Guide>,
    /// The part holds the guide, and no solution has come yet: it is not rotated.
    diving: bool,
}

impl<const W: usize> Lister<W> {
    /// The part's search, as `told`; None when no grid fits the part.
    pub fn new(puzzle: &Arc<Puzzle>, part: &Part, told: &Told, rotate: u64) -> Option<Self> {
        let mut search = Box::new(Search::<W>::listing(puzzle, &part.domains, &[])?);
        for solution in &told.excluded {
            search.exclude(solution);
        }
        if let Some(guide) = &told.guide {
            search.guide(guide);
        }
        Some(Self {
            search,
            round: part.round,
            rotate,
            dry_since: 0,
            guide: told.guide.clone(),
            diving: part.guided,
        })
    }

    /// Give the rest away at once if `hungry` (another thread waits for work), else list on
    /// until a solution, `until`, or the round's budget of nodes without one (then, if the
    /// queue has `room`, the rest is given away to be rotated).
    pub fn step(&mut self, until: Option<Instant>, hungry: bool, room: bool) -> Stepped {
        let room = room && !self.diving;
        if hungry {
            if let Some(given) = self.give_away(self.round) {
                return given;
            }
        }
        let budget = self.rotate.saturating_mul(1 << self.round.min(MOST_ROUNDS));
        let dry_until = self.dry_since.saturating_add(budget).saturating_add(1);
        if room {
            self.search.pause_at(dry_until);
        }
        match self.search.run(until) {
            Event::Solution(domains) => {
                self.dry_since = self.search.stats.nodes;
                self.diving = false;
                return Stepped::Solution(domains);
            }
            Event::Exhausted | Event::Budget => return Stepped::Ended(Vec::new(), Vec::new()),
            Event::Paused => {}
        }
        if room && self.search.stats.nodes >= dry_until {
            if let Some(given) = self.give_away(self.round + 1) {
                return given;
            }
            // Nothing to give (the last branch): a new stretch of the same budget.
            self.dry_since = self.search.stats.nodes;
        }
        Stepped::Paused
    }

    /// The part's rest given away as parts of `round` (None, and it goes on, when there are
    /// fewer than two to give).
    fn give_away(&mut self, round: u32) -> Option<Stepped> {
        let (solutions, parts) = self.search.give_away()?;
        let guide = self.guide.as_ref();
        let parts = parts
            .into_iter()
            .map(|domains| Part::new(domains, round, guide))
            .collect();
        Some(Stepped::Ended(solutions, parts))
    }
}

/// Every solution of a space, on the caller's thread: its parts in turn, each rotated to the
/// back of the queue when dry.
pub struct Rotation<const W: usize> {
    puzzle: Arc<Puzzle>,
    parts: VecDeque<Part>,
    lister: Option<Lister<W>>,
    told: Told,
    rotate: u64,
    pending: VecDeque<Vec<u128>>,
    /// Parts rotated to the back of the queue so far.
    pub rotations: u64,
}

impl<const W: usize> Rotation<W> {
    /// Every solution of `parts` (domains that partition the space to list), each part's
    /// search as `told` (`rotate`: ROTATE_NODES, or u64::MAX for never).
    pub fn new(puzzle: &Arc<Puzzle>, parts: Vec<Vec<u128>>, told: Told, rotate: u64) -> Self {
        Self {
            puzzle: Arc::clone(puzzle),
            parts: told.queue(parts),
            lister: None,
            told,
            rotate,
            pending: VecDeque::new(),
            rotations: 0,
        }
    }

    /// The next solution, the end (every one listed), or `deadline`.
    pub fn next(&mut self, deadline: Option<Instant>) -> Event {
        loop {
            if let Some(domains) = self.pending.pop_front() {
                return Event::Solution(domains);
            }
            if crate::propagate::past(deadline) {
                return Event::Paused;
            }
            let lister = match self.lister.as_mut() {
                Some(lister) => lister,
                None => {
                    let Some(part) = self.parts.pop_front() else {
                        return Event::Exhausted;
                    };
                    self.lister = Lister::new(&self.puzzle, &part, &self.told, self.rotate);
                    continue;
                }
            };
            let room = room_for(self.parts.len(), self.puzzle.cells());
            match lister.step(deadline, false, room) {
                Stepped::Solution(domains) => return Event::Solution(domains),
                Stepped::Paused => {}
                Stepped::Ended(solutions, parts) => {
                    self.rotations += u64::from(!parts.is_empty());
                    self.pending.extend(solutions);
                    enqueue(&mut self.parts, parts);
                    self.lister = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::count::number::Count;
    use crate::count::tests::{fits, random_puzzle};
    use crate::search::parallel::Listing;

    /// Rotated after every node or two without a solution, on one thread or two, the
    /// listing still gives every solution once (the count's number of them, each fitting the
    /// clues), whatever was excluded; and on one thread it did rotate.
    #[test]
    fn rotated_listings_give_every_solution_once() {
        let mut seed = 0x5EED_0047u64;
        let mut rotations = 0;
        for case in 0..60 {
            let (colors, blot) = [(2, false), (2, true), (3, false)][case % 3];
            let puzzle = Arc::new(random_puzzle(8, 7, colors, 40, blot, &mut seed));
            let domains = puzzle.initial_domains();
            let options = crate::count::Options::default();
            let control = crate::count::Control::new(None);
            let counted = crate::count::count::<1>(&puzzle, &domains, options, &control);
            assert!(counted.exact);
            let mut excluded = Vec::new();
            for rotate in [0, 1, 3, u64::MAX] {
                let told = || Told {
                    excluded: excluded.clone(),
                    guide: None,
                };
                let mut rotation =
                    Rotation::<1>::new(&puzzle, vec![domains.clone()], told(), rotate);
                let mut found = HashSet::new();
                loop {
                    match rotation.next(None) {
                        Event::Solution(solution) => {
                            assert!(fits(&puzzle, &solution), "case {case}: a wrong solution");
                            assert!(found.insert(solution), "case {case}: a solution twice");
                        }
                        Event::Exhausted => break,
                        other => panic!("case {case}: {other:?}"),
                    }
                }
                rotations += rotation.rotations;
                assert!(excluded.iter().all(|solution| !found.contains(solution)));
                let listed = (found.len() + excluded.len()) as u128;
                assert_eq!(
                    Count::from(listed),
                    counted.count,
                    "case {case}, rotate {rotate}"
                );
                let mut listing =
                    Listing::new::<1>(&puzzle, vec![domains.clone()], told(), 2, rotate);
                let mut twice = HashSet::new();
                while let Event::Solution(solution) = listing.next(None) {
                    assert!(twice.insert(solution), "case {case}: a solution twice");
                }
                assert_eq!(twice, found, "case {case}, rotate {rotate}");
                excluded = found.into_iter().take(case % 4).collect();
            }
        }
        assert!(rotations > 100, "the listings rotated {rotations} times");
    }

    /// Past QUEUED_BYTES of parts waiting, no part is rotated.
    #[test]
    fn a_full_queue_has_no_room() {
        let most = QUEUED_BYTES.div_ceil(625 * 16);
        assert!(room_for(0, 625) && room_for(most - 1, 625));
        assert!(!room_for(most, 625) && !room_for(usize::MAX, 625));
    }
}
