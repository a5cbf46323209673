//! A narrow component counted by two sweeps that meet: the puzzle's from its start and the
//! turned puzzle's from its end (`Puzzle::turned`), each on its own core, their layers joined
//! where they meet (`join`).
//!
//! Raced to the end (`race`), two sweeps of one component each did the whole of it and the
//! slower was thrown away. Met, each does a part: the turned sweep takes the forward one's
//! order and groups backwards (every stretch's cells still in order along its line, the turned
//! one's way), so every group's end is a cut both can stop at, and the two take groups from
//! either end (`Meeting`) until none is left. Each goes as far as it is fast: where one way
//! meets many states and the other few, the fast one takes most of the groups, so the pair
//! ends about when the faster one alone would, or sooner (thin-20049: 4.9 s against the race's
//! 6.6 s; BENCHMARKS.md, round 26). The two cores wait on one memory, so two halves take more
//! than half the time of one sweep.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use crate::count::bytes::Bytes;
use crate::count::order::{self, Spot};
use crate::count::race::{shown_over, stop_both, Raced};
use crate::count::sweep::{look_ahead, run, traced, Chooser, Component, Keep, Layer};
use crate::count::sweep::{Swept, Walk};
use crate::count::Control;

/// A component's solution as traced back through its sweeps: each cell with its color.
pub(super) type Drawn = Option<Vec<(usize, u8)>>;

/// How often the sweeps' progress is shown and the stop flag passed on to them.
const TICK: Duration = Duration::from_millis(5);

/// One sweep stopped at the cut: its walk, the layer it holds (the states before the groups
/// it left to the other), its trace (empty when let go) and the groups it swept.
pub(super) struct Half {
    pub(super) walk: Walk,
    pub(super) layer: Layer,
    pub(super) trace: Vec<Vec<(u32, u64)>>,
    pub(super) cut: usize,
}

/// How one of the two sweeps ended: counted (or stopped, or out of bytes) on its own, with its
/// traced solution; or at the cut.
pub(super) enum Ended {
    Whole(Swept, Drawn),
    Met(Box<Half>),
}

impl Default for Ended {
    fn default() -> Self {
        Self::Whole(Swept::TooWide, None)
    }
}

/// The forward sweep's order and groups as the turned sweep takes them: each turned cell's
/// rank in its order, and its groups.
pub(super) struct Shape {
    rank: Vec<u32>,
    groups: Vec<Range<usize>>,
}

/// What the two sweeps share: the forward one's shape once laid out, the groups there are,
/// how many each has taken (the forward one from the start, the turned one from the end), and
/// whether each is gone (out of bytes: the other takes the rest).
#[derive(Default)]
pub(super) struct Meeting {
    state: Mutex<Taken>,
}

#[derive(Default)]
struct Taken {
    shape: Option<std::sync::Arc<Shape>>,
    groups: usize,
    taken: [usize; 2],
    gone: [bool; 2],
}

impl Shape {
    pub(super) fn groups(&self) -> &[Range<usize>] {
        &self.groups
    }
}

impl Meeting {
    fn lock(&self) -> std::sync::MutexGuard<'_, Taken> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether `side` may sweep its next group: while any is left to take, or the other is
    /// gone.
    pub(super) fn take(&self, side: usize) -> bool {
        let mut taken = self.lock();
        let free = taken.taken[0] + taken.taken[1] < taken.groups;
        if free || taken.gone[1 - side] {
            taken.taken[side] += 1;
            return true;
        }
        false
    }

    /// The forward sweep's walk laid out (`last`: the puzzle's last cell): its shape, for the
    /// turned sweep.
    pub(super) fn lay_out(&self, walk: &Walk, last: usize) {
        let count = walk.spots.len();
        let mut rank = vec![u32::MAX; last + 1];
        for (at, spot) in walk.spots.iter().enumerate() {
            rank[last - spot.cell] = (count - 1 - at) as u32;
        }
        let groups = walk
            .groups
            .iter()
            .rev()
            .map(|group| count - group.end..count - group.start)
            .collect();
        let mut taken = self.lock();
        taken.groups = walk.groups.len();
        taken.shape = Some(std::sync::Arc::new(Shape { rank, groups }));
    }

    fn gone(&self, side: usize) {
        self.lock().gone[side] = true;
    }

    /// The forward sweep's shape, once laid out; None once `stop` says so, or the forward
    /// sweep is gone without one.
    pub(super) fn shape(&self, stop: &dyn Fn() -> bool) -> Option<std::sync::Arc<Shape>> {
        loop {
            {
                let taken = self.lock();
                if taken.shape.is_some() || taken.gone[0] {
                    return taken.shape.clone();
                }
            }
            if stop() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The turned sweep's order: the forward one's backwards (`Shape`).
pub(super) fn mirrored(
    shape: &Shape,
) -> impl Fn(&[Spot], &[usize], &[usize]) -> Option<order::Plan> + '_ {
    move |spots, lengths, bits| {
        let mut order = spots.to_vec();
        order.sort_unstable_by_key(|spot| shape.rank[spot.cell]);
        order::place(order, lengths, bits)
    }
}

/// Sweep `part` in the order `choose` makes (its groups `groups`, when given), taking each
/// group only as `take` allows, keeping its trace within its bytes as a count's sweep does
/// (`sweep_traced`); `laid_out` is told its walk before it starts.
pub(super) fn sweep_half<const W: usize>(
    part: Component<'_, W>,
    (bytes, control): (Bytes, &Control),
    (choose, groups): (&Chooser<'_>, Option<&[Range<usize>]>),
    take: &dyn Fn() -> bool,
    laid_out: &mut dyn FnMut(&Walk),
) -> Ended {
    let Some(mut walk) = Walk::new(part, choose, true) else {
        return Ended::default();
    };
    if let Some(groups) = groups {
        walk.groups = groups.to_vec();
    }
    laid_out(&walk);
    let mut trace = Vec::with_capacity(walk.groups.len());
    let ahead = look_ahead(&walk, control);
    let keep = Some(Keep::Trace(&mut trace));
    let (swept, layer) = run(
        (&walk, ahead.as_ref()),
        (bytes, keep),
        (control, Some(take)),
    );
    if let Some((cut, layer)) = layer {
        let half = Half {
            walk,
            layer,
            trace,
            cut,
        };
        return Ended::Met(Box::new(half));
    }
    let whole = trace.len() == walk.groups.len() && trace.last().is_some_and(|l| !l.is_empty());
    let drawn = (matches!(swept, Swept::Counted(_)) && whole).then(|| traced(&walk, &trace, 0));
    Ended::Whole(swept, drawn)
}

/// How two sweeps that meet ended: an answer (a count, or stopped), out of bytes (the sweep
/// that had passed more cells named), or both halves at the cut, to join.
pub(super) enum Met {
    Raced(Raced<Drawn>),
    Halves(Box<Half>, Box<Half>),
}

/// Run `first` (the forward sweep) at once and `second` (the turned one) beside it from
/// `after` on, or as soon as `first` runs out of bytes, sharing `meeting`, each with its own
/// stop flag under `control`'s deadline: the first answer in (a count, or a stop) ends it, as
/// do both halves at the cut. One out of bytes leaves the rest to the other, which then has
/// the whole memory (`Control::alone`); should that one have stopped at the cut already, or
/// both run out, the sweep that had passed more cells is named, to run again alone. Their
/// progress (cells both have passed) is shown on `control`, whose stop flag stops both.
pub(super) fn meet<A, B>(control: &Control, after: Duration, first: A, second: B) -> Met
where
    A: FnOnce(&Control, &Meeting) -> Ended + Send,
    B: FnOnce(&Control, &Meeting) -> Ended + Send,
{
    let sweeps = [
        Control::new(control.deadline),
        Control::new(control.deadline),
    ];
    let meeting = Meeting::default();
    let (tell, told) = mpsc::channel::<(usize, Ended)>();
    let met = std::thread::scope(|scope| {
        let (sweeps, meeting) = (&sweeps, &meeting);
        let tell_first = tell.clone();
        scope.spawn(move || {
            let _ = tell_first.send((0, first(&sweeps[0], meeting))); // nobody may be left
        });
        let started = Instant::now();
        let (mut running, mut second) = ([true, false], Some(second));
        let mut halves: [Option<Box<Half>>; 2] = [None, None];
        let mut seen = [0u64; 2];
        let met = loop {
            if let Ok((who, ended)) = told.recv_timeout(TICK) {
                running[who] = false;
                match ended {
                    Ended::Whole(Swept::TooWide, _) => {
                        meeting.gone(who);
                        sweeps[1 - who].alone.store(true, Ordering::Relaxed);
                        control.racing.store(false, Ordering::Relaxed);
                        if halves[1 - who].is_some() {
                            break Met::Raced(Raced::OutOfBytes(1 - who));
                        }
                    }
                    Ended::Whole(swept, drawn) => break Met::Raced(Raced::Answer(swept, drawn)),
                    Ended::Met(half) => halves[who] = Some(half),
                }
                if let [Some(_), Some(_)] = &halves {
                    let [Some(a), Some(b)] = std::mem::take(&mut halves) else {
                        unreachable!("both halves are there");
                    };
                    break Met::Halves(a, b);
                }
            }
            if control.should_stop() {
                break Met::Raced(Raced::Answer(Swept::Stopped, None));
            }
            if !running[0] || started.elapsed() >= after {
                if let Some(second) = second.take() {
                    control.racing.store(running[0], Ordering::Relaxed);
                    control.races.fetch_add(1, Ordering::Relaxed);
                    running[1] = true;
                    sweeps[1].alone.store(!running[0], Ordering::Relaxed);
                    let tell = tell.clone();
                    scope.spawn(move || {
                        let _ = tell.send((1, second(&sweeps[1], meeting)));
                    });
                }
            }
            if running == [false, false] && halves.iter().all(Option::is_none) {
                break Met::Raced(Raced::OutOfBytes(usize::from(seen[1] > seen[0])));
            }
            for (seen, each) in seen.iter_mut().zip(sweeps) {
                *seen = (*seen).max(each.swept.load(Ordering::Relaxed));
            }
            control.swept.store(seen[0] + seen[1], Ordering::Relaxed);
            let states = sweeps
                .iter()
                .map(|each| each.states.load(Ordering::Relaxed));
            control
                .states
                .store(states.max().unwrap_or(0), Ordering::Relaxed);
        };
        stop_both(sweeps);
        met
    });
    shown_over(control);
    met
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::clue::Puzzle;
    use crate::count::join::join;
    use crate::count::lines::Lines;
    use crate::count::number::Count;
    use crate::count::search::lines_share;
    use crate::count::sweep;
    use crate::count::tests::{
        after_line_logic, brute_force, component, fits, mixed_puzzle, random_puzzle,
    };
    use crate::count::turned::on_turned;
    use crate::grid::Grid;

    /// A `take` that lets `most` groups be swept.
    fn upto(most: usize) -> impl Fn() -> bool {
        let taken = Cell::new(0);
        move || {
            let ok = taken.get() < most;
            taken.set(taken.get() + usize::from(ok));
            ok
        }
    }

    /// Every component of the puzzle after line logic swept forwards to every cut and turned
    /// to the same cut from the other end, the halves joined: the count of the whole sweep
    /// each time, and a solution that fits with the other components' (as their whole sweeps
    /// trace them); on boards small enough, the product of the components' counts is the
    /// puzzle's by brute force (the whole sweep is held to it on others). Returns the cuts
    /// joined.
    fn met_at_every_cut(puzzle: &Puzzle) -> usize {
        let control = Control::new(None);
        let Some((mut counter, parts)) = after_line_logic(puzzle, &control) else {
            assert_eq!(brute_force(puzzle), 0);
            return 0;
        };
        let (turned, last) = (puzzle.turned(), puzzle.cells() - 1);
        let bytes: Bytes = (1 << 22, 1 << 22).into();
        let mut base = counter.board.grid.domains(puzzle);
        let mut wholes = Vec::new();
        for part in &parts {
            counter.choose_direction(part);
            let plain = sweep::plain(puzzle.width, counter.by_columns(), &control);
            let meeting = Meeting::default();
            let laid_out = &mut |walk: &Walk| meeting.lay_out(walk, last);
            let given = (&plain as &Chooser<'_>, None);
            let whole = component(&mut counter, part);
            let ended = sweep_half(whole, (bytes, &control), given, &|| true, laid_out);
            let Ended::Whole(Swept::Counted(count), drawn) = ended else {
                panic!("a small board sweeps")
            };
            for (cell, color) in drawn.into_iter().flatten() {
                base[cell] = 1u128 << color;
            }
            wholes.push((count, meeting.shape(&|| false).expect("laid out")));
        }
        let mut total = Count::ONE;
        let mut joined = 0;
        for (part, (expected, shape)) in parts.iter().zip(wholes) {
            total.mul(&expected);
            counter.choose_direction(part);
            let by_columns = counter.by_columns();
            let domains = counter.board.grid.domains(puzzle);
            let plain = sweep::plain(puzzle.width, by_columns, &control);
            let groups = shape.groups().len();
            for cut in 0..=groups {
                let part_here = component(&mut counter, part);
                let given = (&plain as &Chooser<'_>, None);
                let before =
                    sweep_half(part_here, (bytes, &control), given, &upto(cut), &mut |_| {});
                let choose = mirrored(&shape);
                let sides = (domains.clone(), part.as_slice(), by_columns);
                let (_, after) = on_turned::<1, _>(&turned, sides, (&control, 1 << 22), |p, _| {
                    let given = (&choose as &Chooser<'_>, Some(shape.groups()));
                    let take = upto(groups - cut);
                    (
                        Swept::Stopped,
                        sweep_half(p, (bytes, &control), given, &take, &mut |_| {}),
                    )
                });
                let (before, after) = match (before, after) {
                    (Ended::Met(before), Ended::Met(after)) => (before, after),
                    (Ended::Whole(Swept::Counted(count), _), _)
                    | (_, Ended::Whole(Swept::Counted(count), _)) => {
                        assert!(
                            cut == 0 || cut == groups,
                            "only a sweep of every group ends"
                        );
                        assert_eq!(count, expected, "{:?} cut {cut}", puzzle.clues);
                        continue;
                    }
                    _ => panic!("a small board sweeps"),
                };
                let turned_domains: Vec<u128> = domains.iter().rev().copied().collect();
                let turned_grid = Grid::<1>::new(&turned, &turned_domains).expect("turned");
                let mut turned_lines = Lines::<1>::new(&turned, lines_share(1 << 22));
                let grid = &counter.board.grid;
                let stopped = join(
                    (puzzle, grid, &mut counter.lines, &before),
                    (&turned, &turned_grid, &mut turned_lines, &after),
                    &|| true,
                );
                assert!(stopped.is_none(), "a join told to stop stops");
                let (count, drawn) = join(
                    (puzzle, grid, &mut counter.lines, &before),
                    (&turned, &turned_grid, &mut turned_lines, &after),
                    &|| false,
                )
                .expect("the halves meet");
                assert_eq!(count, expected, "{:?} cut {cut}", puzzle.clues);
                joined += 1;
                if count.is_zero() {
                    continue;
                }
                let mut witness = base.clone();
                let drawn = drawn.expect("a small trace");
                assert_eq!(drawn.len(), part.len(), "every cell drawn once");
                for (cell, color) in drawn {
                    witness[cell] = 1u128 << color;
                }
                assert!(fits(puzzle, &witness), "{:?} cut {cut}", puzzle.clues);
            }
        }
        if puzzle.cells() <= 16 {
            assert_eq!(
                total,
                Count::from(brute_force(puzzle)),
                "{:?}",
                puzzle.clues
            );
        }
        joined
    }

    #[test]
    fn two_sweeps_met_at_any_cut_count_as_one_and_trace_a_solution() {
        let mut seed = 0x5EED_0201u64;
        let mut joined = 0;
        for case in 0..600 {
            joined += met_at_every_cut(&mixed_puzzle(case, 4, (7, 4), (4, 3), &mut seed));
        }
        assert!(joined > 400, "{joined} cuts joined");
    }

    #[test]
    fn thin_boards_meet_at_any_cut() {
        let mut seed = 0x5EED_0202u64;
        for case in 0..8 {
            let puzzle = random_puzzle(18, 3 + case % 3, 2, 45, case % 2 == 1, &mut seed);
            met_at_every_cut(&puzzle);
        }
    }
}
