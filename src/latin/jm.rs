//! The Jacobson–Matthews chain on Latin squares, with O(1) moves.
//!
//! A Latin square of order n is an n×n×n 0/1 cube M (row x, column y, symbol z) with exactly one
//! 1 on every axis-parallel line. A move adds +1 on four corners of a sub-box and −1 on the other
//! four; every line keeps sum one, but the far corner may become −1: an *improper* cube, with
//! exactly one −1 cell. At stationarity the chain is uniform over the proper cubes (Jacobson and
//! Matthews 1996).
//!
//! Line indexes instead of the cube. For every (row, column) line we keep the symbol of its 1
//! (`rc`), for every (row, symbol) line its column (`rs`), for every (column, symbol) line its row
//! (`cs`). Only the three lines through the −1 cell of an improper cube hold two 1s; their second
//! 1 is kept in `ez`, `ey`, `ex`. So a move never scans a line:
//!
//! * proper state: pick a 0-cell (x, y, z) uniformly among the n³ − n² of them; x1 = cs\[y\]\[z\],
//!   y1 = rs\[x\]\[z\], z1 = rc\[x\]\[y\] are the 1s on its three lines;
//! * improper state with −1 at (x, y, z): pick x1, y1, z1 each uniformly among the two 1s of its
//!   line;
//!
//! then +1 at (x,y,z), (x,y1,z1), (x1,y,z1), (x1,y1,z) and −1 at (x,y1,z), (x,y,z1), (x1,y,z),
//! (x1,y1,z1). The result is proper exactly when (x1,y1,z1) held a 1.

use super::square::Square;
use rand::Rng;

/// Largest order the chain supports (line indexes are 16×16 tables).
pub const MAX_ORDER: usize = 16;
const S: usize = 16;
const NONE: u8 = u8::MAX;

/// An improper state's −1 cell `(x, y, z)` and the two 1s on each of its lines: rows (on the
/// line through y, z), columns (x, z) and symbols (x, y).
pub type ImproperChoices = ((usize, usize, usize), [usize; 2], [usize; 2], [usize; 2]);

#[derive(Clone, Debug)]
pub struct JmChain {
    n: usize,
    /// rc[x*S + y] = z with M[x,y,z] = 1 (the first 1, for the improper line).
    rc: [u8; S * S],
    /// rs[x*S + z] = y with M[x,y,z] = 1.
    rs: [u8; S * S],
    /// cs[y*S + z] = x with M[x,y,z] = 1.
    cs: [u8; S * S],
    /// The −1 cell of an improper cube (`bx == NONE` when proper).
    bx: u8,
    by: u8,
    bz: u8,
    /// The second 1 on the lines (bx,by,·), (bx,·,bz), (·,by,bz).
    ez: u8,
    ey: u8,
    ex: u8,
    /// Number of 0-cells of a proper cube: n³ − n².
    zeros: u32,
    /// Lemire rejection threshold (2³² − zeros) mod zeros.
    reject_below: u32,
    /// 0-cell index → (x, y, z offset) packed as x | y << 8 | zoff << 16.
    decode: Vec<u32>,
}

impl JmChain {
    /// A chain at the cyclic square `(r + c) mod n`. Panics unless 2 ≤ n ≤ [`MAX_ORDER`].
    pub fn cyclic(n: usize) -> Self {
        assert!(
            (2..=MAX_ORDER).contains(&n),
            "Jacobson–Matthews order {n} out of 2..={MAX_ORDER}"
        );
        let zeros = (n * n * (n - 1)) as u32;
        let mut decode = Vec::with_capacity(zeros as usize);
        for x in 0..n {
            for y in 0..n {
                for zoff in 0..n - 1 {
                    decode.push((x | (y << 8) | (zoff << 16)) as u32);
                }
            }
        }
        let mut chain = JmChain {
            n,
            rc: [0; S * S],
            rs: [0; S * S],
            cs: [0; S * S],
            bx: NONE,
            by: NONE,
            bz: NONE,
            ez: NONE,
            ey: NONE,
            ex: NONE,
            zeros,
            reject_below: zeros.wrapping_neg() % zeros,
            decode,
        };
        chain.reset();
        chain
    }

    /// Back to the cyclic square (keeps the move tables; no allocation).
    pub fn reset(&mut self) {
        let n = self.n;
        for x in 0..n {
            for y in 0..n {
                let z = (x + y) % n;
                self.rc[x * S + y] = z as u8;
                self.rs[x * S + z] = y as u8;
                self.cs[y * S + z] = x as u8;
            }
        }
        self.bx = NONE;
        self.by = NONE;
        self.bz = NONE;
        self.ez = NONE;
        self.ey = NONE;
        self.ex = NONE;
    }

    /// Start from a given Latin square (order must match).
    pub fn set_square(&mut self, sq: &Square) {
        let n = self.n;
        assert_eq!(sq.order(), n);
        assert!(sq.is_latin(), "set_square needs a Latin square");
        for x in 0..n {
            for y in 0..n {
                let z = sq.get(x, y) as usize;
                self.rc[x * S + y] = z as u8;
                self.rs[x * S + z] = y as u8;
                self.cs[y * S + z] = x as u8;
            }
        }
        self.bx = NONE;
    }

    pub fn order(&self) -> usize {
        self.n
    }

    #[inline]
    pub fn is_proper(&self) -> bool {
        self.bx == NONE
    }

    /// Number of moves out of a proper state: n³ − n².
    pub fn proper_move_count(&self) -> usize {
        self.zeros as usize
    }

    /// One move of the chain.
    #[inline]
    pub fn step<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let r = rng.next_u64();
        if self.bx == NONE {
            // Lemire's multiply-shift with rejection: an exactly uniform 0-cell.
            let mut m = (r >> 32) * self.zeros as u64;
            while (m as u32) < self.reject_below {
                m = (rng.next_u64() >> 32) * self.zeros as u64;
            }
            let code = self.decode[(m >> 32) as usize];
            let x = (code & 0xff) as usize;
            let y = ((code >> 8) & 0xff) as usize;
            let zoff = (code >> 16) as u8;
            let z1 = self.rc[x * S + y];
            let z = zoff + (zoff >= z1) as u8;
            self.proper_move_unchecked(x, y, z as usize);
        } else {
            let (x, y, z) = (self.bx as usize, self.by as usize, self.bz as usize);
            let (a, b) = (self.cs[y * S + z], self.ex);
            let (x1, x2) = if r & 1 == 0 { (a, b) } else { (b, a) };
            let (a, b) = (self.rs[x * S + z], self.ey);
            let (y1, y2) = if r & 2 == 0 { (a, b) } else { (b, a) };
            let (a, b) = (self.rc[x * S + y], self.ez);
            let (z1, z2) = if r & 4 == 0 { (a, b) } else { (b, a) };
            // The −1 cell's lines keep their other 1.
            self.rc[x * S + y] = z2;
            self.rs[x * S + z] = y2;
            self.cs[y * S + z] = x2;
            self.finish_move(x, y, z, x1 as usize, y1 as usize, z1 as usize);
        }
    }

    /// `steps` moves.
    #[inline]
    pub fn run<R: Rng + ?Sized>(&mut self, steps: u64, rng: &mut R) {
        for _ in 0..steps {
            self.step(rng);
        }
    }

    #[inline(always)]
    fn proper_move_unchecked(&mut self, x: usize, y: usize, z: usize) {
        let x1 = self.cs[y * S + z] as usize;
        let y1 = self.rs[x * S + z] as usize;
        let z1 = self.rc[x * S + y] as usize;
        self.rc[x * S + y] = z as u8;
        self.rs[x * S + z] = y as u8;
        self.cs[y * S + z] = x as u8;
        self.finish_move(x, y, z, x1, y1, z1);
    }

    /// The part of a move shared by both states, once the lines through (x, y, z) are updated.
    #[inline(always)]
    fn finish_move(&mut self, x: usize, y: usize, z: usize, x1: usize, y1: usize, z1: usize) {
        let (x8, y8, z8) = (x as u8, y as u8, z as u8);
        let (x18, y18, z18) = (x1 as u8, y1 as u8, z1 as u8);
        self.rc[x * S + y1] = z18;
        self.rc[x1 * S + y] = z18;
        self.rs[x * S + z1] = y18;
        self.rs[x1 * S + z] = y18;
        self.cs[y1 * S + z] = x18;
        self.cs[y * S + z1] = x18;
        if self.rc[x1 * S + y1] == z18 {
            // (x1, y1, z1) held a 1: it becomes 0 and the cube is proper.
            self.rc[x1 * S + y1] = z8;
            self.rs[x1 * S + z1] = y8;
            self.cs[y1 * S + z1] = x8;
            self.bx = NONE;
        } else {
            // (x1, y1, z1) becomes −1; its three lines gain a second 1.
            self.bx = x18;
            self.by = y18;
            self.bz = z18;
            self.ez = z8;
            self.ey = y8;
            self.ex = x8;
        }
    }

    /// From a proper state, the move that starts at the 0-cell (x, y, z).
    /// Panics if the state is improper or (x, y, z) holds the 1 of its line.
    pub fn proper_move(&mut self, x: usize, y: usize, z: usize) {
        let n = self.n;
        assert!(self.is_proper(), "proper_move from an improper state");
        assert!(x < n && y < n && z < n);
        assert_ne!(self.rc[x * S + y] as usize, z, "(x,y,z) is not a 0-cell");
        self.proper_move_unchecked(x, y, z);
    }

    /// The −1 cell of an improper state and the two 1s on each of its lines:
    /// `((x, y, z), [rows], [columns], [symbols])`.
    pub fn improper_choices(&self) -> Option<ImproperChoices> {
        if self.is_proper() {
            return None;
        }
        let (x, y, z) = (self.bx as usize, self.by as usize, self.bz as usize);
        Some((
            (x, y, z),
            [self.cs[y * S + z] as usize, self.ex as usize],
            [self.rs[x * S + z] as usize, self.ey as usize],
            [self.rc[x * S + y] as usize, self.ez as usize],
        ))
    }

    /// From an improper state, the move to corner (x1, y1, z1), each one of the two 1s of its
    /// line through the −1 cell. Panics otherwise.
    pub fn improper_move(&mut self, x1: usize, y1: usize, z1: usize) {
        let (_, xs, ys, zs) = self
            .improper_choices()
            .expect("improper_move from a proper state");
        let pick = |v: usize, two: [usize; 2], what: &str| -> usize {
            assert!(two.contains(&v), "{what} {v} is not one of {two:?}");
            if two[0] == v { two[1] } else { two[0] }
        };
        let x2 = pick(x1, xs, "row");
        let y2 = pick(y1, ys, "column");
        let z2 = pick(z1, zs, "symbol");
        let (x, y, z) = (self.bx as usize, self.by as usize, self.bz as usize);
        self.rc[x * S + y] = z2 as u8;
        self.rs[x * S + z] = y2 as u8;
        self.cs[y * S + z] = x2 as u8;
        self.finish_move(x, y, z, x1, y1, z1);
    }

    /// The square of a proper state (None if improper).
    pub fn square(&self) -> Option<Square> {
        if !self.is_proper() {
            return None;
        }
        let n = self.n;
        let mut cells = Vec::with_capacity(n * n);
        for x in 0..n {
            cells.extend_from_slice(&self.rc[x * S..x * S + n]);
        }
        Some(Square::from_cells(n, cells))
    }

    /// Intercalates of a proper state, without building a [`Square`]. Panics if improper.
    pub fn intercalates(&self) -> usize {
        assert!(self.is_proper());
        let n = self.n;
        let mut cells = [0u8; S * S];
        for x in 0..n {
            cells[x * n..(x + 1) * n].copy_from_slice(&self.rc[x * S..x * S + n]);
        }
        super::square::intercalates(n, &cells[..n * n])
    }

    /// The full cube, rebuilt from the three line indexes, as n³ entries `M[(x*n + y)*n + z]`,
    /// or an error naming the first inconsistency between the indexes (each index must place
    /// exactly the 1s the others place). For tests and debugging; O(n³).
    pub fn cube(&self) -> Result<Vec<i8>, String> {
        let n = self.n;
        let at = |x: usize, y: usize, z: usize| (x * n + y) * n + z;
        let mut m = vec![0i8; n * n * n];
        let bad =
            (!self.is_proper()).then_some((self.bx as usize, self.by as usize, self.bz as usize));
        for x in 0..n {
            for y in 0..n {
                let z = self.rc[x * S + y] as usize;
                if z >= n {
                    return Err(format!("rc[{x}][{y}] = {z} out of range"));
                }
                m[at(x, y, z)] += 1;
            }
        }
        if let Some((x, y, z)) = bad {
            if self.ez as usize >= n {
                return Err("ez out of range".into());
            }
            m[at(x, y, self.ez as usize)] += 1;
            m[at(x, y, z)] -= 1;
        }
        // The rs and cs indexes must describe the same 1s.
        for x in 0..n {
            for z in 0..n {
                let mut ones: Vec<usize> = vec![self.rs[x * S + z] as usize];
                if let Some((bx, _, bz)) = bad
                    && (bx, bz) == (x, z)
                {
                    ones.push(self.ey as usize);
                }
                let mut want: Vec<usize> = (0..n).filter(|&y| m[at(x, y, z)] == 1).collect();
                ones.sort_unstable();
                want.sort_unstable();
                if ones != want {
                    return Err(format!(
                        "rs line (x={x}, z={z}): index {ones:?}, cube {want:?}"
                    ));
                }
            }
        }
        for y in 0..n {
            for z in 0..n {
                let mut ones: Vec<usize> = vec![self.cs[y * S + z] as usize];
                if let Some((_, by, bz)) = bad
                    && (by, bz) == (y, z)
                {
                    ones.push(self.ex as usize);
                }
                let mut want: Vec<usize> = (0..n).filter(|&x| m[at(x, y, z)] == 1).collect();
                ones.sort_unstable();
                want.sort_unstable();
                if ones != want {
                    return Err(format!(
                        "cs line (y={y}, z={z}): index {ones:?}, cube {want:?}"
                    ));
                }
            }
        }
        Ok(m)
    }
}
