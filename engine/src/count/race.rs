//! Two sweeps of one component raced (`race`): the first runs at once and the second joins it
//! after a moment, or as soon as the first runs out of bytes; the first answer in wins and the
//! other is stopped, and once both have run a while, one far behind the other is stopped. The
//! second is the same sweep of the puzzle turned half round (`turned`).

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::count::sweep::Swept;
use crate::count::Control;

/// How long a sweep runs alone before the turned one joins it: most end well before.
#[cfg(not(test))]
pub(super) const RACE_AFTER: Duration = Duration::from_millis(10);
#[cfg(test)]
pub(super) const RACE_AFTER: Duration = Duration::ZERO;
/// How often the racing sweeps' progress is shown and the stop flag passed on to them.
const TICK: Duration = Duration::from_millis(5);
/// How long both sweeps run before the race is judged (`BEHIND`): two sweeps share one
/// memory, and each slows the other (thin-20049: 8.5 s raced against 6.8 s alone).
pub(super) const JUDGE_AFTER: Duration = Duration::from_secs(1);
/// A sweep that has passed fewer than 1/BEHIND of the cells the other has, once judged, is
/// stopped: the other is far ahead (thin-20049 at 2 s: 633 of its 1,170 cells one way, 192
/// the other; the way ahead won, 6.7 s against 11.5 s alone).
const BEHIND: u64 = 3;

/// How a race ended.
pub(super) enum Raced<T> {
    /// A sweep's answer: its count, or stopped by the deadline or the caller.
    Answer(Swept, T),
    /// Out of bytes: the sweep that had passed more cells (0: the first, 1: the second),
    /// worth running again alone, with the whole of them.
    OutOfBytes(usize),
}

/// Run `first` at once and `second` (when there is one) beside it from `after` on, or as
/// soon as `first` runs out of bytes, each with its own stop flag under `control`'s
/// deadline; the first answer that is not `TooWide` is taken and the other sweep stopped.
/// Once both have run `judged` a sweep far behind the other (`BEHIND`) is stopped and the
/// other runs on alone (`Control::alone`), as it does when the one behind runs out of bytes;
/// when the one ahead does, the race ends (`OutOfBytes`): the one ahead, run again with the
/// whole memory, goes further than the one behind could. Their progress is shown on
/// `control` (the further of the two) while they run, and `control`'s stop flag stops both.
pub(super) fn race<T, A, B>(
    control: &Control,
    (after, judged): (Duration, Duration),
    first: A,
    second: Option<B>,
) -> Raced<T>
where
    T: Default + Send,
    A: FnOnce(&Control) -> (Swept, T) + Send,
    B: FnOnce(&Control) -> (Swept, T) + Send,
{
    let sweeps = [
        Control::new(control.deadline),
        Control::new(control.deadline),
    ];
    let (tell, told) = mpsc::channel::<(usize, Swept, T)>();
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
        // The cells each has passed, as last seen (a sweep's own reads 0 once it has ended).
        let mut seen = [0u64; 2];
        let answer = loop {
            if let Ok((who, swept, drawn)) = told.recv_timeout(TICK) {
                // One stopped for being far behind may still have counted before it saw so.
                let judged_out = !running[who];
                running[who] = false;
                let counted = matches!(swept, Swept::Counted(_));
                if counted || (!judged_out && !matches!(swept, Swept::TooWide)) {
                    break Raced::Answer(swept, drawn); // counted, or stopped by the deadline
                }
                if !judged_out && running[1 - who] && seen[who] > seen[1 - who] {
                    break Raced::OutOfBytes(who); // the one ahead ran out of its share
                }
                sweeps[1 - who].alone.store(true, Ordering::Relaxed);
            }
            if control.should_stop() {
                break Raced::Answer(Swept::Stopped, T::default());
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
                break Raced::OutOfBytes(usize::from(seen[1] > seen[0])); // both did
            }
            for (seen, each) in seen.iter_mut().zip(sweeps) {
                *seen = (*seen).max(each.swept.load(Ordering::Relaxed));
            }
            let passed = seen;
            // A sweep out of its share of the memory (`Control::starved`) takes the whole
            // when it is ahead (the other is stopped), else it is stopped.
            for (who, other) in [(0, 1), (1, 0)] {
                if running[who] && sweeps[who].starved.load(Ordering::Relaxed) {
                    let (loser, winner) = if running[other] && passed[other] > passed[who] {
                        (who, other)
                    } else {
                        (other, who)
                    };
                    sweeps[loser].stop.store(true, Ordering::Relaxed);
                    running[loser] = false;
                    sweeps[winner].alone.store(true, Ordering::Relaxed);
                    control.racing.store(false, Ordering::Relaxed);
                    second = None; // (if it had not joined yet, it never will)
                }
            }
            if running == [true, true] && both_since.is_some_and(|since| since.elapsed() >= judged)
            {
                for (who, other) in [(0, 1), (1, 0)] {
                    if passed[who].saturating_mul(BEHIND) < passed[other] {
                        sweeps[who].stop.store(true, Ordering::Relaxed);
                        sweeps[other].alone.store(true, Ordering::Relaxed);
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
        stop_both(sweeps);
        answer
    });
    shown_over(control);
    answer
}

/// Both sweeps told to stop (the scope they run in waits for them).
pub(super) fn stop_both(sweeps: &[Control; 2]) {
    for each in sweeps {
        each.stop.store(true, Ordering::Relaxed);
    }
}

/// No progress shown, and no race, once the sweeps are over.
pub(super) fn shown_over(control: &Control) {
    control.swept.store(0, Ordering::Relaxed);
    control.states.store(0, Ordering::Relaxed);
    control.racing.store(false, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::count::number::Count;

    /// A component's traced solution, as a count's sweep gives it.
    type Drawn = Option<Vec<(usize, u8)>>;

    /// Never judged.
    const FOREVER: Duration = Duration::from_secs(3600);

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

    fn value(answer: Raced<Drawn>) -> Option<Count> {
        match answer {
            Raced::Answer(Swept::Counted(count), _) => Some(count),
            Raced::Answer(Swept::Stopped, _) => Some(Count::ZERO),
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
        let both = race(
            &control,
            (Duration::ZERO, FOREVER),
            too_wide,
            Some(too_wide),
        );
        assert!(matches!(both, Raced::OutOfBytes(_)));
        let only = race(&control, (Duration::ZERO, FOREVER), too_wide, none);
        assert!(matches!(only, Raced::OutOfBytes(0)));
        // The caller's stop flag stops both.
        let stopped = Control::new(None);
        stopped.stop.store(true, Ordering::Relaxed);
        let answer = race(&stopped, (Duration::ZERO, FOREVER), endless, Some(endless));
        assert!(matches!(answer, Raced::Answer(Swept::Stopped, _)));
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

    #[test]
    fn the_sweep_left_alone_is_told_so() {
        let control = Control::new(None);
        let too_wide = |_: &Control| (Swept::TooWide, None);
        // The first runs out of bytes: the other joins at once, alone from the start.
        let told = |theirs: &Control| counted(u64::from(theirs.alone.load(Ordering::Relaxed)));
        let answer = race(
            &control,
            (Duration::from_secs(60), FOREVER),
            too_wide,
            Some(told),
        );
        assert_eq!(value(answer), Some(Count::from(1u128)));
        // The turned one judged far behind: the first is told, and counts only then.
        let first = |mine: &Control| {
            mine.swept.store(40, Ordering::Relaxed);
            while !mine.alone.load(Ordering::Relaxed) {
                if mine.should_stop() {
                    return (Swept::Stopped, None);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            counted(9)
        };
        let judged = (Duration::ZERO, Duration::from_millis(50));
        let answer = race(&control, judged, first, Some(passing(10, 60.0, 1)));
        assert_eq!(value(answer), Some(Count::from(9u128)));
    }

    /// A sweep that has passed `cells` cells and runs out of bytes after `seconds`.
    fn running_out(cells: u64, seconds: f64) -> impl FnOnce(&Control) -> (Swept, Drawn) + Send {
        move |control: &Control| {
            control.swept.store(cells, Ordering::Relaxed);
            std::thread::sleep(Duration::from_secs_f64(seconds));
            control.swept.store(0, Ordering::Relaxed); // as a sweep's own reads once it ends
            (Swept::TooWide, None)
        }
    }

    #[test]
    fn the_sweep_ahead_running_out_of_bytes_ends_the_race_to_be_run_again() {
        let control = Control::new(None);
        // The first, ahead, runs out of its share: the race ends at once, the one ahead named
        // (the other, behind and endless, is stopped).
        let started = Instant::now();
        let answer = race(
            &control,
            (Duration::ZERO, FOREVER),
            running_out(40, 0.2),
            Some(passing(10, 60.0, 1)),
        );
        assert!(matches!(answer, Raced::OutOfBytes(0)));
        assert!(started.elapsed() < Duration::from_secs(30));
        // The second ahead runs out: named too.
        let answer = race(
            &control,
            (Duration::ZERO, FOREVER),
            passing(10, 60.0, 1),
            Some(running_out(40, 0.2)),
        );
        assert!(matches!(answer, Raced::OutOfBytes(1)));
        // The one behind runs out: the one ahead runs on alone and counts.
        let answer = race(
            &control,
            (Duration::ZERO, FOREVER),
            running_out(10, 0.2),
            Some(passing(40, 0.5, 6)),
        );
        assert_eq!(value(answer), Some(Count::from(6u128)));
    }

    /// A sweep that has passed `cells` cells, then outgrows its share of the memory and waits
    /// to be left alone (then counts `value`) or stopped.
    fn starving(cells: u64, value: u64) -> impl FnOnce(&Control) -> (Swept, Drawn) + Send {
        move |control: &Control| {
            control.swept.store(cells, Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(100));
            control.starved.store(true, Ordering::Relaxed);
            while !control.alone.load(Ordering::Relaxed) {
                if control.should_stop() {
                    return (Swept::Stopped, None);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            counted(value)
        }
    }

    #[test]
    fn a_sweep_out_of_its_share_takes_the_whole_when_ahead_else_is_stopped() {
        let control = Control::new(None);
        let never = (Duration::ZERO, FOREVER);
        let answer = race(&control, never, starving(40, 1), Some(passing(10, 60.0, 2)));
        assert_eq!(value(answer), Some(Count::from(1u128)));
        let answer = race(&control, never, passing(10, 60.0, 3), Some(starving(40, 4)));
        assert_eq!(value(answer), Some(Count::from(4u128)));
        // Behind: stopped, and the other counts.
        let answer = race(&control, never, starving(10, 5), Some(passing(40, 0.5, 6)));
        assert_eq!(value(answer), Some(Count::from(6u128)));
        // Alone before the other joins: it never joins.
        let late = (Duration::from_secs(60), FOREVER);
        let answer = race(&control, late, starving(10, 7), Some(passing(40, 60.0, 8)));
        assert_eq!(value(answer), Some(Count::from(7u128)));
    }
}
