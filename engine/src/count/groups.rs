//! The groups of cells a sweep steps over at once, and the ways through one.
//!
//! A sweep that made a layer of states after every cell spent most of its table work on the
//! layers inside a column of a thin board, where few states meet (each cell branches; few
//! paths merge). So a count's sweep takes a run of cells along one line at once, from each
//! state walking every way through the run depth first (`expand`), and places only the
//! states at its end (BENCHMARKS.md, issue 40 round 10).

use std::ops::Range;

use crate::count::order::Spot;
use crate::count::stretches::{Crossing, Stretch};

/// Spots a group may hold: its colors are a byte each of a trace's path.
pub(super) const GROUP_MOST: usize = 8;
/// Ways through a group at most (the product of its cells' choices): a state's successors are
/// placed before the sweep looks at its memory again, so a group of many colorful cells could
/// otherwise pass its budget many times over first. Eight black-and-white cells.
pub(super) const PATHS_MOST: usize = 256;

/// The spots cut into groups a sweep steps over at once (`run`): each run of spots along one
/// line (a column's cells, taken column by column), at most GROUP_MOST cells and PATHS_MOST
/// ways through. A layer is made only at a group's end: inside one, few states meet (each
/// cell branches; few paths merge), and the layers between were most of a sweep's table work.
pub(super) fn groups(spots: &[Spot], choices: &[Vec<(usize, usize)>]) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    let mut paths = 1;
    for (at, spot) in spots.iter().enumerate() {
        let ways = choices[at].len().max(1);
        if let Some(last) = groups.last_mut() {
            let first = &spots[last.start];
            let along = (0..2).any(|side| spot.stretches[side].0 == first.stretches[side].0);
            if along && last.len() < GROUP_MOST && paths * ways <= PATHS_MOST {
                last.end = at + 1;
                paths *= ways;
                continue;
            }
        }
        groups.push(at..at + 1);
        paths = ways;
    }
    groups
}

/// One spot of a group: its crossing, the choices its cell has, and its row's line colors.
pub(super) struct Step<'a> {
    pub(super) crossing: Crossing<'a>,
    pub(super) choices: &'a [(usize, usize)],
    pub(super) colors: &'a [u8],
}

/// The steps of the spots in `group`.
pub(super) fn steps<'a>(
    stretches: &'a [Stretch],
    spots: &[Spot],
    choices: &'a [Vec<(usize, usize)>],
    group: Range<usize>,
) -> Vec<Step<'a>> {
    group
        .map(|at| {
            let spot = &spots[at];
            Step {
                crossing: Crossing::new(stretches, spot),
                choices: &choices[at],
                colors: &stretches[spot.stretches[0].0].colors,
            }
        })
        .collect()
}

/// Every way through `steps` from `key`: each state after the last step, with the colors
/// taken on the way (`path`: the k-th step's in its k-th byte).
#[inline]
pub(super) fn expand(
    steps: &[Step<'_>],
    key: u128,
    (path, depth): (u64, u32),
    found: &mut impl FnMut(u128, u64),
) {
    let Some((step, rest)) = steps.split_first() else {
        found(key, path);
        return;
    };
    let (class_a, class_b, cleared) = step.crossing.split(key);
    for &choice in step.choices {
        if let Some(moved) = step.crossing.step(cleared, class_a, class_b, choice) {
            let color = u64::from(step.colors[choice.0]);
            expand(rest, moved, (path | color << (8 * depth), depth + 1), found);
        }
    }
}
