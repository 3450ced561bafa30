//! A second answer found next to a first one, with no search of the whole board.
//!
//! Most sparse boards have two answers or more, and telling "2+" needs only two. Given an answer
//! A, cut its path at the printed numbers: each run of the path between two consecutive printed
//! numbers (and the free runs before the first and after the last) is a Hamiltonian path of its
//! own cells between fixed ends. Another Hamiltonian path through exactly those cells, with the
//! same ends (a free path end may move), spliced into A, is a second answer. Windows of one, two
//! and three consecutive runs are tried, smallest first (a printed number inside a window keeps
//! its place); each window is a small depth-first search with a node budget. The reversal
//! certificate is the special case of a window walked backwards.
//!
//! Every hit is checked against the board with [`Board::is_answer`] (which shares no reasoning
//! with the window search) and compared with A before it is returned.

use super::bits::Bits;
use super::board::{Board, Geometry};

/// Windows of up to this many consecutive runs are tried.
pub const MAX_RUNS: usize = 3;

/// Node budget of one window's search (the whole scan stops at its own budget too).
pub const WINDOW_NODES: u64 = 4_096;

/// The outcome of a scan: a second answer (checked) and the nodes spent.
pub struct Local {
    pub second: Option<Vec<u32>>,
    pub nodes: u64,
}

/// Look for a second answer of `board` next to its answer `answer` (row-major values 1..n),
/// spending at most `budget` nodes. A returned answer is an answer of the board other than
/// `answer`; `None` proves nothing.
pub fn second_answer(geo: &Geometry, board: &Board, answer: &[u32], budget: u64) -> Local {
    let n = geo.n;
    let mut out = Local {
        second: None,
        nodes: 0,
    };
    if n < 2 || !board.is_answer(answer) {
        return out;
    }
    let mut pos = vec![0usize; n];
    for (c, &v) in answer.iter().enumerate() {
        pos[v as usize - 1] = c;
    }
    // Path positions of the printed numbers, in path order.
    let clues: Vec<usize> = (0..n).filter(|&i| board.givens[pos[i]] != 0).collect();
    if clues.is_empty() {
        // Nothing printed: the path read backwards.
        let second: Vec<u32> = answer.iter().map(|&v| n as u32 + 1 - v).collect();
        out.second = accept(board, answer, second);
        return out;
    }
    // Stops: a free start (None), the printed positions, a free end (None).
    let mut stops: Vec<Option<usize>> = Vec::with_capacity(clues.len() + 2);
    if clues[0] > 0 {
        stops.push(None);
    }
    stops.extend(clues.iter().map(|&i| Some(i)));
    if *clues.last().unwrap() < n - 1 {
        stops.push(None);
    }
    let mut windows: Vec<(usize, usize, bool, bool)> = Vec::new(); // (s, t, start fixed, end fixed)
    for a in 0..stops.len() {
        for b in a + 1..=(a + MAX_RUNS).min(stops.len() - 1) {
            let (s, sf) = match stops[a] {
                Some(i) => (i, true),
                None => (0, false),
            };
            let (t, tf) = match stops[b] {
                Some(i) => (i, true),
                None => (n - 1, false),
            };
            // A window needs two cells free to move (one when a path end is free).
            let inner = t - s + 1 - usize::from(sf) - usize::from(tf);
            if inner >= 2 || inner >= 1 && !(sf && tf) {
                windows.push((s, t, sf, tf));
            }
        }
    }
    windows.sort_by_key(|&(s, t, _, _)| (t - s, s));
    for (s, t, sf, tf) in windows {
        if out.nodes >= budget {
            break;
        }
        // Walk from a fixed end: forward from s, or backward from t.
        let order: Vec<usize> = if sf {
            (s..=t).collect()
        } else {
            (s..=t).rev().collect()
        };
        let cap = WINDOW_NODES.min(budget - out.nodes);
        let mut w = Window::new(geo, board, &pos, order, sf && tf, cap);
        let found = w.search();
        out.nodes += w.nodes;
        if found {
            let mut second = answer.to_vec();
            for (k, &i) in w.order.iter().enumerate() {
                second[w.cells[k]] = i as u32 + 1;
            }
            if let Some(b) = accept(board, answer, second) {
                out.second = Some(b);
                return out;
            }
        }
    }
    out
}

/// `second` if it is an answer of the board other than `first`.
fn accept(board: &Board, first: &[u32], second: Vec<u32>) -> Option<Vec<u32>> {
    (second != first && board.is_answer(&second)).then_some(second)
}

/// The search of one window: path positions `order[0..]` (walking order; `order[0]` keeps its
/// cell), filled with exactly the window's cells, every printed number on its own cell.
struct Window<'a> {
    geo: &'a Geometry,
    givens: &'a [u32],
    order: Vec<usize>,
    /// The cell each step must take when its number is printed (the fixed ends included).
    forced: Vec<Option<usize>>,
    /// The next step after k whose cell is forced, with that cell.
    next_forced: Vec<Option<(usize, usize)>>,
    /// The first answer's cells, step by step.
    orig: Vec<usize>,
    /// The cells chosen so far, step by step.
    cells: Vec<usize>,
    left: Bits,
    /// Both ends fixed (else the last step's cell is free).
    closed: bool,
    nodes: u64,
    cap: u64,
}

impl<'a> Window<'a> {
    fn new(
        geo: &'a Geometry,
        board: &'a Board,
        pos: &[usize],
        order: Vec<usize>,
        closed: bool,
        cap: u64,
    ) -> Window<'a> {
        let m = order.len();
        let orig: Vec<usize> = order.iter().map(|&i| pos[i]).collect();
        let forced: Vec<Option<usize>> = order
            .iter()
            .map(|&i| (board.givens[pos[i]] != 0).then_some(pos[i]))
            .collect();
        let mut next_forced = vec![None; m];
        let mut nxt = None;
        for k in (0..m).rev() {
            next_forced[k] = nxt;
            if let Some(c) = forced[k] {
                nxt = Some((k, c));
            }
        }
        let mut left = Bits::EMPTY;
        for &c in &orig[1..] {
            left.set(c);
        }
        let mut cells = Vec::with_capacity(m);
        cells.push(orig[0]);
        Window {
            geo,
            givens: &board.givens,
            order,
            forced,
            next_forced,
            orig,
            cells,
            left,
            closed,
            nodes: 0,
            cap,
        }
    }

    /// Whether a filling other than the first answer's exists (left in `cells`).
    fn search(&mut self) -> bool {
        let x = self.cells[0];
        self.feasible(0, x) && self.dfs(0, x) == Some(true)
    }

    /// From step k at cell x: Some(true) found, Some(false) exhausted, None out of nodes.
    fn dfs(&mut self, k: usize, x: usize) -> Option<bool> {
        let m = self.order.len();
        if k + 1 == m {
            return Some(self.cells != self.orig);
        }
        // Candidates: fewest onward neighbours first, the first answer's own step last.
        let mut cand: Vec<(bool, u32, usize)> = Vec::with_capacity(4);
        for &y in &self.geo.nbrs[x] {
            if !self.left.has(y) {
                continue;
            }
            let ok = match self.forced[k + 1] {
                Some(c) => c == y,
                None => self.givens[y] == 0,
            };
            if ok {
                let deg = self.geo.nmask[y].and(self.left).count();
                cand.push((y == self.orig[k + 1], deg, y));
            }
        }
        cand.sort_unstable();
        for (_, _, y) in cand {
            self.nodes += 1;
            if self.nodes > self.cap {
                return None;
            }
            self.left.clear(y);
            self.cells.push(y);
            if self.feasible(k + 1, y) {
                match self.dfs(k + 1, y) {
                    Some(false) => {}
                    r => return r,
                }
            }
            self.cells.pop();
            self.left.set(y);
        }
        Some(false)
    }

    /// After step k took cell x: the next forced cell within reach, the cells left connected to
    /// x, and no dead end other than the path's last cell.
    fn feasible(&self, k: usize, x: usize) -> bool {
        if let Some((j, c)) = self.next_forced[k]
            && self.geo.distance(x, c) > j - k
        {
            return false;
        }
        let left = self.left;
        if left.is_empty() {
            return true;
        }
        // Connected to x.
        let mut s = self.geo.nmask[x].and(left);
        if s.is_empty() {
            return false;
        }
        loop {
            let t = s.or(self.geo.dilate(s).and(left));
            if t == s {
                break;
            }
            s = t;
        }
        if s != left {
            return false;
        }
        // Dead ends: a cell left with one neighbour among the cells left and x is the last one.
        let last = if self.closed {
            self.forced[self.order.len() - 1]
        } else {
            None
        };
        let open = left.or(Bits::single(x));
        let mut ends = 0;
        for c in left.iter() {
            if self.geo.nmask[c].and(open).count() <= 1 {
                if self.closed && Some(c) != last {
                    return false;
                }
                ends += 1;
                if ends > 1 {
                    return false;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_detour_and_checks_it() {
        // 3x3: the snake 1 2 3 / 6 5 4 / 7 8 9 with 1 and 9 printed: the runs 1..9 admit other
        // Hamiltonian paths from the corner r1c1 to the corner r3c3 (e.g. down the columns).
        let board = Board::parse("1 . .\n. . .\n. . 9").unwrap();
        let snake = [1, 2, 3, 6, 5, 4, 7, 8, 9];
        let g = board.geometry();
        let got = second_answer(&g, &board, &snake, 10_000);
        let b = got.second.expect("a second answer");
        assert!(board.is_answer(&b));
        assert_ne!(b, snake);
    }

    #[test]
    fn none_on_a_unique_board() {
        // Every number printed but 5: the only answer is the snake.
        let board = Board::parse("1 2 3\n6 . 4\n7 8 9").unwrap();
        let snake = [1, 2, 3, 6, 5, 4, 7, 8, 9];
        let g = board.geometry();
        assert!(second_answer(&g, &board, &snake, 10_000).second.is_none());
        // Not an answer of the board: nothing is read off it.
        let wrong = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert!(second_answer(&g, &board, &wrong, 10_000).second.is_none());
    }

    #[test]
    fn free_path_end_may_move() {
        // 2x3, 1 printed only: 1 2 3 / 6 5 4 and 1 4 5 / 2 3 6 both start at r1c1 and end apart.
        let board = Board::parse("1 . .\n. . .").unwrap();
        let first = [1, 2, 3, 6, 5, 4];
        let g = board.geometry();
        let b = second_answer(&g, &board, &first, 10_000)
            .second
            .expect("a second answer");
        assert!(board.is_answer(&b) && b != first && b[0] == 1);
    }
}
