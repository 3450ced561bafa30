//! Kakurasu: the model and board files, one line solver with two rule sets (intervals and
//! enumeration) run to a fixpoint over the 2n lines, search, an independent row-product verifier,
//! the rejection-sampling generator, the difficulty study and the census of uniquely solvable
//! target vectors.
//!
//! An n×n board (n = 1..9) has a target per row and per column. A shaded cell in row i, column j
//! (both 1-based) scores j into its row and i into its column. Every line asks the same question:
//! which subset of the weights 1..n sums to its target?
//!
//! # Board files
//!
//! Plain text, one item per line; blank lines and lines starting with `#` are ignored:
//!
//! ```text
//! # a 4×4 board
//! size 4
//! rows 3 5 0 10
//! cols 4 2 7 1
//! ```
//!
//! `size N` (1..9), then `rows` with N row targets (top to bottom) and `cols` with N column
//! targets (left to right), each target in 0..=N(N+1)/2. An optional `grid` line followed by N
//! lines of N characters gives marks already made: `*` shaded, `x` crossed, `.` undecided
//! (`hint` continues from them, `solve` respects them).

pub mod census;
pub mod cli;
pub mod difficulty;
pub mod generate;
pub mod report;
pub mod rules;
pub mod search;
pub mod verify;

use crate::error::input_error;
use anyhow::Result;

/// Largest board side.
pub const MAX_N: usize = 9;

/// The largest target of a line of an n×n board: 1 + 2 + ... + n.
pub const fn max_target(n: usize) -> u32 {
    (n * (n + 1) / 2) as u32
}

/// A board: its side and its 2n targets. Row i (0-based) scores j+1 for each shaded cell in
/// column j; column j scores i+1 for each shaded cell in row i.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub n: usize,
    pub rows: Vec<u32>,
    pub cols: Vec<u32>,
}

/// A complete shading: bit j of `rows[i]` is cell (i, j).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shading {
    pub n: usize,
    pub rows: Vec<u16>,
}

impl Shading {
    pub fn is_shaded(&self, i: usize, j: usize) -> bool {
        self.rows[i] >> j & 1 == 1
    }

    /// The targets this shading induces.
    pub fn targets(&self) -> Board {
        let n = self.n;
        let mut rows = vec![0u32; n];
        let mut cols = vec![0u32; n];
        for i in 0..n {
            for j in 0..n {
                if self.is_shaded(i, j) {
                    rows[i] += j as u32 + 1;
                    cols[j] += i as u32 + 1;
                }
            }
        }
        Board { n, rows, cols }
    }

    /// The grid block of a board file (`*` shaded, `x` crossed).
    pub fn grid_text(&self) -> String {
        let mut s = String::new();
        for i in 0..self.n {
            for j in 0..self.n {
                s.push(if self.is_shaded(i, j) { '*' } else { 'x' });
            }
            s.push('\n');
        }
        s
    }
}

impl Board {
    /// A board with checked targets (an `InputError` otherwise).
    pub fn new(n: usize, rows: Vec<u32>, cols: Vec<u32>) -> Result<Board> {
        if n == 0 || n > MAX_N {
            return Err(input_error(format!(
                "size {n} is out of range: Kakurasu boards are 1×1 to {MAX_N}×{MAX_N}"
            )));
        }
        for (what, v) in [("row", &rows), ("column", &cols)] {
            if v.len() != n {
                return Err(input_error(format!(
                    "a {n}×{n} board needs {n} {what} targets, got {}",
                    v.len()
                )));
            }
            for (k, &t) in v.iter().enumerate() {
                if t > max_target(n) {
                    return Err(input_error(format!(
                        "{what} {} target {t} is out of range: a line of a {n}×{n} board scores 0 to {}",
                        k + 1,
                        max_target(n)
                    )));
                }
            }
        }
        Ok(Board { n, rows, cols })
    }

    /// Line `l` of the 2n lines: rows 0..n, then columns.
    pub fn line_target(&self, l: usize) -> u32 {
        if l < self.n {
            self.rows[l]
        } else {
            self.cols[l - self.n]
        }
    }

    /// Is this shading a solution?
    pub fn accepts(&self, s: &Shading) -> bool {
        s.n == self.n && s.targets() == *self
    }

    /// The board file text (no grid).
    pub fn to_text(&self) -> String {
        let join = |v: &[u32]| {
            v.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "size {}\nrows {}\ncols {}\n",
            self.n,
            join(&self.rows),
            join(&self.cols)
        )
    }
}

/// A parsed board file: the board and the marks of its optional `grid` block
/// (`Some(true)` shaded, `Some(false)` crossed, `None` undecided), row-major.
#[derive(Clone, Debug)]
pub struct BoardFile {
    pub board: Board,
    pub marks: Vec<Option<bool>>,
}

/// Parse a board file (see the module docs for the format). Errors are `InputError`s naming the line.
pub fn parse_board(text: &str) -> Result<BoardFile> {
    let mut size: Option<usize> = None;
    let mut rows: Option<Vec<u32>> = None;
    let mut cols: Option<Vec<u32>> = None;
    let mut grid: Option<Vec<Vec<Option<bool>>>> = None;
    let mut in_grid = false;
    // A UTF-8 byte-order mark (as some editors save) is not part of the board.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (ln, raw) in text.lines().enumerate() {
        let ln = ln + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if in_grid {
            let n = size.expect("grid comes after size");
            let g = grid.as_mut().expect("grid open");
            let mut row = Vec::new();
            for ch in line.chars().filter(|c| !c.is_whitespace()) {
                row.push(match ch {
                    '*' => Some(true),
                    'x' | 'X' => Some(false),
                    '.' => None,
                    _ => {
                        return Err(input_error(format!(
                            "line {ln}: grid character '{ch}' is not one of * (shaded), x (crossed), . (undecided)"
                        )));
                    }
                });
            }
            if row.len() != n {
                return Err(input_error(format!(
                    "line {ln}: a grid row of a {n}×{n} board has {n} cells, got {}",
                    row.len()
                )));
            }
            g.push(row);
            if g.len() == n {
                in_grid = false;
            }
            continue;
        }
        let mut words = line.split_whitespace();
        let key = words.next().unwrap_or("").to_ascii_lowercase();
        let nums = |words: std::str::SplitWhitespace| -> Result<Vec<u32>> {
            words
                .map(|w| {
                    w.parse::<u32>().map_err(|_| {
                        input_error(format!(
                            "line {ln}: '{w}' is not a target (a non-negative integer)"
                        ))
                    })
                })
                .collect()
        };
        match key.as_str() {
            "size" => {
                if size.is_some() {
                    return Err(input_error(format!("line {ln}: a second 'size' line")));
                }
                let v = nums(words)?;
                if v.len() != 1 {
                    return Err(input_error(format!(
                        "line {ln}: 'size' takes one number, got {}",
                        v.len()
                    )));
                }
                let n = v[0] as usize;
                if n == 0 || n > MAX_N {
                    return Err(input_error(format!(
                        "line {ln}: size {n} is out of range: Kakurasu boards are 1×1 to {MAX_N}×{MAX_N}"
                    )));
                }
                size = Some(n);
            }
            "rows" | "cols" => {
                let slot = if key == "rows" { &mut rows } else { &mut cols };
                if slot.is_some() {
                    return Err(input_error(format!("line {ln}: a second '{key}' line")));
                }
                *slot = Some(nums(words)?);
            }
            "grid" => {
                if size.is_none() {
                    return Err(input_error(format!(
                        "line {ln}: 'grid' must come after 'size'"
                    )));
                }
                if grid.is_some() {
                    return Err(input_error(format!("line {ln}: a second 'grid' block")));
                }
                if words.next().is_some() {
                    return Err(input_error(format!(
                        "line {ln}: 'grid' stands alone; its rows follow on the next lines"
                    )));
                }
                grid = Some(Vec::new());
                in_grid = true;
            }
            _ => {
                return Err(input_error(format!(
                    "line {ln}: unknown item '{key}' (expected size, rows, cols or grid)"
                )));
            }
        }
    }
    let n = size.ok_or_else(|| input_error("no 'size' line"))?;
    if in_grid {
        return Err(input_error(format!(
            "the grid block ends early: a {n}×{n} board needs {n} grid rows"
        )));
    }
    let rows = rows.ok_or_else(|| input_error("no 'rows' line (the row targets)"))?;
    let cols = cols.ok_or_else(|| input_error("no 'cols' line (the column targets)"))?;
    let board = Board::new(n, rows, cols)?;
    let marks = match grid {
        Some(g) => g.into_iter().flatten().collect(),
        None => vec![None; n * n],
    };
    Ok(BoardFile { board, marks })
}

/// Read and parse a board file; an unreadable file is an `InputError`.
pub fn read_board(path: &std::path::Path) -> Result<BoardFile> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| input_error(format!("cannot read {}: {e}", path.display())))?;
    parse_board(&text).map_err(|e| input_error(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_round_trips() {
        let f = parse_board("# c\nsize 3\nrows 3 3 3\ncols 3 3 3\n").unwrap();
        assert_eq!(f.board.rows, vec![3, 3, 3]);
        assert_eq!(parse_board(&f.board.to_text()).unwrap().board, f.board);
        let g = parse_board("size 2\nrows 1 2\ncols 1 2\ngrid\n*x\nx.\n").unwrap();
        assert_eq!(g.marks, vec![Some(true), Some(false), Some(false), None]);
    }

    #[test]
    fn refuses_bad_input() {
        for bad in [
            "rows 1\ncols 1\n",
            "size 0\nrows\ncols\n",
            "size 10\nrows 1\ncols 1\n",
            "size 2\nrows 1\ncols 1 2\n",
            "size 2\nrows 1 4\ncols 1 2\n",
            "size 2\nrows 1 -1\ncols 1 2\n",
            "size 2\nrows 1 2\n",
            "size 2\nrows 1 2\ncols 1 2\nfoo 3\n",
            "size 2\nrows 1 2\ncols 1 2\ngrid\n*x\n",
            "size 2\nrows 1 2\ncols 1 2\ngrid\n*q\nxx\n",
        ] {
            let e = parse_board(bad).unwrap_err();
            assert!(
                e.downcast_ref::<crate::InputError>().is_some(),
                "{bad}: {e}"
            );
        }
    }
}
