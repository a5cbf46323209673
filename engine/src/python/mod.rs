//! The Python surface (satnono.logic._engine): the classes `Engine` and `Search`
//! (`classes`), a CNF's `Clauses` (`clauses`), decimation's guesses (`decimation`), counting's jobs (`counts`, `samples`) and
//! certificates' (`proofs`), and the conversions they share: clues and domains in, verdicts
//! and domains out, each checked (ValueError), every call without the GIL, a panic made a
//! RuntimeError.

mod classes;
mod clauses;
mod counts;
mod decimation;
mod proofs;
mod samples;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::time::{Duration, Instant};

use crate::clue::Block;
use crate::engine::{Engine, Reached};

use classes::{PyEngine, PySearch};

/// Run `work`, turning a panic into a RuntimeError (a bug in the engine, never the caller's).
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
pub(crate) fn deadline_in(seconds: Option<f64>) -> PyResult<Option<Instant>> {
    seconds.map_or(Ok(None), |seconds| {
        Ok(Instant::now().checked_add(wait_of(seconds)?))
    })
}

/// A clue number as the surface takes it: a length (color 1, as black and white puzzles
/// send it) or (length, color); length -1 for a blotted one.
#[derive(FromPyObject, Clone, Copy)]
enum Number {
    Length(i64),
    Colored(i64, i64),
}

/// Clue numbers as the surface takes them.
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

fn checked_scope(engine: &Engine, scope: Vec<usize>) -> PyResult<Vec<usize>> {
    let lines = engine.puzzle().lines();
    if let Some(&line) = scope.iter().find(|&&line| line >= lines) {
        return Err(PyValueError::new_err(format!("line {line} of {lines}")));
    }
    Ok(scope)
}

/// Domains as they come in: `bytes`, one per cell (a palette of at most 8 colors; copied in
/// C), or a list of ints (any palette). Answers go back in the kind that came in.
#[derive(FromPyObject)]
pub(crate) enum DomainsIn<'py> {
    Bytes(Bound<'py, PyBytes>),
    Ints(Vec<u128>),
}

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
type Domains = Vec<u128>;

/// Clue numbers as the surface takes them (see `Number`).
type Clue = Vec<Number>;

/// (cell, color, other cell, other color): the first rules the second out.
type Implication = (u32, u32, i64, u32);

/// (status, domains, line): "fixpoint", "solved" or "timeout" with the domains reached;
/// "conflict" with the line that showed it (or None).
type Verdict = (&'static str, Option<Py<PyAny>>, Option<usize>);

/// A cube as Python reads it: its decisions (cell, color bitmask) and every cell's domain.
type CubeOut = (Vec<(usize, u128)>, Py<PyAny>);

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

/// A wait of `seconds`, or a ValueError when that is no wait. A year stands for "no deadline
/// worth the name": Instant cannot hold much more.
pub(crate) fn wait_of(seconds: f64) -> PyResult<Duration> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "seconds must be >= 0, got {seconds}"
        )));
    }
    Ok(Duration::from_secs_f64(seconds.min(3.15e7)))
}

/// Times a line may be solved again in one call: a benchmark's 100,000 solves of the longest
/// line take about a second.
const MAX_REPEAT: usize = 100_000;

/// Lines solved alone: for each (clue, domains), the narrowed domains or None when the clue
/// cannot fit; `colors` counts the palette, the background included. Each line is solved
/// `repeat` times (1..MAX_REPEAT) on its state, made once (a benchmark then times the solver
/// itself).
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
                    crate::engine::solve_line(clue, colors, domains, repeat)
                        .map_err(PyValueError::new_err)
                })
                .collect()
        })
    })
}

#[pymodule]
fn _engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyEngine>()?;
    module.add_class::<PySearch>()?;
    module.add_class::<clauses::PyClauses>()?;
    module.add_function(wrap_pyfunction!(solve_lines, module)?)?;
    module.add_function(wrap_pyfunction!(proofs::check_drup, module)?)?;
    module.add_function(wrap_pyfunction!(proofs::automaton_cnf, module)?)?;
    module.add_class::<counts::PyJob>()?;
    module.add_class::<counts::PySolutions>()?;
    module.add_function(wrap_pyfunction!(counts::count, module)?)?;
    module.add_class::<samples::PySampler>()?;
    module.add_function(wrap_pyfunction!(samples::sampler, module)?)?;
    module.add_function(wrap_pyfunction!(counts::solutions, module)?)?;
    module.add_class::<decimation::PyDecimation>()?;
    module.add_function(wrap_pyfunction!(decimation::decimation, module)?)?;
    module.add("MAX_THREADS", crate::search::parallel::MAX_THREADS)?;
    Ok(())
}
