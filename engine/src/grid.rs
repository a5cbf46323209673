//! The grid's state and the trail that undoes changes to it.
//!
//! For every line and every color, the bitset of the line's cells where that color is still
//! possible: each cell is held twice, by its row and by its column, so that solving either line
//! reads its whole state at once. A cell is decided when one color is left. Every line also
//! carries a stamp, the clock when it last changed, which tells a cached probe whether the
//! lines it read are still as they were.

use crate::bits::{copy_sets, push_sets, Bits};
use crate::clue::Puzzle;

pub struct Grid<const W: usize> {
    colors: usize,
    /// `masks[line * colors + color]`: the cells of `line` where `color` is still possible.
    masks: Vec<Bits<W>>,
    /// Per line: the clock when it last changed.
    pub stamps: Vec<u64>,
    /// Stamped on every change; moved on by whoever needs later changes told apart.
    pub clock: u64,
    /// Cells with exactly one color left.
    pub known: usize,
}

impl<const W: usize> Grid<W> {
    /// The state of `domains` (one color bitmask per cell, row-major), each narrowed to the
    /// colors its row and its column allow; Err(line) when that leaves a cell without a color.
    pub fn new(puzzle: &Puzzle, domains: &[u128]) -> Result<Self, usize> {
        let colors = puzzle.colors;
        let allowed: Vec<u128> = puzzle
            .line_colors
            .iter()
            .map(|list| list.iter().fold(0u128, |mask, &c| mask | 1u128 << c))
            .collect();
        let mut grid = Self {
            colors,
            masks: vec![Bits::zero(); puzzle.lines() * colors],
            stamps: vec![0; puzzle.lines()],
            clock: 1,
            known: 0,
        };
        for (cell, &domain) in domains.iter().enumerate() {
            let (row, column) = puzzle.lines_of(cell);
            let domain = domain & allowed[row] & allowed[column];
            if domain == 0 {
                return Err(row);
            }
            if domain & (domain - 1) == 0 {
                grid.known += 1;
            }
            let (x, y) = (cell % puzzle.width, cell / puzzle.width);
            let mut left = domain;
            while left != 0 {
                let color = left.trailing_zeros() as usize;
                left &= left - 1;
                grid.masks[row * colors + color].set(x);
                grid.masks[column * colors + color].set(y);
            }
        }
        Ok(grid)
    }

    #[inline]
    pub fn colors(&self) -> usize {
        self.colors
    }

    /// The state of one line, indexed by color.
    #[inline]
    pub fn line(&self, line: usize) -> &[Bits<W>] {
        &self.masks[line * self.colors..(line + 1) * self.colors]
    }

    #[inline]
    pub fn line_mut(&mut self, line: usize) -> &mut [Bits<W>] {
        &mut self.masks[line * self.colors..(line + 1) * self.colors]
    }

    /// The colors still possible in `cell`, as a bitmask.
    pub fn domain(&self, puzzle: &Puzzle, cell: usize) -> u128 {
        let (row, _) = puzzle.lines_of(cell);
        let x = cell % puzzle.width;
        let state = self.line(row);
        puzzle.line_colors[row]
            .iter()
            .filter(|&&c| state[usize::from(c)].test(x))
            .fold(0u128, |mask, &c| mask | 1u128 << c)
    }

    pub fn domains(&self, puzzle: &Puzzle) -> Vec<u128> {
        (0..puzzle.cells())
            .map(|cell| self.domain(puzzle, cell))
            .collect()
    }

    /// Whether `cell` has one color left.
    #[inline]
    pub fn decided(&self, puzzle: &Puzzle, cell: usize) -> bool {
        let row = cell / puzzle.width;
        let x = cell % puzzle.width;
        let state = self.line(row);
        let mut seen = false;
        for &c in &puzzle.line_colors[row] {
            if state[usize::from(c)].test(x) {
                if seen {
                    return false;
                }
                seen = true;
            }
        }
        true
    }

    /// The cells of `line` with exactly one of `colors` left, given the line's `state`.
    #[inline]
    pub fn single(state: &[Bits<W>], colors: &[u8]) -> Bits<W> {
        let (mut once, mut more) = (Bits::zero(), Bits::zero());
        for &c in colors {
            let cells = state[usize::from(c)];
            more |= once & cells;
            once |= cells;
        }
        once.and_not(more)
    }

    /// Narrow `cell` to the colors in `domain` (a subset of its own) in both of its lines,
    /// saving them on the trail first. Returns the cell's row and column.
    pub fn restrict(
        &mut self,
        puzzle: &Puzzle,
        trail: &mut Trail<W>,
        cell: usize,
        domain: u128,
    ) -> (usize, usize) {
        let (row, column) = puzzle.lines_of(cell);
        let (x, y) = (cell % puzzle.width, cell / puzzle.width);
        let before = self.domain(puzzle, cell);
        let after = before & domain;
        if before & (before - 1) != 0 && after & (after - 1) == 0 {
            self.known += 1;
        }
        trail.save(self, row);
        trail.save(self, column);
        let mut removed = before & !after;
        while removed != 0 {
            let color = removed.trailing_zeros() as usize;
            removed &= removed - 1;
            self.masks[row * self.colors + color].clear(x);
            self.masks[column * self.colors + color].clear(y);
        }
        self.stamps[row] = self.clock;
        self.stamps[column] = self.clock;
        (row, column)
    }
}

/// A place on the trail to come back to.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    length: usize,
    known: usize,
}

/// Line states as they were before they changed, newest last; undoing restores them.
pub struct Trail<const W: usize> {
    lines: Vec<u32>,
    /// The colors of every saved line, in the order of `lines`.
    saved: Vec<Bits<W>>,
    stamps: Vec<u64>,
    /// A line is saved once per epoch; every mark and undo starts a new one.
    epoch: u32,
    saved_in: Vec<u32>,
}

impl<const W: usize> Trail<W> {
    pub fn new(lines: usize) -> Self {
        Self {
            lines: Vec::new(),
            saved: Vec::new(),
            stamps: Vec::new(),
            epoch: 1,
            saved_in: vec![0; lines],
        }
    }

    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // After four billion marks: no line may look saved in the new epoch.
            self.saved_in.iter_mut().for_each(|epoch| *epoch = 0);
            self.epoch = 1;
        }
    }

    pub fn mark(&mut self, grid: &Grid<W>) -> Mark {
        self.next_epoch();
        Mark {
            length: self.lines.len(),
            known: grid.known,
        }
    }

    /// Remember `line` as it is now, unless it was saved since the last mark.
    #[inline]
    pub fn save(&mut self, grid: &Grid<W>, line: usize) {
        if self.saved_in[line] != self.epoch {
            self.saved_in[line] = self.epoch;
            self.lines.push(line as u32);
            push_sets(&mut self.saved, grid.line(line));
            self.stamps.push(grid.stamps[line]);
        }
    }

    /// Restore every line changed since `mark`.
    pub fn undo(&mut self, grid: &mut Grid<W>, mark: Mark) {
        let colors = grid.colors;
        while self.lines.len() > mark.length {
            let line = self.lines.pop().unwrap_or_default() as usize;
            let start = self.saved.len() - colors;
            copy_sets(grid.line_mut(line), &self.saved[start..]);
            self.saved.truncate(start);
            grid.stamps[line] = self.stamps.pop().unwrap_or_default();
        }
        grid.known = mark.known;
        self.next_epoch();
    }

    /// The lines saved since `mark` (each changed since then), oldest first.
    pub fn lines_since(&self, mark: Mark) -> &[u32] {
        &self.lines[mark.length..]
    }

    /// Each line saved since `mark` with its state when it was saved, oldest first.
    pub fn saved_since(
        &self,
        mark: Mark,
        colors: usize,
    ) -> impl Iterator<Item = (usize, &[Bits<W>])> {
        self.lines[mark.length..]
            .iter()
            .zip(self.saved[mark.length * colors..].chunks_exact(colors))
            .map(|(&line, state)| (line as usize, state))
    }

    /// Forget everything saved: what is there can no longer be undone.
    pub fn clear(&mut self) {
        self.lines.clear();
        self.saved.clear();
        self.stamps.clear();
        self.next_epoch();
    }
}
