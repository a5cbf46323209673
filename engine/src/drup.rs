//! Checking DRUP proofs by reverse unit propagation, for satnono's certificates (the Python
//! checker in `satnono/proofcheck.py` is the reference this one is held to). A lemma is
//! accepted when unit propagation on the clauses so far refutes its negation; a deletion
//! removes one copy of a clause (unit clauses are kept, as drat-trim keeps them). The top
//! level only grows: a literal a deleted clause implied stays implied by the formula, so
//! keeping it is sound. Shares nothing with the line solver or any SAT solver.

use std::collections::HashMap;
use std::time::Instant;

/// What a check found: `reason` is empty when the proof derives the empty clause.
pub struct Checked {
    pub reason: String,
    pub steps: usize,
}

struct Rup {
    /// Per variable: 0 unassigned, 1 true, -1 false.
    values: Vec<i8>,
    trail: Vec<i32>,
    head: usize,
    clauses: Vec<Vec<i32>>,
    alive: Vec<bool>,
    /// Per literal code (see `code`): the clauses watching that literal.
    watches: Vec<Vec<u32>>,
    by_key: HashMap<Vec<i32>, Vec<u32>>,
    refuted: bool,
}

fn code(literal: i32) -> usize {
    2 * literal.unsigned_abs() as usize + usize::from(literal < 0)
}

impl Rup {
    fn new() -> Self {
        Rup {
            values: vec![0],
            trail: Vec::new(),
            head: 0,
            clauses: Vec::new(),
            alive: Vec::new(),
            watches: vec![Vec::new(), Vec::new()],
            by_key: HashMap::new(),
            refuted: false,
        }
    }

    fn grow(&mut self, literal: i32) {
        let variable = literal.unsigned_abs() as usize;
        if variable >= self.values.len() {
            self.values.resize(variable + 1, 0);
            self.watches.resize(2 * variable + 2, Vec::new());
        }
    }

    fn value(&self, literal: i32) -> i8 {
        let value = self.values[literal.unsigned_abs() as usize];
        if literal > 0 {
            value
        } else {
            -value
        }
    }

    fn assign(&mut self, literal: i32) {
        self.values[literal.unsigned_abs() as usize] = if literal > 0 { 1 } else { -1 };
        self.trail.push(literal);
    }

    fn add(&mut self, clause: &[i32]) {
        let mut literals: Vec<i32> = Vec::with_capacity(clause.len());
        for &literal in clause {
            self.grow(literal);
            if !literals.contains(&literal) {
                literals.push(literal);
            }
        }
        if literals.iter().any(|&literal| literals.contains(&-literal)) {
            return; // a tautology constrains nothing
        }
        let number = self.clauses.len() as u32;
        let mut key = literals.clone();
        key.sort_unstable();
        self.by_key.entry(key).or_default().push(number);
        self.alive.push(true);
        if self.refuted {
            self.clauses.push(literals);
            return;
        }
        // Watch two literals that are not false, when there are two (a stable order).
        let values: Vec<bool> = literals.iter().map(|&l| self.value(l) == -1).collect();
        let mut order: Vec<usize> = (0..literals.len()).collect();
        order.sort_by_key(|&index| values[index]);
        let literals: Vec<i32> = order.iter().map(|&index| literals[index]).collect();
        if literals.is_empty() || self.value(literals[0]) == -1 {
            self.refuted = true;
            self.clauses.push(literals);
            return;
        }
        if (literals.len() == 1 || self.value(literals[1]) == -1) && self.value(literals[0]) == 0 {
            self.assign(literals[0]);
            if !self.propagate() {
                self.refuted = true;
            }
        }
        if literals.len() > 1 {
            self.watches[code(literals[0])].push(number);
            self.watches[code(literals[1])].push(number);
        }
        self.clauses.push(literals);
    }

    fn delete(&mut self, clause: &[i32]) {
        let mut key: Vec<i32> = Vec::with_capacity(clause.len());
        for &literal in clause {
            if !key.contains(&literal) {
                key.push(literal);
            }
        }
        key.sort_unstable();
        if key.len() > 1 {
            if let Some(copies) = self.by_key.get_mut(&key) {
                if let Some(number) = copies.pop() {
                    self.alive[number as usize] = false;
                }
            }
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
            self.values[literal.unsigned_abs() as usize] = 0;
        }
        self.trail.truncate(mark);
        self.head = mark;
        conflict
    }

    fn propagate(&mut self) -> bool {
        while self.head < self.trail.len() {
            let false_literal = -self.trail[self.head];
            self.head += 1;
            let watching = std::mem::take(&mut self.watches[code(false_literal)]);
            let mut kept: Vec<u32> = Vec::with_capacity(watching.len());
            let mut position = 0;
            while position < watching.len() {
                let number = watching[position];
                position += 1;
                if !self.alive[number as usize] {
                    continue;
                }
                let clause = &mut self.clauses[number as usize];
                if clause[0] == false_literal {
                    clause.swap(0, 1);
                }
                let other = clause[0];
                let other_value = {
                    let value = self.values[other.unsigned_abs() as usize];
                    if other > 0 {
                        value
                    } else {
                        -value
                    }
                };
                if other_value == 1 {
                    kept.push(number);
                    continue;
                }
                let mut moved = None;
                for index in 2..clause.len() {
                    let literal = clause[index];
                    let value = self.values[literal.unsigned_abs() as usize];
                    let value = if literal > 0 { value } else { -value };
                    if value != -1 {
                        clause.swap(1, index);
                        moved = Some(clause[1]);
                        break;
                    }
                }
                if let Some(new_watch) = moved {
                    self.watches[code(new_watch)].push(number);
                    continue;
                }
                kept.push(number);
                if other_value == -1 {
                    kept.extend_from_slice(&watching[position..]);
                    self.watches[code(false_literal)] = kept;
                    return false;
                }
                self.assign(other);
            }
            self.watches[code(false_literal)] = kept;
        }
        true
    }
}

/// The clauses of a DIMACS text (comments and the `p cnf` line skipped), or why not.
pub fn parse_dimacs(text: &str) -> Result<Vec<Vec<i32>>, String> {
    let mut clauses = Vec::new();
    let mut clause = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('c') || line.starts_with('p') {
            continue;
        }
        for word in line.split_whitespace() {
            match word.parse::<i32>() {
                Ok(0) => clauses.push(std::mem::take(&mut clause)),
                Ok(literal) if literal != i32::MIN => clause.push(literal),
                _ => return Err(format!("CNF line {}: not a clause", index + 1)),
            }
        }
    }
    if !clause.is_empty() {
        return Err("the CNF's last clause does not end with 0".to_string());
    }
    Ok(clauses)
}

/// Check `proof` (DRUP text: a lemma `l1 l2 0`, a deletion `d l1 l2 0`, comments `c ...`)
/// against `clauses`, until the empty clause; gives up at `deadline`.
pub fn check(clauses: &[Vec<i32>], proof: &str, deadline: Option<Instant>) -> Checked {
    let mut rup = Rup::new();
    for clause in clauses {
        rup.add(clause);
    }
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
    use super::check;

    fn unsat() -> Vec<Vec<i32>> {
        vec![vec![1, 2], vec![-1, 2], vec![1, -2], vec![-1, -2]]
    }

    #[test]
    fn dimacs_is_read_clause_by_clause() {
        let text = "c a comment\np cnf 2 2\n1 -2 0\n2\n0\n";
        assert_eq!(super::parse_dimacs(text), Ok(vec![vec![1, -2], vec![2]]));
        assert!(super::parse_dimacs("1 2\n").is_err());
        assert!(super::parse_dimacs("1 x 0\n").is_err());
    }

    #[test]
    fn a_proof_of_the_four_clauses_is_verified() {
        let checked = check(&unsat(), "2 0\n0\n", None);
        assert_eq!((checked.reason.as_str(), checked.steps), ("", 2));
    }

    #[test]
    fn an_empty_clause_alone_is_not_implied() {
        assert!(check(&unsat(), "0\n", None)
            .reason
            .starts_with("proof line 1"));
        assert!(check(&[vec![1, 2]], "1 0\n0\n", None)
            .reason
            .contains("not implied"));
    }

    #[test]
    fn deletions_keep_what_was_implied() {
        let checked = check(&unsat(), "2 0\nd -1 2 0\nd 1 2 0\n0\n", None);
        assert_eq!(checked.reason, "");
    }

    #[test]
    fn a_truncated_or_garbled_proof_is_rejected() {
        assert_eq!(
            check(&unsat(), "2 0\n", None).reason,
            "the proof does not derive the empty clause"
        );
        assert!(check(&unsat(), "1 x 0\n", None)
            .reason
            .contains("not a clause"));
        assert!(check(&unsat(), "1 2\n", None)
            .reason
            .contains("end with one 0"));
    }
}
