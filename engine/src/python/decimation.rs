//! The Python surface of decimation (satnono/logic/native.py's `Decimation`): attempts that
//! go on across calls, each call as long as Python's slice; arguments checked, the GIL
//! released while it works, a panic made an error.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{
    checked_domains, checked_scope, deadline_in, domains_out, guarded, DomainsIn, PyEngine,
};
use crate::decimate::{Decimated, Decimator, Options};

/// Decimation under way: `run` goes on until a grid, a proof that none fits, or its seconds.
#[pyclass(module = "satnono.logic._engine", name = "Decimation")]
pub struct PyDecimation {
    decimator: Decimator,
    as_bytes: bool,
}

#[pymethods]
impl PyDecimation {
    /// ("found", domains: every cell of the scope decided), ("refuted", None) when no grid
    /// fits, ("paused", None) at the end of the first step past `pause` seconds, or when
    /// `seconds` passed (the next call goes on).
    #[pyo3(signature = (pause=None, seconds=None))]
    fn run(
        &mut self,
        py: Python<'_>,
        pause: Option<f64>,
        seconds: Option<f64>,
    ) -> PyResult<(&'static str, Option<Py<PyAny>>)> {
        let pause = deadline_in(pause)?;
        let deadline = deadline_in(seconds)?;
        let decimator = &mut self.decimator;
        let ended = py.detach(|| guarded(|| Ok(decimator.run(pause, deadline))))?;
        Ok(match ended {
            Decimated::Found(domains) => ("found", Some(domains_out(py, domains, self.as_bytes)?)),
            Decimated::Refuted => ("refuted", None),
            Decimated::Paused => ("paused", None),
        })
    }

    /// (attempts started, steps taken) so far.
    fn stats(&self) -> (u64, u64) {
        (self.decimator.attempts, self.decimator.steps)
    }
}

/// Decimation of `scope`'s lines (all when empty) from `domains` (see `crate::decimate`).
#[pyfunction]
#[pyo3(signature = (engine, domains, scope, fraction, rounds, noise, seed, probing))]
#[allow(clippy::too_many_arguments)]
pub fn decimation(
    engine: PyRef<'_, PyEngine>,
    domains: DomainsIn<'_>,
    scope: Vec<usize>,
    fraction: f64,
    rounds: usize,
    noise: f64,
    seed: u64,
    probing: bool,
) -> PyResult<PyDecimation> {
    let (domains, as_bytes) = domains.read();
    checked_domains(&engine.engine, &domains)?;
    let scope = checked_scope(&engine.engine, scope)?;
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(PyValueError::new_err(format!(
            "fraction must be in (0, 1], got {fraction}"
        )));
    }
    if !(1..=10_000).contains(&rounds) {
        return Err(PyValueError::new_err(format!("{rounds} rounds: 1..10000")));
    }
    if !(noise.is_finite() && noise >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "noise must be >= 0, got {noise}"
        )));
    }
    let options = Options {
        fraction,
        rounds,
        noise,
        seed,
        probing,
    };
    Ok(PyDecimation {
        decimator: Decimator::new(&engine.engine, &domains, &scope, options),
        as_bytes,
    })
}
