//! The Calcudoku board model, its plain-text file format and validation.
//!
//! Rules (the Calcudoku write-up, "The rules"): fill an n×n grid with 1..=n as a Latin square; each cage
//! shows a target and an operation its numbers must reach; − and ÷ label only two-cell cages, in
//! either order; a number may repeat inside a cage as long as the repeats share no row or column;
//! a one-cell cage gives its number. A cage whose sign is hidden (an **unsigned** cage, `?` in the
//! file, as puzzle books print the signless edition) holds if any operation its size allows
//! reaches the target (one cell: the value; two cells: + − × ÷; more: + ×). Signs may be hidden
//! per cage (mixed boards) or for the whole board (**hidden-sign mode**, `--hide-signs`).
//!
//! # File format
//!
//! ```text
//! # comments start with '#', blank lines are ignored
//! order 4
//! + 7 r1c1 r1c2 r2c1
//! - 1 r1c3 r1c4
//! / 2 r2c2 r3c2
//! * 12 r2c3 r2c4 r3c4
//! = 3 r3c1
//! ...
//! ```
//!
//! The first line is `order N` (3 ≤ N ≤ 9). Then one line per cage: the operation (`+`, `-`,
//! `*` or `x`, `/`, `=` for a one-cell cage, or `?` for a cage whose sign is hidden; `−` `×` `÷`
//! are accepted too), the target (a positive integer), then the cage's cells as `rRcC` (1-based
//! row and column). Cells may be listed in any order; each cell is in exactly one cage. A `?`
//! cage is validated against every operation its size allows; so is every cage in hidden-sign
//! mode (the written sign must still be legal for the cage's size).

use crate::error::input_error;
use anyhow::Result;
use std::fmt::Write as _;

pub const MIN_ORDER: usize = 3;
pub const MAX_ORDER: usize = 9;
pub const MAX_CELLS: usize = MAX_ORDER * MAX_ORDER;
/// Cages larger than this are refused (a solver limit, not a rule: per-position masks are u16).
pub const MAX_CAGE: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    /// A one-cell cage: the target is the cell's value.
    Given,
    /// The sign is hidden (`?`): any operation the cage's size allows.
    Any,
}

impl Op {
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Given => "=",
            Op::Any => "?",
        }
    }
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "+" => Op::Add,
            "-" | "−" => Op::Sub,
            "*" | "x" | "X" | "×" => Op::Mul,
            "/" | "÷" => Op::Div,
            "=" => Op::Given,
            "?" => Op::Any,
            _ => return None,
        })
    }
    /// Does this operation label a cage of `size` cells?
    pub fn legal_for(self, size: usize) -> bool {
        match self {
            Op::Given => size == 1,
            Op::Sub | Op::Div => size == 2,
            Op::Add | Op::Mul => size >= 2,
            Op::Any => size >= 1,
        }
    }
    /// The operations a cage of `size` cells may hold under hidden signs.
    pub fn hidden_ops(size: usize) -> &'static [Op] {
        match size {
            1 => &[Op::Given],
            2 => &[Op::Add, Op::Sub, Op::Mul, Op::Div],
            _ => &[Op::Add, Op::Mul],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cage {
    pub op: Op,
    pub target: u64,
    /// Cell indices `r * n + c`, sorted ascending.
    pub cells: Vec<u8>,
}

/// A validated board plus the derived tables the solver uses.
#[derive(Clone, Debug)]
pub struct Board {
    pub n: usize,
    pub cages: Vec<Cage>,
    /// Hidden-sign mode: a cage holds if any operation its size allows reaches the target.
    pub hide_signs: bool,
    /// `cage_of[cell]`.
    pub cage_of: Vec<u8>,
    /// Lines (0..n rows, n..2n columns) each cage touches, and the offset of its first line in
    /// the solver's per-(cage, line) arrays.
    pub cage_lines: Vec<Vec<u8>>,
    pub cage_line_off: Vec<u16>,
    pub total_cage_lines: usize,
    /// For each cage and position k: bitmask of earlier positions j < k sharing a row or column.
    pub cage_conf: Vec<Vec<u16>>,
    /// For each cage and position: local indices (into `cage_lines`) of its row and column.
    pub cage_pos_lines: Vec<Vec<(u8, u8)>>,
}

/// Line id of a cell's row and column.
#[inline]
pub fn row_line(n: usize, cell: usize) -> usize {
    cell / n
}
#[inline]
pub fn col_line(n: usize, cell: usize) -> usize {
    n + cell % n
}

/// `r3c4` (1-based).
pub fn cell_name(n: usize, cell: usize) -> String {
    format!("r{}c{}", cell / n + 1, cell % n + 1)
}

/// `row 3` / `column 4` for a line id.
pub fn line_name(n: usize, line: usize) -> String {
    if line < n {
        format!("row {}", line + 1)
    } else {
        format!("column {}", line - n + 1)
    }
}

/// The cells of line `l`.
pub fn line_cells(n: usize, l: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |k| if l < n { l * n + k } else { k * n + (l - n) })
}

impl Cage {
    /// Short description: `cage 3 (+7 at r1c1 r1c2)`, numbered from 1.
    pub fn describe(&self, n: usize, idx: usize) -> String {
        let cells: Vec<String> = self
            .cells
            .iter()
            .map(|&c| cell_name(n, c as usize))
            .collect();
        format!(
            "cage {} ({}{} at {})",
            idx + 1,
            self.op.symbol(),
            self.target,
            cells.join(" ")
        )
    }
}

/// Evaluate whether `vals` (a cage's values, in any order) reach `target` with `op`.
pub fn op_holds(op: Op, target: u64, vals: &[u8]) -> bool {
    match op {
        Op::Given => vals.len() == 1 && vals[0] as u64 == target,
        Op::Any => Op::hidden_ops(vals.len())
            .iter()
            .any(|&op| op_holds(op, target, vals)),
        Op::Add => vals.iter().map(|&v| v as u64).sum::<u64>() == target,
        Op::Mul => {
            let mut p: u64 = 1;
            for &v in vals {
                p = p.saturating_mul(v as u64);
            }
            p == target
        }
        Op::Sub => vals.len() == 2 && (vals[0] as i64 - vals[1] as i64).unsigned_abs() == target,
        Op::Div => {
            if vals.len() != 2 {
                return false;
            }
            let (a, b) = (vals[0].max(vals[1]) as u64, vals[0].min(vals[1]) as u64);
            b != 0 && a % b == 0 && a / b == target
        }
    }
}

/// Can `target` be written as a product of exactly `k` factors in 1..=n?
fn product_reachable(target: u64, k: usize, n: u64) -> bool {
    if k == 0 {
        return target == 1;
    }
    (1..=n).any(|f| target.is_multiple_of(f) && product_reachable(target / f, k - 1, n))
}

impl Board {
    /// Build and validate a board; every error is an `InputError` naming the cage or cell.
    pub fn new(n: usize, mut cages: Vec<Cage>, hide_signs: bool) -> Result<Board> {
        if !(MIN_ORDER..=MAX_ORDER).contains(&n) {
            return Err(input_error(format!(
                "order {n} is out of range {MIN_ORDER}..={MAX_ORDER}"
            )));
        }
        let nn = n * n;
        if cages.len() > nn {
            return Err(input_error(format!(
                "{} cages for {nn} cells: some cage is empty or a cell is covered twice",
                cages.len()
            )));
        }
        let mut cage_of = vec![u8::MAX; nn];
        for (i, cage) in cages.iter_mut().enumerate() {
            let k = i + 1;
            if cage.cells.is_empty() {
                return Err(input_error(format!("cage {k} has no cells")));
            }
            for &c in &cage.cells {
                if c as usize >= nn {
                    return Err(input_error(format!(
                        "cage {k}: cell index {c} is outside the {n}x{n} grid"
                    )));
                }
                if cage_of[c as usize] != u8::MAX {
                    let other = cage_of[c as usize] as usize + 1;
                    let what = if other == k {
                        format!("cage {k} lists cell {} twice", cell_name(n, c as usize))
                    } else {
                        format!(
                            "cell {} is covered twice (cages {other} and {k})",
                            cell_name(n, c as usize)
                        )
                    };
                    return Err(input_error(what));
                }
                cage_of[c as usize] = i as u8;
            }
            cage.cells.sort_unstable();
        }
        if let Some(c) = cage_of.iter().position(|&x| x == u8::MAX) {
            return Err(input_error(format!(
                "cell {} is in no cage",
                cell_name(n, c)
            )));
        }
        for (i, cage) in cages.iter().enumerate() {
            let d = cage.describe(n, i);
            let size = cage.cells.len();
            if size > MAX_CAGE {
                return Err(input_error(format!(
                    "{d}: {size} cells is more than this solver's limit of {MAX_CAGE} per cage"
                )));
            }
            if !cage.op.legal_for(size) {
                let why = match cage.op {
                    Op::Given => "'=' labels only one-cell cages".to_string(),
                    Op::Sub | Op::Div => {
                        format!("'{}' labels only two-cell cages", cage.op.symbol())
                    }
                    _ => "a one-cell cage must use '='".to_string(),
                };
                return Err(input_error(format!("{d}: {why}")));
            }
            // Connectedness: flood fill inside the cage.
            let mut seen = vec![cage.cells[0]];
            let mut stack = vec![cage.cells[0] as usize];
            while let Some(c) = stack.pop() {
                let (r, col) = (c / n, c % n);
                let mut nb = Vec::with_capacity(4);
                if r > 0 {
                    nb.push(c - n);
                }
                if r + 1 < n {
                    nb.push(c + n);
                }
                if col > 0 {
                    nb.push(c - 1);
                }
                if col + 1 < n {
                    nb.push(c + 1);
                }
                for x in nb {
                    if cage_of[x] as usize == i && !seen.contains(&(x as u8)) {
                        seen.push(x as u8);
                        stack.push(x);
                    }
                }
            }
            if seen.len() != size {
                return Err(input_error(format!("{d} is not connected")));
            }
            if cage.target == 0 {
                return Err(input_error(format!("{d}: the target must be positive")));
            }
            let t = cage.target;
            let nu = n as u64;
            let reach = |op: Op| match op {
                Op::Given => t <= nu,
                Op::Add => t >= size as u64 && t <= size as u64 * nu,
                Op::Sub => t < nu,
                Op::Div => t >= 2 && t <= nu,
                Op::Mul => product_reachable(t, size, nu),
                Op::Any => false,
            };
            // An unsigned cage (and every cage in hidden-sign mode) is validated against every
            // operation its size allows, not against the written sign.
            let hidden = hide_signs || cage.op == Op::Any;
            let ok = if hidden {
                Op::hidden_ops(size).iter().any(|&op| reach(op))
            } else {
                reach(cage.op)
            };
            if !ok {
                let what = if hidden {
                    "any operation".to_string()
                } else {
                    format!("'{}'", cage.op.symbol())
                };
                return Err(input_error(format!(
                    "{d}: target {t} is out of reach for {what} on {size} cell(s) with values 1..={n}"
                )));
            }
        }
        let mut cage_lines = Vec::with_capacity(cages.len());
        let mut cage_line_off = Vec::with_capacity(cages.len());
        let mut off = 0usize;
        let mut cage_conf = Vec::with_capacity(cages.len());
        let mut cage_pos_lines = Vec::with_capacity(cages.len());
        for cage in &cages {
            let mut ls: Vec<u8> = Vec::new();
            for &c in &cage.cells {
                for l in [row_line(n, c as usize), col_line(n, c as usize)] {
                    if !ls.contains(&(l as u8)) {
                        ls.push(l as u8);
                    }
                }
            }
            ls.sort_unstable();
            cage_line_off.push(off as u16);
            off += ls.len();
            let pos: Vec<(u8, u8)> = cage
                .cells
                .iter()
                .map(|&c| {
                    let r = row_line(n, c as usize) as u8;
                    let cl = col_line(n, c as usize) as u8;
                    let ri = ls.iter().position(|&x| x == r).unwrap() as u8;
                    let ci = ls.iter().position(|&x| x == cl).unwrap() as u8;
                    (ri, ci)
                })
                .collect();
            let conf: Vec<u16> = (0..cage.cells.len())
                .map(|k| {
                    let mut m = 0u16;
                    for j in 0..k {
                        if pos[j].0 == pos[k].0 || pos[j].1 == pos[k].1 {
                            m |= 1 << j;
                        }
                    }
                    m
                })
                .collect();
            cage_conf.push(conf);
            cage_pos_lines.push(pos);
            cage_lines.push(ls);
        }
        Ok(Board {
            n,
            cages,
            hide_signs,
            cage_of,
            cage_lines,
            cage_line_off,
            total_cage_lines: off,
            cage_conf,
            cage_pos_lines,
        })
    }

    /// The same cages with signs hidden (or shown).
    pub fn with_hidden_signs(&self, hide: bool) -> Board {
        let mut b = self.clone();
        b.hide_signs = hide;
        b
    }

    /// Is cage `i`'s sign hidden (an unsigned `?` cage, or hidden-sign mode)?
    #[inline]
    pub fn cage_hidden(&self, i: usize) -> bool {
        self.hide_signs || self.cages[i].op == Op::Any
    }

    /// Does any cage have a hidden sign?
    pub fn any_hidden(&self) -> bool {
        (0..self.cages.len()).any(|i| self.cage_hidden(i))
    }

    /// Does cage `i` hold for these values of its cells (in `cells` order)?
    pub fn cage_holds(&self, i: usize, vals: &[u8]) -> bool {
        let cage = &self.cages[i];
        if self.cage_hidden(i) {
            Op::hidden_ops(vals.len())
                .iter()
                .any(|&op| op_holds(op, cage.target, vals))
        } else {
            op_holds(cage.op, cage.target, vals)
        }
    }

    /// Is `grid` (values 1..=n, reading order) a solution: Latin, and every cage holds?
    pub fn is_solution(&self, grid: &[u8]) -> bool {
        let n = self.n;
        if grid.len() != n * n {
            return false;
        }
        for l in 0..2 * n {
            let mut seen = 0u32;
            for c in line_cells(n, l) {
                let v = grid[c];
                if v == 0 || v as usize > n || seen & (1 << v) != 0 {
                    return false;
                }
                seen |= 1 << v;
            }
        }
        let mut vals = Vec::with_capacity(MAX_CAGE);
        (0..self.cages.len()).all(|i| {
            vals.clear();
            vals.extend(self.cages[i].cells.iter().map(|&c| grid[c as usize]));
            self.cage_holds(i, &vals)
        })
    }

    /// Parse the plain-text format (see the module docs). Errors name the line.
    pub fn parse(text: &str, hide_signs: bool) -> Result<Board> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut n: Option<usize> = None;
        let mut cages = Vec::new();
        for (ln, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let lno = ln + 1;
            let toks: Vec<&str> = line.split_whitespace().collect();
            let Some(order) = n else {
                if toks.len() != 2 || toks[0] != "order" {
                    return Err(input_error(format!(
                        "line {lno}: expected 'order N' first, got '{line}'"
                    )));
                }
                let v: usize = toks[1].parse().map_err(|_| {
                    input_error(format!("line {lno}: order '{}' is not a number", toks[1]))
                })?;
                if !(MIN_ORDER..=MAX_ORDER).contains(&v) {
                    return Err(input_error(format!(
                        "line {lno}: order {v} is out of range {MIN_ORDER}..={MAX_ORDER}"
                    )));
                }
                n = Some(v);
                continue;
            };
            let k = cages.len() + 1;
            if toks.len() < 3 {
                return Err(input_error(format!(
                    "line {lno} (cage {k}): expected 'OP TARGET CELL...', got '{line}'"
                )));
            }
            let op = Op::parse(toks[0]).ok_or_else(|| {
                input_error(format!(
                    "line {lno} (cage {k}): unknown operation '{}' (use + - * / = ?)",
                    toks[0]
                ))
            })?;
            let target: u64 = toks[1].parse().map_err(|_| {
                input_error(format!(
                    "line {lno} (cage {k}): target '{}' is not a positive integer",
                    toks[1]
                ))
            })?;
            let mut cells = Vec::new();
            for t in &toks[2..] {
                let cell = parse_cell(t, order).ok_or_else(|| {
                    input_error(format!(
                        "line {lno} (cage {k}): '{t}' is not a cell rRcC with 1 <= R, C <= {order}"
                    ))
                })?;
                cells.push(cell as u8);
            }
            cages.push(Cage { op, target, cells });
        }
        let Some(n) = n else {
            return Err(input_error("empty board file: expected 'order N'"));
        };
        Board::new(n, cages, hide_signs)
    }

    /// Write the plain-text format; `Board::parse(&b.to_text(), b.hide_signs)` gives the same
    /// board back.
    pub fn to_text(&self) -> String {
        self.text_with(false)
    }

    /// The plain-text format with every hidden sign written as `?`, so that the file alone says
    /// which signs are hidden: `Board::parse(&b.unsigned_text(), false)` gives a board with the
    /// same answers.
    pub fn unsigned_text(&self) -> String {
        self.text_with(true)
    }

    fn text_with(&self, mark_hidden: bool) -> String {
        let mut s = format!("order {}\n", self.n);
        for (i, cage) in self.cages.iter().enumerate() {
            let op = if mark_hidden && self.cage_hidden(i) {
                Op::Any
            } else {
                cage.op
            };
            let _ = write!(s, "{} {}", op.symbol(), cage.target);
            for &c in &cage.cells {
                let _ = write!(s, " {}", cell_name(self.n, c as usize));
            }
            s.push('\n');
        }
        s
    }
}

fn parse_cell(t: &str, n: usize) -> Option<usize> {
    let rest = t.strip_prefix(['r', 'R'])?;
    let (r, c) = rest.split_once(['c', 'C'])?;
    let (r, c): (usize, usize) = (r.parse().ok()?, c.parse().ok()?);
    if r == 0 || c == 0 || r > n || c > n {
        return None;
    }
    Some((r - 1) * n + (c - 1))
}

/// Render a grid of values as n lines of digits separated by spaces.
pub fn grid_text(n: usize, grid: &[u8]) -> String {
    let mut s = String::new();
    for r in 0..n {
        let row: Vec<String> = (0..n).map(|c| grid[r * n + c].to_string()).collect();
        s.push_str(&row.join(" "));
        s.push('\n');
    }
    s
}
