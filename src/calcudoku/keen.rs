//! Simon Tatham's Keen game IDs (`W:DESC`, or `WdX[m]:DESC` with Keen's difficulty letter and
//! multiplication-only flag), so boards move between Keen and gridcensus.
//!
//! The description has two parts separated by a comma. First the cage structure, as the walls
//! between neighbouring cells: the w·(w−1) walls between horizontal neighbours in reading
//! order, then the w·(w−1) walls between vertical neighbours column by column, then one virtual
//! wall. Each wall is written as the number of non-walls before it: `_` for none, `a`..`y` for
//! 1..25, and `z` for 25 non-walls with no wall after them; a letter followed by a decimal count
//! k stands for k copies of it. Then one clue per cage, cages ordered by their first cell in
//! reading order: `a` (sum), `m` (product), `s` (difference), `d` (quotient), then the target.
//! Keen labels a one-cell cage `a` (or `m`) with its value; this module reads either as `=`
//! and writes `a`. Keen has no hidden signs, so a board with `?` cages has no Keen ID.

use super::board::{Board, Cage, MAX_ORDER, MIN_ORDER, Op};
use crate::error::input_error;
use anyhow::Result;

/// Does `text` look like a Keen game ID (digits, optional parameters, a colon)?
pub fn looks_like_id(text: &str) -> bool {
    let t = text.trim();
    match t.split_once(':') {
        Some((params, desc)) => {
            params.chars().next().is_some_and(|c| c.is_ascii_digit())
                && params.chars().all(|c| c.is_ascii_alphanumeric())
                && !desc.is_empty()
                && !t.contains('\n')
        }
        None => false,
    }
}

/// The walls of an order-`w` grid in Keen's order: (cell, neighbour) pairs.
fn walls(w: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::with_capacity(2 * w * (w - 1));
    for y in 0..w {
        for x in 0..w - 1 {
            v.push((y * w + x, y * w + x + 1));
        }
    }
    for x in 0..w {
        for y in 0..w - 1 {
            v.push((y * w + x, (y + 1) * w + x));
        }
    }
    v
}

/// Parse a Keen game ID into a board (signs shown).
pub fn parse_id(id: &str) -> Result<Board> {
    let id = id.trim();
    let bad = |why: &str| input_error(format!("Keen game ID: {why}"));
    let (params, desc) = id.split_once(':').ok_or_else(|| bad("expected 'W:DESC'"))?;
    let digits: String = params.chars().take_while(|c| c.is_ascii_digit()).collect();
    let w: usize = digits
        .parse()
        .map_err(|_| bad("the size W is not a number"))?;
    if !(MIN_ORDER..=MAX_ORDER).contains(&w) {
        return Err(bad(&format!(
            "size {w} is out of range {MIN_ORDER}..={MAX_ORDER}"
        )));
    }
    let rest = &params[digits.len()..];
    let rest = match rest.strip_prefix('d') {
        Some(r) => {
            let mut cs = r.chars();
            match cs.next() {
                Some('e' | 'n' | 'h' | 'x' | 'u') => cs.as_str(),
                _ => return Err(bad("unknown difficulty letter after 'd'")),
            }
        }
        None => rest,
    };
    if !(rest.is_empty() || rest == "m") {
        return Err(bad(&format!("unknown parameters '{rest}'")));
    }
    let (structure, clues) = desc
        .split_once(',')
        .ok_or_else(|| bad("expected ',' after the cage structure"))?;
    let ws = walls(w);
    // Union-find over cells, merged across every non-wall.
    let mut parent: Vec<usize> = (0..w * w).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut pos = 0usize;
    let b = structure.as_bytes();
    let mut i = 0usize;
    while i < b.len() {
        let ch = b[i];
        let run = match ch {
            b'_' => 0,
            b'a'..=b'z' => (ch - b'a' + 1) as usize,
            _ => return Err(bad(&format!("invalid character '{}'", ch as char))),
        };
        i += 1;
        let mut reps = 1usize;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i > start {
            reps = structure[start..i]
                .parse()
                .map_err(|_| bad("bad repeat count"))?;
        }
        for _ in 0..reps {
            for _ in 0..run.min(25) {
                if pos >= ws.len() {
                    return Err(bad("too much cage-structure data"));
                }
                let (p0, p1) = ws[pos];
                let (r0, r1) = (find(&mut parent, p0), find(&mut parent, p1));
                parent[r0.max(r1)] = r0.min(r1);
                pos += 1;
            }
            if run != 26 {
                // Every letter but 'z' is followed by a wall.
                pos += 1;
            }
        }
    }
    if pos != ws.len() + 1 {
        return Err(bad("cage structure does not cover the grid"));
    }
    // Cages in order of their first cell.
    let mut cage_of_root = vec![usize::MAX; w * w];
    let mut cells: Vec<Vec<u8>> = Vec::new();
    for c in 0..w * w {
        let r = find(&mut parent, c);
        if cage_of_root[r] == usize::MAX {
            cage_of_root[r] = cells.len();
            cells.push(Vec::new());
        }
        cells[cage_of_root[r]].push(c as u8);
    }
    let cb = clues.as_bytes();
    let mut k = 0usize;
    let mut cages = Vec::with_capacity(cells.len());
    for (idx, cs) in cells.into_iter().enumerate() {
        if k >= cb.len() {
            return Err(bad(&format!("too few clues ({} cages)", idx + 1)));
        }
        let letter = cb[k];
        k += 1;
        let start = k;
        while k < cb.len() && cb[k].is_ascii_digit() {
            k += 1;
        }
        let target: u64 = clues[start..k]
            .parse()
            .map_err(|_| bad(&format!("clue {} has no number", idx + 1)))?;
        let op = match (letter, cs.len()) {
            (b'a' | b'm', 1) => Op::Given,
            (b'a', _) => Op::Add,
            (b'm', _) => Op::Mul,
            (b's', 2) => Op::Sub,
            (b'd', 2) => Op::Div,
            (b's' | b'd', _) => {
                return Err(bad("subtraction and division cages must have two cells"));
            }
            _ => {
                return Err(bad(&format!("unknown clue type '{}'", letter as char)));
            }
        };
        cages.push(Cage {
            op,
            target,
            cells: cs,
        });
    }
    if k != cb.len() {
        return Err(bad("too many clues for the cage structure"));
    }
    Board::new(w, cages, false)
}

/// Write a board as a Keen game ID `W:DESC`; refused for boards with hidden signs.
pub fn to_id(b: &Board) -> Result<String> {
    if b.any_hidden() {
        return Err(input_error(
            "a board with hidden signs has no Keen game ID (Keen shows every sign)",
        ));
    }
    let w = b.n;
    let mut seq = String::new();
    let mut run = 0usize;
    let ws = walls(w);
    for k in 0..=ws.len() {
        let wall = k == ws.len() || b.cage_of[ws[k].0] != b.cage_of[ws[k].1];
        if wall {
            while run > 25 {
                seq.push('z');
                run -= 25;
            }
            seq.push(if run == 0 {
                '_'
            } else {
                (b'a' + run as u8 - 1) as char
            });
            run = 0;
        } else {
            run += 1;
        }
    }
    // Compress runs of one letter: two stay as they are, three or more become letter + count.
    let chars: Vec<char> = seq.chars().collect();
    let mut out = format!("{w}:");
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mut j = i;
        while j < chars.len() && chars[j] == c {
            j += 1;
        }
        let len = j - i;
        out.push(c);
        if len == 2 {
            out.push(c);
        } else if len > 2 {
            out.push_str(&len.to_string());
        }
        i = j;
    }
    out.push(',');
    // Clues in order of each cage's first cell (cells are sorted, so cells[0]).
    let mut order: Vec<usize> = (0..b.cages.len()).collect();
    order.sort_by_key(|&i| b.cages[i].cells[0]);
    for i in order {
        let cage = &b.cages[i];
        let letter = match cage.op {
            Op::Add | Op::Given => 'a',
            Op::Mul => 'm',
            Op::Sub => 's',
            Op::Div => 'd',
            Op::Any => unreachable!("hidden signs refused above"),
        };
        out.push(letter);
        out.push_str(&cage.target.to_string());
    }
    Ok(out)
}

/// Read a board from the text of a board file: a Keen game ID or the plain-text format.
/// `hide` hides every sign (on top of any `?` cages).
pub fn read_board(text: &str, hide: bool) -> Result<Board> {
    // A byte-order mark (as some editors save) is not part of either format.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if looks_like_id(text) {
        Ok(parse_id(text)?.with_hidden_signs(hide))
    } else {
        Board::parse(text, hide)
    }
}
