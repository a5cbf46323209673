//! The classes `Engine` (every call on one puzzle) and `Search` (a search under way).

use pyo3::exceptions::{PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Instant;

use crate::clue::Puzzle;
use crate::engine::{AnySearch, Engine, Reached, Start};
use crate::lemmas::Lemma;
use crate::search::{Event, Options};

use super::clauses::PyClauses;
use super::{
    blocks, checked_domains, checked_scope, deadline_in, domains_out, guarded, verdict, Clue,
    CubeOut, DomainsIn, Implication, Verdict,
};

/// One puzzle: its size, palette size (background included) and clues (rows, then columns).
#[pyclass(module = "satnono.logic._engine", name = "Engine", frozen)]
pub(crate) struct PyEngine {
    pub(crate) engine: Engine,
}

/// A step of line logic or probing, as the engine runs it.
type Step = fn(&Engine, Start<'_>) -> (Reached, u64);

/// A residual's blocks CNF as Python gets it: the variable count, the clauses, every
/// undecided cell's (color, literal) pairs, each line's blocks' start variables, and the
/// clauses made per family.
type BlocksOut = (
    i32,
    PyClauses,
    Vec<(usize, Vec<(u8, i32)>)>,
    Vec<(usize, crate::blocks_cnf::Starts)>,
    Vec<(&'static str, usize)>,
);

/// What a call from Python starts from, checked: the domains (and whether they came as
/// bytes, to go back the same way), the lines and the deadline.
struct Checked {
    domains: Vec<u128>,
    as_bytes: bool,
    scope: Vec<usize>,
    deadline: Option<Instant>,
}

impl Checked {
    fn start(&self) -> Start<'_> {
        Start {
            domains: &self.domains,
            scope: &self.scope,
            deadline: self.deadline,
        }
    }
}

impl PyEngine {
    fn checked(
        &self,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        seconds: Option<f64>,
    ) -> PyResult<Checked> {
        let (domains, as_bytes) = domains.read();
        checked_domains(&self.engine, &domains)?;
        Ok(Checked {
            domains,
            as_bytes,
            scope: checked_scope(&self.engine, scope)?,
            deadline: deadline_in(seconds)?,
        })
    }
}

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
    /// cell, row-major), until the fixpoint, a conflict or `seconds`; with `probing`, then
    /// probing to its fixpoint (every cell it fixes holds in every solution). Returns the
    /// verdict and the number of lines solved (of probes, when probing).
    #[pyo3(signature = (domains, scope, seconds=None, probing=false))]
    fn reach(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        seconds: Option<f64>,
        probing: bool,
    ) -> PyResult<(Verdict, u64)> {
        let step: Step = if probing {
            Engine::probe
        } else {
            Engine::propagate
        };
        let call = self.checked(domains, scope, seconds)?;
        let (reached, count) = py.detach(|| guarded(|| Ok(step(&self.engine, call.start()))))?;
        Ok((verdict(py, reached, call.as_bytes)?, count))
    }

    /// At least `count` cubes of `domains` (at line logic's fixpoint) over `scope` (all lines
    /// when empty), `candidates` cells tried at each split: ([(decisions as (cell, color
    /// bitmask), domains)], failed literals), or None when `seconds` passed first. With
    /// `search`, each cube is split on the probing search's first branching instead
    /// (`branches.rs`, the cubes for listing every solution; `candidates` unused).
    #[pyo3(signature = (domains, scope, count, candidates, seconds=None, search=false))]
    #[allow(clippy::too_many_arguments)]
    fn split(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        count: usize,
        candidates: usize,
        seconds: Option<f64>,
        search: bool,
    ) -> PyResult<Option<(Vec<CubeOut>, u64)>> {
        let call = self.checked(domains, scope, seconds)?;
        let engine = &self.engine;
        let split = py.detach(|| {
            guarded(|| {
                Ok(if search {
                    engine.branches(call.start(), count)
                } else {
                    engine.split(call.start(), count, candidates)
                })
            })
        })?;
        let as_bytes = call.as_bytes;
        let Some((cubes, failed)) = split else {
            return Ok(None);
        };
        let cubes = cubes
            .into_iter()
            .map(|cube| Ok((cube.decisions, domains_out(py, cube.domains, as_bytes)?)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Some((cubes, failed)))
    }

    /// The blocks CNF of `scope`'s lines under `domains` (crate::blocks_cnf); None when one
    /// of them has a blotted number; a TimeoutError when `seconds` pass first.
    #[pyo3(signature = (domains, scope, seconds=None))]
    fn blocks_cnf(
        &self,
        py: Python<'_>,
        domains: DomainsIn<'_>,
        scope: Vec<usize>,
        seconds: Option<f64>,
    ) -> PyResult<Option<BlocksOut>> {
        let checked = self.checked(domains, scope, seconds)?;
        let puzzle = self.engine.puzzle();
        let late = || PyTimeoutError::new_err("the deadline passed while encoding");
        let built = py.detach(|| {
            guarded(|| {
                crate::blocks_cnf::residual(
                    puzzle,
                    &checked.domains,
                    &checked.scope,
                    checked.deadline,
                )
                .map_err(|_| late())
            })
        })?;
        let Some(crate::blocks_cnf::BlocksCnf {
            formula,
            start_variables,
            families,
        }) = built
        else {
            return Ok(None);
        };
        Ok(Some((
            formula.variables,
            PyClauses::new(formula.literals, formula.ends),
            formula.cell_literals,
            start_variables,
            families,
        )))
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
#[pyclass(module = "satnono.logic._engine", name = "Search")]
pub(crate) struct PySearch {
    search: AnySearch,
    /// Whether the domains came in as bytes (and so go out as bytes).
    as_bytes: bool,
}

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

    /// Stop, giving away what is left: (the solutions found and not yet returned, the rest of
    /// the space as parts that partition the solutions not returned, the largest first); None,
    /// and the search goes on, when there are fewer than two parts to give.
    #[allow(clippy::type_complexity)]
    fn give_away(&mut self, py: Python<'_>) -> PyResult<Option<(Vec<Py<PyAny>>, Vec<Py<PyAny>>)>> {
        let search = &mut self.search;
        let given = py.detach(|| guarded(|| Ok(search.give_away())))?;
        let Some((solutions, parts)) = given else {
            return Ok(None);
        };
        let out = |all: Vec<Vec<u128>>| {
            all.into_iter()
                .map(|domains| domains_out(py, domains, self.as_bytes))
                .collect::<PyResult<Vec<_>>>()
        };
        Ok(Some((out(solutions)?, out(parts)?)))
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

    /// `implications` as clauses over a formula's cell literals (`literals`: each undecided
    /// cell's (color, literal) pairs, the blocks CNF's), with how many implications they came
    /// from (crate::blocks_cnf::implication_clauses). None as `implications`.
    #[pyo3(signature = (most, literals, seconds=None))]
    fn implication_clauses(
        &mut self,
        py: Python<'_>,
        most: usize,
        literals: Vec<(usize, Vec<(u8, i32)>)>,
        seconds: Option<f64>,
    ) -> PyResult<Option<(PyClauses, usize)>> {
        let deadline = deadline_in(seconds)?;
        let search = &mut self.search;
        py.detach(|| {
            guarded(|| {
                Ok(search.root_implications(most, deadline).map(|found| {
                    let (flat, ends) = crate::blocks_cnf::implication_clauses(&found, &literals);
                    (PyClauses::new(flat, ends), found.len())
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
