//! A narrow component's counting sweep raced against the same sweep of the puzzle turned half
//! round.
//!
//! Which end a sweep starts from can change how many states it meets many times over, either
//! way (thin boards of six rows: thin-20020 0.2 s from one end and 1.0 s from the other,
//! thin-9008 0.36 s and 3.3 s; BENCHMARKS.md), and nothing cheap read off the clues told which
//! on the boards measured. So once the sweep of a narrow component (one it counts within the
//! whole memory budget) has run for `RACE_AFTER` without ending, the same component of the
//! puzzle turned half round (`Puzzle::turned`: every line backwards, the rows and the columns
//! in the other order) is swept on a second thread, and the first count in wins: the other is
//! stopped. Each keeps its layers in flight within a quarter of the count's memory and its
//! trace within another (alone: the trace a quarter, the layers the rest); should both run
//! out of bytes, the sweep runs once more alone with all of them. While they race,
//! `Control::racing` says so.

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::count::lines::Lines;
use crate::count::search::{lines_share, Counter};
use crate::count::sweep::{self, Component, Swept};
use crate::count::{narrow, sweep_budget, trace_budget, Control, Options};
use crate::grid::Grid;

/// Components of fewer cells are swept once, without a race: they end in microseconds. In
/// the tests, which hold the sweeps to brute force, every sweep races from the start.
#[cfg(not(test))]
const RACE_CELLS: usize = 128;
#[cfg(test)]
const RACE_CELLS: usize = 1;
/// How long a sweep runs alone before the turned one joins it: most end well before.
#[cfg(not(test))]
const RACE_AFTER: Duration = Duration::from_millis(10);
#[cfg(test)]
const RACE_AFTER: Duration = Duration::ZERO;
/// How often the racing sweeps' progress is shown and the stop flag passed on to them.
const TICK: Duration = Duration::from_millis(5);
/// How long both sweeps run before the race is judged (`BEHIND`): two sweeps share one
/// memory, and each slows the other (thin-20049: 8.5 s raced against 6.8 s alone).
const JUDGE_AFTER: Duration = Duration::from_secs(1);
/// A sweep that has passed fewer than 1/BEHIND of the cells the other has, once judged, is
/// stopped: the other is far ahead (thin-20049 at 2 s: 633 of its 1,170 cells one way, 192
/// the other; the way ahead won, 6.7 s against 11.5 s alone).
const BEHIND: u64 = 3;

/// A component's solution as traced back through its sweep: each cell with its color.
type Drawn = Option<Vec<(usize, u8)>>;

/// The component's count (and a traced solution) by its sweep, raced against the turned
/// puzzle's sweep once it has run `RACE_AFTER`.
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
    let alone = |lines: &mut Lines<W>, control: &Control, budgets: (usize, usize)| {
        let part = Component {
            puzzle,
            grid,
            lines,
            cells,
        };
        let choose = sweep::plain(puzzle.width, by_columns, control);
        sweep::sweep_traced(part, budgets, control, &choose)
    };
    let lines = &mut counter.lines;
    // A sweep that only tries (the trial budget, on a component too wide to be sure of) ends
    // within a fraction of a second either way, and what lists solutions beside the count
    // (on the other core) may be what counts such a puzzle: it runs one way only.
    if !options.race || cells.len() < RACE_CELLS || !narrow(puzzle, cells, by_columns, options) {
        return alone(lines, control, (budget, trace));
    }
    let shares = (budget.min(options.memory / 4), trace);
    let domains = grid.domains(puzzle);
    let turned = puzzle.turned();
    let rival = (turned.clues != puzzle.clues || !domains.iter().eq(domains.iter().rev()))
        .then_some(move |theirs: &Control| {
            turned_sweep::<W>(turned, domains, cells, by_columns, theirs, shares)
        });
    let raced = race(
        control,
        (RACE_AFTER, JUDGE_AFTER),
        |mine: &Control| alone(&mut *lines, mine, shares),
        rival,
    );
    match raced {
        Some(answer) => answer,
        None if shares.0 < budget => alone(lines, control, (budget, trace)),
        None => (Swept::TooWide, None),
    }
}

/// Run `first` at once and `second` (when there is one) beside it from `after` on, or as
/// soon as `first` runs out of bytes, each with its own stop flag under `control`'s
/// deadline; the first answer that is not `TooWide` is taken and the other sweep stopped.
/// Once both have run `judged` a sweep far behind the other (`BEHIND`) is stopped and the
/// other runs on alone. None when every sweep run ran out of bytes. Their progress is shown
/// on `control` (the further of the two) while they run, and `control`'s stop flag stops
/// both.
fn race<A, B>(
    control: &Control,
    (after, judged): (Duration, Duration),
    first: A,
    second: Option<B>,
) -> Option<(Swept, Drawn)>
where
    A: FnOnce(&Control) -> (Swept, Drawn) + Send,
    B: FnOnce(&Control) -> (Swept, Drawn) + Send,
{
    let sweeps = [
        Control::new(control.deadline),
        Control::new(control.deadline),
    ];
    let (tell, told) = mpsc::channel::<(usize, Swept, Drawn)>();
    let answer = std::thread::scope(|scope| {
        let sweeps = &sweeps;
        let tell_first = tell.clone();
        scope.spawn(move || {
            let (swept, drawn) = first(&sweeps[0]);
            let _ = tell_first.send((0, swept, drawn)); // the race may be over: nobody to tell
        });
        let started = Instant::now();
        let (mut running, mut second) = ([true, false], second);
        let mut both_since = None;
        let answer = loop {
            if let Ok((who, swept, drawn)) = told.recv_timeout(TICK) {
                // One stopped for being far behind may still have counted before it saw so.
                let judged_out = !running[who];
                running[who] = false;
                let counted = matches!(swept, Swept::Counted(_));
                if counted || (!judged_out && !matches!(swept, Swept::TooWide)) {
                    break Some((swept, drawn)); // counted, or stopped by the deadline
                }
            }
            if control.should_stop() {
                break Some((Swept::Stopped, None));
            }
            if !running[0] || started.elapsed() >= after {
                if let Some(second) = second.take() {
                    control.racing.store(true, Ordering::Relaxed);
                    control.races.fetch_add(1, Ordering::Relaxed);
                    running[1] = true;
                    both_since = running[0].then(Instant::now);
                    let tell = tell.clone();
                    scope.spawn(move || {
                        let (swept, drawn) = second(&sweeps[1]);
                        let _ = tell.send((1, swept, drawn));
                    });
                }
            }
            if running == [false, false] {
                break None; // every sweep ran out of bytes
            }
            let passed = sweeps
                .each_ref()
                .map(|each| each.swept.load(Ordering::Relaxed));
            if running == [true, true] && both_since.is_some_and(|since| since.elapsed() >= judged)
            {
                for (who, other) in [(0, 1), (1, 0)] {
                    if passed[who].saturating_mul(BEHIND) < passed[other] {
                        sweeps[who].stop.store(true, Ordering::Relaxed);
                        running[who] = false;
                        control.racing.store(false, Ordering::Relaxed);
                    }
                }
            }
            let leader = usize::from(passed[1] > passed[0]);
            control.swept.store(passed[leader], Ordering::Relaxed);
            let states = sweeps[leader].states.load(Ordering::Relaxed);
            control.states.store(states, Ordering::Relaxed);
        };
        for each in sweeps {
            each.stop.store(true, Ordering::Relaxed);
        }
        answer
    });
    control.swept.store(0, Ordering::Relaxed);
    control.states.store(0, Ordering::Relaxed);
    control.racing.store(false, Ordering::Relaxed);
    answer
}

/// The sweep of `cells` on the puzzle turned half round from `domains` (this puzzle's), its
/// traced solution turned back.
fn turned_sweep<const W: usize>(
    turned: crate::clue::Puzzle,
    domains: Vec<u128>,
    cells: &[u32],
    by_columns: bool,
    control: &Control,
    budgets: (usize, usize),
) -> (Swept, Drawn) {
    let last = turned.cells() - 1;
    let domains: Vec<u128> = domains.into_iter().rev().collect();
    let Ok(grid) = Grid::<W>::new(&turned, &domains) else {
        return (Swept::TooWide, None); // cannot be: the same domains, turned
    };
    let mut lines = Lines::<W>::new(&turned, lines_share(budgets.0));
    let mut cells: Vec<u32> = cells
        .iter()
        .map(|&cell| (last - cell as usize) as u32)
        .collect();
    cells.sort_unstable();
    let part = Component {
        puzzle: &turned,
        grid: &grid,
        lines: &mut lines,
        cells: &cells,
    };
    let choose = sweep::plain(turned.width, by_columns, control);
    let (swept, drawn) = sweep::sweep_traced(part, budgets, control, &choose);
    let drawn = drawn.map(|drawn| {
        drawn
            .into_iter()
            .map(|(cell, color)| (last - cell, color))
            .collect()
    });
    (swept, drawn)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::count::number::Count;
    use crate::count::tests::{after_line_logic, brute_force, fits, mixed_puzzle, random_puzzle};

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
            let (swept, drawn) = turned_sweep::<1>(
                puzzle.turned(),
                domains,
                part,
                by_columns,
                &control,
                budgets,
            );
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

    /// Never judged.
    const FOREVER: Duration = Duration::from_secs(3600);

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

    fn counted(value: u64) -> (Swept, Drawn) {
        (Swept::Counted(Count::from(u128::from(value))), None)
    }

    /// A sweep that never ends by itself: it waits for its stop flag.
    fn endless(control: &Control) -> (Swept, Drawn) {
        while !control.should_stop() {
            std::thread::sleep(Duration::from_millis(1));
        }
        (Swept::Stopped, None)
    }

    fn value(answer: Option<(Swept, Drawn)>) -> Option<Count> {
        match answer {
            Some((Swept::Counted(count), _)) => Some(count),
            Some((Swept::Stopped, _)) => Some(Count::ZERO),
            _ => None,
        }
    }

    #[test]
    fn the_first_count_in_wins_and_the_other_sweep_is_stopped() {
        let control = Control::new(None);
        let none = None::<fn(&Control) -> (Swept, Drawn)>;
        // The turned sweep answers while the first runs on: the first is stopped. The race
        // shows while it runs, and no longer.
        let shown = AtomicBool::new(false);
        let second = |_: &Control| {
            shown.store(control.racing.load(Ordering::Relaxed), Ordering::Relaxed);
            counted(7)
        };
        let answer = race(&control, (Duration::ZERO, FOREVER), endless, Some(second));
        assert_eq!(value(answer), Some(Count::from(7u128)));
        assert!(shown.load(Ordering::Relaxed));
        assert!(!control.racing.load(Ordering::Relaxed));
        // The first answers before the other joins: the other never runs.
        let answer = race(
            &control,
            (Duration::from_secs(60), FOREVER),
            |_: &Control| counted(5),
            Some(endless),
        );
        assert_eq!(value(answer), Some(Count::from(5u128)));
        // The first runs out of bytes: the other joins at once and counts.
        let too_wide = |_: &Control| (Swept::TooWide, None);
        let answer = race(
            &control,
            (Duration::from_secs(60), FOREVER),
            too_wide,
            Some(|_: &Control| counted(3)),
        );
        assert_eq!(value(answer), Some(Count::from(3u128)));
        // Both run out of bytes, or the only one does: None.
        assert!(race(
            &control,
            (Duration::ZERO, FOREVER),
            too_wide,
            Some(too_wide)
        )
        .is_none());
        assert!(race(&control, (Duration::ZERO, FOREVER), too_wide, none).is_none());
        // The caller's stop flag stops both.
        let stopped = Control::new(None);
        stopped.stop.store(true, Ordering::Relaxed);
        let answer = race(&stopped, (Duration::ZERO, FOREVER), endless, Some(endless));
        assert!(matches!(answer, Some((Swept::Stopped, _))));
    }

    /// A sweep that has passed `cells` cells and runs on until stopped, or counts `value`
    /// after `seconds`.
    fn passing(
        cells: u64,
        seconds: f64,
        value: u64,
    ) -> impl FnOnce(&Control) -> (Swept, Drawn) + Send {
        move |control: &Control| {
            control.swept.store(cells, Ordering::Relaxed);
            let started = Instant::now();
            while started.elapsed().as_secs_f64() < seconds {
                if control.should_stop() {
                    return (Swept::Stopped, None);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            counted(value)
        }
    }

    #[test]
    fn a_sweep_far_behind_is_stopped_once_judged_and_the_other_counts() {
        let control = Control::new(None);
        let judged = (Duration::ZERO, Duration::from_millis(50));
        // The turned sweep far ahead: the first, which would have counted sooner, is
        // stopped, and the turned one's count is the answer (not the first's stop).
        let answer = race(
            &control,
            judged,
            passing(10, 0.5, 1),
            Some(passing(40, 0.8, 2)),
        );
        assert_eq!(value(answer), Some(Count::from(2u128)));
        // The first far ahead: the turned one is stopped.
        let answer = race(
            &control,
            judged,
            passing(40, 0.8, 3),
            Some(passing(10, 0.5, 4)),
        );
        assert_eq!(value(answer), Some(Count::from(3u128)));
        // Neither far behind: both run, and the first count in wins.
        let answer = race(
            &control,
            judged,
            passing(20, 0.5, 5),
            Some(passing(40, 0.8, 6)),
        );
        assert_eq!(value(answer), Some(Count::from(5u128)));
        let started = Instant::now();
        let answer = race(
            &control,
            judged,
            passing(20, 60.0, 7),
            Some(passing(40, 0.5, 8)),
        );
        assert_eq!(value(answer), Some(Count::from(8u128)));
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}
