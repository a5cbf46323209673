//! Checking DRUP proofs by reverse unit propagation, for satnono's certificates (the Python
//! checker in `satnono/proofcheck.py` is the reference this one is held to). A lemma is
//! accepted when unit propagation on the clauses so far refutes its negation; a deletion
//! removes one copy of a clause (unit clauses are kept, as drat-trim keeps them). The top
//! level only grows: a literal a deleted clause implied stays implied by the formula, so
//! keeping it is sound. Shares nothing with the line solver or any SAT solver.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// What a check found: `reason` is empty when the proof derives the empty clause.
pub struct Checked {
    pub reason: String,
    pub steps: usize,
}

/// Hashes a key that is a hash already (`key`): passes it through.
#[derive(Default)]
struct Passed(u64);

impl Hasher for Passed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 << 8) | u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// No clause (the end of a chain of same-key clauses).
const NONE: u32 = u32::MAX;

/// A clause watching a literal, with a literal of it (the blocker) that, when true, makes
/// looking at the clause unnecessary.
#[derive(Clone, Copy)]
struct Watch {
    clause: u32,
    blocker: i32,
}

/// Clauses under unit propagation with two watched literals. Clauses live in one arena
/// (`literals`, clause i at `spans[i]`); values are kept per literal, so reading one costs no
/// sign test. Made for speed after measuring: a clause per `Vec` and a map keyed by
/// literal vectors spent 0.31 s loading 2040-hot's 307,000 clauses (now a tenth of that).
struct Rup {
    /// Per literal code (see `code`): 1 true, -1 false, 0 unassigned.
    values: Vec<i8>,
    trail: Vec<i32>,
    head: usize,
    literals: Vec<i32>,
    /// Per clause: (first literal's index in `literals`, length).
    spans: Vec<(u32, u32)>,
    alive: Vec<bool>,
    /// Per literal code: the clauses watching that literal.
    watches: Vec<Vec<Watch>>,
    /// Deletion finds a clause by the hash of its sorted literals: the latest clause added
    /// with that hash, and each clause's previous one with the same hash. Made at the first
    /// deletion (`indexed` clauses so far), then kept as clauses come: a proof without
    /// deletions (the engine's) never pays for it.
    latest: HashMap<u64, u32, BuildHasherDefault<Passed>>,
    previous: Vec<u32>,
    indexed: bool,
    refuted: bool,
    scratch: Vec<i32>,
    sorted_scratch: Vec<i32>,
}

#[inline]
fn code(literal: i32) -> usize {
    2 * literal.unsigned_abs() as usize + usize::from(literal < 0)
}

/// A hash of sorted literals (FNV-1a over their bits): equal sets, equal hashes.
fn key(sorted: &[i32]) -> u64 {
    sorted.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &literal| {
        (hash ^ u64::from(literal as u32)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `clause` without repeated literals (first occurrences, in order) into `out`; false when
/// the clause is a tautology.
fn deduplicated(clause: &[i32], out: &mut Vec<i32>) -> bool {
    out.clear();
    for &literal in clause {
        if out.contains(&-literal) {
            return false;
        }
        if !out.contains(&literal) {
            out.push(literal);
        }
    }
    true
}

impl Rup {
    fn new() -> Self {
        Rup {
            values: vec![0, 0],
            trail: Vec::new(),
            head: 0,
            literals: Vec::new(),
            spans: Vec::new(),
            alive: Vec::new(),
            watches: vec![Vec::new(), Vec::new()],
            latest: HashMap::default(),
            previous: Vec::new(),
            indexed: false,
            refuted: false,
            scratch: Vec::new(),
            sorted_scratch: Vec::new(),
        }
    }

    fn grow(&mut self, literal: i32) {
        let size = 2 * literal.unsigned_abs() as usize + 2;
        if size > self.values.len() {
            self.values.resize(size, 0);
            self.watches.resize(size, Vec::new());
        }
    }

    #[inline]
    fn value(&self, literal: i32) -> i8 {
        self.values[code(literal)]
    }

    #[inline]
    fn assign(&mut self, literal: i32) {
        self.values[code(literal)] = 1;
        self.values[code(-literal)] = -1;
        self.trail.push(literal);
    }

    fn unassign(&mut self, literal: i32) {
        self.values[code(literal)] = 0;
        self.values[code(-literal)] = 0;
    }

    fn add(&mut self, clause: &[i32]) {
        let mut literals = std::mem::take(&mut self.scratch);
        for &literal in clause {
            self.grow(literal);
        }
        if !deduplicated(clause, &mut literals) {
            self.scratch = literals;
            return; // a tautology constrains nothing
        }
        let number = self.spans.len() as u32;
        if self.indexed {
            self.index(number, &literals);
        }
        self.alive.push(true);
        if !self.refuted {
            // Two literals that are not false first, when there are two (a stable order).
            let mut placed = 0;
            for index in 0..literals.len() {
                if self.value(literals[index]) != -1 {
                    literals[placed..=index].rotate_right(1);
                    placed += 1;
                }
            }
            if literals.is_empty() || self.value(literals[0]) == -1 {
                self.refuted = true;
            } else {
                let unit = literals.len() == 1 || self.value(literals[1]) == -1;
                if unit && self.value(literals[0]) == 0 {
                    self.assign(literals[0]);
                    if !self.propagate() {
                        self.refuted = true;
                    }
                }
                if literals.len() > 1 {
                    let (a, b) = (literals[0], literals[1]);
                    self.watches[code(a)].push(Watch {
                        clause: number,
                        blocker: b,
                    });
                    self.watches[code(b)].push(Watch {
                        clause: number,
                        blocker: a,
                    });
                }
            }
        }
        self.spans
            .push((self.literals.len() as u32, literals.len() as u32));
        self.literals.extend_from_slice(&literals);
        self.scratch = literals;
    }

    /// Enter clause `number` (its `literals`) in the deletion index.
    fn index(&mut self, number: u32, literals: &[i32]) {
        let mut sorted = std::mem::take(&mut self.sorted_scratch);
        sorted.clear();
        sorted.extend_from_slice(literals);
        sorted.sort_unstable();
        let hash = key(&sorted);
        self.sorted_scratch = sorted;
        self.previous
            .push(self.latest.insert(hash, number).unwrap_or(NONE));
    }

    /// Index every clause so far, in the order they came (the first deletion's work).
    fn index_all(&mut self) {
        self.indexed = true;
        for number in 0..self.spans.len() as u32 {
            let (start, length) = self.spans[number as usize];
            let literals = self.literals[start as usize..(start + length) as usize].to_vec();
            self.index(number, &literals);
        }
    }

    /// The literals of clause `number`, sorted.
    fn sorted(&self, number: u32) -> Vec<i32> {
        let (start, length) = self.spans[number as usize];
        let mut literals = self.literals[start as usize..(start + length) as usize].to_vec();
        literals.sort_unstable();
        literals
    }

    fn delete(&mut self, clause: &[i32]) {
        let mut literals = Vec::new();
        if !deduplicated(clause, &mut literals) || literals.len() < 2 {
            return; // unit clauses are kept; a tautology was never added
        }
        literals.sort_unstable();
        if !self.indexed {
            self.index_all();
        }
        let mut number = self.latest.get(&key(&literals)).copied().unwrap_or(NONE);
        while number != NONE {
            if self.alive[number as usize] && self.sorted(number) == literals {
                self.alive[number as usize] = false;
                return;
            }
            number = self.previous[number as usize];
        }
    }

    fn implied(&mut self, clause: &[i32]) -> bool {
        if self.refuted {
            return true;
        }
        for &literal in clause {
            self.grow(literal);
        }
        let mark = self.trail.len();
        let mut conflict = false;
        for &literal in clause {
            match self.value(literal) {
                1 => {
                    conflict = true; // already satisfied at the top level
                    break;
                }
                0 => self.assign(-literal),
                _ => {}
            }
        }
        if !conflict {
            conflict = !self.propagate();
        }
        for index in mark..self.trail.len() {
            let literal = self.trail[index];
            self.unassign(literal);
        }
        self.trail.truncate(mark);
        self.head = mark;
        conflict
    }

    /// Unit propagation from `head`; false on a conflict.
    fn propagate(&mut self) -> bool {
        while self.head < self.trail.len() {
            let false_literal = -self.trail[self.head];
            self.head += 1;
            let mut watching = std::mem::take(&mut self.watches[code(false_literal)]);
            let (mut read, mut kept) = (0, 0);
            let mut conflict = false;
            while read < watching.len() {
                let watch = watching[read];
                read += 1;
                if !self.alive[watch.clause as usize] {
                    continue; // deleted: the watch goes too
                }
                if self.values[code(watch.blocker)] == 1 {
                    watching[kept] = watch;
                    kept += 1;
                    continue;
                }
                let (start, length) = self.spans[watch.clause as usize];
                let (start, end) = (start as usize, (start + length) as usize);
                let clause = &mut self.literals[start..end];
                if clause[0] == false_literal {
                    clause.swap(0, 1);
                }
                let other = clause[0];
                let other_value = self.values[code(other)];
                if other_value == 1 {
                    watching[kept] = Watch {
                        clause: watch.clause,
                        blocker: other,
                    };
                    kept += 1;
                    continue;
                }
                let mut moved = None;
                for index in 2..clause.len() {
                    if self.values[code(clause[index])] != -1 {
                        clause.swap(1, index);
                        moved = Some(clause[1]);
                        break;
                    }
                }
                if let Some(new_watch) = moved {
                    self.watches[code(new_watch)].push(Watch {
                        clause: watch.clause,
                        blocker: other,
                    });
                    continue;
                }
                watching[kept] = Watch {
                    clause: watch.clause,
                    blocker: other,
                };
                kept += 1;
                if other_value == -1 {
                    conflict = true;
                    break;
                }
                self.assign(other);
            }
            // Keep the watches not yet read after a conflict.
            while read < watching.len() {
                watching[kept] = watching[read];
                kept += 1;
                read += 1;
            }
            watching.truncate(kept);
            self.watches[code(false_literal)] = watching;
            if conflict {
                return false;
            }
        }
        true
    }
}

/// Lines of a text read between two looks at the clock.
const CLOCK_EVERY: usize = 65_536;

/// Check `proof` (DRUP text: a lemma `l1 l2 0`, a deletion `d l1 l2 0`, comments `c ...`)
/// against the CNF `dimacs` (its text), until the empty clause; gives up at `deadline`
/// (reading a large CNF included). Err: why the CNF cannot be read.
pub fn check(dimacs: &str, proof: &str, deadline: Option<Instant>) -> Result<Checked, String> {
    let mut rup = Rup::new();
    if !load(&mut rup, dimacs, deadline)? {
        return Ok(Checked {
            reason: "timeout while the CNF was read".to_string(),
            steps: 0,
        });
    }
    Ok(check_proof(&mut rup, proof, deadline))
}

/// The clauses of a DIMACS text (comments and the `p cnf` line skipped) added to `rup` as
/// they are read; false when `deadline` passed first, Err when the text is not a CNF.
fn load(rup: &mut Rup, text: &str, deadline: Option<Instant>) -> Result<bool, String> {
    let mut clause = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        if index % CLOCK_EVERY == 0 && deadline.is_some_and(|at| Instant::now() >= at) {
            return Ok(false);
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with('c') || line.starts_with('p') {
            continue;
        }
        for word in line.split_whitespace() {
            match word.parse::<i32>() {
                Ok(0) => {
                    rup.add(&clause);
                    clause.clear();
                }
                Ok(literal) if literal != i32::MIN => clause.push(literal),
                _ => return Err(format!("CNF line {}: not a clause", index + 1)),
            }
        }
    }
    if !clause.is_empty() {
        return Err("the CNF's last clause does not end with 0".to_string());
    }
    Ok(true)
}

/// `proof` checked against the clauses in `rup`.
fn check_proof(rup: &mut Rup, proof: &str, deadline: Option<Instant>) -> Checked {
    let mut steps = 0;
    for (index, line) in proof.split('\n').enumerate() {
        let number = index + 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() || words[0] == "c" {
            continue;
        }
        if number % 256 == 0 && deadline.is_some_and(|at| Instant::now() >= at) {
            return Checked {
                reason: format!("timeout at proof line {number}"),
                steps,
            };
        }
        let deleting = words[0] == "d";
        let mut literals = Vec::with_capacity(words.len());
        for word in &words[usize::from(deleting)..] {
            match word.parse::<i32>() {
                Ok(literal) if literal != i32::MIN => literals.push(literal),
                _ => {
                    return Checked {
                        reason: format!("proof line {number}: not a clause"),
                        steps,
                    };
                }
            }
        }
        if literals.last() != Some(&0) || literals[..literals.len() - 1].contains(&0) {
            let reason = format!("proof line {number}: a clause must end with one 0");
            return Checked { reason, steps };
        }
        let clause = &literals[..literals.len() - 1];
        if deleting {
            rup.delete(clause);
            continue;
        }
        steps += 1;
        if !rup.implied(clause) {
            let reason = format!(
                "proof line {number}: lemma {} is not implied (RUP)",
                words.join(" ")
            );
            return Checked { reason, steps };
        }
        if clause.is_empty() {
            return Checked {
                reason: String::new(),
                steps,
            };
        }
        rup.add(clause);
    }
    Checked {
        reason: "the proof does not derive the empty clause".to_string(),
        steps,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::Checked;

    const UNSAT: &str = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n";

    fn check(dimacs: &str, proof: &str) -> Checked {
        super::check(dimacs, proof, None).unwrap()
    }

    #[test]
    fn dimacs_is_read_clause_by_clause() {
        // A clause may run over lines; comments and the header are skipped.
        let text = "c a comment\np cnf 2 2\n1 -2 0\n2\n0\n";
        assert!(check(text, "0\n").reason.starts_with("proof line 1")); // no empty clause read
        let implied = check(text, "1 0\n"); // 1 follows from (1 or -2) and 2
        assert_eq!(implied.reason, "the proof does not derive the empty clause");
        assert!(super::check("1 2\n", "0\n", None).is_err());
        assert!(super::check("1 x 0\n", "0\n", None).is_err());
    }

    #[test]
    fn a_proof_of_the_four_clauses_is_verified() {
        let checked = check(UNSAT, "2 0\n0\n");
        assert_eq!((checked.reason.as_str(), checked.steps), ("", 2));
    }

    #[test]
    fn an_empty_clause_alone_is_not_implied() {
        assert!(check(UNSAT, "0\n").reason.starts_with("proof line 1"));
        assert!(check("1 2 0\n", "1 0\n0\n").reason.contains("not implied"));
    }

    #[test]
    fn deletions_keep_what_was_implied() {
        assert_eq!(check(UNSAT, "2 0\nd -1 2 0\nd 1 2 0\n0\n").reason, "");
    }

    #[test]
    fn a_truncated_or_garbled_proof_is_rejected() {
        assert_eq!(
            check(UNSAT, "2 0\n").reason,
            "the proof does not derive the empty clause"
        );
        assert!(check(UNSAT, "1 x 0\n").reason.contains("not a clause"));
        assert!(check(UNSAT, "1 2\n").reason.contains("end with one 0"));
    }

    #[test]
    fn a_passed_deadline_stops_the_reading() {
        let checked = super::check(UNSAT, "0\n", Some(Instant::now())).unwrap();
        assert_eq!(checked.reason, "timeout while the CNF was read");
    }
}
