//! Decimation guided by belief propagation: a way to a first solution of large random puzzles,
//! which have many solutions and where CDCL and the depth-first search stall (issue 43).
//!
//! Each step estimates every cell's marginal by belief propagation (`estimate`), fixes the
//! most confident share of the undecided cells to their likely colors, and lets line logic
//! (and probing) follow; the estimate is then made again on what is left, sharper for what
//! was fixed. A step whose cells conflict is narrowed to its most confident cell, and when
//! that cell conflicts in its likely color it takes the others. When they conflict too, the
//! attempt is a dead end: the next one starts over, its confidences made noisy so that it
//! goes another way. A conflict on the given domains themselves is a proof that nothing fits.
//!
//! Nothing else here proves anything: decimation guesses, and what it finds is a grid that
//! line logic accepts whole, which the caller hands to a SAT solver as its phases (so that the
//! solver's model, verified like any other, is the solution reported).

use std::time::Instant;

use crate::count::sample::Random;
use crate::engine::{Engine, Reached, Start};
use crate::estimate::estimate;

/// How each attempt goes.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Share of the undecided cells fixed at each step (at least one cell).
    pub fraction: f64,
    /// Rounds of belief propagation at each step.
    pub rounds: usize,
    /// From the second attempt on, each confidence gets up to this much added at random.
    pub noise: f64,
    pub seed: u64,
    /// Probing after each step, not line logic alone.
    pub probing: bool,
}

/// What a `run` ended on.
#[derive(Debug, PartialEq, Eq)]
pub enum Decimated {
    /// Every cell of the scope decided, line logic content with each line.
    Found(Vec<u128>),
    /// No grid fits the given domains (line logic or probing showed it).
    Refuted,
    /// The pause or the deadline passed; the next `run` goes on from where this one stopped.
    Paused,
}

/// Decimation of one puzzle's scope, attempt after attempt, until a grid or the deadline
/// (`run`, which may be called again after a pause).
pub struct Decimator {
    engine: Engine,
    /// Where every attempt starts, and whether it is at its fixpoint yet.
    start: Vec<u128>,
    start_settled: bool,
    scope: Vec<usize>,
    /// The cells of the scope's lines.
    cells: Vec<usize>,
    /// The attempt's domains (None: the next attempt starts over), and whether they are at
    /// line logic's (or probing's) fixpoint.
    current: Option<Vec<u128>>,
    settled: bool,
    options: Options,
    random: Random,
    pub attempts: u64,
    pub steps: u64,
}

impl Decimator {
    /// Decimation of `scope`'s lines (all when empty) from `domains`.
    pub fn new(engine: &Engine, domains: &[u128], scope: &[usize], options: Options) -> Self {
        let puzzle = engine.puzzle();
        let mut in_scope = vec![scope.is_empty(); puzzle.cells()];
        for &line in scope {
            for p in 0..puzzle.length(line) {
                in_scope[puzzle.cell(line, p)] = true;
            }
        }
        Self {
            engine: engine.clone(),
            start: domains.to_vec(),
            start_settled: false,
            scope: scope.to_vec(),
            cells: (0..puzzle.cells()).filter(|&cell| in_scope[cell]).collect(),
            current: None,
            settled: false,
            options,
            random: Random::new(options.seed),
            attempts: 0,
            steps: 0,
        }
    }

    /// Line logic, or probing, from `domains`.
    fn follow(&self, domains: &[u128], deadline: Option<Instant>) -> Reached {
        let start = Start {
            domains,
            scope: &self.scope,
            deadline,
        };
        let (reached, _) = if self.options.probing {
            self.engine.probe(start)
        } else {
            self.engine.propagate(start)
        };
        reached
    }

    /// Go on until a grid, a proof that none fits, or `deadline`; past `pause`, stop at the
    /// end of the step under way (a step's probing keeps to `deadline` alone, so that a
    /// pause shorter than a step still moves on by one).
    pub fn run(&mut self, pause: Option<Instant>, deadline: Option<Instant>) -> Decimated {
        loop {
            let now = Instant::now();
            if pause.is_some_and(|pause| now >= pause) || deadline.is_some_and(|end| now >= end) {
                return Decimated::Paused;
            }
            let Some(current) = self.current.take() else {
                self.attempts += 1;
                if self.start_settled {
                    self.current = Some(self.start.clone());
                    self.settled = true;
                    continue;
                }
                match self.follow(&self.start, deadline) {
                    Reached::Conflict(_) => return Decimated::Refuted,
                    Reached::Timeout(domains) => {
                        // Sound as far as it got: the next run goes on from it.
                        self.current = Some(domains);
                        self.settled = false;
                        return Decimated::Paused;
                    }
                    Reached::Fixpoint(domains) | Reached::Solved(domains) => {
                        // Every attempt starts from this fixpoint: reached once.
                        self.start.clone_from(&domains);
                        self.start_settled = true;
                        self.current = Some(domains);
                        self.settled = true;
                    }
                }
                continue;
            };
            if !self.settled {
                // A step paused before its fixpoint: reach it first.
                match self.follow(&current, deadline) {
                    Reached::Conflict(_) => self.current = None,
                    Reached::Timeout(domains) => {
                        self.current = Some(domains);
                        return Decimated::Paused;
                    }
                    Reached::Fixpoint(domains) | Reached::Solved(domains) => {
                        self.settled = true;
                        self.current = Some(domains);
                    }
                }
                continue;
            }
            if self.cells.iter().all(|&cell| decided(current[cell])) {
                return Decimated::Found(current);
            }
            match self.step(current, deadline) {
                Step::Next(domains) => self.current = Some(domains),
                Step::DeadEnd => self.current = None,
                Step::Paused(domains) => {
                    self.current = Some(domains);
                    self.settled = false;
                    return Decimated::Paused;
                }
            }
        }
    }

    /// One step of an attempt from `current` (at line logic's fixpoint, not all decided).
    fn step(&mut self, current: Vec<u128>, deadline: Option<Instant>) -> Step {
        self.steps += 1;
        let puzzle = self.engine.puzzle();
        let guess = estimate(puzzle, &current, self.options.rounds);
        let noise = if self.attempts > 1 {
            self.options.noise
        } else {
            0.0
        };
        let mut open: Vec<(f64, usize)> = self
            .cells
            .iter()
            .filter(|&&cell| !decided(current[cell]))
            .map(|&cell| {
                let jitter = noise * (self.random.word() >> 11) as f64 / (1u64 << 53) as f64;
                (guess.confidence[cell] + jitter, cell)
            })
            .collect();
        open.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let most = ((open.len() as f64 * self.options.fraction) as usize).clamp(1, open.len());
        let likely = |cell: usize| 1u128 << guess.colors[cell];
        let mut trial = current.clone();
        for &(_, cell) in &open[..most] {
            trial[cell] = likely(cell);
        }
        // The whole share, then its most confident cell, then that cell's other colors.
        let first = open[0].1;
        let mut narrowed = current.clone();
        narrowed[first] = likely(first);
        let mut other = current.clone();
        other[first] &= !likely(first);
        let tries = if most > 1 {
            vec![trial, narrowed, other]
        } else {
            vec![narrowed, other]
        };
        for domains in tries {
            match self.follow(&domains, deadline) {
                Reached::Conflict(_) => continue,
                // What the step's decisions implied so far: its next step's probing goes on
                // (a slice shorter than one probing still moves the attempt on).
                Reached::Timeout(next) => return Step::Paused(next),
                Reached::Fixpoint(next) | Reached::Solved(next) => return Step::Next(next),
            }
        }
        Step::DeadEnd
    }
}

/// Where one step of an attempt went.
enum Step {
    Next(Vec<u128>),
    DeadEnd,
    Paused(Vec<u128>),
}

fn decided(domain: u128) -> bool {
    domain & domain.wrapping_sub(1) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clue::tests::black_and_white;
    use crate::clue::Puzzle;

    fn options(seed: u64) -> Options {
        Options {
            fraction: 0.05,
            rounds: 20,
            noise: 0.1,
            seed,
            probing: true,
        }
    }

    /// Whether `grid` (decided domains: 1 white, 2 black) fits every clue.
    fn fits(puzzle: &Puzzle, grid: &[u128]) -> bool {
        (0..puzzle.lines()).all(|line| {
            let black: Vec<bool> = puzzle
                .line_cells(line)
                .map(|cell| grid[cell] == 2)
                .collect();
            let runs: Vec<u32> = black
                .split(|&black| !black)
                .filter(|run| !run.is_empty())
                .map(|run| run.len() as u32)
                .collect();
            let clue: Vec<u32> = puzzle.clues[line].iter().map(|b| b.length).collect();
            runs == clue
        })
    }

    /// The puzzle whose clues a random grid of `side` x `side` gives.
    fn random_puzzle(side: usize, seed: u64) -> Puzzle {
        let mut random = Random::new(seed);
        let grid: Vec<bool> = (0..side * side).map(|_| random.word() % 100 < 45).collect();
        let runs = |cells: Vec<bool>| -> Vec<u32> {
            cells
                .split(|&black| !black)
                .filter(|run| !run.is_empty())
                .map(|run| run.len() as u32)
                .collect()
        };
        let rows: Vec<Vec<u32>> = (0..side)
            .map(|r| runs((0..side).map(|c| grid[r * side + c]).collect()))
            .collect();
        let columns: Vec<Vec<u32>> = (0..side)
            .map(|c| runs((0..side).map(|r| grid[r * side + c]).collect()))
            .collect();
        let rows: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
        let columns: Vec<&[u32]> = columns.iter().map(Vec::as_slice).collect();
        black_and_white(&rows, &columns)
    }

    #[test]
    fn finds_grids_that_fit_random_puzzles() {
        for seed in 0..20 {
            let puzzle = random_puzzle(12, seed);
            let engine = Engine::new(puzzle.clone());
            let mut decimator =
                Decimator::new(&engine, &puzzle.initial_domains(), &[], options(seed));
            match decimator.run(None, None) {
                Decimated::Found(grid) => assert!(fits(&puzzle, &grid), "seed {seed}"),
                other => panic!("seed {seed}: {other:?}"),
            }
            assert!(decimator.attempts >= 1);
        }
    }

    #[test]
    fn every_cell_of_the_scope_is_decided_and_the_rest_left() {
        // Every column of two cells holds one black cell; only the first two are in scope.
        let puzzle = black_and_white(&[&[1, 1], &[1, 1]], &[&[1], &[1], &[1], &[1]]);
        let engine = Engine::new(puzzle.clone());
        let scope = [2, 3]; // the first two columns (and the cells on them)
        let mut decimator = Decimator::new(&engine, &puzzle.initial_domains(), &scope, options(1));
        let Decimated::Found(grid) = decimator.run(None, None) else {
            panic!("no grid");
        };
        for cell in [0, 1, 4, 5] {
            assert!(decided(grid[cell]), "cell {cell}");
        }
        for cell in [2, 3, 6, 7] {
            assert_eq!(grid[cell], 3, "cell {cell} is out of scope");
        }
        assert_eq!(grid[0] ^ grid[4], 3, "one black cell in the first column");
        assert_eq!(grid[1] ^ grid[5], 3, "one black cell in the second column");
    }

    #[test]
    fn pauses_shorter_than_a_step_still_find_a_grid() {
        let puzzle = random_puzzle(30, 7);
        let engine = Engine::new(puzzle.clone());
        let mut decimator = Decimator::new(&engine, &puzzle.initial_domains(), &[], options(0));
        for _ in 0..100_000 {
            let pause = Instant::now() + std::time::Duration::from_micros(100);
            match decimator.run(Some(pause), None) {
                Decimated::Paused => continue,
                Decimated::Found(grid) => return assert!(fits(&puzzle, &grid)),
                Decimated::Refuted => panic!("refuted"),
            }
        }
        panic!("no grid in 100,000 pauses");
    }

    #[test]
    fn a_puzzle_without_a_grid_is_refuted() {
        let puzzle = black_and_white(&[&[2], &[]], &[&[1], &[]]);
        let engine = Engine::new(puzzle.clone());
        let mut decimator = Decimator::new(&engine, &puzzle.initial_domains(), &[], options(0));
        assert_eq!(decimator.run(None, None), Decimated::Refuted);
    }

    #[test]
    fn a_passed_deadline_pauses_and_the_next_run_goes_on() {
        let puzzle = random_puzzle(10, 3);
        let engine = Engine::new(puzzle.clone());
        let mut decimator = Decimator::new(&engine, &puzzle.initial_domains(), &[], options(0));
        assert_eq!(decimator.run(Some(Instant::now()), None), Decimated::Paused);
        assert!(
            matches!(decimator.run(None, None), Decimated::Found(grid) if fits(&puzzle, &grid))
        );
    }
}
