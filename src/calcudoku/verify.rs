//! The independent verifier: plain backtracking over Latin squares in reading order, checking
//! each cage when its last cell is filled. It shares no code with the rungs, the board's own
//! cage evaluation or the board parser: it reads the board's text through its own minimal
//! parser below (so a parser bug in `board.rs` cannot hide from it) and evaluates cages with its
//! own arithmetic.

use super::board::Board;

/// The verifier's own reading of an operation sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sign {
    Plus,
    Minus,
    Times,
    Over,
    Given,
    /// Hidden: any operation the cage's size allows.
    Hidden,
}

struct Cage {
    sign: Sign,
    target: u64,
    cells: Vec<usize>,
}

/// A board as the verifier reads it: order and cages.
struct Parsed {
    n: usize,
    cages: Vec<Cage>,
}

/// The verifier's minimal reader of the board text format: `order N`, then `OP TARGET rRcC...`
/// lines; `#` comments and blank lines skipped. It checks only what it needs to evaluate cages
/// (the board was validated when it was built).
fn parse(text: &str) -> Result<Parsed, String> {
    let mut n = 0usize;
    let mut cages = Vec::new();
    for line in text.lines() {
        let line = match line.find('#') {
            Some(k) => &line[..k],
            None => line,
        };
        let mut toks = line.split_whitespace();
        let Some(first) = toks.next() else { continue };
        if n == 0 {
            if first != "order" {
                return Err(format!("verifier: expected 'order', got '{first}'"));
            }
            n = toks
                .next()
                .and_then(|t| t.parse().ok())
                .ok_or("verifier: bad order")?;
            continue;
        }
        let sign = match first {
            "+" => Sign::Plus,
            "-" | "−" => Sign::Minus,
            "*" | "x" | "X" | "×" => Sign::Times,
            "/" | "÷" => Sign::Over,
            "=" => Sign::Given,
            "?" => Sign::Hidden,
            _ => return Err(format!("verifier: unknown sign '{first}'")),
        };
        let target: u64 = toks
            .next()
            .and_then(|t| t.parse().ok())
            .ok_or("verifier: bad target")?;
        let mut cells = Vec::new();
        for t in toks {
            let bad = || format!("verifier: bad cell '{t}'");
            let rest = t.strip_prefix(['r', 'R']).ok_or_else(bad)?;
            let (r, c) = rest.split_once(['c', 'C']).ok_or_else(bad)?;
            let r: usize = r.parse().map_err(|_| bad())?;
            let c: usize = c.parse().map_err(|_| bad())?;
            if r == 0 || c == 0 || r > n || c > n {
                return Err(bad());
            }
            cells.push((r - 1) * n + (c - 1));
        }
        if cells.is_empty() {
            return Err("verifier: cage without cells".into());
        }
        cages.push(Cage {
            sign,
            target,
            cells,
        });
    }
    if n == 0 {
        return Err("verifier: no order line".into());
    }
    Ok(Parsed { n, cages })
}

/// Read `board` the verifier's way: its text (hidden signs written as `?`) through [`parse`].
fn read(board: &Board) -> Parsed {
    parse(&board.unsigned_text()).expect("a board's own text parses")
}

struct V {
    n: usize,
    cages: Vec<Cage>,
    /// Cages whose last cell (reading order) is this cell.
    closing: Vec<Vec<usize>>,
    grid: Vec<u32>,
    rows: Vec<u32>,
    cols: Vec<u32>,
    cap: u64,
    found: Vec<Vec<u8>>,
    count: u64,
}

fn reaches(sign: Sign, target: u64, vals: &[u32]) -> bool {
    match sign {
        Sign::Given => vals.len() == 1 && u64::from(vals[0]) == target,
        Sign::Plus => {
            let mut s = 0u64;
            for v in vals {
                s += u64::from(*v);
            }
            s == target
        }
        Sign::Times => {
            let mut p = 1u64;
            for v in vals {
                p = p.saturating_mul(u64::from(*v));
            }
            p == target
        }
        Sign::Minus => {
            vals.len() == 2 && {
                let (x, y) = (u64::from(vals[0]), u64::from(vals[1]));
                x.abs_diff(y) == target
            }
        }
        Sign::Over => {
            vals.len() == 2 && {
                let (x, y) = (u64::from(vals[0]), u64::from(vals[1]));
                (x == y * target) || (y == x * target)
            }
        }
        Sign::Hidden => {
            let signs: &[Sign] = match vals.len() {
                1 => &[Sign::Given],
                2 => &[Sign::Plus, Sign::Minus, Sign::Times, Sign::Over],
                _ => &[Sign::Plus, Sign::Times],
            };
            signs.iter().any(|&s| reaches(s, target, vals))
        }
    }
}

impl V {
    fn cage_ok(&self, k: usize) -> bool {
        let c = &self.cages[k];
        let vals: Vec<u32> = c.cells.iter().map(|&i| self.grid[i]).collect();
        reaches(c.sign, c.target, &vals)
    }

    fn go(&mut self, i: usize) -> bool {
        let n = self.n;
        if i == n * n {
            self.count += 1;
            self.found
                .push(self.grid.iter().map(|&v| v as u8).collect());
            return self.count >= self.cap;
        }
        let (r, c) = (i / n, i % n);
        for v in 1..=n as u32 {
            let bit = 1u32 << v;
            if self.rows[r] & bit != 0 || self.cols[c] & bit != 0 {
                continue;
            }
            self.grid[i] = v;
            let ok = (0..self.closing[i].len()).all(|j| self.cage_ok(self.closing[i][j]));
            if ok {
                self.rows[r] |= bit;
                self.cols[c] |= bit;
                let stop = self.go(i + 1);
                self.rows[r] &= !bit;
                self.cols[c] &= !bit;
                if stop {
                    return true;
                }
            }
        }
        self.grid[i] = 0;
        false
    }
}

/// Count the solutions of `board` up to `cap`, returning the count and the solutions found.
pub fn verify_count(board: &Board, cap: u64) -> (u64, Vec<Vec<u8>>) {
    let Parsed { n, cages } = read(board);
    run(n, cages, cap)
}

/// Is `grid` a solution of `board`? Checked with the verifier's own arithmetic (Latin rows and
/// columns, then every cage), independent of `Board::is_solution`.
pub fn verify_grid(board: &Board, grid: &[u8]) -> bool {
    let Parsed { n, cages } = read(board);
    if grid.len() != n * n || grid.iter().any(|&v| v == 0 || v as usize > n) {
        return false;
    }
    for r in 0..n {
        let (mut row, mut col) = (0u32, 0u32);
        for c in 0..n {
            row |= 1 << grid[r * n + c];
            col |= 1 << grid[c * n + r];
        }
        if row.count_ones() as usize != n || col.count_ones() as usize != n {
            return false;
        }
    }
    let v = V {
        n,
        cages,
        closing: Vec::new(),
        grid: grid.iter().map(|&x| u32::from(x)).collect(),
        rows: Vec::new(),
        cols: Vec::new(),
        cap: 1,
        found: Vec::new(),
        count: 0,
    };
    (0..v.cages.len()).all(|k| v.cage_ok(k))
}

/// Count the solutions of a board given as text in the board file format (signs as written,
/// `?` hidden), read only by the verifier's own parser.
pub fn verify_text(text: &str, cap: u64) -> Result<(u64, Vec<Vec<u8>>), String> {
    let Parsed { n, cages } = parse(text)?;
    Ok(run(n, cages, cap))
}

fn run(n: usize, cages: Vec<Cage>, cap: u64) -> (u64, Vec<Vec<u8>>) {
    let mut closing = vec![Vec::new(); n * n];
    for (k, c) in cages.iter().enumerate() {
        let last = *c.cells.iter().max().expect("non-empty cage");
        closing[last].push(k);
    }
    let mut v = V {
        n,
        cages,
        closing,
        grid: vec![0; n * n],
        rows: vec![0; n],
        cols: vec![0; n],
        cap: cap.max(1),
        found: Vec::new(),
        count: 0,
    };
    v.go(0);
    (v.count, v.found)
}
