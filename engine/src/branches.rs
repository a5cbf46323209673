//! The search's own first branchings as cubes, for listing every solution by cubes (the
//! cubes backend when the engine lists them). The lookahead split (`lookahead.rs`) picks the
//! cells that decide the most by line logic, which suits a SAT solver refuting each cube; but
//! a listing must exhaust every cube, and under the lookahead's decisions the probing search
//! meets again, in cube after cube, what it would have refuted once higher up (measured on a
//! random 30x30 with 5,760 solutions: 64 lookahead cubes cost 82 s in all, the whole listing
//! 31 s; BENCHMARKS.md, issue 43). Here a cube is split on the cell the probing search would
//! branch on there (probed to its fixpoint first), so the cubes are the top of the search's
//! own tree and cost about what the whole costs. A solution the probes complete on the way is
//! a cube of its own, every cell decided; the cubes partition the solutions.

use std::cmp::Reverse;
use std::sync::Arc;

use crate::clue::Puzzle;
use crate::engine::Start;
use crate::lookahead::{Cube, Split};
use crate::propagate::Board;
use crate::search::Search;

/// At least `count` cubes of `domains` over the `scope` lines (all when empty), fewer when
/// the space is smaller, each open cube split on the probing search's first branching; the
/// most open cubes first. The failed literals of `Split` are not counted here (0).
pub fn split<const W: usize>(puzzle: &Arc<Puzzle>, start: Start<'_>, count: usize) -> Split {
    let Start {
        domains,
        scope,
        deadline,
    } = start;
    let undecided = |domains: &[u128]| domains.iter().filter(|&&d| d & (d - 1) != 0).count();
    let mut open = vec![(
        undecided(domains),
        Cube {
            decisions: Vec::new(),
            domains: domains.to_vec(),
        },
    )];
    let mut solved: Vec<Cube> = Vec::new();
    while !open.is_empty() && open.len() < count {
        open.sort_by_key(|(left, _)| *left);
        let Some((_, cube)) = open.pop() else { break };
        let Some(mut search) = Search::<W>::listing(puzzle, &cube.domains, scope) else {
            continue; // no grid fits this cube
        };
        let branch = search.first_branch(deadline).ok()?;
        solved.extend(search.take_solutions().into_iter().map(|domains| Cube {
            decisions: cube.decisions.clone(),
            domains,
        }));
        let Some((cell, colors)) = branch else {
            continue; // refuted, or solved: its solutions are cubes of their own
        };
        let probed = search.domains();
        let Ok(mut board) = Board::<W>::new(puzzle, &probed) else {
            continue;
        };
        board.set_scope(puzzle, scope);
        board.propagator.clear_queue(); // at probing's fixpoint, so at line logic's too
        let colors = colors.into_iter().map(|color| 1u128 << color);
        for (bit, domains) in board.children(puzzle, cell, colors, deadline)? {
            let mut decisions = cube.decisions.clone();
            decisions.push((cell, bit));
            open.push((undecided(&domains), Cube { decisions, domains }));
        }
    }
    open.sort_by_key(|(left, _)| Reverse(*left));
    let mut cubes: Vec<Cube> = open.into_iter().map(|(_, cube)| cube).collect();
    cubes.extend(solved);
    Some((cubes, 0))
}
