//! The line solver held to brute force (and the helpers other modules' tests share:
//! random clues, matching a colored line against a clue).

use super::{block_starts, solve, Workspace};
use crate::bits::Bits;
use crate::clue::Block;

/// Every coloring of `n` cells over `colors` colors, as vectors of color indices.
fn all_lines(n: usize, colors: usize) -> Vec<Vec<u8>> {
    let mut lines = vec![vec![]];
    for _ in 0..n {
        let mut longer = Vec::new();
        for line in &lines {
            for color in 0..colors {
                let mut next = line.clone();
                next.push(color as u8);
                longer.push(next);
            }
        }
        lines = longer;
    }
    lines
}

/// Whether a fully colored line satisfies a clue (blotted numbers match any length).
pub(crate) fn matches(line: &[u8], clue: &[Block]) -> bool {
    let mut runs: Vec<(u8, u32)> = Vec::new();
    let mut previous = 0u8;
    for &cell in line {
        if cell != 0 {
            match runs.last_mut() {
                Some((color, length)) if previous == cell && *color == cell => *length += 1,
                _ => runs.push((cell, 1)),
            }
        }
        previous = cell;
    }
    runs.len() == clue.len()
        && runs.iter().zip(clue).all(|(&(color, length), block)| {
            color == block.color && (block.blotted() || length == block.length)
        })
}

pub(crate) fn pseudo_random(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// The clue a line spells, with each number blotted with probability 1/4 when asked.
pub(crate) fn clue_of(line: &[u8], blot: bool, seed: &mut u64) -> Vec<Block> {
    let mut clue: Vec<Block> = Vec::new();
    let mut previous = 0u8;
    for &cell in line {
        if cell != 0 {
            if previous == cell {
                clue.last_mut().unwrap().length += 1;
            } else {
                clue.push(Block {
                    length: 1,
                    color: cell,
                });
            }
        }
        previous = cell;
    }
    if blot {
        for block in clue.iter_mut() {
            if pseudo_random(seed).is_multiple_of(4) {
                block.length = 0;
            }
        }
    }
    clue
}

/// The brute-force answer: per color, the cells where some matching line within the state
/// has that color; None when no line matches.
fn brute_force(
    n: usize,
    clue: &[Block],
    colors: usize,
    state: &[Vec<bool>],
) -> Option<Vec<Vec<bool>>> {
    let mut out = vec![vec![false; n]; colors];
    let mut any = false;
    for line in all_lines(n, colors) {
        if line
            .iter()
            .enumerate()
            .all(|(i, &c)| state[usize::from(c)][i])
            && matches(&line, clue)
        {
            any = true;
            for (i, &c) in line.iter().enumerate() {
                out[usize::from(c)][i] = true;
            }
        }
    }
    any.then_some(out)
}

/// Per block, the cells where some matching line within the state starts it.
fn brute_force_starts(
    n: usize,
    clue: &[Block],
    colors: usize,
    state: &[Vec<bool>],
) -> Vec<Vec<bool>> {
    let mut starts = vec![vec![false; n]; clue.len()];
    for line in all_lines(n, colors) {
        let fits = line
            .iter()
            .enumerate()
            .all(|(i, &c)| state[usize::from(c)][i]);
        if !fits || !matches(&line, clue) {
            continue;
        }
        let mut block = 0;
        for (i, &cell) in line.iter().enumerate() {
            if cell != 0 && (i == 0 || line[i - 1] != cell) {
                starts[block][i] = true;
                block += 1;
            }
        }
    }
    starts
}

fn check_against_brute_force<const W: usize>(
    max_n: usize,
    colors: usize,
    cases: usize,
    blot: bool,
) {
    let mut seed = 0x2545_F491_4F6C_DD1D ^ (colors as u64 * 7919) ^ u64::from(blot);
    let mut space = Workspace::<W>::new(colors);
    for case in 0..cases {
        let n = 1 + (pseudo_random(&mut seed) as usize) % max_n;
        // A clue read off a random line, so that most clues fit.
        let picture: Vec<u8> = (0..n)
            .map(|_| {
                if pseudo_random(&mut seed).is_multiple_of(2) {
                    0
                } else {
                    (1 + pseudo_random(&mut seed) % (colors as u64 - 1)) as u8
                }
            })
            .collect();
        let clue = clue_of(&picture, blot, &mut seed);
        // A random state; with probability 1/2 one that keeps the picture possible, with
        // 1/4 one where nothing is known (the closed form for those).
        let keep = case.is_multiple_of(2);
        let mut state = vec![vec![true; n]; colors];
        for i in (0..n).filter(|_| case % 4 != 1) {
            for (c, row) in state.iter_mut().enumerate() {
                if pseudo_random(&mut seed).is_multiple_of(4)
                    && !(keep && usize::from(picture[i]) == c)
                {
                    row[i] = false;
                }
            }
        }
        let mut colors_used: Vec<u8> = vec![0];
        for block in &clue {
            if !colors_used.contains(&block.color) {
                colors_used.push(block.color);
            }
        }
        let masks: Vec<Bits<W>> = state
            .iter()
            .enumerate()
            .map(|(c, row)| {
                let mut bits = Bits::zero();
                for (i, &on) in row.iter().enumerate() {
                    if on && colors_used.contains(&(c as u8)) {
                        bits.set(i);
                    }
                }
                bits
            })
            .collect();
        let restricted: Vec<Vec<bool>> = (0..colors)
            .map(|c| (0..n).map(|i| masks[c].test(i)).collect())
            .collect();
        let expected = brute_force(n, &clue, colors, &restricted);
        let mut out = vec![Bits::<W>::zero(); colors];
        let fits = solve(n, &clue, &colors_used, &masks, &mut out, &mut space);
        if !blot {
            let starts = block_starts(n, &clue, &colors_used, &masks, &mut space);
            assert_eq!(
                starts.is_some(),
                expected.is_some(),
                "case {case}: {clue:?}"
            );
            let wanted = brute_force_starts(n, &clue, colors, &restricted);
            for (block, got) in starts.iter().flatten().enumerate() {
                let got: Vec<bool> = (0..n).map(|i| got.test(i)).collect();
                assert_eq!(got, wanted[block], "case {case}: block {block} of {clue:?}");
            }
        }
        match expected {
            None => assert!(
                !fits,
                "case {case}: {clue:?} on {restricted:?} should not fit"
            ),
            Some(cells) => {
                assert!(fits, "case {case}: {clue:?} on {restricted:?} should fit");
                for c in 0..colors {
                    let got: Vec<bool> = (0..n).map(|i| out[c].test(i)).collect();
                    assert_eq!(
                        got, cells[c],
                        "case {case}: color {c} of {clue:?} on {restricted:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn black_and_white_lines_match_brute_force() {
    check_against_brute_force::<1>(12, 2, 4000, false);
}

#[test]
fn color_lines_match_brute_force() {
    check_against_brute_force::<1>(8, 3, 3000, false);
    check_against_brute_force::<1>(6, 4, 1500, false);
}

#[test]
fn blotted_lines_match_brute_force() {
    check_against_brute_force::<1>(11, 2, 3000, true);
    check_against_brute_force::<1>(7, 3, 2000, true);
}

#[test]
fn multi_word_lines_agree_with_single_word_lines() {
    check_against_brute_force::<2>(12, 2, 1000, false);
    check_against_brute_force::<4>(8, 3, 500, true);
}

/// A long line: a solution's clue on a state that knows some of its cells; the solver must
/// keep the solution's colors and fit, on every word count that holds the line.
fn long_line<const W: usize>(n: usize) {
    let mut seed = 77 + n as u64;
    let mut space = Workspace::<W>::new(2);
    for _ in 0..50 {
        let picture: Vec<u8> = (0..n)
            .map(|_| u8::from(pseudo_random(&mut seed).is_multiple_of(3)))
            .collect();
        let clue = clue_of(&picture, false, &mut seed);
        let mut masks = [Bits::<W>::below(n), Bits::<W>::below(n)];
        for (i, &cell) in picture.iter().enumerate() {
            if pseudo_random(&mut seed).is_multiple_of(3) {
                masks[1 - usize::from(cell)].clear(i);
            }
        }
        let mut out = [Bits::zero(); 2];
        assert!(solve(n, &clue, &[0, 1], &masks, &mut out, &mut space));
        for (i, &cell) in picture.iter().enumerate() {
            assert!(out[usize::from(cell)].test(i));
        }
        assert_eq!(out[0] | out[1], Bits::below(n), "every cell keeps a color");
    }
}

#[test]
fn long_lines_fit_their_own_solution() {
    long_line::<2>(127);
    long_line::<4>(200);
    long_line::<16>(1023);
}
