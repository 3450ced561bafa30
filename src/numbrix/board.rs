//! The Numbrix model: an m×n grid whose answer numbers the cells 1..mn along a Hamiltonian path
//! (consecutive numbers are orthogonal neighbours). A board prints some of those numbers.
//!
//! File format (plain text, one grid row per line):
//!
//! ```text
//! # a comment line; blank lines are ignored too
//! .  .  .  .
//! .  7  .  1
//! .  .  .  .
//! 16 .  .  .
//! ```
//!
//! Tokens are separated by whitespace; a token is a printed number in 1..mn or a blank (`.` or
//! `_`). Every row must hold the same number of tokens. Boards run from 1×1 to 256 cells
//! (16×16). Duplicates, out-of-range numbers, unreadable tokens and ragged rows are refused with
//! one line (an [`InputError`](crate::error::InputError), exit code 2).

use super::bits::{Bits, MAX_CELLS};
use crate::error::input_error;
use anyhow::Result;
use std::fmt::Write as _;

/// A board: its shape and printed numbers (row-major, 0 = blank).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub rows: usize,
    pub cols: usize,
    pub givens: Vec<u32>,
}

/// Grid geometry shared by the rungs: neighbour lists and the shift masks of a row-major grid.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub rows: usize,
    pub cols: usize,
    pub n: usize,
    /// Neighbours of each cell (up, down, left, right order, only those inside the grid).
    pub nbrs: Vec<Vec<usize>>,
    /// Neighbour set of each cell.
    pub nmask: Vec<Bits>,
    all: Bits,
    not_first_col: Bits,
    not_last_col: Bits,
}

impl Geometry {
    pub fn new(rows: usize, cols: usize) -> Geometry {
        let n = rows * cols;
        assert!(
            (1..=MAX_CELLS).contains(&n),
            "board of {n} cells out of range"
        );
        let mut nbrs = vec![Vec::new(); n];
        let mut nmask = vec![Bits::EMPTY; n];
        let mut not_first_col = Bits::EMPTY;
        let mut not_last_col = Bits::EMPTY;
        for r in 0..rows {
            for c in 0..cols {
                let i = r * cols + c;
                if c > 0 {
                    not_first_col.set(i);
                }
                if c + 1 < cols {
                    not_last_col.set(i);
                }
                if r > 0 {
                    nbrs[i].push(i - cols);
                }
                if r + 1 < rows {
                    nbrs[i].push(i + cols);
                }
                if c > 0 {
                    nbrs[i].push(i - 1);
                }
                if c + 1 < cols {
                    nbrs[i].push(i + 1);
                }
                for &j in &nbrs[i] {
                    nmask[i].set(j);
                }
            }
        }
        Geometry {
            rows,
            cols,
            n,
            nbrs,
            nmask,
            all: Bits::first(n),
            not_first_col,
            not_last_col,
        }
    }

    /// The cells with a neighbour in `s` (the dilation of a cell set, excluding nothing).
    #[inline]
    pub fn dilate(&self, s: Bits) -> Bits {
        let right = s.and(self.not_last_col).shift_up(1);
        let left = s.and(self.not_first_col).shift_down(1);
        let down = s.shift_up(self.cols);
        let up = s.shift_down(self.cols);
        right.or(left).or(down).or(up).and(self.all)
    }

    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        self.nmask[a].has(b)
    }

    /// Chessboard colour of a cell: (row + col) mod 2.
    pub fn colour(&self, cell: usize) -> usize {
        (cell / self.cols + cell % self.cols) & 1
    }

    /// Grid (Manhattan) distance between two cells.
    pub fn distance(&self, a: usize, b: usize) -> usize {
        let (ra, ca) = (a / self.cols, a % self.cols);
        let (rb, cb) = (b / self.cols, b % self.cols);
        ra.abs_diff(rb) + ca.abs_diff(cb)
    }

    pub fn name(&self, cell: usize) -> String {
        format!("r{}c{}", cell / self.cols + 1, cell % self.cols + 1)
    }
}

impl Board {
    /// A blank board.
    pub fn blank(rows: usize, cols: usize) -> Result<Board> {
        Board::new(rows, cols, vec![0; rows * cols])
    }

    /// A board from its printed numbers; validated (shape, range, duplicates).
    pub fn new(rows: usize, cols: usize, givens: Vec<u32>) -> Result<Board> {
        let n = rows * cols;
        if rows == 0 || cols == 0 {
            return Err(input_error("numbrix board: empty grid"));
        }
        if n > MAX_CELLS {
            return Err(input_error(format!(
                "numbrix board: {rows}x{cols} has {n} cells; at most {MAX_CELLS} (16x16) are supported"
            )));
        }
        if givens.len() != n {
            return Err(input_error(format!(
                "numbrix board: wrong shape: {} numbers for a {rows}x{cols} grid",
                givens.len()
            )));
        }
        let mut seen = vec![usize::MAX; n + 1];
        for (i, &g) in givens.iter().enumerate() {
            if g == 0 {
                continue;
            }
            if g as usize > n {
                return Err(input_error(format!(
                    "numbrix board: {g} at row {} col {} is out of range 1..{n}",
                    i / cols + 1,
                    i % cols + 1
                )));
            }
            if seen[g as usize] != usize::MAX {
                let j = seen[g as usize];
                return Err(input_error(format!(
                    "numbrix board: {g} is printed twice (row {} col {} and row {} col {})",
                    j / cols + 1,
                    j % cols + 1,
                    i / cols + 1,
                    i % cols + 1
                )));
            }
            seen[g as usize] = i;
        }
        Ok(Board { rows, cols, givens })
    }

    /// Parse the plain-text format (see the module docs).
    pub fn parse(text: &str) -> Result<Board> {
        // A UTF-8 byte-order mark (as some editors save) is not part of the grid.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut rows: Vec<Vec<u32>> = Vec::new();
        for (ln, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut row = Vec::new();
            for tok in line.split_whitespace() {
                if tok == "." || tok == "_" {
                    row.push(0);
                } else {
                    let v: u32 = tok.parse().map_err(|_| {
                        input_error(format!(
                            "numbrix board: line {}: '{tok}' is neither a number nor a blank ('.')",
                            ln + 1
                        ))
                    })?;
                    if v == 0 {
                        return Err(input_error(format!(
                            "numbrix board: line {}: 0 is out of range (numbers start at 1; blanks are '.')",
                            ln + 1
                        )));
                    }
                    row.push(v);
                }
            }
            if let Some(first) = rows.first()
                && first.len() != row.len()
            {
                return Err(input_error(format!(
                    "numbrix board: wrong shape: line {} has {} cells, the first row has {}",
                    ln + 1,
                    row.len(),
                    first.len()
                )));
            }
            rows.push(row);
        }
        if rows.is_empty() {
            return Err(input_error("numbrix board: no grid rows"));
        }
        let (r, c) = (rows.len(), rows[0].len());
        Board::new(r, c, rows.concat())
    }

    pub fn read(path: &std::path::Path) -> Result<Board> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| input_error(format!("cannot read {}: {e}", path.display())))?;
        Board::parse(&text).map_err(|e| input_error(format!("{}: {e}", path.display())))
    }

    pub fn n(&self) -> usize {
        self.rows * self.cols
    }

    pub fn geometry(&self) -> Geometry {
        Geometry::new(self.rows, self.cols)
    }

    pub fn clue_count(&self) -> usize {
        self.givens.iter().filter(|&&g| g != 0).count()
    }

    /// The grid in the file format (numbers right-aligned, blanks as '.').
    pub fn format(&self) -> String {
        format_grid(self.rows, self.cols, &self.givens)
    }

    /// The chessboard parity law: the cell of v has the colour of the cell of 1 flipped v−1
    /// times, and on an odd cell count the odd numbers sit on the majority colour (that of the
    /// corner). Returns the first violation among the printed numbers, if any.
    pub fn parity_violation(&self) -> Option<String> {
        let g = self.geometry();
        let n = self.n();
        let printed: Vec<(usize, u32)> = self
            .givens
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v != 0)
            .map(|(c, &v)| (c, v))
            .collect();
        if n % 2 == 1 {
            for &(c, v) in &printed {
                // Majority colour is 0 (the corner's); odd numbers (1, 3, ..., n) fill it.
                let want = if v % 2 == 1 { 0 } else { 1 };
                if g.colour(c) != want {
                    return Some(format!(
                        "parity law: {v} at {} is on the {} colour, but on an odd board (both ends on the corner colour) every {} number sits on the {} colour",
                        g.name(c),
                        colour_name(g.colour(c)),
                        if v % 2 == 1 { "odd" } else { "even" },
                        colour_name(want)
                    ));
                }
            }
        }
        if let Some(&(c0, v0)) = printed.first() {
            for &(c, v) in &printed[1..] {
                let want = (g.colour(c0) + (v as usize + v0 as usize)) & 1;
                if g.colour(c) != want {
                    return Some(format!(
                        "parity law: {v0} at {} and {v} at {} are {} apart in number, so their cells must {} colour, but they do not",
                        g.name(c0),
                        g.name(c),
                        v.abs_diff(v0),
                        if (v + v0) % 2 == 0 {
                            "share a"
                        } else {
                            "differ in"
                        }
                    ));
                }
            }
        }
        None
    }

    /// Whether `values` (row-major, 1..n) is an answer of this board: a numbering along a
    /// Hamiltonian path that agrees with every printed number.
    pub fn is_answer(&self, values: &[u32]) -> bool {
        let n = self.n();
        if values.len() != n {
            return false;
        }
        let mut pos = vec![usize::MAX; n + 1];
        for (c, &v) in values.iter().enumerate() {
            if v == 0 || v as usize > n || pos[v as usize] != usize::MAX {
                return false;
            }
            if self.givens[c] != 0 && self.givens[c] != v {
                return false;
            }
            pos[v as usize] = c;
        }
        let g = self.geometry();
        (1..n).all(|v| g.adjacent(pos[v], pos[v + 1]))
    }
}

fn colour_name(c: usize) -> &'static str {
    if c == 0 { "dark" } else { "light" }
}

/// A row-major grid of numbers (0 = blank) in the board file format.
pub fn format_grid(rows: usize, cols: usize, values: &[u32]) -> String {
    let width = (rows * cols).to_string().len();
    let mut s = String::new();
    for r in 0..rows {
        let line: Vec<String> = (0..cols)
            .map(|c| match values[r * cols + c] {
                0 => format!("{:>width$}", "."),
                v => format!("{v:>width$}"),
            })
            .collect();
        let _ = writeln!(s, "{}", line.join(" "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_errors() {
        let b = Board::parse("# x\n. 2\n\n4 .\n").unwrap();
        assert_eq!((b.rows, b.cols), (2, 2));
        assert_eq!(b.givens, vec![0, 2, 4, 0]);
        assert_eq!(Board::parse(&b.format()).unwrap(), b);
        for bad in ["1 2\n3", "1 1\n. .", "5 .\n. .", "x .\n. .", "0 .\n. .", ""] {
            let e = Board::parse(bad).unwrap_err();
            assert!(
                e.downcast_ref::<crate::error::InputError>().is_some(),
                "{bad}"
            );
        }
    }

    #[test]
    fn parity() {
        // 2x2: 1 at corner (dark), 2 must be light.
        assert!(
            Board::parse("1 2\n. .")
                .unwrap()
                .parity_violation()
                .is_none()
        );
        assert!(
            Board::parse("1 .\n. 2")
                .unwrap()
                .parity_violation()
                .is_some()
        );
        // 3x3 (odd): an even number on the corner colour is impossible.
        assert!(
            Board::parse("2 . .\n. . .\n. . .")
                .unwrap()
                .parity_violation()
                .is_some()
        );
        assert!(
            Board::parse(". 2 .\n. . .\n. . .")
                .unwrap()
                .parity_violation()
                .is_none()
        );
    }
}
