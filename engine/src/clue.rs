//! A puzzle as the engine sees it: the size, the palette's size and every line's clue, checked
//! once where it enters, so that nothing past this point needs to distrust its input.

/// Largest width or height: a line and the position past its end fit in 16 words.
pub const MAX_SIDE: usize = 1023;
/// Colors in a palette, the background included: a cell's domain is one `u128`.
pub const MAX_COLORS: usize = 128;

/// One clue number: a run of `length` cells of `color` (never the background, 0).
/// `length` 0 stands for a blotted number: a run of one cell or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub length: u32,
    pub color: u8,
}

impl Block {
    #[inline]
    pub fn blotted(&self) -> bool {
        self.length == 0
    }
}

#[derive(Clone, Debug)]
pub struct Puzzle {
    pub width: usize,
    pub height: usize,
    /// Palette size, the background (color 0) included.
    pub colors: usize,
    /// Every line's clue: rows top to bottom, then columns left to right.
    pub clues: Vec<Vec<Block>>,
    /// For every line, the colors its cells may take: the background and its clue's colors.
    pub line_colors: Vec<Vec<u8>>,
}

impl Puzzle {
    /// The puzzle, or a message saying which argument is wrong.
    pub fn new(
        width: usize,
        height: usize,
        colors: usize,
        clues: Vec<Vec<Block>>,
    ) -> Result<Self, String> {
        if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
            return Err(format!(
                "size {width}x{height}: each side must be 1..{MAX_SIDE}"
            ));
        }
        if !(2..=MAX_COLORS).contains(&colors) {
            return Err(format!(
                "{colors} colors: the palette must have 2..{MAX_COLORS}"
            ));
        }
        if clues.len() != width + height {
            return Err(format!(
                "{} clues for {} lines",
                clues.len(),
                width + height
            ));
        }
        let line_colors = clues
            .iter()
            .enumerate()
            .map(|(line, clue)| {
                line_colors(clue, colors).map_err(|problem| format!("line {line}: {problem}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            width,
            height,
            colors,
            clues,
            line_colors,
        })
    }

    /// The puzzle turned half round: cell `c` goes to `cells() - 1 - c`, so every line goes
    /// backwards and the rows (and the columns) come in the other order. Its solutions are
    /// this puzzle's, turned; a sweep of it goes the other way along every line.
    pub fn turned(&self) -> Puzzle {
        let line = |turned: usize| -> usize {
            if turned < self.height {
                self.height - 1 - turned
            } else {
                self.height + self.width - 1 - (turned - self.height)
            }
        };
        let lines = 0..self.lines();
        Puzzle {
            width: self.width,
            height: self.height,
            colors: self.colors,
            clues: lines
                .clone()
                .map(|turned| self.clues[line(turned)].iter().rev().copied().collect())
                .collect(),
            line_colors: lines
                .map(|turned| self.line_colors[line(turned)].clone())
                .collect(),
        }
    }

    #[inline]
    pub fn lines(&self) -> usize {
        self.width + self.height
    }

    #[inline]
    pub fn cells(&self) -> usize {
        self.width * self.height
    }

    #[inline]
    pub fn is_row(&self, line: usize) -> bool {
        line < self.height
    }

    /// Cells in `line`.
    #[inline]
    pub fn length(&self, line: usize) -> usize {
        if line < self.height {
            self.width
        } else {
            self.height
        }
    }

    /// The flat index (row * width + column) of the cell at `position` along `line`.
    #[inline]
    pub fn cell(&self, line: usize, position: usize) -> usize {
        if line < self.height {
            line * self.width + position
        } else {
            position * self.width + (line - self.height)
        }
    }

    /// The cells of `line`, in order along it.
    pub fn line_cells(&self, line: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.length(line)).map(move |position| self.cell(line, position))
    }

    /// The row and the column holding `cell`, as line indices.
    #[inline]
    pub fn lines_of(&self, cell: usize) -> (usize, usize) {
        (cell / self.width, self.height + cell % self.width)
    }

    /// Every cell's colors before any logic: those both its row's clue and its column's use
    /// (the background always).
    pub fn initial_domains(&self) -> Vec<u128> {
        let mask = |line: usize| -> u128 {
            self.clues[line]
                .iter()
                .fold(1, |mask, block| mask | 1 << block.color)
        };
        (0..self.cells())
            .map(|cell| {
                let (row, column) = self.lines_of(cell);
                mask(row) & mask(column)
            })
            .collect()
    }

    /// The line crossing `line` at `position`, and where `line` lies along it.
    #[inline]
    pub fn crossing(&self, line: usize, position: usize) -> (usize, usize) {
        if line < self.height {
            (self.height + position, line)
        } else {
            (position, line - self.height)
        }
    }
}

/// The colors a line with `clue` may hold (the background and the clue's colors, in order),
/// or what is wrong with the clue on a palette of `colors` colors.
pub fn line_colors(clue: &[Block], colors: usize) -> Result<Vec<u8>, String> {
    let mut used = vec![0u8];
    for block in clue {
        let color = usize::from(block.color);
        if color == 0 || color >= colors {
            return Err(format!("color {color} is not in 1..{}", colors - 1));
        }
        if block.length as usize > MAX_SIDE {
            return Err(format!("a block of {} cells", block.length));
        }
        if !used.contains(&block.color) {
            used.push(block.color);
        }
    }
    used.sort_unstable();
    Ok(used)
}

/// The rows and columns (as line indices: rows, then columns) holding `cells` of a grid
/// `width` wide and `height` high, sorted: a component's lines, read from its cells.
pub fn lines_holding(cells: &[u32], width: usize, height: usize) -> Vec<usize> {
    let mut lines: Vec<usize> = cells
        .iter()
        .flat_map(|&c| [c as usize / width, height + c as usize % width])
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A black-and-white puzzle from its clues' numbers (for the tests of other modules).
    pub fn black_and_white(rows: &[&[u32]], columns: &[&[u32]]) -> Puzzle {
        let clue = |numbers: &&[u32]| {
            numbers
                .iter()
                .map(|&length| Block { length, color: 1 })
                .collect()
        };
        let clues = rows.iter().chain(columns).map(clue).collect();
        Puzzle::new(columns.len(), rows.len(), 2, clues).unwrap()
    }

    #[test]
    fn initial_domains_are_the_colors_both_lines_use() {
        let puzzle = black_and_white(&[&[1], &[]], &[&[1], &[]]);
        assert_eq!(puzzle.initial_domains(), vec![3, 1, 1, 1]);
    }
}
