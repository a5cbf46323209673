//! The search's state handed out in parts, for the cubes backend and the parallel listing: the
//! cell it branches on first (the cubes of `branches.rs` follow the search's own tree), and,
//! when workers or threads wait, the rest of its space given away without losing what it has
//! searched.

use std::time::Instant;

use super::{Event, Phase, Search};
use crate::probe::{Limits, Sweep};
use crate::propagate::Outcome;

impl<const W: usize> Search<W> {
    /// The root propagated and probed to its fixpoint, and the cell the search branches on
    /// first with its colors: Ok(None) when the root is refuted or solved (its solutions, and
    /// those the probes completed, wait in `take_solutions`); Err when the deadline passed.
    /// The branchings of `branches.rs` are made of it, so cubes follow this search's own tree.
    pub fn first_branch(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<(usize, Vec<u32>)>, Event> {
        self.board.propagator.push_scope();
        match self.board.propagate(&self.puzzle, deadline) {
            Outcome::Conflict(_) => return Ok(None),
            Outcome::Timeout => return Err(Event::Paused),
            Outcome::Fixpoint => {}
        }
        if self.board.grid.known == self.goal {
            self.report(self.board.grid.domains(&self.puzzle));
            return Ok(None);
        }
        let limits = Limits {
            deadline,
            max_probes: None,
        };
        match self.sweep(limits)? {
            Sweep::Stable => Ok(self.choose()),
            _ => Ok(None),
        }
    }

    /// Stop, giving away what is left unexplored: the solutions found and not yet taken, and
    /// the rest of the space as domains at line logic's fixpoint, the largest first (under
    /// each branch, shallowest first, each color not tried yet; then the node reached, when it
    /// is still to be probed). They partition the solutions not reported, and hold none that
    /// was (a probe's solution dropped its color at the node it was found, and each part is
    /// made from its branch's own state). None, and the search goes on, when there are fewer
    /// than two parts to give (before the root's fixpoint, or on the last branch): how the
    /// cubes backend shares a long cube's listing with idle workers, and `parallel.rs` a
    /// listing with idle threads.
    #[allow(clippy::type_complexity)]
    pub fn give_away(&mut self) -> Option<(Vec<Vec<u128>>, Vec<Vec<u128>>)> {
        if self.root.is_none() || self.phase == Phase::Done || self.phase == Phase::Root {
            return None;
        }
        let node = self.phase == Phase::Node;
        let untried: usize = self.stack.iter().map(|branch| branch.values.len()).sum();
        if untried + usize::from(node) < 2 {
            return None;
        }
        let mut parts = Vec::new();
        if node {
            parts.push(self.board.grid.domains(&self.puzzle));
        }
        while let Some(branch) = self.stack.pop() {
            self.board.undo(branch.mark);
            let colors = branch.values.iter().rev().map(|&color| 1u128 << color);
            let children = self
                .board
                .children(&self.puzzle, branch.cell, colors, None)
                .unwrap_or_default(); // no deadline: never None
            parts.extend(children.into_iter().rev().map(|(_, domains)| domains));
        }
        parts.reverse();
        self.phase = Phase::Done;
        Some((self.take_solutions(), parts))
    }

    /// The solutions found and not yet taken (each every cell's domain).
    pub fn take_solutions(&mut self) -> Vec<Vec<u128>> {
        self.pending.drain(..).collect()
    }

    /// Every cell's domain now.
    pub fn domains(&self) -> Vec<u128> {
        self.board.grid.domains(&self.puzzle)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::Arc;

    use crate::count::tests::{brute_force, mixed_puzzle};
    use crate::engine::Start;
    use crate::search::{Event, Search};

    fn listing(puzzle: &Arc<crate::clue::Puzzle>, domains: &[u128]) -> Option<Search<1>> {
        Search::listing(puzzle, domains, &[])
    }

    /// Every solution of the puzzle, each search giving away the rest of its space after
    /// `every` solutions, its parts listed the same way: each solution once, none missing.
    #[test]
    fn the_parts_given_away_hold_every_solution_not_reported() {
        let mut seed = 0x5EED_0043u64;
        for case in 0..200 {
            let puzzle = Arc::new(mixed_puzzle(case, 3, (4, 4), (3, 3), &mut seed));
            let every = case % 3 + 1;
            let mut found = HashSet::new();
            let mut parts = vec![puzzle.initial_domains()];
            while let Some(part) = parts.pop() {
                let Some(mut search) = listing(&puzzle, &part) else {
                    continue;
                };
                let mut listed = 0;
                loop {
                    match search.run(None) {
                        Event::Solution(domains) => {
                            assert!(found.insert(domains), "case {case}: a solution twice");
                            listed += 1;
                            if listed % every == 0 {
                                if let Some((solutions, rest)) = search.give_away() {
                                    for domains in solutions {
                                        assert!(found.insert(domains), "case {case}: twice");
                                    }
                                    parts.extend(rest);
                                    assert_eq!(search.run(None), Event::Exhausted);
                                    break;
                                }
                            }
                        }
                        Event::Exhausted => break,
                        other => panic!("case {case}: {other:?}"),
                    }
                }
            }
            assert_eq!(found.len() as u128, brute_force(&puzzle), "case {case}");
        }
    }

    /// The cubes along the search's branchings partition the solutions.
    #[test]
    fn the_search_branchings_partition_the_solutions() {
        let mut seed = 0x5EED_0044u64;
        for case in 0..200 {
            let puzzle = Arc::new(mixed_puzzle(case, 3, (4, 4), (3, 3), &mut seed));
            let domains = puzzle.initial_domains();
            let start = Start {
                domains: &domains,
                scope: &[],
                deadline: None,
            };
            let (cubes, _) = crate::branches::split::<1>(&puzzle, start, case % 6 + 2).unwrap();
            let mut found = HashSet::new();
            for cube in cubes {
                let Some(mut search) = listing(&puzzle, &cube.domains) else {
                    continue;
                };
                while let Event::Solution(domains) = search.run(None) {
                    assert!(found.insert(domains), "case {case}: in two cubes");
                }
            }
            assert_eq!(found.len() as u128, brute_force(&puzzle), "case {case}");
        }
    }
}
