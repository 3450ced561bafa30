//! Latin squares as plain cell arrays, and intercalate counting.

/// An n×n array of symbols `0..n` in reading order (row-major). Not necessarily Latin: use
/// [`Square::is_latin`] to check.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Square {
    n: usize,
    cells: Vec<u8>,
}

impl Square {
    /// A square from its cells in reading order. Panics if the length is not n².
    pub fn from_cells(n: usize, cells: Vec<u8>) -> Self {
        assert_eq!(
            cells.len(),
            n * n,
            "a square of order {n} has {} cells",
            n * n
        );
        Square { n, cells }
    }

    /// The cyclic square `(r + c) mod n`.
    pub fn cyclic(n: usize) -> Self {
        let cells = (0..n * n).map(|i| ((i / n + i % n) % n) as u8).collect();
        Square { n, cells }
    }

    pub fn order(&self) -> usize {
        self.n
    }

    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    pub fn get(&self, r: usize, c: usize) -> u8 {
        self.cells[r * self.n + c]
    }

    pub fn row(&self, r: usize) -> &[u8] {
        &self.cells[r * self.n..(r + 1) * self.n]
    }

    /// Every row and every column holds each symbol `0..n` exactly once.
    pub fn is_latin(&self) -> bool {
        let n = self.n;
        if self.cells.iter().any(|&s| s as usize >= n) {
            return false;
        }
        for i in 0..n {
            let (mut row, mut col) = (0u64, 0u64);
            for j in 0..n {
                row |= 1 << self.cells[i * n + j];
                col |= 1 << self.cells[j * n + i];
            }
            let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            if row != full || col != full {
                return false;
            }
        }
        true
    }

    /// Intercalates (2×2 Latin subsquares `a b / b a`), by the write-up's 2-cycle trick.
    pub fn intercalates(&self) -> usize {
        intercalates(self.n, &self.cells)
    }
}

/// Intercalates of the Latin square `cells` (order n ≤ 64, row-major): for each pair of rows,
/// send each column to the column where the second row holds the same symbol; an intercalate is
/// exactly a 2-cycle of that map. n steps per row pair.
pub fn intercalates(n: usize, cells: &[u8]) -> usize {
    debug_assert_eq!(cells.len(), n * n);
    let mut k = 0;
    let mut pos = [0u8; 64];
    for r2 in 1..n {
        let b = &cells[r2 * n..(r2 + 1) * n];
        for (c, &s) in b.iter().enumerate() {
            pos[s as usize] = c as u8;
        }
        for r1 in 0..r2 {
            let a = &cells[r1 * n..(r1 + 1) * n];
            for c in 0..n {
                let c2 = pos[a[c] as usize] as usize;
                if c2 > c && a[c2] == b[c] {
                    k += 1;
                }
            }
        }
    }
    k
}

/// Intercalates by the definition: every pair of rows and pair of columns (a quadruple loop).
/// Slow; the cross-check for [`intercalates`].
pub fn intercalates_brute(n: usize, cells: &[u8]) -> usize {
    let at = |r: usize, c: usize| cells[r * n + c];
    let mut k = 0;
    for r1 in 0..n {
        for r2 in r1 + 1..n {
            for c1 in 0..n {
                for c2 in c1 + 1..n {
                    if at(r1, c1) == at(r2, c2) && at(r1, c2) == at(r2, c1) {
                        k += 1;
                    }
                }
            }
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyclic_squares() {
        for n in 1..=9 {
            let s = Square::cyclic(n);
            assert!(s.is_latin());
            // (r + c) mod n: intercalates exist only for even n, n²/4 · ... check against brute.
            assert_eq!(s.intercalates(), intercalates_brute(n, s.cells()));
        }
        // Odd-order cyclic squares have none (the write-up's T = 1 story).
        assert_eq!(Square::cyclic(7).intercalates(), 0);
        // Order 4 cyclic = Z4 Cayley table: 4 intercalates.
        assert_eq!(Square::cyclic(4).intercalates(), 4);
        assert!(!Square::from_cells(2, vec![0, 1, 0, 1]).is_latin());
    }
}
