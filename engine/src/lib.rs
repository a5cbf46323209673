//! satnono's native engine: exact line solving, propagation, probing and search for nonograms.
//!
//! The core is in private modules, one job each (`line`: the line solver; `grid`: the state
//! and its trail; `propagate`: the fixpoint over dirty lines; `probe`: probing; `search`: the
//! depth-first search; `estimate`: belief propagation, guesses for a SAT solver; `engine`: the
//! calls below, at the word count a puzzle needs). For certificates: `automaton` and `cnf`,
//! the automaton CNF of a whole puzzle, which they are about; `lemmas`, probing that writes
//! down the lemmas of their proofs; `drup` and `rup`, the checker of proofs (reading them; its
//! clause database), apart from all the rest. This file is the Python surface (with
//! `proofs`, its certificates' part), and nothing else: clues and grids come in, domains,
//! verdicts and solutions go out. Every call checks its arguments (ValueError), releases the
//! GIL while it works, and turns a panic into a RuntimeError instead of taking the process
//! down.

// The core is reached only through the Python surface; `cargo test` builds it without one.
#![cfg_attr(not(feature = "python"), allow(dead_code))]

mod automaton;
mod bits;
mod cache;
mod clue;
mod cnf;
mod count;
#[cfg(feature = "python")]
mod counts;
mod drup;
mod engine;
mod estimate;
mod grid;
mod lemmas;
mod line;
mod lookahead;
mod probe;
#[cfg(feature = "python")]
mod proofs;
mod propagate;
mod rup;
#[cfg(feature = "python")]
mod samples;
mod search;

#[cfg(feature = "python")]
use pyo3::exceptions::{PyRuntimeError, PyValueError};
#[cfg(feature = "python")]
use pyo3::prelude::*;
#[cfg(feature = "python")]
use pyo3::types::{PyBytes, PyDict};
#[cfg(feature = "python")]
use std::time::{Duration, Instant};

#[cfg(feature = "python")]
use crate::clue::{Block, Puzzle};
#[cfg(feature = "python")]
use crate::engine::{AnySearch, Engine, Reached};
#[cfg(feature = "python")]
use crate::lemmas::Lemma;
#[cfg(feature = "python")]
use crate::search::{Event, Options};

/// Run `work`, turning a panic into a RuntimeError (a bug in the engine, never the caller's).
#[cfg(feature = "python")]
pub(crate) fn guarded<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|text| (*text).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            Err(PyRuntimeError::new_err(format!(
                "internal error in satnono's engine: {message}"
            )))
        }
    }
}

/// `seconds` from now (None: no deadline).
#[cfg(feature = "python")]
pub(crate) fn deadline_in(seconds: Option<f64>) -> PyResult<Option<Instant>> {
    match seconds {
        None => Ok(None),
        Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
            // A year stands for "no deadline worth the name"; Instant cannot hold much more.
            let wait = Duration::from_secs_f64(seconds.min(3.15e7));
            Ok(Instant::now().checked_add(wait))
        }
        Some(seconds) => Err(PyValueError::new_err(format!(
            "seconds must be >= 0, got {seconds}"
        ))),
    }
}

/// A clue number as the surface takes it: a length (color 1, as black and white puzzles
/// send it) or (length, color); length -1 for a blotted one.
#[cfg(feature = "python")]
#[derive(FromPyObject, Clone, Copy)]
enum Number {
    Length(i64),
    Colored(i64, i64),
}

/// Clue numbers as the surface takes them.
#[cfg(feature = "python")]
fn blocks(clue: &[Number]) -> PyResult<Vec<Block>> {
    clue.iter()
        .map(|&number| {
            let (length, color) = match number {
                Number::Length(length) => (length, 1),
                Number::Colored(length, color) => (length, color),
            };
            let length = match length {
                -1 => 0,
                1..=0xFFFF => length as u32,
                _ => return Err(PyValueError::new_err(format!("block length {length}"))),
            };
            let color = u8::try_from(color)
                .map_err(|_| PyValueError::new_err(format!("block color {color}")))?;
            Ok(Block { length, color })
        })
        .collect()
}

#[cfg(feature = "python")]
fn checked_scope(engine: &Engine, scope: Vec<usize>) -> PyResult<Vec<usize>> {
    let lines = engine.puzzle().lines();
    if let Some(&line) = scope.iter().find(|&&line| line >= lines) {
        return Err(PyValueError::new_err(format!("line {line} of {lines}")));
    }
    Ok(scope)
}

/// Domains as they come in: `bytes`, one per cell (a palette of at most 8 colors; copied in
/// C), or a list of ints (any palette). Answers go back in the kind that came in.
#[cfg(feature = "python")]
#[derive(FromPyObject)]
pub(crate) enum DomainsIn<'py> {
    Bytes(Bound<'py, PyBytes>),
    Ints(Vec<u128>),
}

#[cfg(feature = "python")]
impl DomainsIn<'_> {
    /// The domains, and whether they came as bytes.
    fn read(self) -> (Vec<u128>, bool) {
        match self {
            DomainsIn::Bytes(bytes) => (
                bytes.as_bytes().iter().map(|&d| u128::from(d)).collect(),
                true,
            ),
            DomainsIn::Ints(ints) => (ints, false),
        }
    }
}

/// Domains going out, as bytes when they came in as bytes (each a subset of a byte's).
#[cfg(feature = "python")]
pub(crate) fn domains_out(
    py: Python<'_>,
    domains: Vec<u128>,
    as_bytes: bool,
) -> PyResult<Py<PyAny>> {
    if as_bytes {
        let cells: Vec<u8> = domains.iter().map(|&domain| domain as u8).collect();
        return Ok(PyBytes::new(py, &cells).into_any().unbind());
    }
    Ok(domains.into_pyobject(py)?.into_any().unbind())
}

#[cfg(feature = "python")]
pub(crate) fn checked_domains(engine: &Engine, domains: &[u128]) -> PyResult<()> {
    let puzzle = engine.puzzle();
    if domains.len() != puzzle.cells() {
        return Err(PyValueError::new_err(format!(
            "{} domains for {} cells",
            domains.len(),
            puzzle.cells()
        )));
    }
    Ok(())
}

/// One color bitmask per cell.
#[cfg(feature = "python")]
type Domains = Vec<u128>;

/// Clue numbers as the surface takes them (see `Number`).
#[cfg(feature = "python")]
type Clue = Vec<Number>;

/// (cell, color, other cell, other color): the first rules the second out.
#[cfg(feature = "python")]
type Implication = (u32, u32, i64, u32);

/// (status, domains, line): "fixpoint", "solved" or "timeout" with the domains reached;
/// "conflict" with the line that showed it (or None).
#[cfg(feature = "python")]
type Verdict = (&'static str, Option<Py<PyAny>>, Option<usize>);

/// A cube as Python reads it: its decisions (cell, color bitmask) and every cell's domain.
#[cfg(feature = "python")]
type CubeOut = (Vec<(usize, u128)>, Py<PyAny>);

#[cfg(feature = "python")]
fn verdict(py: Python<'_>, reached: Reached, as_bytes: bool) -> PyResult<Verdict> {
    let (status, domains, line) = match reached {
        Reached::Fixpoint(domains) => ("fixpoint", Some(domains), None),
        Reached::Solved(domains) => ("solved", Some(domains), None),
        Reached::Conflict(line) => ("conflict", None, line),
        Reached::Timeout(domains) => ("timeout", Some(domains), None),
    };
    let domains = domains
        .map(|domains| domains_out(py, domains, as_bytes))
        .transpose()?;
    Ok((status, domains, line))
}

/// One puzzle: its size, palette size (background included) and clues (rows, then columns).
#[cfg(feature = "python")]
#[pyclass(module = "satnono.logic._engine", name = "Engine", frozen)]
pub(crate) struct PyEngine {
    pub(crate) engine: Engine,
}

/// A step of line logic or probing, as the engine runs it.
#[cfg(feature = "python")]
type Step = fn(&Engine, &[u128], &[usize], Option<Instant>) -> (Reached, u64);

#[cfg(feature = "python")]
impl PyEngine {
    /// `step` on checked domains and scope, without the GIL, a panic made an error: the
    /// verdict and the step's count (lines solved or probes).
    fn reach(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        seconds: Option<f64>,
        step: Step,
    ) -> PyResult<(Verdict, u64)> {
        let (domains, as_bytes) = domains.read();
        checked_domains(&self.engine, &domains)?;
        let scope = checked_scope(&self.engine, scope)?;
        let deadline = deadline_in(seconds)?;
        let (reached, count) =
            py.detach(|| guarded(|| Ok(step(&self.engine, &domains, &scope, deadline))))?;
        Ok((verdict(py, reached, as_bytes)?, count))
    }
}

#[cfg(feature = "python")]
#[pymethods]
impl PyEngine {
    #[new]
    fn new(width: usize, height: usize, colors: usize, clues: Vec<Clue>) -> PyResult<Self> {
        guarded(|| {
            let clues = clues
                .iter()
                .map(|clue| blocks(clue))
                .collect::<PyResult<Vec<_>>>()?;
            let puzzle =
                Puzzle::new(width, height, colors, clues).map_err(PyValueError::new_err)?;
            Ok(Self {
                engine: Engine::new(puzzle),
            })
        })
    }

    /// Line logic and probing over the whole puzzle from its initial domains, with the
    /// lemmas a DRUP proof of its automaton CNF needs (`lemmas`): (how it ended: "solved",
    /// "stable", "conflict" or "timeout"; the lemmas in order, each (cell, color, other
    /// cell, other color): "cell has color" rules out "other cell has other color", other
    /// cell -1: the color is ruled out itself).
    #[pyo3(signature = (seconds=None))]
    fn probing_lemmas(
        &self,
        py: Python<'_>,
        seconds: Option<f64>,
    ) -> PyResult<(&'static str, Vec<Implication>)> {
        let deadline = deadline_in(seconds)?;
        let engine = &self.engine;
        py.detach(|| {
            guarded(|| {
                let (ending, lemmas, _) = engine.probing_lemmas(deadline);
                Ok((
                    ending.name(),
                    lemmas.into_iter().map(Lemma::as_tuple).collect(),
                ))
            })
        })
    }

    /// Line logic over `scope` (all lines when empty), from `domains` (one color bitmask per
    /// cell, row-major), until the fixpoint, a conflict or `seconds`. Returns the verdict and
    /// the number of lines solved.
    #[pyo3(signature = (domains, scope, seconds=None))]
    fn propagate(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        seconds: Option<f64>,
    ) -> PyResult<(Verdict, u64)> {
        self.reach(py, domains, scope, seconds, Engine::propagate)
    }

    /// At least `count` cubes of `domains` (at line logic's fixpoint) over `scope` (all lines
    /// when empty), `candidates` cells tried at each split: ([(decisions as (cell, color
    /// bitmask), domains)], failed literals), or None when `seconds` passed first.
    #[pyo3(signature = (domains, scope, count, candidates, seconds=None))]
    fn split(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        count: usize,
        candidates: usize,
        seconds: Option<f64>,
    ) -> PyResult<Option<(Vec<CubeOut>, u64)>> {
        let (domains, as_bytes) = domains.read();
        checked_domains(&self.engine, &domains)?;
        let scope = checked_scope(&self.engine, scope)?;
        let deadline = deadline_in(seconds)?;
        let engine = &self.engine;
        let split = py.detach(|| {
            guarded(|| Ok(engine.split(&domains, &scope, count, candidates, deadline)))
        })?;
        let Some((cubes, failed)) = split else {
            return Ok(None);
        };
        let cubes = cubes
            .into_iter()
            .map(|cube| Ok((cube.decisions, domains_out(py, cube.domains, as_bytes)?)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Some((cubes, failed)))
    }

    /// Line logic, then probing to its fixpoint: every cell it fixes holds in every solution.
    /// Returns the verdict and the number of probes.
    #[pyo3(signature = (domains, scope, seconds=None))]
    fn probe(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        seconds: Option<f64>,
    ) -> PyResult<(Verdict, u64)> {
        self.reach(py, domains, scope, seconds, Engine::probe)
    }

    /// Belief propagation for `rounds` rounds from `domains`: each cell's most likely color,
    /// and each line's blocks' median starts (empty for lines with a blotted number).
    fn estimate(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        rounds: usize,
    ) -> PyResult<(Vec<u8>, Vec<Vec<u32>>)> {
        let (domains, _) = domains.read();
        checked_domains(&self.engine, &domains)?;
        if rounds > 10_000 {
            return Err(PyValueError::new_err(format!(
                "{rounds} rounds: at most 10000"
            )));
        }
        py.detach(|| {
            guarded(|| {
                let estimate = crate::estimate::estimate(self.engine.puzzle(), &domains, rounds);
                Ok((estimate.colors, estimate.starts))
            })
        })
    }

    /// A search over `scope` from `domains`: restarts every `restart_base` times the Luby
    /// sequence's nodes (0: none), with `noise` from the third run, giving up after
    /// `max_probes` probes (None: never); `excluded` solutions are never reported.
    #[pyo3(signature = (domains, scope, restart_base=300, noise=0.5, seed=0, max_probes=None, excluded=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        restart_base: u64,
        noise: f64,
        seed: u64,
        max_probes: Option<u64>,
        excluded: Vec<Vec<u128>>,
    ) -> PyResult<PySearch> {
        let (domains, as_bytes) = domains.read();
        checked_domains(&self.engine, &domains)?;
        let scope = checked_scope(&self.engine, scope)?;
        for solution in &excluded {
            checked_domains(&self.engine, solution)?;
        }
        if !(noise.is_finite() && noise >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "noise must be >= 0, got {noise}"
            )));
        }
        let options = Options {
            restart_base,
            noise,
            seed,
            max_probes,
        };
        py.detach(|| {
            guarded(|| {
                let mut search = self.engine.search(&domains, &scope, options);
                for solution in &excluded {
                    search.exclude(solution);
                }
                Ok(PySearch { search, as_bytes })
            })
        })
    }
}

/// A search under way: `run` goes on until the next solution, the end, the deadline or the
/// budget.
#[cfg(feature = "python")]
#[pyclass(module = "satnono.logic._engine", name = "Search")]
struct PySearch {
    search: AnySearch,
    /// Whether the domains came in as bytes (and so go out as bytes).
    as_bytes: bool,
}

#[cfg(feature = "python")]
#[pymethods]
impl PySearch {
    /// ("solution", domains), ("exhausted", None), ("paused", None) when `seconds` passed,
    /// ("budget", None) when the probe budget is spent.
    #[pyo3(signature = (seconds=None))]
    fn run(
        &mut self,
        py: Python<'_>,
        seconds: Option<f64>,
    ) -> PyResult<(&'static str, Option<Py<PyAny>>)> {
        let deadline = deadline_in(seconds)?;
        let search = &mut self.search;
        let event = py.detach(|| guarded(|| Ok(search.run(deadline))))?;
        Ok(match event {
            Event::Solution(domains) => {
                ("solution", Some(domains_out(py, domains, self.as_bytes)?))
            }
            Event::Exhausted => ("exhausted", None),
            Event::Paused => ("paused", None),
            Event::Budget => ("budget", None),
        })
    }

    /// The state probing reached at the root (None before that); the search starts over there.
    fn root_domains(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let search = &mut self.search;
        let domains = py.detach(|| guarded(|| Ok(search.root_domains())))?;
        domains
            .map(|domains| domains_out(py, domains, self.as_bytes))
            .transpose()
    }

    /// At most `most` implications of single assignments at the root, as (cell, color, other
    /// cell, other color): the first rules the second out (other cell -1: itself ruled out).
    /// None before the root is probed or when `seconds` pass first.
    #[pyo3(signature = (most, seconds=None))]
    fn implications(
        &mut self,
        py: Python<'_>,
        most: usize,
        seconds: Option<f64>,
    ) -> PyResult<Option<Vec<Implication>>> {
        let deadline = deadline_in(seconds)?;
        let search = &mut self.search;
        py.detach(|| {
            guarded(|| {
                Ok(search.root_implications(most, deadline).map(|found| {
                    found
                        .into_iter()
                        .map(|[cell, color, other, other_color]| {
                            let other = if other == u32::MAX {
                                -1
                            } else {
                                i64::from(other)
                            };
                            (cell, color, other, other_color)
                        })
                        .collect()
                }))
            })
        })
    }

    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (stats, probes, line_solves, cache_hits) = self.search.stats();
        let dict = PyDict::new(py);
        dict.set_item("nodes", stats.nodes)?;
        dict.set_item("restarts", stats.restarts)?;
        dict.set_item("max_depth", stats.max_depth)?;
        dict.set_item("probes", probes)?;
        dict.set_item("line_solves", line_solves)?;
        dict.set_item("line_cache_hits", cache_hits)?;
        Ok(dict)
    }
}

/// Times a line may be solved again in one call: a benchmark's 100,000 solves of the longest
/// line take about a second.
#[cfg(feature = "python")]
const MAX_REPEAT: usize = 100_000;

/// Lines solved alone: for each (clue, domains), the narrowed domains or None when the clue
/// cannot fit; `colors` counts the palette, the background included. Each line is solved
/// `repeat` times (1..MAX_REPEAT) on its state, made once (a benchmark then times the solver
/// itself).
#[cfg(feature = "python")]
#[pyfunction]
#[pyo3(signature = (colors, lines, repeat=1))]
fn solve_lines(
    py: Python<'_>,
    colors: usize,
    lines: Vec<(Clue, Domains)>,
    repeat: usize,
) -> PyResult<Vec<Option<Domains>>> {
    if !(1..=MAX_REPEAT).contains(&repeat) {
        // A 13-digit repeat ran for hours with nothing to stop it.
        return Err(PyValueError::new_err(format!(
            "repeat {repeat} is outside 1..{MAX_REPEAT}"
        )));
    }
    let lines = lines
        .into_iter()
        .map(|(clue, domains)| Ok((blocks(&clue)?, domains)))
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| {
        guarded(|| {
            lines
                .iter()
                .map(|(clue, domains)| {
                    engine::solve_line(clue, colors, domains, repeat).map_err(PyValueError::new_err)
                })
                .collect()
        })
    })
}

#[cfg(feature = "python")]
#[pymodule]
fn _engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyEngine>()?;
    module.add_class::<PySearch>()?;
    module.add_function(wrap_pyfunction!(solve_lines, module)?)?;
    module.add_function(wrap_pyfunction!(proofs::check_drup, module)?)?;
    module.add_function(wrap_pyfunction!(proofs::automaton_cnf, module)?)?;
    module.add_class::<counts::PyJob>()?;
    module.add_class::<counts::PySolutions>()?;
    module.add_function(wrap_pyfunction!(counts::count, module)?)?;
    module.add_class::<samples::PySampler>()?;
    module.add_function(wrap_pyfunction!(samples::sampler, module)?)?;
    module.add_function(wrap_pyfunction!(counts::ambiguity, module)?)?;
    module.add_function(wrap_pyfunction!(counts::solutions, module)?)?;
    Ok(())
}
