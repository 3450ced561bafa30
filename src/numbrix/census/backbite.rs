//! The backbite sampler: a Markov chain on the Hamiltonian paths of an m×n grid.
//!
//! A move picks one of the two ends of the path and a grid neighbour u of that end. If u is the
//! next cell along the path the move is refused. Otherwise the edge (end, u) is added, which
//! closes a cycle through u; deleting the path edge that entered u from the far side (the side
//! away from the end) opens it again, and the result is again a Hamiltonian path: the stretch
//! between u and the end is walked backwards.
//!
//! Two ways of choosing u are offered:
//!
//! * [`Variant::Neighbour`]: u uniform among the grid neighbours of the end (the write-up's move).
//!   A move from x to y has probability 1/(2·deg(end of x)) and its reverse 1/(2·deg(end of y)),
//!   so the chain is reversible with stationary weight ∝ deg(a)·deg(b) over the two ends a, b:
//!   paths ending in the interior are favoured over paths ending on the border.
//! * [`Variant::Compass`]: one of the four compass directions, uniformly; a step off the grid is
//!   a refused move. Every move then has probability 1/8 both ways, the chain is symmetric and
//!   its stationary distribution is uniform (given ergodicity, which is known only empirically).

use rand::RngExt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Neighbour,
    Compass,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Neighbour, Variant::Compass];
    pub fn name(self) -> &'static str {
        match self {
            Variant::Neighbour => "neighbour",
            Variant::Compass => "compass",
        }
    }
}

/// A Hamiltonian path of a rows×cols grid under backbite moves.
#[derive(Clone, Debug)]
pub struct Backbite {
    pub rows: usize,
    pub cols: usize,
    /// The cells in path order (row-major indices).
    pub path: Vec<u32>,
    /// Position of each cell in `path`.
    pos: Vec<u32>,
    nbrs: Vec<Vec<u32>>,
}

impl Backbite {
    /// The boustrophedon snake: row 0 left to right, row 1 right to left, ...
    pub fn snake(rows: usize, cols: usize) -> Self {
        assert!(rows >= 1 && cols >= 1);
        let n = rows * cols;
        let mut path = Vec::with_capacity(n);
        for r in 0..rows {
            for k in 0..cols {
                let c = if r % 2 == 0 { k } else { cols - 1 - k };
                path.push((r * cols + c) as u32);
            }
        }
        let mut pos = vec![0u32; n];
        for (i, &c) in path.iter().enumerate() {
            pos[c as usize] = i as u32;
        }
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
        Backbite {
            rows,
            cols,
            path,
            pos,
            nbrs,
        }
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// Grid degree of a cell.
    pub fn degree(&self, cell: u32) -> usize {
        self.nbrs[cell as usize].len()
    }

    fn compass(&self, cell: u32, dir: u32) -> Option<u32> {
        let (r, c) = (cell as usize / self.cols, cell as usize % self.cols);
        let (r, c) = match dir {
            0 if r > 0 => (r - 1, c),
            1 if r + 1 < self.rows => (r + 1, c),
            2 if c > 0 => (r, c - 1),
            3 if c + 1 < self.cols => (r, c + 1),
            _ => return None,
        };
        Some((r * self.cols + c) as u32)
    }

    fn reverse(&mut self, lo: usize, hi: usize) {
        self.path[lo..=hi].reverse();
        for i in lo..=hi {
            self.pos[self.path[i] as usize] = i as u32;
        }
    }

    /// One backbite move; returns whether it changed the path.
    pub fn step<R: rand::Rng + ?Sized>(&mut self, rng: &mut R, variant: Variant) -> bool {
        let n = self.path.len();
        if n < 2 {
            return false;
        }
        let tail = rng.random_bool(0.5);
        let end = if tail { self.path[n - 1] } else { self.path[0] };
        let u = match variant {
            Variant::Neighbour => {
                let nb = &self.nbrs[end as usize];
                nb[rng.random_range(0..nb.len())]
            }
            Variant::Compass => match self.compass(end, rng.random_range(0..4u32)) {
                Some(u) => u,
                None => return false,
            },
        };
        self.bite(tail, u)
    }

    /// The move's choices spelled out, for computing the chain's exact law: the end (`tail`:
    /// the last cell, else the first) and the proposed cell, as a compass direction
    /// (`Variant::Compass`, `choice` in 0..4) or as an index into the end's grid neighbours
    /// (`Variant::Neighbour`, `choice` below [`Backbite::degree`] of the end). Each compass
    /// choice has probability 1/8; a neighbour choice 1/(2·degree).
    pub fn step_with(&mut self, tail: bool, variant: Variant, choice: usize) -> bool {
        let n = self.path.len();
        if n < 2 {
            return false;
        }
        let end = if tail { self.path[n - 1] } else { self.path[0] };
        let u = match variant {
            Variant::Neighbour => self.nbrs[end as usize][choice],
            Variant::Compass => match self.compass(end, choice as u32) {
                Some(u) => u,
                None => return false,
            },
        };
        self.bite(tail, u)
    }

    /// Add the edge from the chosen end to `u` and open the cycle it closes.
    fn bite(&mut self, tail: bool, u: u32) -> bool {
        let n = self.path.len();
        let i = self.pos[u as usize] as usize;
        if tail {
            if i == n - 2 {
                return false;
            }
            // Add (end, u), delete (path[i], path[i+1]): walk path[i+1..] backwards.
            self.reverse(i + 1, n - 1);
        } else {
            if i == 1 {
                return false;
            }
            // Add (end, u), delete (path[i-1], path[i]): walk path[..i] backwards.
            self.reverse(0, i - 1);
        }
        true
    }

    /// A path given as its cell sequence (must be Hamiltonian), for exact-law computations.
    pub fn from_path(rows: usize, cols: usize, path: &[u32]) -> Self {
        let mut b = Backbite::snake(rows, cols);
        b.path = path.to_vec();
        for (i, &c) in path.iter().enumerate() {
            b.pos[c as usize] = i as u32;
        }
        b
    }

    /// Turns along the path (cells where the direction changes).
    pub fn turns(&self) -> usize {
        self.path
            .windows(3)
            .filter(|w| (w[1] as i64 - w[0] as i64) != (w[2] as i64 - w[1] as i64))
            .count()
    }

    /// Whether `path` visits every cell once with consecutive cells adjacent.
    pub fn is_hamiltonian(&self) -> bool {
        let n = self.cells();
        if self.path.len() != n {
            return false;
        }
        let mut seen = vec![false; n];
        for &c in &self.path {
            if c as usize >= n || seen[c as usize] {
                return false;
            }
            seen[c as usize] = true;
        }
        self.path
            .windows(2)
            .all(|w| self.nbrs[w[0] as usize].contains(&w[1]))
    }

    /// The path's edge set as a bit mask (an undirected key), for grids of at most 64 edges.
    pub fn edge_key(&self) -> u64 {
        edge_key(self.rows, self.cols, self.path.iter().map(|&c| c as usize))
    }
}

/// Number of grid edges of a rows×cols grid.
pub fn edge_count(rows: usize, cols: usize) -> usize {
    rows * (cols - 1) + (rows - 1) * cols
}

/// Edge-set key of a path given as a cell sequence (same key for both directions).
pub fn edge_key(rows: usize, cols: usize, path: impl Iterator<Item = usize>) -> u64 {
    assert!(
        edge_count(rows, cols) <= 64,
        "edge keys need at most 64 edges"
    );
    let horizontal = rows * (cols - 1);
    let mut key = 0u64;
    let mut prev: Option<usize> = None;
    for c in path {
        if let Some(p) = prev {
            let (a, b) = (p.min(c), p.max(c));
            let e = if b == a + 1 {
                (a / cols) * (cols - 1) + a % cols
            } else {
                horizontal + a
            };
            key |= 1u64 << e;
        }
        prev = Some(c);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn moves_keep_a_hamiltonian_path() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        for (r, c) in [(1, 1), (1, 5), (2, 2), (3, 4), (5, 5), (4, 7)] {
            for v in Variant::ALL {
                let mut b = Backbite::snake(r, c);
                assert!(b.is_hamiltonian());
                assert_eq!(b.turns(), 2 * (r - 1));
                for _ in 0..2000 {
                    b.step(&mut rng, v);
                    assert!(b.is_hamiltonian(), "{r}x{c} {v:?}: {:?}", b.path);
                }
            }
        }
    }
}
