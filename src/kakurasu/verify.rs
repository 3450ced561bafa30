//! An independent solution counter for cross-checking the line solver. It shares no code with the
//! rule sets or the search: per row it lists every subset of columns whose weights (1-based column
//! numbers) hit the row target, then sweeps the cartesian product of those candidates row by row
//! with running column sums, pruning a branch as soon as a column overshoots its target (or can no
//! longer reach it with the rows left), and demands exact column targets at the bottom.

/// Count the shadings with these targets, stopping at `cap`. `rows[i]` is the target of row i+1,
/// `cols[j]` of column j+1; `n = rows.len() = cols.len()`.
pub fn count_solutions_by_rows(rows: &[u32], cols: &[u32], cap: u64) -> u64 {
    let n = rows.len();
    assert_eq!(cols.len(), n, "as many column targets as rows");
    // Per row: every subset of columns (bit j = column j+1) with Σ (j+1) = target.
    let mut cands: Vec<Vec<u32>> = Vec::with_capacity(n);
    for &t in rows {
        let mut v = Vec::new();
        for m in 0u32..(1 << n) {
            let mut s = 0u32;
            for j in 0..n {
                if m & (1 << j) != 0 {
                    s += j as u32 + 1;
                }
            }
            if s == t {
                v.push(m);
            }
        }
        if v.is_empty() {
            return 0;
        }
        cands.push(v);
    }
    // What rows i.. can still add to a column: (i+1) + ... + n.
    let tail: Vec<u32> = (0..=n)
        .map(|i| ((i + 1)..=n).map(|k| k as u32).sum())
        .collect();
    let mut sums = vec![0u32; n];
    let mut found = 0u64;
    sweep(0, n, &cands, cols, &tail, &mut sums, cap, &mut found);
    found
}

#[allow(clippy::too_many_arguments)]
fn sweep(
    i: usize,
    n: usize,
    cands: &[Vec<u32>],
    cols: &[u32],
    tail: &[u32],
    sums: &mut [u32],
    cap: u64,
    found: &mut u64,
) {
    if i == n {
        if sums.iter().zip(cols).all(|(a, b)| a == b) {
            *found += 1;
        }
        return;
    }
    let weight = i as u32 + 1;
    for &m in &cands[i] {
        let mut ok = true;
        for j in 0..n {
            let add = if m & (1 << j) != 0 { weight } else { 0 };
            let s = sums[j] + add;
            // Overshoot, or the rows below cannot make up the rest.
            if s > cols[j] || s + tail[i + 1] < cols[j] {
                ok = false;
                break;
            }
        }
        if !ok {
            continue;
        }
        for j in 0..n {
            if m & (1 << j) != 0 {
                sums[j] += weight;
            }
        }
        sweep(i + 1, n, cands, cols, tail, sums, cap, found);
        for j in 0..n {
            if m & (1 << j) != 0 {
                sums[j] -= weight;
            }
        }
        if *found >= cap {
            return;
        }
    }
}
