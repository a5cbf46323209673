//! `Clauses`: a CNF's clauses as the engine made them, one flat array, handed to Python as a
//! read-only sequence of lists (made only when read) and added to CaDiCaL without becoming
//! Python objects at all (`add_to_cadical`).
//!
//! Why: on the tournament sets, each hand-over's 10,000-odd clauses went from the engine into
//! Python lists, and from those lists into CaDiCaL one C call per clause: making, loading and
//! freeing them took more than a tenth of the whole CPU (BENCHMARKS.md, round 23). Given the
//! address of CaDiCaL's `add` and of the solver (the Python side finds both in the PySAT solver
//! it holds, `satnono.runtime.clause_loading`), the engine adds the literals itself.

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyTuple};

/// Clauses, each one's literals one after the other in `literals`, clause k ending at
/// `ends[k]`.
#[pyclass(module = "satnono.logic._engine", name = "Clauses", frozen, sequence)]
pub(crate) struct PyClauses {
    literals: Vec<i32>,
    ends: Vec<usize>,
}

impl PyClauses {
    pub(crate) fn new(literals: Vec<i32>, ends: Vec<usize>) -> Self {
        Self { literals, ends }
    }

    /// From clauses each held on its own.
    pub(crate) fn of(clauses: &[Vec<i32>]) -> Self {
        let mut literals = Vec::with_capacity(clauses.iter().map(Vec::len).sum());
        let mut ends = Vec::with_capacity(clauses.len());
        for clause in clauses {
            literals.extend_from_slice(clause);
            ends.push(literals.len());
        }
        Self { literals, ends }
    }

    fn clause(&self, index: usize) -> &[i32] {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.literals[start..self.ends[index]]
    }

    fn lists<'py>(
        &self,
        py: Python<'py>,
        indices: impl Iterator<Item = usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let lists = indices
            .map(|index| PyList::new(py, self.clause(index)))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, lists)
    }
}

/// `void CaDiCaL195::Solver::add(int)`: under the Itanium C++ ABI (x86-64 and AArch64 Linux)
/// a member function takes the object as its first argument, as this C signature says.
type CadicalAdd = unsafe extern "C" fn(*mut std::ffi::c_void, std::ffi::c_int);

#[pymethods]
impl PyClauses {
    /// Clauses given as lists of literals: none may be 0 (CaDiCaL reads 0 as a clause's end)
    /// nor -2^31 (which has no variable).
    #[new]
    fn from_lists(clauses: Vec<Vec<i32>>) -> PyResult<Self> {
        if let Some(bad) = clauses
            .iter()
            .flatten()
            .find(|&&literal| literal == 0 || literal == i32::MIN)
        {
            return Err(PyValueError::new_err(format!("literal {bad} in a clause")));
        }
        Ok(Self::of(&clauses))
    }

    fn __len__(&self) -> usize {
        self.ends.len()
    }

    /// A clause (a list of literals), or a slice of them (a list of lists).
    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        let count = self.ends.len();
        if let Ok(slice) = index.cast::<PySlice>() {
            let part = slice.indices(count as isize)?;
            let picked =
                (0..part.slicelength).map(|k| (part.start + k as isize * part.step) as usize);
            return Ok(self.lists(py, picked)?.into_any());
        }
        let Ok(at) = index.extract::<isize>() else {
            return Err(PyTypeError::new_err(
                "clause indices are integers or slices",
            ));
        };
        let at = if at < 0 { at + count as isize } else { at };
        if at < 0 || at as usize >= count {
            return Err(PyIndexError::new_err("clause index out of range"));
        }
        Ok(PyList::new(py, self.clause(at as usize))?.into_any())
    }

    /// Equal to another `Clauses` or to any sequence of the same clauses, each the same
    /// literals in the same order (as a list of lists would compare).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(other) = other.cast::<PyClauses>() {
            let other = other.get();
            return self.ends == other.ends && self.literals == other.literals;
        }
        let Ok(clauses) = other.extract::<Vec<Vec<i32>>>() else {
            return false;
        };
        clauses.len() == self.ends.len()
            && clauses
                .iter()
                .enumerate()
                .all(|(index, clause)| clause.as_slice() == self.clause(index))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.lists(py, 0..self.ends.len())?.try_iter()?.into_any())
    }

    /// Pickled as the plain list of lists it stands for.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let list = py.get_type::<PyList>();
        let clauses = self.lists(py, 0..self.ends.len())?;
        PyTuple::new(
            py,
            [list.into_any(), PyTuple::new(py, [clauses])?.into_any()],
        )
    }

    /// Add clauses `start..end` to a CaDiCaL 1.9.5 solver: each literal, then 0, through `add`
    /// (the address of `CaDiCaL195::Solver::add(int)`) on `solver` (the address of the
    /// `CaDiCaL195::Solver`), as PySAT's own `cadical195_add_cl` does. The GIL stays held, so
    /// no other Python thread reaches the solver through PySAT meanwhile.
    fn add_to_cadical(&self, add: usize, solver: usize, start: usize, end: usize) -> PyResult<()> {
        if add == 0 || solver == 0 {
            return Err(PyTypeError::new_err(
                "null address for CaDiCaL's add or solver",
            ));
        }
        let end = end.min(self.ends.len());
        if start >= end {
            return Ok(());
        }
        // SAFETY: the caller (satnono.runtime.clause_loading.add_clauses, the only one) passes
        // the address dlsym gave for `_ZN10CaDiCaL1956Solver3addEi` in the pysolvers module
        // loaded in this process, whose signature `CadicalAdd` states, and the pointer held in
        // the capsule of a live PySAT `Cadical195` (created by `new CaDiCaL195::Solver`); the
        // call runs on this thread under the GIL, as PySAT's own calls do. No literal is 0
        // (the encoder never makes one) except the terminator, as CaDiCaL's API asks.
        let add: CadicalAdd = unsafe { std::mem::transmute::<usize, CadicalAdd>(add) };
        let solver = solver as *mut std::ffi::c_void;
        for index in start..end {
            for &literal in self.clause(index) {
                // SAFETY: as above.
                unsafe { add(solver, literal) };
            }
            // SAFETY: as above (the clause's end).
            unsafe { add(solver, 0) };
        }
        Ok(())
    }
}
