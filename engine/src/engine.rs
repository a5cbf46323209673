//! The calls the Python surface makes, on one puzzle, each run at the word count its longest
//! line needs (a line and the position past its end: 1 word up to 63 cells, then 2, 4, 8, 16).

use std::sync::Arc;
use std::time::Instant;

use crate::bits::Bits;
use crate::clue::{line_colors, Block, Puzzle, MAX_COLORS, MAX_SIDE};
use crate::count::enumerate::{Enumerator, Knobs, Step};
use crate::count::{self, Ambiguity, Control, Counted, Drawn};
use crate::lemmas::{self, Ending, Lemma};
use crate::line::{self, Workspace};
use crate::lookahead::{split as lookahead_split, Split};
use crate::probe::{Limits, Prober, Sweep};
use crate::propagate::{Board, Outcome};
use crate::search::{Event, Guide, Options, Search, Stats};

/// How a propagation or a probing ended, with the state it reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reached {
    /// The fixpoint: every cell's domain.
    Fixpoint(Vec<u128>),
    /// Every cell of the scope decided (probing only).
    Solved(Vec<u128>),
    /// No grid fits; the line that showed it, when one did.
    Conflict(Option<usize>),
    /// The deadline passed: what was decided so far, all of it sound.
    Timeout(Vec<u128>),
}

/// Where a call starts: every cell's domain, the lines it covers (all when empty), and when
/// it must stop.
#[derive(Clone, Copy)]
pub struct Start<'a> {
    pub domains: &'a [u128],
    pub scope: &'a [usize],
    pub deadline: Option<Instant>,
}

/// Cheap to clone: the puzzle is shared (a count runs in a thread of its own with a clone).
#[derive(Clone)]
pub struct Engine {
    puzzle: Arc<Puzzle>,
    words: usize,
}

/// Words per line for lines of `cells` cells.
pub(crate) fn words_for(cells: usize) -> usize {
    match cells + 1 {
        0..=64 => 1,
        65..=128 => 2,
        129..=256 => 4,
        257..=512 => 8,
        _ => 16,
    }
}

/// Run `$body` with `W` bound to the engine's word count.
macro_rules! with_words {
    ($words:expr, $($body:ident)::+ ( $($arg:expr),* )) => {
        match $words {
            1 => $($body)::+::<1>($($arg),*),
            2 => $($body)::+::<2>($($arg),*),
            4 => $($body)::+::<4>($($arg),*),
            8 => $($body)::+::<8>($($arg),*),
            _ => $($body)::+::<16>($($arg),*),
        }
    };
}
pub(crate) use with_words;

/// A board on `domains`, propagated over `scope` to its fixpoint, with the scope's cells;
/// Err(what was reached instead, a conflict or the deadline, and the lines solved).
fn propagated<const W: usize>(
    puzzle: &Puzzle,
    start: Start<'_>,
) -> Result<(Board<W>, Vec<usize>), (Reached, u64)> {
    let Start {
        domains,
        scope,
        deadline,
    } = start;
    let mut board =
        Board::<W>::new(puzzle, domains).map_err(|line| (Reached::Conflict(Some(line)), 0))?;
    let cells = board.set_scope(puzzle, scope);
    let stopped = match board.propagate(puzzle, deadline) {
        Outcome::Fixpoint => return Ok((board, cells)),
        Outcome::Conflict(line) => Reached::Conflict(Some(line)),
        Outcome::Timeout => Reached::Timeout(board.grid.domains(puzzle)),
    };
    Err((stopped, board.propagator.solves))
}

fn propagate<const W: usize>(puzzle: &Puzzle, start: Start<'_>) -> (Reached, u64) {
    match propagated::<W>(puzzle, start) {
        Ok((board, _)) if board.grid.known == puzzle.cells() => (
            Reached::Solved(board.grid.domains(puzzle)),
            board.propagator.solves,
        ),
        Ok((board, _)) => (
            Reached::Fixpoint(board.grid.domains(puzzle)),
            board.propagator.solves,
        ),
        Err(stopped) => stopped,
    }
}

fn probe<const W: usize>(puzzle: &Puzzle, start: Start<'_>) -> (Reached, u64) {
    let deadline = start.deadline;
    let (mut board, cells) = match propagated::<W>(puzzle, start) {
        Ok(propagated) => propagated,
        Err((stopped, _)) => return (stopped, 0),
    };
    board.trail.clear();
    let mut prober = Prober::<W>::new(puzzle);
    prober.exclude = false;
    let goal = board.grid.known
        + cells
            .iter()
            .filter(|&&c| !board.grid.decided(puzzle, c))
            .count();
    let limits = Limits {
        deadline,
        max_probes: None,
    };
    let reached = match prober.sweep(puzzle, &mut board, &cells, goal, limits) {
        Sweep::Stable => Reached::Fixpoint(board.grid.domains(puzzle)),
        Sweep::Solved => Reached::Solved(board.grid.domains(puzzle)),
        Sweep::Conflict => Reached::Conflict(None),
        Sweep::Stopped => Reached::Timeout(board.grid.domains(puzzle)),
    };
    (reached, prober.probes)
}

fn lemmas_from<const W: usize>(
    puzzle: &Puzzle,
    domains: &[u128],
    deadline: Option<Instant>,
) -> (Ending, Vec<Lemma>, Vec<u128>) {
    lemmas::probing_lemmas::<W>(puzzle, domains, deadline)
}

fn search<const W: usize>(
    puzzle: &Arc<Puzzle>,
    domains: &[u128],
    scope: &[usize],
    options: Options,
) -> Option<Box<Search<W>>> {
    let board = Board::<W>::new(puzzle, domains).ok()?;
    Some(Box::new(Search::new(
        Arc::clone(puzzle),
        board,
        scope,
        options,
    )))
}

/// What `Engine::sample` asks of its caller after the count and each batch of draws.
pub type NextDraws<'a> = &'a mut dyn FnMut(&count::number::Count, Vec<Vec<u128>>) -> Option<usize>;

impl Engine {
    pub fn new(puzzle: Puzzle) -> Self {
        let words = words_for(puzzle.width.max(puzzle.height));
        Self {
            puzzle: Arc::new(puzzle),
            words,
        }
    }

    pub fn puzzle(&self) -> &Puzzle {
        &self.puzzle
    }

    /// Line logic from `domains` over the `scope` lines (all when empty), "solved" when it
    /// decides every cell of the grid; also returns the number of lines solved.
    pub fn propagate(&self, start: Start<'_>) -> (Reached, u64) {
        with_words!(self.words, propagate(&self.puzzle, start))
    }

    /// At least `count` cubes of `domains` (at line logic's fixpoint) over `scope`, by the
    /// lookahead of `lookahead.rs` trying `candidates` cells at each split.
    pub fn split(&self, start: Start<'_>, count: usize, candidates: usize) -> Split {
        with_words!(
            self.words,
            lookahead_split(&self.puzzle, start, count, candidates)
        )
    }

    /// At least `count` cubes of `domains` over `scope`, each split on the probing search's
    /// first branching (see `branches.rs`): the cubes for listing every solution.
    pub fn branches(&self, start: Start<'_>, count: usize) -> Split {
        with_words!(
            self.words,
            crate::branches::split(&self.puzzle, start, count)
        )
    }

    /// Line logic, then probing to its fixpoint; every cell it fixes has that color in every
    /// solution (a probe that finds a solution counts as a branch that fits). Also returns
    /// the number of probes made.
    pub fn probe(&self, start: Start<'_>) -> (Reached, u64) {
        with_words!(self.words, probe(&self.puzzle, start))
    }

    /// Line logic and probing over the whole puzzle from its initial domains, writing down
    /// the lemmas a proof needs (see `lemmas`), and the domains reached.
    pub fn probing_lemmas(&self, deadline: Option<Instant>) -> (Ending, Vec<Lemma>, Vec<u128>) {
        let domains = self.puzzle.initial_domains();
        with_words!(self.words, lemmas_from(&self.puzzle, &domains, deadline))
    }

    /// The number of grids that fit the clues and `domains` (see `count`).
    pub fn count(&self, domains: &[u128], options: count::Options, control: &Control) -> Counted {
        with_words!(
            self.words,
            count::count(&self.puzzle, domains, options, control)
        )
    }

    /// Solutions drawn uniformly with a seed, as `next` asks for them (see `count::sample`).
    pub fn sample(
        &self,
        domains: &[u128],
        seed: u64,
        options: count::Options,
        control: &Control,
        next: NextDraws<'_>,
    ) -> Drawn {
        with_words!(
            self.words,
            count::sample(&self.puzzle, domains, seed, options, control, next)
        )
    }

    /// The colors each cell takes in some solution (see `count::ambiguity`).
    pub fn ambiguity(
        &self,
        domains: &[u128],
        options: count::Options,
        control: &Control,
    ) -> Ambiguity {
        with_words!(
            self.words,
            count::ambiguity(&self.puzzle, domains, options, control)
        )
    }

    /// Every solution of `domains` in turn, the probing search in `threads` threads once it
    /// takes the whole rest over; with `from_layers`, from the sweeps' layers first where
    /// every component is swept (a count beside it sweeps them already: it goes without),
    /// their setup ending by `layers_until` (the caller's deadline) at the latest; the probing
    /// search guided by `guide` (`Search::guide`) when given.
    pub fn enumerate(
        &self,
        domains: &[u128],
        threads: usize,
        from_layers: bool,
        layers_until: Option<Instant>,
        guide: Option<Guide>,
    ) -> AnyEnumerator {
        let puzzle = Arc::clone(&self.puzzle);
        let knobs = Knobs {
            threads,
            from_layers,
            layers_until,
            guide,
            ..Knobs::default()
        };
        let (p, d) = (&puzzle, domains);
        match self.words {
            1 => AnyEnumerator::W1(Box::new(Enumerator::with(p, d, knobs)), puzzle),
            2 => AnyEnumerator::W2(Box::new(Enumerator::with(p, d, knobs)), puzzle),
            4 => AnyEnumerator::W4(Box::new(Enumerator::with(p, d, knobs)), puzzle),
            8 => AnyEnumerator::W8(Box::new(Enumerator::with(p, d, knobs)), puzzle),
            _ => AnyEnumerator::W16(Box::new(Enumerator::with(p, d, knobs)), puzzle),
        }
    }

    /// A search over the `scope` lines (all when empty), started by its first `run`.
    pub fn search(&self, domains: &[u128], scope: &[usize], options: Options) -> AnySearch {
        let arguments = (&self.puzzle, domains, scope, options);
        let built = match self.words {
            1 => search::<1>(arguments.0, arguments.1, arguments.2, arguments.3).map(AnySearch::W1),
            2 => search::<2>(arguments.0, arguments.1, arguments.2, arguments.3).map(AnySearch::W2),
            4 => search::<4>(arguments.0, arguments.1, arguments.2, arguments.3).map(AnySearch::W4),
            8 => search::<8>(arguments.0, arguments.1, arguments.2, arguments.3).map(AnySearch::W8),
            _ => {
                search::<16>(arguments.0, arguments.1, arguments.2, arguments.3).map(AnySearch::W16)
            }
        };
        built.unwrap_or(AnySearch::Refuted)
    }
}

/// An enumeration at any word count, with its puzzle.
pub enum AnyEnumerator {
    W1(Box<Enumerator<1>>, Arc<Puzzle>),
    W2(Box<Enumerator<2>>, Arc<Puzzle>),
    W4(Box<Enumerator<4>>, Arc<Puzzle>),
    W8(Box<Enumerator<8>>, Arc<Puzzle>),
    W16(Box<Enumerator<16>>, Arc<Puzzle>),
}

impl AnyEnumerator {
    pub fn next(&mut self, deadline: Option<Instant>) -> Step {
        match self {
            AnyEnumerator::W1(e, p) => e.next(p, deadline),
            AnyEnumerator::W2(e, p) => e.next(p, deadline),
            AnyEnumerator::W4(e, p) => e.next(p, deadline),
            AnyEnumerator::W8(e, p) => e.next(p, deadline),
            AnyEnumerator::W16(e, p) => e.next(p, deadline),
        }
    }
}

/// A search at any word count, or one refuted before it began.
pub enum AnySearch {
    Refuted,
    W1(Box<Search<1>>),
    W2(Box<Search<2>>),
    W4(Box<Search<4>>),
    W8(Box<Search<8>>),
    W16(Box<Search<16>>),
}

/// Run `$call` on the search inside `$any`, or return `$refuted` for a refuted one.
macro_rules! on_search {
    ($any:expr, $search:ident => $call:expr, $refuted:expr) => {
        match $any {
            AnySearch::Refuted => $refuted,
            AnySearch::W1($search) => $call,
            AnySearch::W2($search) => $call,
            AnySearch::W4($search) => $call,
            AnySearch::W8($search) => $call,
            AnySearch::W16($search) => $call,
        }
    };
}

impl AnySearch {
    pub fn run(&mut self, deadline: Option<Instant>) -> Event {
        on_search!(self, search => search.run(deadline), Event::Exhausted)
    }

    pub fn exclude(&mut self, domains: &[u128]) {
        on_search!(self, search => search.exclude(domains), ())
    }

    pub fn root_domains(&mut self) -> Option<Vec<u128>> {
        on_search!(self, search => search.root_domains(), None)
    }

    /// See `Search::give_away`.
    #[allow(clippy::type_complexity)]
    pub fn give_away(&mut self) -> Option<(Vec<Vec<u128>>, Vec<Vec<u128>>)> {
        on_search!(self, search => search.give_away(), None)
    }

    pub fn root_implications(
        &mut self,
        most: usize,
        deadline: Option<Instant>,
    ) -> Option<Vec<[u32; 4]>> {
        on_search!(self, search => search.root_implications(most, deadline), Some(Vec::new()))
    }

    /// (stats, probes, line solves, line cache hits)
    pub fn stats(&self) -> (Stats, u64, u64, u64) {
        on_search!(
            self,
            search => (
                search.stats,
                search.probes(),
                search.line_solves(),
                search.line_cache_hits()
            ),
            (Stats::default(), 0, 0, 0)
        )
    }
}

fn solve_line_words<const W: usize>(
    length: usize,
    clue: &[Block],
    colors: &[u8],
    palette: usize,
    domains: &[u128],
    repeat: usize,
) -> Option<Vec<u128>> {
    let mut state = vec![Bits::<W>::zero(); palette];
    for (position, &domain) in domains.iter().enumerate() {
        for &c in colors {
            if domain >> c & 1 == 1 {
                state[usize::from(c)].set(position);
            }
        }
    }
    let mut out = vec![Bits::<W>::zero(); palette];
    let mut space = Workspace::new(palette);
    for _ in 1..repeat {
        let state = std::hint::black_box(&state);
        std::hint::black_box(line::solve(
            length, clue, colors, state, &mut out, &mut space,
        ));
    }
    if !line::solve(length, clue, colors, &state, &mut out, &mut space) {
        return None;
    }
    Some(
        (0..length)
            .map(|position| {
                colors
                    .iter()
                    .filter(|&&c| out[usize::from(c)].test(position))
                    .fold(0u128, |mask, &c| mask | 1u128 << c)
            })
            .collect(),
    )
}

/// One line solved alone: the narrowed domains (one bitmask per cell), or None when the clue
/// cannot fit. `palette` counts the colors, the background included. The solver runs `repeat`
/// times on the line's state, made once (as a search holds it), so that a benchmark times the
/// solver itself.
pub fn solve_line(
    clue: &[Block],
    palette: usize,
    domains: &[u128],
    repeat: usize,
) -> Result<Option<Vec<u128>>, String> {
    let length = domains.len();
    if !(1..=MAX_SIDE).contains(&length) || !(2..=MAX_COLORS).contains(&palette) {
        return Err(format!("a line of {length} cells on {palette} colors"));
    }
    let colors = line_colors(clue, palette)?;
    Ok(with_words!(
        words_for(length),
        solve_line_words(length, clue, &colors, palette, domains, repeat)
    ))
}
