//! The counting engine held to brute force: counts with and without probing, the sweep in
//! both directions, in random orders of bands and against the search, contradictions,
//! deadlines; and the helpers the other counting modules' tests share (brute force, random
//! puzzles).

use super::*;
use crate::clue::Block;
use crate::count::groups;
use crate::count::layers::Layers;
use crate::count::order::{self, Spot};
use crate::count::sample::Random;
use crate::line::tests::{clue_of, matches, pseudo_random};

/// Every grid of the puzzle's size checked against its clues: the number that fit.
pub fn brute_force(puzzle: &Puzzle) -> u128 {
    let (width, height, colors) = (puzzle.width, puzzle.height, puzzle.colors);
    let cells = width * height;
    let mut grid = vec![0u8; cells];
    let mut total = 0;
    loop {
        let fits = (0..puzzle.lines()).all(|line| {
            let values: Vec<u8> = (0..puzzle.length(line))
                .map(|p| grid[puzzle.cell(line, p)])
                .collect();
            matches(&values, &puzzle.clues[line])
        });
        total += u128::from(fits);
        // The next grid, as an odometer over the colors.
        let mut at = 0;
        loop {
            if at == cells {
                return total;
            }
            grid[at] += 1;
            if usize::from(grid[at]) < colors {
                break;
            }
            grid[at] = 0;
            at += 1;
        }
    }
}

/// Every color each cell takes in the puzzle's solutions, by listing them all.
pub fn every_color(puzzle: &Puzzle) -> Vec<u128> {
    use crate::count::enumerate::{Enumerator, Knobs, Step};
    let mut colors = vec![0u128; puzzle.cells()];
    let puzzle = std::sync::Arc::new(puzzle.clone());
    let knobs = Knobs::default();
    let mut enumerator = Enumerator::<1>::with(&puzzle, &puzzle.initial_domains(), knobs);
    while let Step::Solution(domains) = enumerator.next(&puzzle, None) {
        for (all, one) in colors.iter_mut().zip(domains) {
            *all |= one;
        }
    }
    colors
}

/// 200 x `n` draws of `draw` (each a solution's domains) over `n` solutions (at most 60):
/// every solution drawn, and a chi-square statistic (n - 1 degrees of freedom) below 3n + 40,
/// which its 99.99th percentile is for n <= 60.
pub fn assert_uniform(n: u128, seed: u64, mut draw: impl FnMut(&mut Random) -> Vec<u128>) {
    let mut random = Random::new(seed);
    let mut seen: std::collections::HashMap<Vec<u128>, u64> = Default::default();
    let draws = 200 * n as u64;
    for _ in 0..draws {
        *seen.entry(draw(&mut random)).or_default() += 1;
    }
    assert_eq!(seen.len() as u128, n, "every solution drawn");
    let expected = draws as f64 / n as f64;
    let statistic: f64 = seen
        .values()
        .map(|&times| (times as f64 - expected).powi(2) / expected)
        .sum();
    assert!(
        statistic < 3.0 * n as f64 + 40.0,
        "chi-square {statistic} over {n}"
    );
}

/// The `case`-th puzzle of the mixed stream the counting tests run on: of every `kinds` cases,
/// the last is black and white with blotted numbers, the one before it three colors, the rest
/// black and white; `two` and `three` are the sizes (width, height) for two and three colors.
pub fn mixed_puzzle(
    case: usize,
    kinds: usize,
    two: (usize, usize),
    three: (usize, usize),
    seed: &mut u64,
) -> Puzzle {
    let kind = case % kinds;
    let (colors, blot) = if kind + 1 == kinds {
        (2, true)
    } else if kind + 2 == kinds {
        (3, false)
    } else {
        (2, false)
    };
    let (width, height) = if colors == 2 { two } else { three };
    let density = 30 + pseudo_random(seed) % 40;
    random_puzzle(width, height, colors, density, blot, seed)
}

/// Whether every line of the decided `domains` has its clue.
pub fn fits(puzzle: &Puzzle, domains: &[u128]) -> bool {
    (0..puzzle.lines()).all(|line| {
        let values: Vec<u8> = (0..puzzle.length(line))
            .map(|p| {
                let domain = domains[puzzle.cell(line, p)];
                assert_eq!(domain.count_ones(), 1);
                domain.trailing_zeros() as u8
            })
            .collect();
        matches(&values, &puzzle.clues[line])
    })
}

/// A puzzle made from a random picture (so that it has a solution), some numbers
/// blotted when asked.
pub fn random_puzzle(
    width: usize,
    height: usize,
    colors: usize,
    density: u64,
    blot: bool,
    seed: &mut u64,
) -> Puzzle {
    let picture: Vec<u8> = (0..width * height)
        .map(|_| {
            if pseudo_random(seed) % 100 < density {
                (1 + pseudo_random(seed) % (colors as u64 - 1)) as u8
            } else {
                0
            }
        })
        .collect();
    let mut clues: Vec<Vec<Block>> = Vec::new();
    for y in 0..height {
        clues.push(clue_of(&picture[y * width..(y + 1) * width], blot, seed));
    }
    for x in 0..width {
        let column: Vec<u8> = (0..height).map(|y| picture[y * width + x]).collect();
        clues.push(clue_of(&column, blot, seed));
    }
    Puzzle::new(width, height, colors, clues).unwrap()
}

/// The search alone (no sweep), probing the grid first when `probe`, and every component
/// of `probe_from` cells or more.
fn counted(puzzle: &Puzzle, probe: bool, probe_from: usize) -> Counted {
    let options = Options {
        memory: 1 << 24,
        probe,
        probe_from,
        sweep_width: 0,
        sweep_trial: 0,
        race: false,
    };
    count::<1>(
        puzzle,
        &puzzle.initial_domains(),
        options,
        &Control::new(None),
    )
}

#[test]
fn counts_match_brute_force_on_small_puzzles() {
    let mut seed = 0x5EED_0001u64;
    for case in 0..300 {
        let puzzle = mixed_puzzle(case, 4, (4, 4), (3, 3), &mut seed);
        let expected = brute_force(&puzzle);
        for (probe, probe_from) in [(false, usize::MAX), (true, usize::MAX), (true, 1)] {
            let got = counted(&puzzle, probe, probe_from);
            assert!(got.exact);
            assert_eq!(got.witness.is_some(), expected > 0);
            if let Some(witness) = &got.witness {
                assert!(fits(&puzzle, witness), "case {case}: a wrong witness");
            }
            assert_eq!(
                got.count,
                Count::from(expected),
                "case {case} (probe {probe}): {:?}",
                puzzle.clues
            );
        }
    }
}

#[test]
fn counts_agree_with_and_without_probing_on_larger_puzzles() {
    let mut seed = 0x5EED_0002u64;
    for _ in 0..40 {
        let puzzle = random_puzzle(9, 8, 2, 35, false, &mut seed);
        let plain = counted(&puzzle, false, usize::MAX);
        let probed = counted(&puzzle, true, 4);
        assert_eq!(plain.count, probed.count, "{:?}", puzzle.clues);
        assert!(!plain.count.is_zero());
    }
}

/// The sweep alone on every component, in both directions.
fn swept(puzzle: &Puzzle, by_columns: bool) -> Option<Count> {
    swept_with(
        puzzle,
        &sweep::plain(puzzle.width, by_columns, &Control::new(None)),
    )
}

/// The puzzle after line logic in a counter, and its components; None when line logic finds
/// no solution.
pub fn after_line_logic<'a>(
    puzzle: &'a Puzzle,
    control: &'a Control,
) -> Option<(Counter<'a, 1>, Vec<Vec<u32>>)> {
    let mut board = Board::<1>::new(puzzle, &puzzle.initial_domains()).ok()?;
    board.set_scope(puzzle, &[]);
    if board.propagate(puzzle, None) != Outcome::Fixpoint {
        return None;
    }
    let cells: Vec<u32> = (0..puzzle.cells() as u32)
        .filter(|&cell| !board.grid.decided(puzzle, cell as usize))
        .collect();
    let mut counter = Counter::<1>::new(puzzle, board, 1 << 24, control);
    let parts = counter.components(&cells);
    Some((counter, parts))
}

/// The components of `counter` as sweeps see them.
pub fn component<'a>(counter: &'a mut Counter<'_, 1>, cells: &'a [u32]) -> sweep::Component<'a, 1> {
    sweep::Component {
        puzzle: counter.puzzle(),
        grid: &counter.board.grid,
        lines: &mut counter.lines,
        cells,
    }
}

/// The sweep alone on every component, in the orders `choose` makes; the solution each
/// traces back must fit the clues.
fn swept_with(puzzle: &Puzzle, choose: &sweep::Chooser<'_>) -> Option<Count> {
    let control = Control::new(None);
    let Some((mut counter, parts)) = after_line_logic(puzzle, &control) else {
        return Some(Count::ZERO);
    };
    let mut witness = counter.board.grid.domains(puzzle);
    let mut total = Count::ONE;
    for part in &parts {
        let budgets = (1 << 20, 1 << 20);
        match sweep::sweep_traced(component(&mut counter, part), budgets, &control, choose) {
            (sweep::Swept::Counted(count), drawn) => {
                for (cell, color) in drawn.expect("a small trace") {
                    witness[cell] = 1u128 << color;
                }
                total.mul(&count);
            }
            _ => return None,
        }
    }
    assert!(
        total.is_zero() || fits(puzzle, &witness),
        "{:?}",
        puzzle.clues
    );
    Some(total)
}

/// The puzzle after line logic (every cell's domain), and each component's layers swept
/// `by_columns` first (`.0`; by groups of cells: `.1`); None when line logic finds no
/// solution or a component does not sweep.
pub fn layers_of(puzzle: &Puzzle, by: (bool, bool)) -> Option<(Vec<u128>, Vec<Layers>)> {
    let control = Control::new(None);
    let (mut counter, parts) = after_line_logic(puzzle, &control)?;
    let domains = counter.board.grid.domains(puzzle);
    let choose = sweep::plain(puzzle.width, by.0, &control);
    let mut layers = Vec::new();
    for part in &parts {
        let part = component(&mut counter, part);
        let (_, kept) = sweep::sweep_kept(part, (1 << 24, 1 << 26), &control, &choose, by.1);
        layers.push(kept?);
    }
    Some((domains, layers))
}

#[test]
fn the_sweep_matches_brute_force_in_both_directions() {
    let mut seed = 0x5EED_0004u64;
    for case in 0..300 {
        let puzzle = mixed_puzzle(case, 4, (5, 3), (3, 3), &mut seed);
        let expected = Count::from(brute_force(&puzzle));
        for by_columns in [false, true] {
            assert_eq!(
                swept(&puzzle, by_columns),
                Some(expected.clone()),
                "case {case} (by columns {by_columns}): {:?}",
                puzzle.clues
            );
        }
    }
}

#[test]
fn the_sweep_matches_brute_force_in_any_order_of_bands() {
    let mut seed = 0x5EED_0006u64;
    let random = std::cell::RefCell::new(Random::new(6));
    for case in 0..300 {
        let puzzle = mixed_puzzle(case, 4, (5, 3), (3, 3), &mut seed);
        let expected = Count::from(brute_force(&puzzle));
        for turn in 0..4 {
            let width = puzzle.width;
            let choose = |spots: &[Spot], lengths: &[usize], bits: &[usize]| {
                order::random_bands(spots, lengths, bits, width, &mut random.borrow_mut())
            };
            assert_eq!(
                swept_with(&puzzle, &choose),
                Some(expected.clone()),
                "case {case}, order {turn}: {:?}",
                puzzle.clues
            );
        }
    }
}

#[test]
fn the_sweep_and_the_search_agree_on_thin_boards() {
    let mut seed = 0x5EED_0005u64;
    for case in 0..20 {
        let blot = case % 2 == 1;
        let puzzle = random_puzzle(40, 3 + case % 3, 2, 40, blot, &mut seed);
        let searched = counted(&puzzle, false, usize::MAX);
        assert!(searched.exact);
        let default = count::<1>(
            &puzzle,
            &puzzle.initial_domains(),
            Options::default(),
            &Control::new(None),
        );
        assert_eq!(default.count, searched.count);
        assert!(default
            .parts
            .iter()
            .all(|part| part.method == Method::Sweep));
        assert!(
            fits(&puzzle, default.witness.as_ref().unwrap()),
            "case {case}"
        );
        assert_eq!(
            swept(&puzzle, true),
            Some(searched.count.clone()),
            "case {case}"
        );
    }
}

#[test]
fn contradictory_clues_count_zero() {
    let puzzle = crate::clue::tests::black_and_white(&[&[1], &[]], &[&[], &[]]);
    let got = counted(&puzzle, true, usize::MAX);
    assert_eq!(got.count, Count::ZERO);
    assert!(got.exact);
}

#[test]
fn a_passed_deadline_stops_with_a_lower_bound() {
    let mut seed = 0x5EED_0003u64;
    let puzzle = random_puzzle(20, 20, 2, 30, false, &mut seed);
    let control = Control::new(Some(Instant::now()));
    let got = count::<1>(
        &puzzle,
        &puzzle.initial_domains(),
        Options::default(),
        &control,
    );
    assert!(!got.exact);
}

#[test]
fn counts_past_two_words_are_the_same_at_every_width() {
    // Three rows of 60 cells, each with 16 blocks of unknown length, every column one block:
    // a single component with more than 2^128 solutions, whose counts the sweep widens from
    // one word to three as it goes (`layer_words`), where kept layers hold the whole count's
    // width from the start.
    let blotted = Block {
        length: 0,
        color: 1,
    };
    let width = 60;
    let mut clues = vec![vec![blotted; 16]; 3];
    clues.extend(vec![vec![blotted]; width]);
    let puzzle = Puzzle::new(width, 3, 2, clues).unwrap();
    let control = Control::new(None);
    let (mut counter, parts) = after_line_logic(&puzzle, &control).unwrap();
    assert_eq!(parts.len(), 1);
    let choose = sweep::plain(width, true, &control);
    let budgets = (1 << 26, 1 << 28);
    let part = component(&mut counter, &parts[0]);
    let Swept::Counted(traced) = sweep::sweep_traced(part, budgets, &control, &choose).0 else {
        panic!("a narrow board");
    };
    assert!(traced.to_big() > num_bigint::BigUint::from(u128::MAX));
    let part = component(&mut counter, &parts[0]);
    let (kept, layers) = sweep::sweep_kept(part, budgets, &control, &choose, true);
    assert!(layers.is_some());
    assert!(matches!(kept, Swept::Counted(ref count) if *count == traced));
}

#[test]
fn swept_components_without_a_trace_are_witnessed_by_the_solvers_search() {
    // The witness of a component whose sweep let its trace go: the solver's search on each
    // component (`find::searched`), the components' solutions put together.
    let mut seed = 0x5EED_0006u64;
    for case in 0..30 {
        // Clues of a random picture: each has a solution.
        let puzzle = random_puzzle(30, 3 + case % 4, 2, 40, case % 2 == 1, &mut seed);
        let control = Control::new(None);
        let Some((mut counter, cells)) = after_line_logic(&puzzle, &control) else {
            continue;
        };
        for part in &cells {
            assert!(
                find::searched(&counter, part, &control).is_some(),
                "case {case}"
            );
        }
        let parts: Vec<Part> = cells
            .into_iter()
            .map(|cells| Part {
                cells,
                count: Count::ONE,
                exact: true,
                method: Method::Sweep,
                seconds: 0.0,
                drawn: None,
            })
            .collect();
        let witness = witness(&mut counter, &parts, &control).expect("a solution");
        assert!(fits(&puzzle, &witness), "case {case}: a wrong witness");
    }
}

/// A sweep's groups take every spot once, in order, each along one line, within
/// `GROUP_MOST` cells and `PATHS_MOST` ways through: a colorful column is cut shorter, so
/// that no state's successors pass the sweep's memory budget many times over before it looks.
#[test]
fn a_sweep_s_groups_keep_their_fan_out_bounded() {
    // Two columns of 12 cells (stretches 0 and 1), each cell also on its own row (2..).
    let spots: Vec<Spot> = (0..24)
        .map(|at| Spot {
            cell: at,
            stretches: [(2 + at, 0), (at / 12, at % 12)],
        })
        .collect();
    for colors in 1..=5 {
        let choices: Vec<Vec<(usize, usize)>> = (0..24)
            .map(|at| (0..1 + (at + colors) % colors).map(|c| (c, c)).collect())
            .collect();
        let groups = groups::groups(&spots, &choices);
        let mut next = 0;
        for group in &groups {
            assert_eq!(group.start, next);
            next = group.end;
            assert!(group.len() <= groups::GROUP_MOST);
            let paths: usize = choices[group.clone()].iter().map(Vec::len).product();
            assert!(group.len() == 1 || paths <= groups::PATHS_MOST, "{paths}");
            assert!(spots[group.clone()]
                .iter()
                .all(|spot| spot.stretches[1].0 == spots[group.start].stretches[1].0));
        }
        assert_eq!(next, spots.len());
        if colors == 1 {
            assert_eq!(groups.len(), 4); // one choice a cell: 8 cells, then 4, per column
        }
        if colors == 5 {
            assert!(groups.len() > 4); // up to 5 choices a cell: cut by the ways through
        }
    }
}

/// A group runs along one line: a spot that shares the first spot's row is taken into a
/// group running along that row, one that then shares its column starts a group of its own
/// (the ways through a group are listed along one stretch, every other stretch crossing it
/// once).
#[test]
fn a_sweep_s_groups_run_along_one_line() {
    // Cells (0, 0), (0, 1), (1, 0), (1, 1) of a 2x2 board: rows are stretches 0 and 1,
    // columns 2 and 3.
    let spot = |row: usize, column: usize| Spot {
        cell: 2 * row + column,
        stretches: [(row, column), (2 + column, row)],
    };
    let spots = [spot(0, 0), spot(0, 1), spot(1, 0), spot(1, 1)];
    let choices = vec![vec![(0, 0), (1, 1)]; 4];
    assert_eq!(groups::groups(&spots, &choices), vec![0..2, 2..4]);
    let spots = [spot(0, 0), spot(1, 0), spot(0, 1), spot(1, 1)];
    assert_eq!(groups::groups(&spots, &choices), vec![0..2, 2..4]);
}
