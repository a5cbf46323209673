//! The counting search: branch on a cell, propagate, split what is left into independent
//! components (their counts multiply), and remember every component's count by a key of
//! what it depends on, so that a sub-problem met again costs a lookup.
//!
//! This is the scheme of the exact model counters (component caching: Bacchus, Dalmao and
//! Pitassi 2003; sharpSAT, Thurley 2006), on the nonogram's own terms: propagation is the
//! exact line solver; components are joined by unsplit stretches of lines (`segments`), which
//! cuts far finer than lines do; and a component's key is its stretches (line, ends, first
//! live state, last live states) with their cells' colors, which is all its count depends on.
//! Cells are taken in sweep order (row by row, or column by column when the component is
//! wider than tall), so that the sub-problems left are the rows not yet reached with the
//! columns' states where the sweep stands: they repeat, as in a dynamic program over rows, and
//! the cache finds them.

use crate::bits::Bits;
use crate::clue::Puzzle;
use crate::count::lines::Lines;
use crate::count::number::Count;
use crate::count::store::{FastMap, Store};
use crate::count::Control;
use crate::probe::{Limits, Prober, Sweep};
use crate::propagate::{Board, Outcome};

/// Nodes between two looks at the clock and the stop flag.
const LOOK_EVERY: u64 = 64;

/// What a component's count came to: exact, or a lower bound made of the branches counted to
/// the end when the search was stopped.
pub struct Partial {
    pub count: Count,
    pub exact: bool,
}

impl Partial {
    fn exact(count: Count) -> Self {
        Self { count, exact: true }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub nodes: u64,
    pub hits: u64,
    pub conflicts: u64,
}

/// A component's branch cell and its colors' numbers of solutions (those with any).
pub type Weighed = (usize, Vec<(u32, Count)>);

pub struct Counter<'a, const W: usize> {
    puzzle: &'a Puzzle,
    pub board: Board<W>,
    pub lines: Lines<W>,
    pub store: Store,
    control: &'a Control,
    /// Union-find over cells (indexed by cell).
    parent: Vec<u32>,
    /// (line, position along it, cell) for the cells of a component, sorted: scratch.
    spots: Vec<(u32, u32, u32)>,
    /// Per column, where its spots go (scratch of `fill_spots`).
    column_starts: Vec<u32>,
    /// Per cell: the index of its component while `components` groups them (u32::MAX).
    group_of: Vec<u32>,
    key: Vec<u8>,
    prober: Prober<W>,
    probe_cells: Vec<usize>,
    /// Components of at least this many cells are probed before a branch.
    pub probe_from: usize,
    /// For sampling: each component's branch cell and its colors' weights, by its key.
    pub branches: FastMap<Box<[u8]>, Weighed>,
    pub stats: Stats,
    stopped: bool,
    by_columns: bool,
}

/// The bytes of a count's budget its lines' analyses may hold: an eighth, at most 256 MB
/// (Lion's counting search held 186 MB of them after 20 s, its lines 47 cells long).
pub fn lines_share(budget: usize) -> usize {
    (budget / 8).min(256 << 20)
}

impl<'a, const W: usize> Counter<'a, W> {
    /// A counter keeping within `budget` bytes: its lines' analyses within a share of them
    /// (`lines_share`), its store of counts within the rest.
    pub fn new(puzzle: &'a Puzzle, board: Board<W>, budget: usize, control: &'a Control) -> Self {
        let share = lines_share(budget);
        Self {
            puzzle,
            board,
            lines: Lines::new(puzzle, share),
            store: Store::new(budget - share),
            control,
            parent: vec![0; puzzle.cells()],
            spots: Vec::new(),
            column_starts: Vec::new(),
            group_of: vec![u32::MAX; puzzle.cells()],
            key: Vec::new(),
            prober: {
                let mut prober = Prober::new(puzzle);
                prober.exclude = false;
                prober.logging = true;
                prober
            },
            probe_cells: Vec::new(),
            probe_from: usize::MAX,
            branches: FastMap::default(),
            stats: Stats::default(),
            stopped: false,
            by_columns: false,
        }
    }

    pub fn puzzle(&self) -> &'a Puzzle {
        self.puzzle
    }

    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// `spots`: (line, position along it, cell) for every cell of `cells` (sorted row by
    /// row) in its row and in its column, in line order then position, without a sort: the
    /// rows come in order as they are, the columns by a counting sort on the column.
    fn fill_spots(&mut self, cells: &[u32]) {
        let (width, height) = (self.puzzle.width, self.puzzle.height);
        self.spots.clear();
        for &cell in cells {
            let c = cell as usize;
            self.spots
                .push(((c / width) as u32, (c % width) as u32, cell));
        }
        self.column_starts.clear();
        self.column_starts.resize(width + 1, 0);
        for &cell in cells {
            self.column_starts[cell as usize % width + 1] += 1;
        }
        for x in 0..width {
            self.column_starts[x + 1] += self.column_starts[x];
        }
        let base = self.spots.len();
        self.spots.resize(base + cells.len(), (0, 0, 0));
        for &cell in cells {
            let c = cell as usize;
            let x = c % width;
            let at = base + self.column_starts[x] as usize;
            self.column_starts[x] += 1;
            self.spots[at] = ((height + x) as u32, (c / width) as u32, cell);
        }
    }

    #[inline]
    fn undecided(&self, cell: usize) -> bool {
        !self.board.grid.decided(self.puzzle, cell)
    }

    /// The cells of `cells` left undecided, grouped into independent components (each sorted,
    /// the smallest component first).
    pub fn components(&mut self, cells: &[u32]) -> Vec<Vec<u32>> {
        let left: Vec<u32> = cells
            .iter()
            .copied()
            .filter(|&cell| self.undecided(cell as usize))
            .collect();
        for &cell in &left {
            self.parent[cell as usize] = cell;
        }
        self.fill_spots(&left);
        let spots = std::mem::take(&mut self.spots);
        for (line, run) in line_runs(&spots) {
            if let Some(analysis) = self.lines.analysis(self.puzzle, &self.board.grid, line) {
                for pair in spots[run].windows(2) {
                    if analysis.joined(pair[0].1 as usize, pair[1].1 as usize) {
                        union(&mut self.parent, pair[0].2, pair[1].2);
                    }
                }
            }
        }
        self.spots = spots;
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for &cell in &left {
            let root = find(&mut self.parent, cell) as usize;
            if self.group_of[root] == u32::MAX {
                self.group_of[root] = groups.len() as u32;
                groups.push(Vec::new());
            }
            groups[self.group_of[root] as usize].push(cell);
        }
        for &cell in &left {
            self.group_of[cell as usize] = u32::MAX;
        }
        groups.sort_by_key(Vec::len);
        groups
    }

    /// The key of a component: for each stretch of a line its cells lie on (line order,
    /// then position), the line, the stretch's ends, its first live state and its last live
    /// states, then its cells' colors.
    fn build_key(&mut self, cells: &[u32]) {
        self.fill_spots(cells);
        let spots = std::mem::take(&mut self.spots);
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        for (line, run) in line_runs(&spots) {
            let (start, end) = (run.start, run.end);
            let Some(analysis) = self.lines.analysis(self.puzzle, &self.board.grid, line) else {
                continue;
            };
            let mut first = start;
            while first < end {
                let mut last = first;
                while last + 1 < end
                    && analysis.joined(spots[last].1 as usize, spots[last + 1].1 as usize)
                {
                    last += 1;
                }
                let (a, b) = (spots[first].1 as usize, spots[last].1 as usize + 1);
                key.extend_from_slice(&(line as u16).to_le_bytes());
                key.extend_from_slice(&(a as u16).to_le_bytes());
                key.extend_from_slice(&(b as u16).to_le_bytes());
                key.extend_from_slice(&analysis.live(a)[0].to_le_bytes());
                let ends = analysis.live(b);
                key.extend_from_slice(&(ends.len() as u16).to_le_bytes());
                for state in ends {
                    key.extend_from_slice(&state.to_le_bytes());
                }
                // The cells' colors: each of the line's colors' set of cells, a..b.
                let state = self.board.grid.line(line);
                for &color in &self.puzzle.line_colors[line] {
                    push_bits(&mut key, state[usize::from(color)], a, b);
                }
                first = last + 1;
            }
        }
        self.spots = spots;
        self.key = key;
    }

    /// The cell to branch on: the first of the component in the sweep order.
    pub fn pick(&self, cells: &[u32]) -> usize {
        if !self.by_columns {
            return cells[0] as usize; // sorted row by row
        }
        let width = self.puzzle.width;
        cells
            .iter()
            .map(|&cell| cell as usize)
            .min_by_key(|&cell| (cell % width, cell / width))
            .unwrap_or(cells[0] as usize)
    }

    pub fn by_columns(&self) -> bool {
        self.by_columns
    }

    /// Sweep the component column by column when it is wider than it is tall (the rows'
    /// states are then the narrower frontier), else row by row; its sub-components keep the
    /// direction, so that the sub-problems the sweep leaves behind repeat.
    pub fn choose_direction(&mut self, cells: &[u32]) {
        let width = self.puzzle.width;
        let (mut x0, mut x1, mut y0, mut y1) = (usize::MAX, 0, usize::MAX, 0);
        for &cell in cells {
            let (x, y) = (cell as usize % width, cell as usize / width);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        self.by_columns = x1.saturating_sub(x0) > y1.saturating_sub(y0);
    }

    /// Publish the progress and look at the clock and the stop flag every so many nodes:
    /// whether to stop.
    pub fn look_now(&mut self) -> bool {
        self.look()
    }

    /// The key of a component (see `build_key`).
    pub fn key_of(&mut self, cells: &[u32]) -> &[u8] {
        self.build_key(cells);
        &self.key
    }

    fn look(&mut self) -> bool {
        if self.stats.nodes.is_multiple_of(LOOK_EVERY) {
            self.control.publish(&self.stats, self.store.len());
            if self.control.should_stop() {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Count one component: its cells (sorted, all undecided) and nothing outside it.
    pub fn component(&mut self, cells: &[u32]) -> Partial {
        if self.stopped || self.look() {
            return Partial {
                count: Count::ZERO,
                exact: false,
            };
        }
        self.stats.nodes += 1;
        self.build_key(cells);
        if let Some(count) = self.store.get(&self.key) {
            self.stats.hits += 1;
            return Partial::exact(count.clone());
        }
        let key: Box<[u8]> = self.key.as_slice().into();
        if cells.len() >= self.probe_from {
            if let Some(probed) = self.probed(cells) {
                if probed.exact {
                    self.store.put(key, probed.count.clone());
                }
                return probed;
            }
        }
        let cell = self.pick(cells);
        let total = match self.branch_counts(cells, cell) {
            Ok(weights) => weights.iter().fold(Count::ZERO, |mut sum, (_, count)| {
                sum.add(count);
                sum
            }),
            Err(counted) => {
                return Partial {
                    count: counted,
                    exact: false,
                }
            }
        };
        self.store.put(key, total.clone());
        Partial::exact(total)
    }

    /// Each color of `cell` with the number of the component's solutions that give it that
    /// color (colors with none left out), each branch propagated and split into components;
    /// when the search is stopped part-way, Err with what the branches counted so far add up
    /// to (a lower bound).
    pub fn branch_counts(
        &mut self,
        cells: &[u32],
        cell: usize,
    ) -> Result<Vec<(u32, Count)>, Count> {
        let domain = self.board.grid.domain(self.puzzle, cell);
        let mut weights: Vec<(u32, Count)> = Vec::new();
        let mut counted = Count::ZERO;
        let mut left = domain;
        while left != 0 {
            let color = left.trailing_zeros();
            left &= left - 1;
            let mark = self.board.mark();
            self.board.grid.clock += 1;
            self.board.assign(self.puzzle, cell, 1u128 << color);
            if self.board.propagate(self.puzzle, None) == Outcome::Fixpoint {
                let parts = self.components(cells);
                let branch = self.product(&parts);
                counted.add(&branch.count);
                if !branch.exact {
                    self.board.undo(mark);
                    return Err(counted);
                }
                if !branch.count.is_zero() {
                    weights.push((color, branch.count));
                }
            } else {
                self.stats.conflicts += 1;
            }
            self.board.undo(mark);
        }
        Ok(weights)
    }

    /// Probe the component's cells to the fixpoint: None when that changes nothing, else the
    /// count of what it leaves (zero after a contradiction).
    fn probed(&mut self, cells: &[u32]) -> Option<Partial> {
        let mark = self.board.mark();
        let log = self.prober.mark();
        self.board.grid.clock += 1;
        let known = self.board.grid.known;
        self.probe_cells.clear();
        self.probe_cells
            .extend(cells.iter().map(|&cell| cell as usize));
        let sweep = self.prober.sweep(
            self.puzzle,
            &mut self.board,
            &self.probe_cells,
            usize::MAX,
            Limits::default(),
        );
        let result = match sweep {
            Sweep::Conflict => {
                self.stats.conflicts += 1;
                Some(Partial::exact(Count::ZERO))
            }
            _ if self.board.grid.known == known => None,
            _ => {
                let parts = self.components(cells);
                Some(self.product(&parts))
            }
        };
        self.board.undo(mark);
        self.prober.rewind(log);
        result
    }

    /// The product of independent components' counts. When the search is stopped part-way,
    /// a lower bound: the components counted so far times the one stopped, when it is the
    /// last (the others may have no solution), else 0.
    pub fn product(&mut self, parts: &[Vec<u32>]) -> Partial {
        let mut total = Count::ONE;
        for (index, part) in parts.iter().enumerate() {
            let counted = self.component(part);
            if counted.count.is_zero() {
                return Partial {
                    count: Count::ZERO,
                    exact: counted.exact,
                };
            }
            total.mul(&counted.count);
            if !counted.exact {
                let last = index + 1 == parts.len();
                return Partial {
                    count: if last { total } else { Count::ZERO },
                    exact: false,
                };
            }
        }
        Partial::exact(total)
    }
}

/// The runs of `spots` (sorted by line) on one line each: (line, the run's range in `spots`).
fn line_runs(
    spots: &[(u32, u32, u32)],
) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        let line = spots.get(start)?.0;
        let end = start
            + spots[start..]
                .iter()
                .take_while(|spot| spot.0 == line)
                .count();
        let run = start..end;
        start = end;
        Some((line as usize, run))
    })
}

/// Append bits a..b of `set` to `key`, eight to a byte.
fn push_bits<const W: usize>(key: &mut Vec<u8>, set: Bits<W>, a: usize, b: usize) {
    let mut at = a;
    while at < b {
        let take = (b - at).min(64);
        let (word, shift) = (at / 64, at % 64);
        let mut value = set.0[word] >> shift;
        if shift > 0 && word + 1 < W {
            value |= set.0[word + 1] << (64 - shift);
        }
        if take < 64 {
            value &= (1u64 << take) - 1;
        }
        key.extend_from_slice(&value.to_le_bytes()[..take.div_ceil(8)]);
        at += take;
    }
}

fn find(parent: &mut [u32], cell: u32) -> u32 {
    let mut root = cell;
    while parent[root as usize] != root {
        root = parent[root as usize];
    }
    let mut at = cell;
    while parent[at as usize] != root {
        let next = parent[at as usize];
        parent[at as usize] = root;
        at = next;
    }
    root
}

fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[rb as usize] = ra;
    }
}
