//! The raw walk engine: enumerates Hamiltonian paths of an m×n grid by walking, and scores
//! completed walks against printed numbers. It shares no candidate machinery with the ladder.
//!
//! Two walkers live here:
//!
//! * [`directed_from_prefix`], the census machine (grids of at most 64 cells, bit masks): counts
//!   directed Hamiltonian paths that start with a given prefix of cells. Pruning, all exact:
//!   a start cell of the wrong chessboard colour has no path (the colours of the remaining cells
//!   must alternate); a free cell whose last free neighbour was taken is dead; a free cell with a
//!   single free neighbour must be the last cell of the walk, so two such cells kill the branch and
//!   stepping onto one before the end does too.
//! * [`count_solutions`], the puzzle scorer (any size): counts numberings 1..mn of the grid whose
//!   consecutive numbers are orthogonal neighbours and which agree with every printed number,
//!   up to a cap. Besides the pruning above it uses the printed numbers (a step numbered v lands on
//!   the cell printed v if v is printed and never on a printed cell otherwise; the next printed
//!   number must be within reach, with the right parity) and keeps the free cells connected.

/// Largest cell count the bit-mask census walker accepts.
pub const MAX_CENSUS_CELLS: usize = 64;

const NONE: u32 = u32::MAX;

/// Grid geometry for the bit-mask walker.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub rows: usize,
    pub cols: usize,
    /// Neighbour mask of every cell (row-major indices).
    pub nbr: Vec<u64>,
    /// Cells with (row + col) even.
    pub black: u64,
    /// The 8 cells around each cell (N, NE, E, SE, S, SW, W, NW; u8::MAX off the grid).
    pub ring: Vec<[u8; 8]>,
    /// Cells not in the first / last column (shift masks of the flood fill).
    pub not_first_col: u64,
    pub not_last_col: u64,
}

impl Geometry {
    pub fn new(rows: usize, cols: usize) -> Self {
        let n = rows * cols;
        assert!(
            (1..=MAX_CENSUS_CELLS).contains(&n),
            "census walker: {rows}x{cols} is out of range"
        );
        let mut nbr = vec![0u64; n];
        let mut black = 0u64;
        for r in 0..rows {
            for c in 0..cols {
                let i = r * cols + c;
                if (r + c) % 2 == 0 {
                    black |= 1 << i;
                }
                if r > 0 {
                    nbr[i] |= 1 << (i - cols);
                }
                if r + 1 < rows {
                    nbr[i] |= 1 << (i + cols);
                }
                if c > 0 {
                    nbr[i] |= 1 << (i - 1);
                }
                if c + 1 < cols {
                    nbr[i] |= 1 << (i + 1);
                }
            }
        }
        let mut first = 0u64;
        let mut last = 0u64;
        for r in 0..rows {
            first |= 1 << (r * cols);
            last |= 1 << (r * cols + cols - 1);
        }
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let ring = (0..n)
            .map(|i| {
                let (r, c) = ((i / cols) as i64, (i % cols) as i64);
                let d = [
                    (-1, 0),
                    (-1, 1),
                    (0, 1),
                    (1, 1),
                    (1, 0),
                    (1, -1),
                    (0, -1),
                    (-1, -1),
                ];
                let mut out = [u8::MAX; 8];
                for (k, (dr, dc)) in d.iter().enumerate() {
                    let (rr, cc) = (r + dr, c + dc);
                    if rr >= 0 && cc >= 0 && rr < rows as i64 && cc < cols as i64 {
                        out[k] = (rr as usize * cols + cc as usize) as u8;
                    }
                }
                out
            })
            .collect();
        Geometry {
            ring,
            rows,
            cols,
            nbr,
            black,
            not_first_col: all & !first,
            not_last_col: all & !last,
        }
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    fn all(&self) -> u64 {
        if self.cells() == 64 {
            u64::MAX
        } else {
            (1u64 << self.cells()) - 1
        }
    }
}

/// Result of one census walk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkCount {
    /// Directed Hamiltonian paths found.
    pub paths: u64,
    /// Search nodes visited (cells placed).
    pub nodes: u64,
}

struct Census<'a, F: FnMut(&[u8])> {
    g: &'a Geometry,
    prefix: &'a [u8],
    out: WalkCount,
    visit: F,
    path: Vec<u8>,
}

const CONNECT: bool = true;

/// For each 8-bit pattern of free cells around a cell (ring order N, NE, E, SE, S, SW, W, NW;
/// even bits orthogonal), the number of cyclic runs of free cells holding an orthogonal one.
const RUNS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut p = 0;
    while p < 256 {
        if p == 255 {
            t[p] = 1;
        } else {
            // Start just after a non-free position so that runs do not wrap.
            let mut start = 0;
            while (p >> start) & 1 == 1 {
                start += 1;
            }
            let mut runs = 0;
            let mut in_run = false;
            let mut has_orth = false;
            let mut k = 1;
            while k <= 8 {
                let pos = (start + k) % 8;
                if (p >> pos) & 1 == 1 {
                    in_run = true;
                    if pos % 2 == 0 {
                        has_orth = true;
                    }
                } else {
                    if in_run && has_orth {
                        runs += 1;
                    }
                    in_run = false;
                    has_orth = false;
                }
                k += 1;
            }
            t[p] = runs;
        }
        p += 1;
    }
    t
};

impl<F: FnMut(&[u8])> Census<'_, F> {
    /// Whether taking `h` can disconnect the free cells: its free orthogonal neighbours fall in
    /// two or more separate runs of free cells around its 3×3 ring. (If they share one run they
    /// stay connected through the ring, so the free region stays connected.)
    #[inline]
    fn may_split(&self, h: u32, free: u64) -> bool {
        let ring = &self.g.ring[h as usize];
        let mut pat = 0usize;
        for (k, &c) in ring.iter().enumerate() {
            if c != u8::MAX && free >> c & 1 == 1 {
                pat |= 1 << k;
            }
        }
        RUNS[pat] >= 2
    }

    /// Whether the free cells are connected to a free neighbour of `h` (bit-parallel flood fill).
    #[inline]
    fn connected(&self, h: u32, free: u64) -> bool {
        let start = self.g.nbr[h as usize] & free;
        if start == 0 {
            return false;
        }
        let mut x = start & start.wrapping_neg();
        let cols = self.g.cols as u32;
        loop {
            let y = (x
                | ((x << 1) & self.g.not_first_col)
                | ((x >> 1) & self.g.not_last_col)
                | (x << cols)
                | (x >> cols))
                & free;
            if y == x {
                return x == free;
            }
            x = y;
        }
    }

    fn rec(&mut self, head: u32, free: u64, forced: u32) {
        self.out.nodes += 1;
        if free == 0 {
            self.out.paths += 1;
            (self.visit)(&self.path);
            return;
        }
        let depth = self.path.len();
        let mut cand = self.g.nbr[head as usize] & free;
        if depth < self.prefix.len() {
            cand &= 1u64 << self.prefix[depth];
        }
        while cand != 0 {
            let h = cand.trailing_zeros();
            cand &= cand - 1;
            let nfree = free & !(1u64 << h);
            if h == forced && nfree != 0 {
                continue; // the forced last cell, reached too early
            }
            // Free neighbours of the old head lose it; none of them neighbours the new head.
            let mut f = forced;
            let mut ok = true;
            let mut m = self.g.nbr[head as usize] & nfree;
            while m != 0 {
                let x = m.trailing_zeros();
                m &= m - 1;
                match (self.g.nbr[x as usize] & nfree).count_ones() {
                    0 => {
                        ok = false;
                        break;
                    }
                    1 => {
                        if f == NONE || f == x {
                            f = x;
                        } else {
                            ok = false;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if !ok {
                continue;
            }
            if CONNECT && nfree != 0 && self.may_split(h, nfree) && !self.connected(h, nfree) {
                continue;
            }
            self.path.push(h as u8);
            self.rec(h, nfree, f);
            self.path.pop();
        }
    }
}

/// Whether a walk starting on `start` can cover the grid by colour count alone.
fn start_parity_ok(g: &Geometry, start: usize) -> bool {
    let n = g.cells() as u32;
    let black = g.black.count_ones();
    let start_black = g.black >> start & 1 == 1;
    let same = if start_black { black } else { n - black };
    same == n.div_ceil(2)
}

/// Count directed Hamiltonian paths of the `g` grid whose first cells are `prefix` (at least the
/// start cell; the prefix must be a walk of distinct adjacent cells, else the count is 0).
pub fn directed_from_prefix(g: &Geometry, prefix: &[u8]) -> WalkCount {
    walk_prefix(g, prefix, |_| {})
}

/// Visit every directed Hamiltonian path starting with `prefix` (cell sequences, row-major).
pub fn for_each_path(g: &Geometry, prefix: &[u8], visit: impl FnMut(&[u8])) -> WalkCount {
    walk_prefix(g, prefix, visit)
}

fn walk_prefix(g: &Geometry, prefix: &[u8], visit: impl FnMut(&[u8])) -> WalkCount {
    assert!(!prefix.is_empty(), "a walk needs a start cell");
    let start = prefix[0] as usize;
    if start >= g.cells() || !start_parity_ok(g, start) {
        return WalkCount::default();
    }
    let free = g.all() & !(1u64 << start);
    // Cells of degree 1 at the start: at most one may exist besides the start (a 1-wide grid).
    let mut forced = NONE;
    let mut m = free;
    while m != 0 {
        let x = m.trailing_zeros();
        m &= m - 1;
        let deg = (g.nbr[x as usize] & free).count_ones() + (g.nbr[start] >> x & 1) as u32;
        if deg == 0 && free != 1u64 << x {
            return WalkCount::default();
        }
        if deg <= 1 && g.nbr[start] >> x & 1 == 0 {
            if forced != NONE {
                return WalkCount::default();
            }
            forced = x;
        }
    }
    let mut c = Census {
        g,
        prefix,
        out: WalkCount::default(),
        visit,
        path: vec![start as u8],
    };
    c.rec(start as u32, free, forced);
    c.out
}

/// Directed Hamiltonian paths of an m×n grid (at most 64 cells), by brute force from every cell.
pub fn directed_paths(rows: usize, cols: usize) -> u64 {
    let g = Geometry::new(rows, cols);
    (0..g.cells())
        .map(|s| directed_from_prefix(&g, &[s as u8]).paths)
        .sum()
}

// ---------------------------------------------------------------------------------------------
// The puzzle scorer
// ---------------------------------------------------------------------------------------------

struct Scorer {
    n: usize,
    cols: usize,
    nbrs: Vec<Vec<u32>>,
    /// Value printed on each cell (0 = blank).
    printed: Vec<u32>,
    /// Cell of each printed value (index v; u32::MAX = not printed).
    home: Vec<u32>,
    /// Smallest printed value ≥ v (index v; 0 = none).
    next_printed: Vec<u32>,
    /// The printed values in increasing order.
    q: Vec<u32>,
    /// `next_index[v]`: index in `q` of the smallest printed value ≥ v (q.len() if none).
    next_index: Vec<u32>,
    /// `last_gap[x]`: the last k such that blank cell x fits a value strictly between q[k] and
    /// q[k + 1] (or after q[k] when k is the last), by distance; −1 if none.
    last_gap: Vec<i32>,
    free: Vec<bool>,
    free_deg: Vec<u32>,
    cap: u64,
    found: u64,
    seen: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
}

impl Scorer {
    fn dist(&self, a: u32, b: u32) -> u32 {
        let (ar, ac) = (a as usize / self.cols, a as usize % self.cols);
        let (br, bc) = (b as usize / self.cols, b as usize % self.cols);
        (ar.abs_diff(br) + ac.abs_diff(bc)) as u32
    }

    fn take(&mut self, x: u32) {
        self.free[x as usize] = false;
        for i in 0..self.nbrs[x as usize].len() {
            let y = self.nbrs[x as usize][i];
            self.free_deg[y as usize] -= 1;
        }
    }

    fn give_back(&mut self, x: u32) {
        self.free[x as usize] = true;
        for i in 0..self.nbrs[x as usize].len() {
            let y = self.nbrs[x as usize][i];
            self.free_deg[y as usize] += 1;
        }
    }

    /// Whether `cell` may hold the last number: it is printed with it, or it is blank and the
    /// last number is not printed elsewhere.
    fn may_end_at(&self, cell: u32) -> bool {
        let p = self.printed[cell as usize];
        if p != 0 {
            p as usize == self.n
        } else {
            self.home[self.n] == NONE
        }
    }

    /// Whether blank free cell `x` still has a time: some later value it can hold. Values between
    /// two future printed numbers (static, `last_gap`) or before the next printed number, reached
    /// from the head in time (dynamic).
    fn has_time(&self, x: u32, head: u32, v: u32) -> bool {
        let j = self.next_index[v as usize + 1];
        if j >= self.q.len() as u32 || self.last_gap[x as usize] >= j as i32 {
            return true;
        }
        let q = self.q[j as usize];
        self.dist(head, x) + self.dist(x, self.home[q as usize]) <= q - v
    }

    /// Every free cell reachable from a free neighbour of `head` (holding `v`) through free
    /// cells, and every blank free cell with a time left.
    fn connected(&mut self, head: u32, v: u32, remaining: usize) -> bool {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let Some(&s) = self.nbrs[head as usize]
            .iter()
            .find(|&&y| self.free[y as usize])
        else {
            return remaining == 0;
        };
        self.stack.clear();
        self.stack.push(s);
        self.seen[s as usize] = self.stamp;
        let mut reached = 0;
        while let Some(x) = self.stack.pop() {
            reached += 1;
            if self.printed[x as usize] == 0 && !self.has_time(x, head, v) {
                return false;
            }
            for i in 0..self.nbrs[x as usize].len() {
                let y = self.nbrs[x as usize][i];
                if self.free[y as usize] && self.seen[y as usize] != self.stamp {
                    self.seen[y as usize] = self.stamp;
                    self.stack.push(y);
                }
            }
        }
        reached == remaining
    }

    /// `head` holds value `v`; `forced` is the cell that must hold the last value (or NONE).
    fn rec(&mut self, head: u32, v: u32, forced: u32) {
        if self.found >= self.cap {
            return;
        }
        let n = self.n as u32;
        if v == n {
            self.found += 1;
            return;
        }
        let w = v + 1;
        let target = self.home[w as usize];
        for i in 0..self.nbrs[head as usize].len() {
            let h = self.nbrs[head as usize][i];
            if !self.free[h as usize] {
                continue;
            }
            if target != NONE {
                if h != target {
                    continue;
                }
            } else if self.printed[h as usize] != 0 {
                continue;
            }
            if h == forced && w != n {
                continue;
            }
            // Reach: the next printed value after w must be reachable from h in time.
            let np = self.next_printed[w as usize + 1];
            if np != 0 {
                let d = self.dist(h, self.home[np as usize]);
                if d > np - w || !(np - w - d).is_multiple_of(2) {
                    continue;
                }
            }
            self.take(h);
            // Free neighbours of the old head lose it as an exit.
            let mut f = forced;
            let mut ok = true;
            for j in 0..self.nbrs[head as usize].len() {
                let x = self.nbrs[head as usize][j];
                if !self.free[x as usize] {
                    continue;
                }
                match self.free_deg[x as usize] {
                    0 => {
                        ok = false;
                        break;
                    }
                    1 => {
                        if f == NONE || f == x {
                            f = x;
                        } else {
                            ok = false;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if ok && f != NONE && !self.may_end_at(f) {
                ok = false; // the forced last cell cannot hold the last number
            }
            if ok {
                let remaining = (n - w) as usize;
                ok = self.connected(h, w, remaining);
            }
            if ok {
                self.rec(h, w, f);
            }
            self.give_back(h);
            if self.found >= self.cap {
                return;
            }
        }
    }
}

/// Number of answers of a Numbrix board, counted up to `cap`: numberings 1..rows·cols of the
/// grid with consecutive numbers orthogonally adjacent that agree with every printed number.
/// `givens` is row-major with 0 for a blank. Invalid givens (wrong length, out of range,
/// duplicated) have no answer.
pub fn count_solutions(rows: usize, cols: usize, givens: &[u32], cap: u64) -> u64 {
    let n = rows * cols;
    if n == 0 || givens.len() != n || cap == 0 {
        return 0;
    }
    let mut home = vec![NONE; n + 2];
    for (i, &v) in givens.iter().enumerate() {
        if v as usize > n {
            return 0;
        }
        if v != 0 {
            if home[v as usize] != NONE {
                return 0;
            }
            home[v as usize] = i as u32;
        }
    }
    // Walk from the better-anchored end: number the walk backwards (v -> n + 1 - v) if the
    // last number is printed and the first is not, or if printed numbers sit nearer the end.
    let min_p = (1..=n).find(|&v| home[v] != NONE);
    let max_p = (1..=n).rev().find(|&v| home[v] != NONE);
    let reverse = match (min_p, max_p) {
        (Some(a), Some(b)) => a != 1 && (b == n || n + 1 - b < a),
        _ => false,
    };
    let printed: Vec<u32> = if reverse {
        givens
            .iter()
            .map(|&v| if v == 0 { 0 } else { n as u32 + 1 - v })
            .collect()
    } else {
        givens.to_vec()
    };
    let mut home = vec![NONE; n + 2];
    for (i, &v) in printed.iter().enumerate() {
        if v != 0 {
            home[v as usize] = i as u32;
        }
    }
    let mut next_printed = vec![0u32; n + 2];
    for v in (1..=n).rev() {
        next_printed[v] = if home[v] != NONE {
            v as u32
        } else {
            next_printed[v + 1]
        };
    }
    let q: Vec<u32> = (1..=n as u32)
        .filter(|&v| home[v as usize] != NONE)
        .collect();
    let mut next_index = vec![q.len() as u32; n + 2];
    for v in (1..=n).rev() {
        next_index[v] = if home[v] != NONE {
            q.iter().position(|&x| x as usize == v).unwrap() as u32
        } else {
            next_index[v + 1]
        };
    }
    let dist = |a: u32, b: u32| {
        let (ar, ac) = (a as usize / cols, a as usize % cols);
        let (br, bc) = (b as usize / cols, b as usize % cols);
        (ar.abs_diff(br) + ac.abs_diff(bc)) as u32
    };
    let last_gap: Vec<i32> = (0..n as u32)
        .map(|x| {
            (0..q.len())
                .rev()
                .find(|&k| {
                    let a = dist(x, home[q[k] as usize]);
                    match q.get(k + 1) {
                        Some(&q1) => a + dist(x, home[q1 as usize]) <= q1 - q[k],
                        None => a <= n as u32 - q[k],
                    }
                })
                .map_or(-1, |k| k as i32)
        })
        .collect();
    let mut nbrs = vec![Vec::new(); n];
    for r in 0..rows {
        for c in 0..cols {
            let i = r * cols + c;
            if r > 0 {
                nbrs[i].push((i - cols) as u32);
            }
            if r + 1 < rows {
                nbrs[i].push((i + cols) as u32);
            }
            if c > 0 {
                nbrs[i].push((i - 1) as u32);
            }
            if c + 1 < cols {
                nbrs[i].push((i + 1) as u32);
            }
        }
    }
    let free_deg = nbrs.iter().map(|v| v.len() as u32).collect();
    let mut s = Scorer {
        n,
        cols,
        nbrs,
        printed,
        home,
        next_printed,
        q,
        next_index,
        last_gap,
        free: vec![true; n],
        free_deg,
        cap,
        found: 0,
        seen: vec![0; n],
        stamp: 0,
        stack: Vec::with_capacity(n),
    };
    if n == 1 {
        return 1;
    }
    let starts: Vec<u32> = if s.home[1] != NONE {
        vec![s.home[1]]
    } else {
        (0..n as u32)
            .filter(|&c| s.printed[c as usize] == 0)
            .collect()
    };
    for start in starts {
        let np = s.next_printed[2];
        if np != 0 {
            let d = s.dist(start, s.home[np as usize]);
            if d > np - 1 || !(np - 1 - d).is_multiple_of(2) {
                continue;
            }
        }
        s.take(start);
        // Initial dead ends: a free cell of degree 1 not next to the start must be the last.
        let mut forced = NONE;
        let mut ok = true;
        for x in 0..n as u32 {
            if !s.free[x as usize] {
                continue;
            }
            let adj = s.nbrs[start as usize].contains(&x) as u32;
            let deg = s.free_deg[x as usize] + adj;
            if deg == 0 && n > 2 {
                ok = false;
            } else if s.free_deg[x as usize] <= 1 && adj == 0 {
                if forced != NONE {
                    ok = false;
                }
                forced = x;
            }
        }
        if ok && forced != NONE && !s.may_end_at(forced) {
            ok = false;
        }
        if ok {
            ok = s.connected(start, 1, n - 1);
        }
        if ok {
            s.rec(start, 1, forced);
        }
        s.give_back(start);
        if s.found >= cap {
            break;
        }
    }
    s.found.min(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_grids() {
        assert_eq!(directed_paths(1, 1), 1);
        assert_eq!(directed_paths(1, 2), 2);
        assert_eq!(directed_paths(2, 2), 8);
        assert_eq!(directed_paths(3, 3), 40);
        assert_eq!(directed_paths(1, 7), 2);
        assert_eq!(count_solutions(1, 1, &[0], 10), 1);
        assert_eq!(count_solutions(2, 2, &[0; 4], 100), 8);
        assert_eq!(count_solutions(3, 3, &[0; 9], 100), 40);
        assert_eq!(count_solutions(4, 4, &[0; 16], 10_000), 552);
    }
}
