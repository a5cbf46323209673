//! Checking DRUP proofs by reverse unit propagation, for satnono's certificates (the Python
//! checker in `satnono/proof/check.py` is the reference this one is held to). A lemma is
//! accepted when unit propagation on the clauses so far refutes its negation; a deletion
//! removes one copy of a clause (unit clauses are kept, as drat-trim keeps them). The top
//! level only grows: a literal a deleted clause implied stays implied by the formula, so
//! keeping it is sound. Shares nothing with the line solver or any SAT solver.

use std::time::Instant;

use crate::rup::Rup;

/// What a check found: `reason` is empty when the proof derives the empty clause.
pub struct Checked {
    pub reason: String,
    pub steps: usize,
}

/// Lines of a text, or literals of one line, read between two looks at the clock.
const CLOCK_EVERY: usize = 65_536;

/// Literals of a rejected lemma quoted in the reason, at most.
const QUOTED: usize = 12;

/// Check `proof` (DRUP text: a lemma `l1 l2 0`, a deletion `d l1 l2 0`, comments `c ...`)
/// against the CNF `dimacs` (its text), until the empty clause; gives up at `deadline`
/// (reading a large CNF included). Err: why the CNF cannot be read.
pub fn check(dimacs: &str, proof: &str, deadline: Option<Instant>) -> Result<Checked, String> {
    let mut rup = Rup::new();
    let Some(variables) = load(&mut rup, dimacs, deadline)? else {
        return Ok(Checked {
            reason: "timeout while the CNF was read".to_string(),
            steps: 0,
        });
    };
    Ok(check_proof(&mut rup, variables, proof, deadline))
}

/// The clauses of a DIMACS text (comments skipped) added to `rup` as they are read, with
/// its number of variables (the `p cnf` line's, which every literal must keep to; the
/// largest variable without one); None when `deadline` passed first, Err when the text is
/// not a CNF.
fn load(rup: &mut Rup, text: &str, deadline: Option<Instant>) -> Result<Option<u32>, String> {
    let mut clause = Vec::new();
    let mut header: Option<u32> = None;
    let mut largest = 0;
    for (index, line) in text.split('\n').enumerate() {
        if index % CLOCK_EVERY == 0 && deadline.is_some_and(|at| Instant::now() >= at) {
            return Ok(None);
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with('c') {
            continue;
        }
        if line.starts_with('p') {
            let words: Vec<&str> = line.split_whitespace().collect();
            match (words.as_slice(), header) {
                (["p", "cnf", variables, _], None) => match variables.parse::<i32>() {
                    Ok(count) if count >= 0 => header = Some(count as u32),
                    _ => return Err(format!("CNF line {}: a bad header", index + 1)),
                },
                _ => return Err(format!("CNF line {}: a bad header", index + 1)),
            }
            continue;
        }
        for word in line.split_whitespace() {
            match word.parse::<i32>() {
                Ok(0) => {
                    rup.add(&clause);
                    clause.clear();
                }
                Ok(literal) if literal != i32::MIN => {
                    let variable = literal.unsigned_abs();
                    if header.is_some_and(|count| variable > count) {
                        return Err(format!(
                            "CNF line {}: literal {literal} past the header's variables",
                            index + 1
                        ));
                    }
                    largest = largest.max(variable);
                    clause.push(literal);
                }
                _ => return Err(format!("CNF line {}: not a clause", index + 1)),
            }
        }
    }
    if !clause.is_empty() {
        return Err("the CNF's last clause does not end with 0".to_string());
    }
    Ok(Some(header.unwrap_or(largest)))
}

/// A lemma as the reason quotes it: its first literals, then how many more.
fn quoted(clause: &[i32]) -> String {
    let mut text: Vec<String> = clause.iter().take(QUOTED).map(i32::to_string).collect();
    if clause.len() > QUOTED {
        text.push(format!("... ({} literals in all)", clause.len()));
    }
    text.push("0".to_string());
    text.join(" ")
}

/// `proof` checked against the clauses in `rup`, over `variables` variables: a literal
/// past them is refused before it is looked at (a lemma `2147483647 0` would otherwise size
/// the tables for two billion variables), and the clock is read inside long lines too.
fn check_proof(rup: &mut Rup, variables: u32, proof: &str, deadline: Option<Instant>) -> Checked {
    let mut steps = 0;
    let passed = || deadline.is_some_and(|at| Instant::now() >= at);
    let mut literals: Vec<i32> = Vec::new();
    for (index, line) in proof.split('\n').enumerate() {
        let number = index + 1;
        let timeout = || Checked {
            reason: format!("timeout at proof line {number}"),
            steps,
        };
        if number % 256 == 0 && passed() {
            return timeout();
        }
        let mut words = line.split_whitespace().peekable();
        let deleting = match words.peek() {
            None | Some(&"c") => continue,
            Some(&"d") => {
                words.next();
                true
            }
            Some(_) => false,
        };
        literals.clear();
        for (read, word) in words.enumerate() {
            if read % CLOCK_EVERY == CLOCK_EVERY - 1 && passed() {
                return timeout();
            }
            match word.parse::<i32>() {
                Ok(literal) if literal.unsigned_abs() <= variables => literals.push(literal),
                Ok(literal) => {
                    let reason = format!(
                        "proof line {number}: literal {literal} is not a variable of the CNF \
                         (1 to {variables})"
                    );
                    return Checked { reason, steps };
                }
                Err(_) => {
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
                quoted(clause)
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
    fn a_literal_past_the_cnf_is_refused_before_any_table_grows() {
        // Found by an audit: `2147483647 0` asked for 103 GB and aborted the process.
        let checked = check(UNSAT, "2147483647 0\n0\n");
        assert!(checked
            .reason
            .contains("not a variable of the CNF (1 to 2)"));
        assert!(check(UNSAT, "d -3 0\n").reason.contains("not a variable"));
        assert!(super::check("p cnf 1 1\n2 0\n", "0\n", None).is_err());
    }

    #[test]
    fn a_lemma_of_a_million_literals_is_checked_in_linear_time() {
        // Found by an audit: removing repeated literals was quadratic (51 s past a deadline).
        let variables = 1_000_000;
        let dimacs = format!("p cnf {variables} 1\n1 2 0\n");
        let lemma: String = (1..=variables).map(|v| format!("{v} ")).collect();
        let started = Instant::now();
        let proof = format!("{lemma}0\nd {lemma}0\n{lemma}{lemma}0\n");
        let checked = super::check(&dimacs, &proof, None).unwrap();
        assert_eq!(checked.reason, "the proof does not derive the empty clause");
        assert!(started.elapsed().as_secs_f64() < 5.0);
        let rejected = check("p cnf 2 1\n1 2 0\n", &format!("{}0\n", "-1 ".repeat(14)));
        assert!(
            rejected.reason.contains("(14 literals in all)"),
            "{}",
            rejected.reason
        );
    }

    #[test]
    fn a_passed_deadline_stops_the_reading() {
        let checked = super::check(UNSAT, "0\n", Some(Instant::now())).unwrap();
        assert_eq!(checked.reason, "timeout while the CNF was read");
    }
}
