//! A narrow component swept from both ends: its count and a traced solution (`sweep_raced`),
//! by a sweep from each end that meet (`meet`), or its layers kept, to draw from or to read its
//! colors off (`layers_raced`), the sweep raced (`race`) against the same sweep of the puzzle
//! turned half round.
//!
//! Which end a sweep starts from can change how many states it meets many times over, either
//! way (thin boards of six rows: thin-20020 0.2 s from one end and 1.0 s from the other,
//! thin-9008 0.36 s and 3.3 s; BENCHMARKS.md), and nothing cheap read off the clues told which
//! on the boards measured. So once the sweep of a narrow component (one it counts within the
//! whole memory budget) has run for `RACE_AFTER` without ending, the same component of the
//! puzzle turned half round (`Puzzle::turned`: every line backwards, the rows and the columns
//! in the other order) is swept on a second thread, and the first count in wins: the other is
//! stopped. A count goes further: the turned sweep joins from the other end, and the two meet
//! (`meet`). A count's sweeps each keep their layers in flight within a quarter of the count's
//! memory and their trace within another (alone: the trace a quarter, the layers the rest);
//! sweeps keeping their layers, a quarter for the layer in flight and a quarter for those
//! kept. Should both run out of bytes, the sweep runs once more alone with all of them. While
//! they race, `Control::racing` says so. The turned sweep's cells are named back as the
//! puzzle's own (cell c of the turned puzzle is its cell `last - c`).

use crate::clue::Puzzle;
use crate::count::bytes::Bytes;
use crate::count::join::join;
use crate::count::layers::Layers;
use crate::count::lines::Lines;
use crate::count::meet::{meet, mirrored, sweep_half, Ended, Meeting, Met};
use crate::count::race::{race, Raced, JUDGE_AFTER, RACE_AFTER};
use crate::count::search::{lines_share, Counter};
use crate::count::sweep::{self, Chooser, Component, Swept, Walk};
use crate::count::{narrow, sweep_budget, trace_budget, Control, Options};
use crate::grid::Grid;

/// Components of fewer cells are swept once, without a race: they end in microseconds. In
/// the tests, which hold the sweeps to brute force, every sweep races from the start.
#[cfg(not(test))]
const RACE_CELLS: usize = 128;
#[cfg(test)]
const RACE_CELLS: usize = 1;

pub(super) use crate::count::meet::Drawn;

/// The component's count (and a traced solution) by its sweep, met by the turned puzzle's
/// sweep from the other end once it has run `RACE_AFTER` (`meet`), the two halves joined.
pub(super) fn sweep_raced<const W: usize>(
    counter: &mut Counter<'_, W>,
    cells: &[u32],
    options: Options,
    control: &Control,
) -> (Swept, Drawn) {
    let (puzzle, by_columns) = (counter.puzzle(), counter.by_columns());
    // The trace and the layers in flight share the count's memory: alone, a quarter and the
    // rest; racing, a quarter each for each sweep.
    let trace = trace_budget(options.memory);
    let budget = sweep_budget(puzzle, cells, by_columns, options).min(options.memory - trace);
    let grid = &counter.board.grid;
    let alone = |lines: &mut Lines<W>, control: &Control, bytes: Bytes| {
        on(
            (puzzle, grid, cells, by_columns),
            lines,
            control,
            |part, choose| sweep::sweep_traced(part, bytes, control, choose),
        )
    };
    let lines = &mut counter.lines;
    // A sweep that only tries (the trial budget, on a component too wide to be sure of) ends
    // within a fraction of a second either way, and what lists solutions beside the count
    // (on the other core) may be what counts such a puzzle: it runs one way only.
    if !options.race || cells.len() < RACE_CELLS || !narrow(puzzle, cells, by_columns, options) {
        return alone(lines, control, (budget, trace).into());
    }
    let shares = Bytes::shared((budget.min(options.memory / 4), trace), (budget, trace));
    let domains = grid.domains(puzzle);
    let turned = puzzle.turned();
    let last = puzzle.cells() - 1;
    let forward = |mine: &Control, meeting: &Meeting| {
        let sweep = |part: Component<'_, W>, choose: &Chooser<'_>| {
            let take = || meeting.take(0);
            let laid_out = &mut |walk: &Walk| meeting.lay_out(walk, last);
            let ended = sweep_half(part, (shares, mine), (choose, None), &take, laid_out);
            (Swept::Stopped, ended) // (the sweep's end is in `ended`)
        };
        on((puzzle, grid, cells, by_columns), &mut *lines, mine, sweep).1
    };
    let backward = |theirs: &Control, meeting: &Meeting| {
        let Some(shape) = meeting.shape(&|| theirs.should_stop()) else {
            return Ended::default();
        };
        let choose = mirrored(&shape);
        let sweep = |part: Component<'_, W>, _: &Chooser<'_>| {
            let take = || meeting.take(1);
            let given = (&choose as &Chooser<'_>, Some(shape.groups()));
            (
                Swept::Stopped,
                sweep_half(part, (shares, theirs), given, &take, &mut |_| {}),
            )
        };
        let sides = (domains.clone(), cells, by_columns);
        match on_turned::<W, _>(&turned, sides, (theirs, shares.flight()), sweep).1 {
            Ended::Whole(swept, drawn) => Ended::Whole(swept, turned_back(drawn, last)),
            met => met,
        }
    };
    let raced = match meet(control, RACE_AFTER, forward, backward) {
        Met::Raced(raced) => raced,
        Met::Halves(before, after) => {
            let turned_domains: Vec<u128> = domains.iter().rev().copied().collect();
            let Ok(turned_grid) = Grid::<W>::new(&turned, &turned_domains) else {
                return (Swept::TooWide, None); // cannot be: the same domains, turned
            };
            let mut turned_lines = Lines::<W>::new(&turned, lines_share(budget));
            let turned_side = (&turned, &turned_grid, &mut turned_lines, &*after);
            let stop = || control.should_stop();
            match join((puzzle, grid, &mut *lines, &before), turned_side, &stop) {
                Some((count, drawn)) => Raced::Answer(Swept::Counted(count), drawn),
                None if stop() => Raced::Answer(Swept::Stopped, None),
                None => Raced::OutOfBytes(0),
            }
        }
    };
    // Run again alone with the whole memory, where the race held the sweep ahead to less.
    match raced {
        Raced::Answer(swept, drawn) => (swept, drawn),
        Raced::OutOfBytes(_) if budget <= options.memory / 4 => (Swept::TooWide, None),
        Raced::OutOfBytes(0) => alone(lines, control, (budget, trace).into()),
        Raced::OutOfBytes(_) => {
            let sides = (domains, cells, by_columns);
            turned_sweep::<W>(&turned, sides, control, (budget, trace))
        }
    }
}

/// The component's layers kept (`sweep::sweep_kept`): by groups (`grouped`), raced as
/// `sweep_raced` races a count; else a layer before every cell, swept one way. None when the
/// sweep runs out of bytes or is stopped.
pub(super) fn layers_raced<const W: usize>(
    counter: &mut Counter<'_, W>,
    (cells, grouped): (&[u32], bool),
    options: Options,
    control: &Control,
) -> Option<Layers> {
    let (puzzle, by_columns) = (counter.puzzle(), counter.by_columns());
    let budgets = (
        sweep_budget(puzzle, cells, by_columns, options),
        options.memory,
    );
    let grid = &counter.board.grid;
    let alone = |lines: &mut Lines<W>, control: &Control, bytes: Bytes| {
        on(
            (puzzle, grid, cells, by_columns),
            lines,
            control,
            |part, choose| sweep::sweep_kept(part, bytes, control, choose, grouped),
        )
    };
    let lines = &mut counter.lines;
    let racing = grouped && options.race && cells.len() >= RACE_CELLS;
    if !racing || !narrow(puzzle, cells, by_columns, options) {
        return alone(lines, control, budgets.into()).1;
    }
    let quarter = options.memory / 4;
    let shares = Bytes::shared((budgets.0.min(quarter), quarter), budgets);
    let domains = grid.domains(puzzle);
    let turned = puzzle.turned();
    let last = puzzle.cells() - 1;
    let turned_layers = |control: &Control, bytes: Bytes| {
        let sides = (domains.clone(), cells, by_columns);
        on_turned::<W, _>(&turned, sides, (control, bytes.flight()), |part, choose| {
            let (swept, layers) = sweep::sweep_kept(part, bytes, control, choose, true);
            (swept, layers.map(|layers| layers.turned_back(last)))
        })
    };
    let raced = both_ways(
        control,
        (puzzle, &turned, &domains),
        shares,
        |mine: &Control, bytes| alone(&mut *lines, mine, bytes),
        turned_layers,
    );
    // Run again alone with the whole memory, where the race held the sweep ahead to less.
    match raced {
        Raced::Answer(_, layers) => layers,
        Raced::OutOfBytes(0) => alone(lines, control, budgets.into()).1,
        Raced::OutOfBytes(_) => turned_layers(control, budgets.into()).1,
    }
}

/// `mine` raced (`race`) against `theirs`, the same sweep of the puzzle turned half round,
/// each within `shares`; `mine` alone where the turned puzzle is this one (`differs`).
fn both_ways<T: Default + Send>(
    control: &Control,
    (puzzle, turned, domains): (&Puzzle, &Puzzle, &[u128]),
    shares: Bytes,
    mine: impl FnOnce(&Control, Bytes) -> (Swept, T) + Send,
    theirs: impl FnOnce(&Control, Bytes) -> (Swept, T) + Send,
) -> Raced<T> {
    let rival = differs(puzzle, turned, domains).then_some(|c: &Control| theirs(c, shares));
    race(
        control,
        (RACE_AFTER, JUDGE_AFTER),
        |c: &Control| mine(c, shares),
        rival,
    )
}

/// Whether the puzzle turned half round (with its domains) is another puzzle: else the
/// turned sweep would only repeat this one.
fn differs(puzzle: &Puzzle, turned: &Puzzle, domains: &[u128]) -> bool {
    turned.clues != puzzle.clues || !domains.iter().eq(domains.iter().rev())
}

/// The sweep of `cells` on the puzzle turned half round from `domains` (this puzzle's), its
/// traced solution turned back.
fn turned_sweep<const W: usize>(
    turned: &Puzzle,
    sides: (Vec<u128>, &[u32], bool),
    control: &Control,
    bytes: impl Into<Bytes>,
) -> (Swept, Drawn) {
    let last = turned.cells() - 1;
    let bytes = bytes.into();
    on_turned::<W, _>(turned, sides, (control, bytes.flight()), |part, choose| {
        let (swept, drawn) = sweep::sweep_traced(part, bytes, control, choose);
        (swept, turned_back(drawn, last))
    })
}

/// A solution of the turned puzzle (`last`: its last cell) as this puzzle's.
fn turned_back(drawn: Drawn, last: usize) -> Drawn {
    drawn.map(|drawn| {
        drawn
            .into_iter()
            .map(|(cell, color)| (last - cell, color))
            .collect()
    })
}

/// `sweep` run on the component of `cells` in the puzzle turned half round (`turned`) from
/// `domains` (this puzzle's), its cells and its domains turned with it, swept in the same
/// direction (`by_columns`).
pub(super) fn on_turned<const W: usize, T: Default>(
    turned: &Puzzle,
    (domains, cells, by_columns): (Vec<u128>, &[u32], bool),
    (control, budget): (&Control, usize),
    sweep: impl FnOnce(Component<'_, W>, &Chooser<'_>) -> (Swept, T),
) -> (Swept, T) {
    let last = turned.cells() - 1;
    let domains: Vec<u128> = domains.into_iter().rev().collect();
    let Ok(grid) = Grid::<W>::new(turned, &domains) else {
        return (Swept::TooWide, T::default()); // cannot be: the same domains, turned
    };
    let mut lines = Lines::<W>::new(turned, lines_share(budget));
    let mut cells: Vec<u32> = cells
        .iter()
        .map(|&cell| (last - cell as usize) as u32)
        .collect();
    cells.sort_unstable();
    on(
        (turned, &grid, &cells, by_columns),
        &mut lines,
        control,
        sweep,
    )
}

/// `sweep` run on the component of `cells` in `puzzle` (with its grid and its lines'
/// analyses), its order chosen by columns or by rows (`by_columns`).
fn on<const W: usize, T>(
    (puzzle, grid, cells, by_columns): (&Puzzle, &Grid<W>, &[u32], bool),
    lines: &mut Lines<W>,
    control: &Control,
    sweep: impl FnOnce(Component<'_, W>, &Chooser<'_>) -> (Swept, T),
) -> (Swept, T) {
    let part = Component {
        puzzle,
        grid,
        lines,
        cells,
    };
    let choose = sweep::plain(puzzle.width, by_columns, control);
    sweep(part, &choose)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::count::tests::{
        after_line_logic, brute_force, every_color, fits, mixed_puzzle, random_puzzle,
    };

    #[test]
    fn a_turned_puzzle_has_as_many_solutions_and_turns_back() {
        let mut seed = 0x5EED_0101u64;
        for case in 0..200 {
            let puzzle = mixed_puzzle(case, 4, (5, 4), (3, 3), &mut seed);
            let turned = puzzle.turned();
            assert_eq!(brute_force(&turned), brute_force(&puzzle), "case {case}");
            let back = turned.turned();
            assert_eq!(back.clues, puzzle.clues);
            assert_eq!(back.line_colors, puzzle.line_colors);
        }
    }

    /// The turned sweep of every component after line logic: the count of the component's
    /// sweep, and a solution that fits once turned back.
    fn turned_counts(puzzle: &crate::clue::Puzzle) {
        let control = Control::new(None);
        let Some((mut counter, parts)) = after_line_logic(puzzle, &control) else {
            return;
        };
        let mut witness = counter.board.grid.domains(puzzle);
        for part in &parts {
            counter.choose_direction(part);
            let by_columns = counter.by_columns();
            let domains = counter.board.grid.domains(puzzle);
            let budgets = (1 << 22, 1 << 22);
            let sides = (domains, part.as_slice(), by_columns);
            let (swept, drawn) = turned_sweep::<1>(&puzzle.turned(), sides, &control, budgets);
            let Swept::Counted(count) = swept else {
                panic!("a small board sweeps")
            };
            let (expected, _) = sweep_raced(&mut counter, part, Options::default(), &control);
            let Swept::Counted(expected) = expected else {
                panic!("a small board sweeps")
            };
            assert_eq!(count, expected, "{:?}", puzzle.clues);
            for (cell, color) in drawn.expect("a small trace") {
                witness[cell] = 1u128 << color;
            }
        }
        assert!(fits(puzzle, &witness), "{:?}", puzzle.clues);
    }

    #[test]
    fn the_turned_sweep_counts_the_same_and_its_solution_turns_back() {
        let mut seed = 0x5EED_0102u64;
        for case in 0..200 {
            turned_counts(&mixed_puzzle(case, 4, (6, 4), (4, 3), &mut seed));
        }
        for case in 0..12 {
            turned_counts(&random_puzzle(
                30,
                3 + case % 3,
                2,
                40,
                case % 2 == 1,
                &mut seed,
            ));
        }
    }

    #[test]
    fn a_count_told_not_to_race_sweeps_one_way_only() {
        let mut seed = 0x5EED_0103u64;
        for case in 0..6 {
            let puzzle = random_puzzle(40, 3 + case % 3, 2, 40, case % 2 == 1, &mut seed);
            let control = Control::new(None);
            let options = Options {
                race: false,
                ..Options::default()
            };
            let alone =
                crate::count::count::<1>(&puzzle, &puzzle.initial_domains(), options, &control);
            assert_eq!(control.races.load(Ordering::Relaxed), 0);
            let raced = crate::count::count::<1>(
                &puzzle,
                &puzzle.initial_domains(),
                Options::default(),
                &Control::new(None),
            );
            assert!(alone.exact && raced.exact);
            assert_eq!(alone.count, raced.count);
        }
    }
    /// The turned sweep's layers of every component after line logic: read as the puzzle's
    /// own, their colors are every color of the solutions, and their draws fit.
    fn turned_layers(puzzle: &crate::clue::Puzzle, expected: &[u128]) {
        let control = Control::new(None);
        let Some((mut counter, parts)) = after_line_logic(puzzle, &control) else {
            return;
        };
        let mut colors = counter.board.grid.domains(puzzle);
        let mut drawn = colors.clone();
        let mut random = crate::count::sample::Random::new(7);
        for part in &parts {
            counter.choose_direction(part);
            let (by_columns, domains) = (counter.by_columns(), counter.board.grid.domains(puzzle));
            let sides = (domains, part.as_slice(), by_columns);
            let last = puzzle.cells() - 1;
            let (_, layers) = on_turned::<1, _>(
                &puzzle.turned(),
                sides,
                (&control, 1 << 22),
                |part, choose| {
                    let budgets = (1 << 22, 1 << 24);
                    let (swept, layers) = sweep::sweep_kept(part, budgets, &control, choose, true);
                    (swept, layers.map(|layers| layers.turned_back(last)))
                },
            );
            let layers = layers.expect("a small board sweeps");
            for (cell, found) in layers.colors() {
                colors[cell] = found;
            }
            for (cell, color) in layers.draw(&mut random).expect("a solution") {
                drawn[cell] = 1u128 << color;
            }
        }
        assert_eq!(colors, expected, "{:?}", puzzle.clues);
        assert!(fits(puzzle, &drawn), "{:?}", puzzle.clues);
    }

    #[test]
    fn the_turned_sweeps_layers_read_as_the_puzzles_own() {
        let mut seed = 0x5EED_0104u64;
        for case in 0..150 {
            let puzzle = mixed_puzzle(case, 3, (6, 4), (4, 3), &mut seed);
            let expected = every_color(&puzzle);
            if expected.iter().all(|&colors| colors != 0) {
                turned_layers(&puzzle, &expected);
            }
        }
    }
}
