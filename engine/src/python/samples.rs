//! The Python surface of exact sampling (satnono/logic/native.py's Sampler): the count, then
//! batches of uniform draws as Python asks for them, in a thread of their own that Python
//! waits on in slices and can cancel; as in `counts.rs`, arguments checked, the GIL released
//! while the work runs, a panic made an error.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use num_bigint::BigUint;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use super::counts::{options, panic_message, Knobs};
use super::{checked_domains, deadline_in, domains_out, wait_of, DomainsIn, PyEngine};
use crate::count::{self as counting, Control, Drawn};

/// What a sampler's thread tells: the number of solutions once counted, each batch drawn, and
/// how it ended.
enum Told {
    Total(BigUint),
    Samples(Vec<Vec<u128>>),
    Ended(Drawn),
    Failed(String),
}

/// Exactly uniform draws in a thread of their own: the count first, then batches of draws as
/// `request` asks for them (see `count::sample`).
#[pyclass(module = "satnono.logic._engine", name = "Sampler")]
pub struct PySampler {
    control: Arc<Control>,
    requests: Mutex<Option<Sender<usize>>>,
    told: Mutex<Receiver<Told>>,
    thread: Option<JoinHandle<()>>,
    as_bytes: bool,
}

impl Drop for PySampler {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        // Dropping the sender wakes a thread waiting for the next request: it ends.
        *self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[pymethods]
impl PySampler {
    /// Draw `n` more solutions (they come as a batch, see `receive`).
    fn request(&self, n: usize) -> PyResult<()> {
        let requests = self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match requests.as_ref() {
            Some(sender) if sender.send(n).is_ok() => Ok(()),
            _ => Err(PyRuntimeError::new_err("the sampler has ended")),
        }
    }

    /// What the thread told within `seconds` (GIL released): ("total", the number of
    /// solutions), ("samples", [domains...]), ("ended", "done" | "zero" | "stopped"), or
    /// ("nothing", None).
    fn receive(&self, py: Python<'_>, seconds: f64) -> PyResult<(&'static str, Py<PyAny>)> {
        let wait = wait_of(seconds)?;
        let told = &self.told;
        let received = py.detach(|| {
            let guard = told.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            guard.recv_timeout(wait)
        });
        Ok(match received {
            Ok(Told::Total(total)) => ("total", total.into_pyobject(py)?.into_any().unbind()),
            Ok(Told::Samples(samples)) => {
                let listed = samples
                    .into_iter()
                    .map(|domains| domains_out(py, domains, self.as_bytes))
                    .collect::<PyResult<Vec<_>>>()?;
                ("samples", listed.into_pyobject(py)?.into_any().unbind())
            }
            Ok(Told::Ended(drawn)) => {
                let how = match drawn {
                    Drawn::Done => "done",
                    Drawn::Zero => "zero",
                    Drawn::Stopped => "stopped",
                };
                ("ended", how.into_pyobject(py)?.into_any().unbind())
            }
            Ok(Told::Failed(message)) => return Err(PyRuntimeError::new_err(message)),
            Err(RecvTimeoutError::Timeout) => ("nothing", py.None()),
            Err(RecvTimeoutError::Disconnected) => {
                ("ended", "stopped".into_pyobject(py)?.into_any().unbind())
            }
        })
    }

    fn cancel(&self) {
        self.control.stop.store(true, Ordering::Relaxed);
    }

    /// Nodes of the counting search so far (none while the count sweeps).
    fn nodes(&self) -> u64 {
        self.control.nodes.load(Ordering::Relaxed)
    }

    /// Cells the sweep in flight has passed (0 while none runs).
    fn swept(&self) -> u64 {
        self.control.swept.load(Ordering::Relaxed)
    }
}

/// Solutions drawn uniformly (seeded), in a thread (see `Sampler`).
#[pyfunction]
#[pyo3(signature = (engine, domains, seed, knobs, seconds=None))]
pub fn sampler(
    engine: PyRef<'_, PyEngine>,
    domains: DomainsIn<'_>,
    seed: u64,
    knobs: Knobs,
    seconds: Option<f64>,
) -> PyResult<PySampler> {
    let (domains, as_bytes) = domains.read();
    checked_domains(&engine.engine, &domains)?;
    let control = Arc::new(Control::new(deadline_in(seconds)?));
    let (request, requests) = mpsc::channel::<usize>();
    let (tell, told) = mpsc::channel::<Told>();
    let engine = engine.engine.clone();
    let shared = Arc::clone(&control);
    let thread = std::thread::Builder::new()
        .name("satnono sampler".into())
        .spawn(move || {
            let failed = tell.clone();
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut counted = false;
                let mut next = |total: &counting::number::Count, drawn: Vec<Vec<u128>>| {
                    let told = if counted {
                        Told::Samples(drawn)
                    } else {
                        counted = true;
                        Told::Total(total.to_big())
                    };
                    tell.send(told).ok()?;
                    requests.recv().ok() // None once the sampler is dropped
                };
                let drawn = engine.sample(&domains, seed, options(knobs), &shared, &mut next);
                let _ = tell.send(Told::Ended(drawn));
            }));
            if let Err(payload) = run {
                let _ = failed.send(Told::Failed(format!(
                    "internal error in satnono's engine: {}",
                    panic_message(payload.as_ref())
                )));
            }
        })
        .map_err(|error| PyRuntimeError::new_err(format!("cannot start a thread: {error}")))?;
    Ok(PySampler {
        control,
        requests: Mutex::new(Some(request)),
        told: Mutex::new(told),
        thread: Some(thread),
        as_bytes,
    })
}
