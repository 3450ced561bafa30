//! A second census kernel, written independently of [`super::census`], for orders up to 11.
//!
//! The census kernel packs a row into 64 bits and so stops at order 8. This kernel keeps a row as
//! a 128-bit cell mask (bit `n·c + s` for symbol `s` in column `c`; 11² = 121 bits fit) and its
//! symbols as bytes, and is plain portable code. It counts the *sorted completions* of a Latin
//! rectangle whose first row is the identity: rows 2, 3, ... are taken in increasing order of
//! their first symbol, so the next row always starts with the smallest symbol still missing from
//! column 0. It returns their histogram by the intercalate count of the whole square.
//!
//! It serves three purposes: it is the exact counter of the sampled work units of
//! [`super::estimate`] (any order up to 11), it runs the order-9 census work units, and it is an
//! independent implementation that the census kernel is held to unit by unit at orders 3–8 (the
//! census units are 3-row rectangles whose third row need not have the smallest first symbol:
//! the rows added here are sorted among themselves, whatever the fixed rows).

/// Largest order this kernel handles (n² cell bits must fit in 128).
pub const WIDE_MAX_ORDER: usize = 11;

/// A row: its cell mask and its symbols by column.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub mask: u128,
    pub sym: [u8; 16],
}

impl Row {
    pub fn new(n: usize, symbols: &[u8]) -> Row {
        let mut sym = [0u8; 16];
        let mut mask = 0u128;
        for c in 0..n {
            sym[c] = symbols[c];
            mask |= 1u128 << (n * c + symbols[c] as usize);
        }
        Row { mask, sym }
    }

    pub fn symbols(&self, n: usize) -> Vec<u8> {
        self.sym[..n].to_vec()
    }
}

/// Intercalates (2×2 Latin subsquares) between two disjoint rows: column pairs c < d with
/// a\[c\] = b\[d\] and a\[d\] = b\[c\].
pub fn row_intercalates(n: usize, a: &Row, b: &Row) -> u32 {
    let mut col_in_b = [0u8; 16];
    for c in 0..n {
        col_in_b[b.sym[c] as usize] = c as u8;
    }
    let mut k = 0;
    for c in 0..n {
        let d = col_in_b[a.sym[c] as usize] as usize;
        k += (d > c && a.sym[d] == b.sym[c]) as u32;
    }
    k
}

/// Every row compatible with `fixed` (no column repeats a symbol), in lexicographic order; with
/// `first = Some(f)` only the rows starting with symbol `f`.
pub fn compatible_rows(n: usize, fixed: &[Row], first: Option<u8>) -> Vec<Row> {
    assert!((1..=WIDE_MAX_ORDER).contains(&n));
    let mut forbidden = [0u16; 16];
    for r in fixed {
        for c in 0..n {
            forbidden[c] |= 1 << r.sym[c];
        }
    }
    if let Some(f) = first {
        forbidden[0] |= !(1u16 << f);
    }
    let mut out = Vec::new();
    let mut cur = [0u8; 16];
    fn go(
        n: usize,
        c: usize,
        used: u16,
        forbidden: &[u16; 16],
        cur: &mut [u8; 16],
        out: &mut Vec<Row>,
    ) {
        if c == n {
            out.push(Row::new(n, &cur[..n]));
            return;
        }
        let full = (1u16 << n) - 1;
        let mut avail = full & !used & !forbidden[c];
        while avail != 0 {
            let s = avail.trailing_zeros() as u8;
            avail &= avail - 1;
            cur[c] = s;
            go(n, c + 1, used | (1 << s), forbidden, cur, out);
        }
    }
    go(n, 0, 0, &forbidden, &mut cur, &mut out);
    out
}

/// The symbol the next sorted row starts with: the smallest symbol missing from column 0.
pub fn next_first_symbol(n: usize, fixed: &[Row]) -> Option<u8> {
    let mut seen = 0u16;
    for r in fixed {
        seen |= 1 << r.sym[0];
    }
    (0..n as u8).find(|&s| seen & (1 << s) == 0)
}

/// Intercalates among the rows of a rectangle.
pub fn rectangle_intercalates(n: usize, rows: &[Row]) -> u32 {
    let mut k = 0;
    for i in 0..rows.len() {
        for j in i + 1..rows.len() {
            k += row_intercalates(n, &rows[i], &rows[j]);
        }
    }
    k
}

/// Histogram (index = intercalates of the whole square) of the completions of the Latin
/// rectangle `fixed` (first row the identity) whose added rows are sorted by first symbol.
pub fn count_completions(n: usize, fixed: &[Row]) -> Vec<u64> {
    let mut counts = vec![0u64; n * n * (n - 1) / 4 + 1];
    let remaining = n - fixed.len();
    let k0 = rectangle_intercalates(n, fixed);
    if remaining == 0 {
        counts[k0 as usize] += 1;
        return counts;
    }
    let list: Vec<(Row, u32)> = compatible_rows(n, fixed, None)
        .into_iter()
        .map(|p| {
            let s = fixed.iter().map(|f| row_intercalates(n, f, &p)).sum();
            (p, s)
        })
        .collect();
    let cap = list.len();
    let mut levels: Vec<Vec<(Row, u32)>> = vec![list];
    levels.extend((1..remaining).map(|_| Vec::with_capacity(cap)));
    descend(n, remaining, k0, &mut levels, &mut counts);
    counts
}

fn descend(n: usize, remaining: usize, k: u32, levels: &mut [Vec<(Row, u32)>], counts: &mut [u64]) {
    let (cur, deeper) = levels.split_first_mut().expect("a level per row");
    if cur.is_empty() {
        return;
    }
    if remaining == 1 {
        // Every column misses exactly one symbol: the list is the one completing row.
        for (_, s) in cur.iter() {
            counts[(k + s) as usize] += 1;
        }
        return;
    }
    let f = cur[0].0.sym[0];
    let lead = cur.iter().take_while(|(p, _)| p.sym[0] == f).count();
    if remaining == 2 {
        // The last row is the unique listed row disjoint from row n−2.
        for (q, qs) in &cur[..lead] {
            for (p, ps) in &cur[lead..] {
                if p.mask & q.mask == 0 {
                    counts[(k + qs + ps + row_intercalates(n, q, p)) as usize] += 1;
                }
            }
        }
        return;
    }
    for i in 0..lead {
        let (q, qs) = cur[i];
        let next = &mut deeper[0];
        next.clear();
        for (p, ps) in &cur[lead..] {
            if p.mask & q.mask == 0 {
                next.push((*p, ps + row_intercalates(n, &q, p)));
            }
        }
        descend(n, remaining - 1, k + qs, deeper, counts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduced_total(n: usize) -> u128 {
        // Σ over derangements d of row 1 of the sorted completions, times (n−2)!, over (n−1)!:
        // equivalently Σ_d completions / (n − 1).
        let id: Vec<u8> = (0..n as u8).collect();
        let r0 = Row::new(n, &id);
        let mut total: u128 = 0;
        for d in compatible_rows(n, &[r0], None) {
            total += count_completions(n, &[r0, d])
                .iter()
                .map(|&c| c as u128)
                .sum::<u128>();
        }
        total / (n as u128 - 1)
    }

    #[test]
    fn small_orders_match_a000315() {
        let want = [0u128, 1, 1, 1, 4, 56, 9408];
        for n in 3..=6 {
            assert_eq!(reduced_total(n), want[n], "n={n}");
        }
    }

    #[test]
    fn compatible_rows_are_lexicographic_permutations() {
        let n = 5;
        let id: Vec<u8> = (0..5).collect();
        let rows = compatible_rows(n, &[Row::new(n, &id)], None);
        assert_eq!(rows.len(), 44); // derangements of 5
        for w in rows.windows(2) {
            assert!(w[0].symbols(n) < w[1].symbols(n));
        }
        let lead = compatible_rows(n, &[Row::new(n, &id)], Some(1));
        assert_eq!(lead.len(), 11);
    }
}
