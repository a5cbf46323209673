//! The Python surface of counting (satnono/logic/native.py): a count, a draw of samples or the
//! ambiguity map runs in a thread of its own (`Job`), which Python waits on in slices (so a
//! Ctrl-C is seen), reads the progress of, and cancels; the solutions of a puzzle come in
//! batches (`Solutions`); samples are drawn in `samples.rs`. As in `lib.rs`: arguments checked, the GIL released while the work
//! runs, a panic made an error.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use num_bigint::BigUint;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::{checked_domains, deadline_in, domains_out, guarded, wait_of, DomainsIn, PyEngine};
use crate::clue::lines_holding;
use crate::count::enumerate::Step;
use crate::count::{self as counting, Ambiguity, Control, Counted, Method};
use crate::engine::{AnyEnumerator, Engine};
use crate::search::parallel::MAX_THREADS;
use crate::search::Guide;

/// What a job came to.
enum Outcome {
    Counted(Counted),
    Ambiguity(Ambiguity),
    Failed(String),
}

/// The message of a panic's payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// A count, a draw or an ambiguity map under way in a thread of its own.
#[pyclass(module = "satnono.logic._engine", name = "Job")]
pub struct PyJob {
    control: Arc<Control>,
    /// Where the thread sends its outcome (taken once it has).
    receiver: Mutex<Option<Receiver<Outcome>>>,
    thread: Option<JoinHandle<()>>,
    outcome: Option<Outcome>,
    /// Whether domains came in as bytes (samples go out the same way).
    as_bytes: bool,
    /// The puzzle's width and height.
    size: (usize, usize),
}

impl PyJob {
    fn start(
        engine: &Engine,
        seconds: Option<f64>,
        as_bytes: bool,
        work: impl FnOnce(&Engine, &Control) -> Outcome + Send + 'static,
    ) -> PyResult<Self> {
        let control = Arc::new(Control::new(deadline_in(seconds)?));
        let (sender, receiver) = mpsc::channel();
        let engine = engine.clone();
        let shared = Arc::clone(&control);
        let size = (engine.puzzle().width, engine.puzzle().height);
        let thread = std::thread::Builder::new()
            .name("satnono count".into())
            .spawn(move || {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work(&engine, &shared)
                }))
                .unwrap_or_else(|payload| {
                    Outcome::Failed(format!(
                        "internal error in satnono's engine: {}",
                        panic_message(payload.as_ref())
                    ))
                });
                shared.ended.store(true, Ordering::Relaxed);
                let _ = sender.send(outcome); // the job may have been dropped: nobody to tell
            })
            .map_err(|error| PyRuntimeError::new_err(format!("cannot start a thread: {error}")))?;
        Ok(Self {
            control,
            receiver: Mutex::new(Some(receiver)),
            thread: Some(thread),
            outcome: None,
            as_bytes,
            size,
        })
    }
}

impl Drop for PyJob {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join(); // it looks at the stop flag every few nodes
        }
    }
}

/// Counting knobs from Python: (memory in bytes, probe from, sweep width, sweep trial bytes,
/// whether a long sweep may race from the other end on a second thread).
pub(crate) type Knobs = (usize, usize, usize, usize, bool);

pub(crate) fn options(knobs: Knobs) -> counting::Options {
    let (memory, probe_from, sweep_width, sweep_trial, race) = knobs;
    counting::Options {
        memory,
        probe: true,
        probe_from,
        sweep_width,
        sweep_trial,
        race,
    }
}

/// A count as Python reads it: (count, exact, cells left, components as (lines, cells, count,
/// exact, method, seconds), stats, a witness when exact and not zero).
type CountAnswer<'py> = (
    BigUint,
    bool,
    usize,
    Vec<(Vec<usize>, usize, BigUint, bool, &'static str, f64)>,
    Bound<'py, PyDict>,
    Option<Py<PyAny>>,
);

#[pymethods]
impl PyJob {
    /// Wait for the end at most `seconds` (GIL released): whether it has ended.
    fn wait(&mut self, py: Python<'_>, seconds: f64) -> PyResult<bool> {
        if self.outcome.is_some() {
            return Ok(true);
        }
        let wait = wait_of(seconds)?;
        let receiver = &self.receiver;
        let received = py.detach(|| {
            let guard = receiver
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            guard
                .as_ref()
                .map_or(Err(RecvTimeoutError::Disconnected), |r| {
                    r.recv_timeout(wait)
                })
        });
        match received {
            Ok(outcome) => self.outcome = Some(outcome),
            Err(RecvTimeoutError::Timeout) => return Ok(false),
            Err(RecvTimeoutError::Disconnected) => {
                self.outcome = Some(Outcome::Failed("the count's thread ended".into()));
            }
        }
        *self
            .receiver
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        if let Some(thread) = self.thread.take() {
            py.detach(|| thread.join())
                .map_err(|_| PyRuntimeError::new_err("the count's thread failed"))?;
        }
        Ok(true)
    }

    /// Whether the work has ended (without waiting, from any thread).
    fn ended(&self) -> bool {
        self.control.ended.load(Ordering::Relaxed)
    }

    /// Stop the work soon (it ends with what it has: a lower bound, the cells settled).
    fn cancel(&self) {
        self.control.stop.store(true, Ordering::Relaxed);
    }

    fn progress<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        let control = &self.control;
        dict.set_item("nodes", control.nodes.load(Ordering::Relaxed))?;
        dict.set_item("cache_hits", control.hits.load(Ordering::Relaxed))?;
        dict.set_item("stored", control.stored.load(Ordering::Relaxed))?;
        dict.set_item("components", control.parts.load(Ordering::Relaxed))?;
        dict.set_item(
            "components_done",
            control.parts_done.load(Ordering::Relaxed),
        )?;
        dict.set_item("swept_cells", control.swept.load(Ordering::Relaxed))?;
        dict.set_item("sweep_states", control.states.load(Ordering::Relaxed))?;
        dict.set_item("racing", control.racing.load(Ordering::Relaxed))?;
        dict.set_item("races", control.races.load(Ordering::Relaxed))?;
        dict.set_item("sweeping", control.sweeping.load(Ordering::Relaxed))?;
        Ok(dict)
    }

    /// A count's answer (see `CountAnswer`); None before the end or for another kind of job.
    fn counted<'py>(&self, py: Python<'py>) -> PyResult<Option<CountAnswer<'py>>> {
        let counted = match &self.outcome {
            Some(Outcome::Counted(counted)) => counted,
            Some(Outcome::Failed(message)) => return Err(PyRuntimeError::new_err(message.clone())),
            _ => return Ok(None),
        };
        let stats = PyDict::new(py);
        stats.set_item("count_nodes", counted.nodes)?;
        stats.set_item("count_cache_hits", counted.hits)?;
        stats.set_item("count_cache_size", counted.stored)?;
        stats.set_item("count_cache_clears", counted.store_clears)?;
        stats.set_item("count_races", self.control.races.load(Ordering::Relaxed))?;
        let (width, height) = self.size;
        let parts = counted
            .parts
            .iter()
            .map(|part| {
                (
                    lines_holding(&part.cells, width, height),
                    part.cells.len(),
                    part.count.to_big(),
                    part.exact,
                    match part.method {
                        Method::Search => "search",
                        Method::Sweep => "sweep",
                    },
                    part.seconds,
                )
            })
            .collect();
        let witness = counted
            .witness
            .as_ref()
            .map(|domains| domains_out(py, domains.clone(), self.as_bytes))
            .transpose()?;
        Ok(Some((
            counted.count.to_big(),
            counted.exact,
            counted.cells_left,
            parts,
            stats,
            witness,
        )))
    }

    /// The ambiguity map's answer: (solvable, every cell's colors, the cells not settled);
    /// None before the end or for another kind of job.
    fn ambiguity(&self) -> PyResult<Option<AmbiguityAnswer>> {
        match &self.outcome {
            Some(Outcome::Ambiguity(found)) => Ok(Some((
                found.solvable,
                found.colors.clone(),
                found.unsettled.clone(),
            ))),
            Some(Outcome::Failed(message)) => Err(PyRuntimeError::new_err(message.clone())),
            _ => Ok(None),
        }
    }
}

/// An ambiguity map as Python reads it: (solvable, every cell's colors, the cells not settled).
type AmbiguityAnswer = (bool, Vec<u128>, Vec<u32>);

fn start_job(
    engine: &PyEngine,
    domains: DomainsIn<'_>,
    seconds: Option<f64>,
    work: impl FnOnce(&Engine, &[u128], &Control) -> Outcome + Send + 'static,
) -> PyResult<PyJob> {
    let (domains, as_bytes) = domains.read();
    checked_domains(&engine.engine, &domains)?;
    PyJob::start(&engine.engine, seconds, as_bytes, move |engine, control| {
        work(engine, &domains, control)
    })
}

/// Count the grids that fit the clues and `domains`, in a thread (see `Job`); with `colors`,
/// find every color each cell takes in some solution instead (the ambiguity map, from the
/// counts).
#[pyfunction]
#[pyo3(signature = (engine, domains, knobs, seconds=None, colors=false))]
pub fn count(
    engine: PyRef<'_, PyEngine>,
    domains: DomainsIn<'_>,
    knobs: Knobs,
    seconds: Option<f64>,
    colors: bool,
) -> PyResult<PyJob> {
    start_job(
        &engine,
        domains,
        seconds,
        move |engine, domains, control| {
            if colors {
                Outcome::Ambiguity(engine.ambiguity(domains, options(knobs), control))
            } else {
                Outcome::Counted(engine.count(domains, options(knobs), control))
            }
        },
    )
}

/// Every solution of `domains` in turn, in batches.
#[pyclass(module = "satnono.logic._engine", name = "Solutions")]
pub struct PySolutions {
    enumerator: AnyEnumerator,
    as_bytes: bool,
    done: bool,
}

#[pymethods]
impl PySolutions {
    /// Up to `most` solutions found within `seconds` (GIL released), and whether there are
    /// no more after them.
    #[pyo3(signature = (most, seconds=None))]
    fn next_batch(
        &mut self,
        py: Python<'_>,
        most: usize,
        seconds: Option<f64>,
    ) -> PyResult<(Vec<Py<PyAny>>, bool)> {
        let deadline = deadline_in(seconds)?;
        let enumerator = &mut self.enumerator;
        let done = &mut self.done;
        let found = py.detach(|| {
            guarded(|| {
                let mut found = Vec::new();
                while !*done && found.len() < most {
                    match enumerator.next(deadline) {
                        Step::Solution(domains) => found.push(domains),
                        Step::Exhausted => *done = true,
                        Step::Paused => break,
                    }
                    if deadline.is_some_and(|at| Instant::now() >= at) {
                        break;
                    }
                }
                Ok(found)
            })
        })?;
        let listed = found
            .into_iter()
            .map(|domains| -> PyResult<Py<PyAny>> {
                if self.as_bytes {
                    let cells: Vec<u8> = domains.iter().map(|&d| d as u8).collect();
                    Ok(PyBytes::new(py, &cells).into_any().unbind())
                } else {
                    domains_out(py, domains, false)
                }
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok((listed, self.done))
    }
}

/// Every solution of `domains` in turn (see `Solutions`); the probing search, once it takes
/// the whole rest over, in `threads` threads (1 to `MAX_THREADS`); with `layers`, from the
/// sweeps' layers first where every component is swept, their setup within `seconds` from
/// now at the latest (None: no bound but the setup's own); the probing search guided by
/// `guide` (a color a cell, a known solution's: each branch tries it first) when given.
#[pyfunction]
#[pyo3(signature = (engine, domains, threads=1, layers=true, seconds=None, guide=None))]
pub fn solutions(
    engine: PyRef<'_, PyEngine>,
    domains: DomainsIn<'_>,
    threads: usize,
    layers: bool,
    seconds: Option<f64>,
    guide: Option<Vec<u8>>,
) -> PyResult<PySolutions> {
    let until = deadline_in(seconds)?;
    let (domains, as_bytes) = domains.read();
    checked_domains(&engine.engine, &domains)?;
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(PyValueError::new_err(format!(
            "{threads} threads: from 1 to {MAX_THREADS}"
        )));
    }
    let puzzle = engine.engine.puzzle();
    if let Some(guide) = &guide {
        if guide.len() != puzzle.cells() || guide.iter().any(|&c| usize::from(c) >= puzzle.colors) {
            return Err(PyValueError::new_err(format!(
                "a guide is a color below {} for each of the {} cells",
                puzzle.colors,
                puzzle.cells()
            )));
        }
    }
    let guide = guide.map(Guide::from);
    Ok(PySolutions {
        enumerator: engine
            .engine
            .enumerate(&domains, threads, layers, until, guide),
        as_bytes,
        done: false,
    })
}
