//! The reversal certificate: a second answer read off an answer with no search.
//!
//! Pick positions i ≤ j on the answer's path such that the cell before the window neighbours the
//! window's last cell and the cell after it neighbours the window's first cell (a missing
//! neighbour at a path end needs nothing), with no printed number inside the window. Walking the
//! window backwards is then another answer. The scan is O(N²) with O(1) work per pair.

use super::board::Board;

/// A certificate: the window of path positions (0-based, inclusive) and the second answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    pub from: usize,
    pub to: usize,
    pub second: Vec<u32>,
}

/// Scan an answer (row-major values 1..n) of `board` for a reversal certificate.
pub fn find(board: &Board, answer: &[u32]) -> Option<Certificate> {
    let n = board.n();
    let g = board.geometry();
    let mut pos = vec![0usize; n];
    for (c, &v) in answer.iter().enumerate() {
        pos[v as usize - 1] = c;
    }
    for i in 0..n {
        if board.givens[pos[i]] != 0 {
            continue;
        }
        for j in i + 1..n {
            if board.givens[pos[j]] != 0 {
                break; // every longer window holds this printed number
            }
            let left = i == 0 || g.adjacent(pos[i - 1], pos[j]);
            let right = j == n - 1 || g.adjacent(pos[i], pos[j + 1]);
            if left && right {
                let mut second = answer.to_vec();
                for k in i..=j {
                    second[pos[k]] = (i + j - k) as u32 + 1;
                }
                return Some(Certificate {
                    from: i,
                    to: j,
                    second,
                });
            }
        }
    }
    None
}
