//! satnono's native engine: exact line solving, propagation, probing, search and counting for
//! nonograms.
//!
//! The core is in private modules, one job each (`line`: the line solver; `grid`: the state
//! and its trail; `propagate`: the fixpoint over dirty lines; `probe`: probing; `search`: the
//! depth-first search; `lookahead`: the cubes' split; `branches`: cubes along the search's own tree; `estimate`: belief propagation, guesses
//! for a SAT solver; `decimate`: decimation guided by it, a first grid of a large random puzzle; `count`: counting, sampling, every solution and the colors each cell
//! takes; `engine`: the calls the surface makes, at the word count a puzzle needs). For the SAT
//! backend: `blocks_cnf`, the blocks CNF of a residual. For
//! certificates: `automaton` and `cnf`, the automaton CNF of a whole puzzle, which they are
//! about; `lemmas`, probing that writes down the lemmas of their proofs; `drup` and `rup`, the
//! checker of proofs (reading them; its clause database), apart from all the rest. `python` is
//! the Python surface, and nothing else: clues and grids come in, domains, verdicts and
//! solutions go out (and a CNF's clauses, which it adds to CaDiCaL itself when given the
//! solver's address: `python::clauses`). Every call checks its arguments (ValueError), releases the GIL while it
//! works, and turns a panic into a RuntimeError instead of taking the process down.

// The core is reached only through the Python surface; `cargo test` builds it without one.
#![cfg_attr(not(feature = "python"), allow(dead_code))]

mod automaton;
mod bits;
mod blocks_cnf;
mod branches;
mod cache;
mod clue;
mod cnf;
mod count;
mod decimate;
mod drup;
mod engine;
mod estimate;
mod grid;
mod lemmas;
mod line;
mod lookahead;
mod probe;
mod propagate;
mod rup;
mod search;

// The Python surface: the classes and functions of satnono.logic._engine.
#[cfg(feature = "python")]
mod python;
