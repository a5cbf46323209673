//! The clause database of the proof checker (`drup`): clauses under unit propagation with
//! two watched literals, at a top level that only grows, and deletion by content. Shares
//! nothing with the line solver or any SAT solver.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
pub struct Rup {
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
    /// Per literal code: seen in the clause being deduplicated (all false in between).
    seen: Vec<bool>,
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

impl Rup {
    pub fn new() -> Self {
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
            seen: vec![false, false],
        }
    }

    /// `clause` without repeated literals (first occurrences, in order) into `out`, in time
    /// linear in the clause (a lemma may have a million literals); false when the clause is
    /// a tautology. Its literals must have been grown for.
    fn deduplicated(&mut self, clause: &[i32], out: &mut Vec<i32>) -> bool {
        out.clear();
        let mut tautology = false;
        for &literal in clause {
            if self.seen[code(-literal)] {
                tautology = true;
                break;
            }
            if !self.seen[code(literal)] {
                self.seen[code(literal)] = true;
                out.push(literal);
            }
        }
        for &literal in out.iter() {
            self.seen[code(literal)] = false;
        }
        !tautology
    }

    fn grow(&mut self, literal: i32) {
        let size = 2 * literal.unsigned_abs() as usize + 2;
        if size > self.values.len() {
            self.values.resize(size, 0);
            self.watches.resize(size, Vec::new());
            self.seen.resize(size, false);
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

    pub fn add(&mut self, clause: &[i32]) {
        let mut literals = std::mem::take(&mut self.scratch);
        for &literal in clause {
            self.grow(literal);
        }
        if !self.deduplicated(clause, &mut literals) {
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

    pub fn delete(&mut self, clause: &[i32]) {
        for &literal in clause {
            self.grow(literal);
        }
        let mut literals = Vec::new();
        if !self.deduplicated(clause, &mut literals) || literals.len() < 2 {
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

    pub fn implied(&mut self, clause: &[i32]) -> bool {
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
