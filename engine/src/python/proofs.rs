//! The Python surface of certificates (satnono/proof/certify.py, satnono/proof/check.py): the whole
//! puzzle's automaton CNF (`cnf`) and the DRUP proof checker (`drup`). Probing's lemmas are
//! a method of the engine (`lib.rs`). As in `lib.rs`: arguments checked, the GIL released
//! while the work runs, a panic made an error.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{blocks, deadline_in, guarded, Clue};
use crate::clue::Puzzle;
use crate::{cnf, drup};

/// Check a DRUP `proof` (its text) against the CNF `dimacs` (its text) by reverse unit
/// propagation, within `seconds`: (why it fails, or "" when it derives the empty clause; the
/// lemmas checked). A CNF that cannot be read is a ValueError.
#[pyfunction]
#[pyo3(signature = (dimacs, proof, seconds=None))]
pub fn check_drup(
    py: Python<'_>,
    dimacs: String,
    proof: String,
    seconds: Option<f64>,
) -> PyResult<(String, usize)> {
    let deadline = deadline_in(seconds)?;
    py.detach(|| {
        guarded(|| {
            let checked = drup::check(&dimacs, &proof, deadline).map_err(PyValueError::new_err)?;
            Ok((checked.reason, checked.steps))
        })
    })
}

/// What `automaton_cnf` answers: (variables, the clauses' DIMACS lines, each undecided cell's
/// (cell, [(color, literal)]), the clauses themselves when asked for).
type WholeCnf = (
    i32,
    usize,
    String,
    Vec<(usize, Vec<(u8, i32)>)>,
    Option<Vec<Vec<i32>>>,
);

/// The automaton CNF of a whole puzzle (clues as `Engine` takes them) from its initial
/// domains, as satnono.encode.cnf.encode_puzzle builds it, exported as DIMACS: (variables, clause
/// count, the clause lines, every undecided cell's literals, the clauses when `clauses`), or
/// None when `seconds` pass first; a ValueError past `max_clauses`.
#[pyfunction]
#[pyo3(signature = (width, height, colors, clues, seconds=None, clauses=false, max_clauses=10_000_000))]
#[allow(clippy::too_many_arguments)] // the clues, the deadline and the limits, as Python passes them
pub fn automaton_cnf(
    py: Python<'_>,
    width: usize,
    height: usize,
    colors: usize,
    clues: Vec<Clue>,
    seconds: Option<f64>,
    clauses: bool,
    max_clauses: usize,
) -> PyResult<Option<WholeCnf>> {
    let deadline = deadline_in(seconds)?;
    let clues = clues
        .iter()
        .map(|clue| blocks(clue))
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| {
        guarded(|| {
            let puzzle =
                Puzzle::new(width, height, colors, clues).map_err(PyValueError::new_err)?;
            let built = match cnf::whole_puzzle(&puzzle, deadline, max_clauses) {
                Ok(formula) => Some(formula),
                Err(cnf::Stopped::Timeout) => None,
                Err(cnf::Stopped::TooLarge(most)) => {
                    return Err(PyValueError::new_err(format!(
                        "the whole puzzle's CNF has over {most} clauses: too large to certify"
                    )));
                }
            };
            Ok(built.map(|formula| {
                let body = formula.dimacs_body();
                let count = formula.ends.len();
                let listed = clauses.then(|| formula.clauses().map(<[i32]>::to_vec).collect());
                (
                    formula.variables,
                    count,
                    body,
                    formula.cell_literals,
                    listed,
                )
            }))
        })
    })
}
