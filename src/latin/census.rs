//! The exact census of reduced Latin squares by intercalate count, as an engine job.
//!
//! Symmetry reduction. Every Latin square is a row-and-column permutation of exactly one reduced
//! square in n!(n−1)! ways, and intercalate counts are invariant under row, column and symbol
//! permutations, so the reduced histogram is the histogram over all squares (scaled).
//! Count squares whose first row is the identity instead: there are (n−1)!·R(n) of them. Their
//! second row is a derangement d; the number of completions with a given d (and their intercalate
//! histogram) depends only on the cycle type of d, because conjugating by a permutation π
//! (relabel symbols by π, permute columns by π) fixes the identity row and maps d to π d π⁻¹.
//! Rows 2..n−1 (0-based) can be put in any order, so count only completions whose rows 2..
//! are sorted by first-column symbol, and multiply by (n−2)!. Hence
//!
//!   hist_R\[k\] = Σ_types N(type) · C_k(rep(type)) / (n − 1)
//!
//! where N(type) is the number of derangements of that cycle type and C_k counts sorted
//! completions with k intercalates.
//!
//! Third row. Let C3_k(id, d, r) count the completions of the 3-row rectangle (id, d, r) whose
//! rows 3.. are sorted by first symbol, for *every* row r compatible with (id, d). A completion
//! counted by C_k(d) has n − 2 rows after row 1, and each of them can play r with the others
//! sorted, so Σ_r C3_k(id, d, r) = (n − 2) · C_k(d) and
//!
//!   hist_R\[k\] = Σ_types N(type) · Σ_r C3_k(id, rep(type), r) / ((n − 1)(n − 2)).
//!
//! C3 is invariant under isotopy of the rectangle (permuting its three rows, its columns, its
//! symbols maps completions onto completions with the same intercalate count), so the pairs
//! (type, r) are grouped into isotopy classes of 3×n Latin rectangles: bring any isotope to the
//! form (id, rep(T), t) by choosing two of its rows in order (a, b), relabelling columns by a⁻¹
//! and conjugating b∘a⁻¹ to its type's representative; the forms over the six choices and the
//! centralizer of the representative are exactly the class's members. Units are the classes
//! (their first member in (type, list position) order), weighted by Σ N(type) over the members;
//! the division by (n − 1)(n − 2) happens once, on the total, and must be exact.
//! Order 8: 370 units of roughly equal size (one per class of the 33,192 (type, r) pairs; the
//! (type, r from the leading first-symbol group) units without the classes number 5,512);
//! order 7: 56 units.
//!
//! The kernel (rows numbered from 0 here: row 0 is the identity, row 1 the representative).
//! Rows are not built cell by cell. Each type keeps the list of every permutation
//! compatible with rows 0 and 1 (a 64-bit cell mask, bit 8c+s, and the symbols packed one byte
//! per column), sorted by first symbol, each with its *score*: the intercalates it forms with
//! the rows fixed so far. Fixing a row q filters the list to the rows disjoint from q (an AVX2
//! AND/compare of four masks at a time with a lane-table compaction) and adds to each survivor
//! its intercalates with q: σ(c) = q⁻¹(p(c)) is a permutation of the columns whose 2-cycles are
//! exactly the intercalates between q and p (the write-up's 2-cycle trick), counted as the fixed
//! points of σ∘σ with two SSSE3 byte shuffles and one byte compare. The intercalate count of a
//! square is then the sum of the scores its rows had when they were chosen. Rows 3.. are sorted
//! by first symbol, so the next row comes from the list's leading group.
//!
//! The last two rows are handled in bulk: once rows 0..n−3 are fixed, each column misses two
//! symbols, and the list holds exactly the 2^cycles rows of the 2-regular column–symbol graph's
//! orientations. The sort puts the smaller missing symbol of column 0 in row n−2, leaving
//! 2^(cycles−1) completions; row n−1 is the unique listed row disjoint from row n−2. Both scores
//! are already in the list, and the intercalates between the last two rows are the graph's
//! 4-cycles, the same for every orientation. At the last branching level this is fused with
//! the choice of row n−3, so no candidate list is written there. A portable scalar kernel (same
//! logic) runs where AVX2 is missing; a test checks both kernels agree unit by unit.

use crate::engine::{Histogram, Job, JobSpec, Unit};
use crate::error::input_error;
use anyhow::Result;

/// Largest order the census accepts.
pub const MAX_ORDER: usize = 8;

/// One work unit: an isotopy class of 3-row rectangles, given by its first member (identity,
/// a cycle-type representative, one row of that type's candidate list; 0-based rows).
#[derive(Clone, Debug)]
struct UnitPlan {
    type_index: usize,
    /// Index of row 2 in the type's candidate list.
    row2: usize,
    /// Σ N(type) over the class's members (type, row 2).
    weight: u64,
}

/// A cycle type of derangements: its representative second row and how many derangements share it.
#[derive(Clone, Debug)]
pub struct CycleClass {
    pub cycle_lengths: Vec<usize>,
    pub representative: Vec<u8>,
    pub derangements: u64,
}

/// The census of one order.
pub struct CensusJob {
    order: usize,
    classes: Vec<CycleClass>,
    /// Per type: every row compatible with rows 0 and 1, by first symbol, scored against them.
    lists: Vec<Vec<Cand>>,
    units: Vec<UnitPlan>,
    /// Per type and candidate-list position: the unit (class) of that rectangle.
    unit_of: Vec<Vec<u32>>,
    kernel: Kernel,
}

/// Partitions of n into parts ≥ 2, non-increasing.
fn partitions_no_ones(n: usize, max: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if n == 0 {
        out.push(cur.clone());
        return;
    }
    for p in (2..=max.min(n)).rev() {
        cur.push(p);
        partitions_no_ones(n - p, p, cur, out);
        cur.pop();
    }
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

/// Number of permutations of n with the given cycle lengths: n! / Π(l^{m_l} · m_l!).
fn class_size(n: usize, lengths: &[usize]) -> u64 {
    let mut denom: u128 = 1;
    let mut i = 0;
    while i < lengths.len() {
        let l = lengths[i];
        let m = lengths.iter().filter(|&&x| x == l).count();
        denom *= (l as u128).pow(m as u32) * factorial(m) as u128;
        i += m;
    }
    (factorial(n) as u128 / denom) as u64
}

/// The cycle classes of derangements of n, each with a representative (consecutive cycles).
pub fn cycle_classes(n: usize) -> Vec<CycleClass> {
    let mut parts = Vec::new();
    partitions_no_ones(n, n, &mut Vec::new(), &mut parts);
    parts
        .into_iter()
        .map(|lengths| {
            let mut rep = vec![0u8; n];
            let mut start = 0;
            for &l in &lengths {
                for j in 0..l {
                    rep[start + j] = (start + (j + 1) % l) as u8;
                }
                start += l;
            }
            let derangements = class_size(n, &lengths);
            CycleClass {
                cycle_lengths: lengths,
                representative: rep,
                derangements,
            }
        })
        .collect()
}

/// A candidate row: a permutation compatible (no symbol repeated in a column) with every row
/// fixed so far, with the number of intercalates it forms with those rows.
#[derive(Clone, Copy, Debug)]
struct Cand {
    /// Cell mask: bit `8·c + s` for symbol `s` in column `c`.
    mask: u64,
    /// Symbols packed one byte per column (column c in byte c); columns ≥ n hold c (padding).
    perm: u64,
    /// Intercalates this row forms with the rows fixed so far.
    score: u32,
}

fn pack(row: &[u8]) -> (u64, u64) {
    let mut perm = 0u64;
    let mut mask = 0u64;
    for c in 0..8 {
        let s = if c < row.len() { row[c] } else { c as u8 };
        perm |= (s as u64) << (8 * c);
        if c < row.len() {
            mask |= 1u64 << (8 * c + s as usize);
        }
    }
    (perm, mask)
}

/// Inverse of a packed row (padding columns map to themselves).
#[inline(always)]
fn inverse(perm: u64) -> [u8; 8] {
    let mut inv = [0u8; 8];
    for c in 0..8 {
        inv[((perm >> (8 * c)) & 7) as usize] = c as u8;
    }
    inv
}

/// Twice the intercalates between a row (given by its inverse `qinv`) and packed row `p`, plus
/// the padding columns: σ(c) = qinv[p[c]] is a permutation of the columns whose 2-cycles are
/// exactly the intercalates (the write-up's 2-cycle trick); count c with σ(σ(c)) = c. A real
/// column is never a fixed point (p and q differ in every column); each padding column is one.
#[inline(always)]
fn involution_points(qinv: &[u8; 8], p: u64) -> u32 {
    let mut s = [0u8; 8];
    for c in 0..8 {
        s[c] = qinv[((p >> (8 * c)) & 7) as usize];
    }
    let mut cnt = 0;
    for c in 0..8 {
        cnt += (s[s[c] as usize & 7] == c as u8) as u32;
    }
    cnt
}

/// Intercalates between rows `a` and `b` (plain slices; for set-up and tests).
fn intercalates_between(n: usize, a: &[u8], b: &[u8]) -> usize {
    let mut pos_b = [0u8; 32];
    for c in 0..n {
        pos_b[b[c] as usize] = c as u8;
    }
    let mut k = 0;
    for c in 0..n {
        let c2 = pos_b[a[c] as usize] as usize;
        if c2 > c && a[c2] == b[c] {
            k += 1;
        }
    }
    k
}

/// All permutations of 0..n in lexicographic order (so grouped by first symbol, ascending).
fn permutations(n: usize) -> Vec<Vec<u8>> {
    let mut p: Vec<u8> = (0..n as u8).collect();
    let mut out = vec![p.clone()];
    loop {
        let Some(i) = (0..n.saturating_sub(1)).rev().find(|&i| p[i] < p[i + 1]) else {
            return out;
        };
        let j = (i + 1..n).rev().find(|&j| p[j] > p[i]).unwrap();
        p.swap(i, j);
        p[i + 1..].reverse();
        out.push(p.clone());
    }
}

/// Composition of permutations given as arrays: `(f∘g)[i] = f[g[i]]`.
fn compose(n: usize, f: &[u8; 8], g: &[u8; 8]) -> [u8; 8] {
    let mut out = [0u8; 8];
    for i in 0..n {
        out[i] = f[g[i] as usize];
    }
    out
}

fn invert(n: usize, f: &[u8; 8]) -> [u8; 8] {
    let mut out = [0u8; 8];
    for i in 0..n {
        out[f[i] as usize] = i as u8;
    }
    out
}

fn to_array(row: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a[..row.len()].copy_from_slice(row);
    a
}

/// Lexicographic key of a row (column 0 most significant), so that lexicographic lists are
/// sorted by key.
fn lex_key(n: usize, row: &[u8; 8]) -> u64 {
    row[..n].iter().fold(0u64, |k, &s| (k << 8) | s as u64)
}

/// For a derangement `x`: the index of its cycle type in `classes` and a permutation σ with
/// σ∘x∘σ⁻¹ = that type's representative (x's cycles, longest first, mapped onto the
/// representative's consecutive blocks).
fn conjugator(n: usize, classes: &[CycleClass], x: &[u8; 8]) -> (usize, [u8; 8]) {
    let mut seen = [false; 8];
    let mut cycles: Vec<Vec<u8>> = Vec::new();
    for s in 0..n {
        if seen[s] {
            continue;
        }
        let mut cyc = Vec::new();
        let mut y = s;
        while !seen[y] {
            seen[y] = true;
            cyc.push(y as u8);
            y = x[y] as usize;
        }
        cycles.push(cyc);
    }
    // Stable: equal lengths keep the order of their smallest elements.
    cycles.sort_by(|a, b| b.len().cmp(&a.len()));
    let lengths: Vec<usize> = cycles.iter().map(Vec::len).collect();
    let t = classes
        .iter()
        .position(|c| c.cycle_lengths == lengths)
        .expect("x is a derangement of a listed cycle type");
    let mut sigma = [0u8; 8];
    let mut start = 0;
    for cyc in &cycles {
        for (j, &y) in cyc.iter().enumerate() {
            sigma[y as usize] = (start + j) as u8;
        }
        start += cyc.len();
    }
    (t, sigma)
}

/// The isotopy classes of the 3-row rectangles (identity, rep(type), r) over every type and
/// every row r compatible with the first two (`lists[type]`, lexicographic). Returns the work
/// units (one per class: its first member in (type, list position) order, and the class weight
/// Σ N(type) over its members) and, per type and list position, the unit of that rectangle.
///
/// Every rectangle isotopic to (id, rep, r) is brought to the form (id, rep(T'), t) as follows:
/// take two of its rows in order, a then b, and the third c; relabel columns by a⁻¹ (rows
/// id, x = b∘a⁻¹, c∘a⁻¹); conjugate by a σ with σ∘x∘σ⁻¹ = rep(T') (relabel symbols by σ and
/// columns by σ⁻¹, which keeps the identity row); the remaining freedom is the centralizer Z of
/// rep(T'), so t runs over z∘σ∘c∘a⁻¹∘σ⁻¹∘z⁻¹. These forms, over the six ordered choices and all
/// z, are exactly the class's members.
fn rectangle_classes(
    n: usize,
    classes: &[CycleClass],
    lists: &[Vec<Cand>],
) -> Result<(Vec<UnitPlan>, Vec<Vec<u32>>)> {
    let perms = permutations(n);
    let reps: Vec<[u8; 8]> = classes
        .iter()
        .map(|c| to_array(&c.representative))
        .collect();
    let centralizers: Vec<Vec<([u8; 8], [u8; 8])>> = reps
        .iter()
        .map(|rep| {
            perms
                .iter()
                .map(|z| to_array(z))
                .filter(|z| compose(n, z, rep) == compose(n, rep, z))
                .map(|z| (z, invert(n, &z)))
                .collect()
        })
        .collect();
    let rows: Vec<Vec<[u8; 8]>> = lists
        .iter()
        .map(|list| {
            list.iter()
                .map(|c| {
                    let b = c.perm.to_le_bytes();
                    let mut a = [0u8; 8];
                    a[..n].copy_from_slice(&b[..n]);
                    a
                })
                .collect()
        })
        .collect();
    let keys: Vec<Vec<u64>> = rows
        .iter()
        .map(|rs| rs.iter().map(|r| lex_key(n, r)).collect())
        .collect();
    let mut unit_of: Vec<Vec<u32>> = rows.iter().map(|rs| vec![u32::MAX; rs.len()]).collect();
    let mut units = Vec::new();
    let id = to_array(&(0..n as u8).collect::<Vec<u8>>());
    for t in 0..classes.len() {
        for i in 0..rows[t].len() {
            if unit_of[t][i] != u32::MAX {
                continue;
            }
            let u = units.len() as u32;
            let rect = [id, reps[t], rows[t][i]];
            let mut weight = 0u64;
            for a in 0..3 {
                for b in 0..3 {
                    if a == b {
                        continue;
                    }
                    let c = 3 - a - b;
                    let ainv = invert(n, &rect[a]);
                    let x = compose(n, &rect[b], &ainv);
                    let (t2, sigma) = conjugator(n, classes, &x);
                    let sinv = invert(n, &sigma);
                    let y = compose(n, &sigma, &compose(n, &compose(n, &rect[c], &ainv), &sinv));
                    for (z, zinv) in &centralizers[t2] {
                        let m = compose(n, z, &compose(n, &y, zinv));
                        let j = keys[t2].binary_search(&lex_key(n, &m)).map_err(|_| {
                            anyhow::anyhow!(
                                "internal error: a normal form of a rectangle is not a listed row"
                            )
                        })?;
                        match unit_of[t2][j] {
                            v if v == u32::MAX => {
                                unit_of[t2][j] = u;
                                weight += classes[t2].derangements;
                            }
                            v if v == u => {}
                            v => anyhow::bail!(
                                "internal error: rectangle classes {v} and {u} overlap"
                            ),
                        }
                    }
                }
            }
            units.push(UnitPlan {
                type_index: t,
                row2: i,
                weight,
            });
        }
    }
    Ok((units, unit_of))
}

/// Candidate rows of one search level as a structure of arrays (`len` valid entries; the
/// arrays are longer, with slack for the vector filter's 4-wide stores).
struct Level {
    masks: Vec<u64>,
    perms: Vec<u64>,
    scores: Vec<u32>,
    len: usize,
}

impl Level {
    fn with_capacity(cap: usize) -> Self {
        Level {
            masks: vec![0; cap + 4],
            perms: vec![0; cap + 4],
            scores: vec![0; cap + 4],
            len: 0,
        }
    }
}

#[inline(always)]
fn first_symbol(perm: u64) -> u8 {
    perm as u8
}

/// Per-unit search state.
struct Search {
    n: usize,
    /// Padding columns counted by the involution-point kernels.
    pad: u32,
    /// Unweighted counts of sorted completions by intercalate count.
    counts: Vec<u64>,
    /// Survivor indices of the current filter (with slack for 4-wide stores).
    idx: Vec<u16>,
}

/// Scalar kernel: the inverse row as bytes.
#[derive(Clone, Copy)]
struct ScalarInv([u8; 8]);

impl ScalarInv {
    #[inline(always)]
    fn new(perm: u64) -> Self {
        ScalarInv(inverse(perm))
    }
    #[inline(always)]
    fn points(&self, p: u64) -> u32 {
        involution_points(&self.0, p)
    }
}

/// Scalar filter: indices of the masks disjoint from `qm`, by branch-free compaction.
#[inline(always)]
fn filter_scalar(qm: u64, masks: &[u64], out: &mut [u16]) -> usize {
    let mut len = 0;
    for (i, &m) in masks.iter().enumerate() {
        out[len] = i as u16;
        len += (m & qm == 0) as usize;
    }
    len
}

/// SSSE3 kernel: σ = qinv[p] and σ∘σ by two byte shuffles, fixed points by a byte compare.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct SimdInv(std::arch::x86_64::__m128i);

#[cfg(target_arch = "x86_64")]
impl SimdInv {
    #[inline(always)]
    fn new(perm: u64) -> Self {
        let inv = inverse(perm);
        // SAFETY: SSE2 is part of the x86_64 baseline.
        SimdInv(unsafe { std::arch::x86_64::_mm_cvtsi64_si128(u64::from_le_bytes(inv) as i64) })
    }
    /// Only called from functions compiled with the `Kernel::Avx2` features (checked at run
    /// time).
    #[inline(always)]
    fn points(&self, p: u64) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: the callers are `#[target_feature]` functions that only run after
        // `is_x86_feature_detected!` confirmed the features.
        unsafe {
            let idx = _mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
            let s = _mm_shuffle_epi8(self.0, _mm_cvtsi64_si128(p as i64));
            let ss = _mm_shuffle_epi8(s, s);
            let m = _mm_movemask_epi8(_mm_cmpeq_epi8(ss, idx)) as u32 & 0xff;
            m.count_ones()
        }
    }
}

/// For each 4-bit survivor pattern, the surviving lane numbers packed as u16s, in order.
#[cfg(target_arch = "x86_64")]
const LANES: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut b = 0;
    while b < 16 {
        let mut v = 0u64;
        let mut k = 0;
        let mut lane = 0;
        while lane < 4 {
            if b & (1 << lane) != 0 {
                v |= (lane as u64) << (16 * k);
                k += 1;
            }
            lane += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// AVX2 filter: four masks per compare, survivors compacted by a 16-entry lane table.
/// `out` needs 4 entries of slack beyond `masks.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn filter_avx2(qm: u64, masks: &[u64], out: &mut [u16]) -> usize {
    use std::arch::x86_64::*;
    assert!(out.len() >= masks.len() + 4);
    let chunks = masks.len() / 4;
    let mut len = 0usize;
    // SAFETY: only reached from `#[target_feature(enable = "avx2,...")]` functions after
    // run-time detection; loads stay inside `masks` (4·chunks ≤ len) and each 8-byte store at
    // `out[len..len + 4]` stays inside `out` (len ≤ 4·ch and out.len() ≥ masks.len() + 4).
    unsafe {
        let q = _mm256_set1_epi64x(qm as i64);
        let zero = _mm256_setzero_si256();
        for ch in 0..chunks {
            let v = _mm256_loadu_si256(masks.as_ptr().add(4 * ch) as *const __m256i);
            let e = _mm256_cmpeq_epi64(_mm256_and_si256(v, q), zero);
            let bits = _mm256_movemask_pd(_mm256_castsi256_pd(e)) as usize;
            let lanes = LANES[bits] + (4 * ch as u64) * 0x0001_0001_0001_0001;
            (out.as_mut_ptr().add(len) as *mut u64).write_unaligned(lanes);
            len += bits.count_ones() as usize;
        }
    }
    for (i, &m) in masks.iter().enumerate().skip(4 * chunks) {
        out[len] = i as u16;
        len += (m & qm == 0) as usize;
    }
    len
}

/// The search body, instantiated once per kernel (the vector one with its target features on,
/// so that the intrinsics inline into the loops).
macro_rules! search_kernel {
    ($descend:ident, $last_three:ident, $last_two:ident, $inv:ident, $filter:ident $(, #[$attr:meta])*) => {
        /// `levels[0]`: every row compatible with rows 0..=r (sorted by first symbol), scored
        /// against them; `k`: intercalates among rows 0..=r. Counts the sorted completions.
        $(#[$attr])*
        unsafe fn $descend(s: &mut Search, r: usize, k: u32, levels: &mut [Level]) {
            let n = s.n;
            if r == n - 1 {
                s.counts[k as usize] += 1;
                return;
            }
            let (cur, deeper) = levels.split_first_mut().expect("a level per row");
            let len = cur.len;
            if len == 0 {
                return;
            }
            if r + 3 == n {
                // SAFETY: same target features as this function.
                unsafe { $last_two(s, cur, k) };
                return;
            }
            // Row r+1 starts with the smallest symbol missing from column 0 (rows 3.. sorted by
            // first symbol); every missing symbol starts some compatible row (a Latin rectangle
            // always completes), so that is the first symbol of the list.
            let f = first_symbol(cur.perms[0]);
            let split = cur.perms[..len]
                .iter()
                .position(|&p| first_symbol(p) != f)
                .unwrap_or(len);
            let pad = s.pad;
            if r + 4 == n {
                // Row n−3 and then the last two rows in bulk, fused: no level is written.
                // SAFETY: same target features as this function.
                unsafe { $last_three(s, cur, split, k) };
                return;
            }
            for qi in 0..split {
                let (qm, qp) = (cur.masks[qi], cur.perms[qi]);
                let (cm, cp, cs) = (&cur.masks[split..len], &cur.perms[split..len], &cur.scores[split..len]);
                let cnt = $filter(qm, cm, &mut s.idx);
                let qinv = $inv::new(qp);
                let next = &mut deeper[0];
                let (nm, np, ns) = (&mut next.masks[..cnt], &mut next.perms[..cnt], &mut next.scores[..cnt]);
                for (t, &j) in s.idx[..cnt].iter().enumerate() {
                    let j = j as usize;
                    debug_assert!(j < cm.len());
                    // SAFETY: the filter returns indices into `cm` (of the same length as `cp`
                    // and `cs`), and `t < cnt` = the length of `nm`, `np`, `ns`.
                    unsafe {
                        let p = *cp.get_unchecked(j);
                        *nm.get_unchecked_mut(t) = *cm.get_unchecked(j);
                        *np.get_unchecked_mut(t) = p;
                        *ns.get_unchecked_mut(t) = *cs.get_unchecked(j) + (qinv.points(p) - pad) / 2;
                    }
                }
                next.len = cnt;
                // SAFETY: same target features as this function.
                unsafe { $descend(s, r + 1, k + cur.scores[qi], deeper) };
            }
        }

        /// Rows n−3.. : every row q of the leading group (first symbol f) for row n−3, then
        /// rows n−2 and n−1 in bulk as in the last-two function: among the rows disjoint from q,
        /// those of the next group (first symbol g) are row n−2, each paired with the unique
        /// disjoint row of the last group (first symbol h) as row n−1. Scores against q are
        /// added on the fly.
        $(#[$attr])*
        unsafe fn $last_three(s: &mut Search, cur: &Level, split: usize, k: u32) {
            let len = cur.len;
            if split == len {
                return;
            }
            let g = first_symbol(cur.perms[split]);
            let nb = cur.perms[split..len]
                .iter()
                .position(|&p| first_symbol(p) != g)
                .unwrap_or(len - split);
            let (cm, cp, cs) = (&cur.masks[split..len], &cur.perms[split..len], &cur.scores[split..len]);
            let pad = s.pad;
            for qi in 0..split {
                let (qm, qp) = (cur.masks[qi], cur.perms[qi]);
                let cnt = $filter(qm, cm, &mut s.idx);
                let idx = &s.idx[..cnt];
                let nbs = idx.partition_point(|&j| (j as usize) < nb);
                let qinv = $inv::new(qp);
                let kq = k + cur.scores[qi];
                let mut between = u32::MAX;
                for &lj in &idx[..nbs] {
                    let lj = lj as usize;
                    let lm = cm[lj];
                    let mj = idx[nbs..]
                        .iter()
                        .map(|&j| j as usize)
                        .find(|&j| cm[j] & lm == 0)
                        .expect("a completion's last row");
                    let (lp, mp) = (cp[lj], cp[mj]);
                    if between == u32::MAX {
                        between = ($inv::new(lp).points(mp) - pad) / 2;
                    }
                    let kk = kq
                        + cs[lj]
                        + cs[mj]
                        + (qinv.points(lp) - pad) / 2
                        + (qinv.points(mp) - pad) / 2
                        + between;
                    s.counts[kk as usize] += 1;
                }
            }
        }

        /// Rows n−2 and n−1 in bulk. The level holds the 2^cycles rows compatible with rows
        /// 0..=n−3 (each column misses two symbols; the column–symbol graph is a union of even
        /// cycles, each with two orientations). Row n−2 starts with the smaller missing symbol
        /// of column 0 (the sort), row n−1 is its complement: the unique listed row disjoint
        /// from it. Intercalates between the last two rows are the 4-cycles of the graph, the
        /// same for every orientation, so they are computed once from the first pair.
        $(#[$attr])*
        unsafe fn $last_two(s: &mut Search, lv: &Level, k: u32) {
            let len = lv.len;
            let f = first_symbol(lv.perms[0]);
            let split = lv.perms[..len]
                .iter()
                .position(|&p| first_symbol(p) != f)
                .unwrap_or(len);
            if len == 2 {
                // One cycle: one sorted completion.
                let between = ($inv::new(lv.perms[0]).points(lv.perms[1]) - s.pad) / 2;
                s.counts[(k + lv.scores[0] + lv.scores[1] + between) as usize] += 1;
                return;
            }
            let mut between = u32::MAX;
            for li in 0..split {
                let lm = lv.masks[li];
                let mi = split
                    + lv.masks[split..len]
                        .iter()
                        .position(|&m| m & lm == 0)
                        .expect("a completion's last row");
                if between == u32::MAX {
                    between = ($inv::new(lv.perms[li]).points(lv.perms[mi]) - s.pad) / 2;
                }
                s.counts[(k + lv.scores[li] + lv.scores[mi] + between) as usize] += 1;
            }
        }
    };
}

search_kernel!(
    descend_scalar,
    last_three_scalar,
    last_two_scalar,
    ScalarInv,
    filter_scalar
);
#[cfg(target_arch = "x86_64")]
search_kernel!(
    descend_avx2,
    last_three_avx2,
    last_two_avx2,
    SimdInv,
    filter_avx2,
    #[target_feature(enable = "avx2,ssse3,popcnt")]
);

/// Which inner kernel a unit runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Portable scalar code.
    Scalar,
    /// x86_64 AVX2 mask filter and SSSE3 byte shuffles (chosen when the CPU has them).
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU supports.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("ssse3")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            return Kernel::Avx2;
        }
        Kernel::Scalar
    }
}

impl CensusJob {
    pub fn new(order: usize) -> Result<Self> {
        if order == 0 || order > MAX_ORDER {
            return Err(input_error(format!(
                "--order {order} is out of range: the census covers orders 1 to {MAX_ORDER}"
            )));
        }
        let n = order;
        let classes = if n >= 2 { cycle_classes(n) } else { Vec::new() };
        let mut lists = Vec::new();
        let mut units = Vec::new();
        let mut unit_of = Vec::new();
        if n >= 3 {
            let perms = permutations(n);
            let id: Vec<u8> = (0..n as u8).collect();
            for class in &classes {
                let rep = &class.representative;
                // Rows compatible with rows 0 (identity) and 1 (rep), scored against both.
                let list: Vec<Cand> = perms
                    .iter()
                    .filter(|p| (0..n).all(|c| p[c] != c as u8 && p[c] != rep[c]))
                    .map(|p| {
                        let (perm, mask) = pack(p);
                        let score =
                            intercalates_between(n, &id, p) + intercalates_between(n, rep, p);
                        Cand {
                            mask,
                            perm,
                            score: score as u32,
                        }
                    })
                    .collect();
                lists.push(list);
            }
            (units, unit_of) = rectangle_classes(n, &classes, &lists)?;
        }
        Ok(CensusJob {
            order,
            classes,
            lists,
            units,
            unit_of,
            kernel: Kernel::detect(),
        })
    }

    /// Use a given inner kernel (for cross-checks and benches). The SSSE3 kernel is refused
    /// unless this CPU has SSSE3 and POPCNT.
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Self> {
        if kernel == Kernel::Avx2 && Kernel::detect() != Kernel::Avx2 {
            anyhow::bail!("this CPU lacks AVX2/SSSE3/POPCNT");
        }
        self.kernel = kernel;
        Ok(self)
    }

    /// The inner kernel in use.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    pub fn order(&self) -> usize {
        self.order
    }

    /// Unit `index` as its representative rectangle (identity, cycle-type representative, row 2)
    /// and its weight (Σ N(type) over the rectangles of its class). `None` past the last unit
    /// (and below order 3, where the census has no rectangle units).
    pub fn unit_rectangle(&self, index: u64) -> Option<([Vec<u8>; 3], u64)> {
        let plan = self.units.get(usize::try_from(index).ok()?)?;
        let n = self.order;
        let rep = self.classes[plan.type_index].representative.clone();
        let row2 = self.lists[plan.type_index][plan.row2].perm.to_le_bytes()[..n].to_vec();
        Some(([(0..n as u8).collect(), rep, row2], plan.weight))
    }

    /// The unit whose class holds the rectangle (identity, representative of cycle type
    /// `type_index`, `row2`); `None` if `row2` is not compatible with the first two rows.
    pub fn unit_of_rectangle(&self, type_index: usize, row2: &[u8]) -> Option<u64> {
        let list = self.lists.get(type_index)?;
        if row2.len() != self.order || row2.iter().any(|&s| s as usize >= self.order) {
            return None;
        }
        let (perm, _) = pack(row2);
        let i = list.iter().position(|c| c.perm == perm)?;
        Some(self.unit_of[type_index][i] as u64)
    }

    /// Turn the weighted total (Σ over classes of weight · C3_k) into the reduced-square
    /// histogram: divide by (n − 1)(n − 2), exactly.
    pub fn finish(&self, weighted: Histogram) -> Result<Histogram> {
        let n = self.order;
        if n <= 2 {
            // Order 1: one square, no intercalate. Order 2: one reduced square, one intercalate.
            return Ok(Histogram(if n == 1 { vec![1] } else { vec![0, 1] }));
        }
        let div = ((n - 1) * (n - 2)) as u64;
        let mut out = Vec::with_capacity(weighted.0.len());
        for (k, &c) in weighted.0.iter().enumerate() {
            if c % div != 0 {
                anyhow::bail!(
                    "internal error: weighted count {c} at k={k} is not divisible by {div}"
                );
            }
            out.push(c / div);
        }
        while out.last() == Some(&0) {
            out.pop();
        }
        Ok(Histogram(out))
    }
}

impl Job for CensusJob {
    type Partial = Histogram;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            "latin-census",
            serde_json::json!({ "order": self.order, "units": "3-row rectangle classes" }),
            0,
        )
    }

    fn unit_count(&self) -> u64 {
        self.units.len().max(1) as u64
    }

    fn run_unit(&self, unit: Unit) -> Result<Histogram> {
        let n = self.order;
        let mut hist = Histogram::default();
        if n <= 2 {
            return Ok(hist); // handled in finish
        }
        let plan = &self.units[unit.index as usize];
        let class = &self.classes[plan.type_index];
        let list = &self.lists[plan.type_index];
        let id: Vec<u8> = (0..n as u8).collect();
        let k01 = intercalates_between(n, &id, &class.representative) as u32;
        let q = list[plan.row2];
        // Rows compatible with rows 0..=2, scored against all three.
        let qinv = inverse(q.perm);
        let pad = (8 - n) as u32;
        let level2: Vec<Cand> = list
            .iter()
            .filter(|p| p.mask & q.mask == 0)
            .map(|p| Cand {
                score: p.score + (involution_points(&qinv, p.perm) - pad) / 2,
                ..*p
            })
            .collect();
        let cap = level2.len();
        let mut levels: Vec<Level> = (0..n).map(|_| Level::with_capacity(cap)).collect();
        for (i, c) in level2.iter().enumerate() {
            levels[0].masks[i] = c.mask;
            levels[0].perms[i] = c.perm;
            levels[0].scores[i] = c.score;
        }
        levels[0].len = cap;
        let mut search = Search {
            n,
            pad,
            counts: vec![0; n * n * (n - 1) / 4 + 1],
            idx: vec![0; cap + 4],
        };
        let k = k01 + q.score;
        match self.kernel {
            // SAFETY: the scalar kernel needs no target feature.
            Kernel::Scalar => unsafe { descend_scalar(&mut search, 2, k, &mut levels) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Kernel::Avx2` is only chosen after run-time detection of its features.
            Kernel::Avx2 => unsafe { descend_avx2(&mut search, 2, k, &mut levels) },
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx2 => unreachable!("the AVX2 kernel exists only on x86_64"),
        }
        for (k, &c) in search.counts.iter().enumerate() {
            if c > 0 {
                hist.add(k, c * plan.weight);
            }
        }
        Ok(hist)
    }

    fn label(&self) -> String {
        format!("latin census n={}", self.order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_classes_cover_all_derangements() {
        // Derangement numbers D(n), n = 2..=8.
        let d = [1u64, 2, 9, 44, 265, 1854, 14833];
        for n in 2..=8 {
            let classes = cycle_classes(n);
            let total: u64 = classes.iter().map(|c| c.derangements).sum();
            assert_eq!(total, d[n - 2], "n={n}");
            for c in &classes {
                // The representative is a derangement with the stated cycle lengths.
                let rep = &c.representative;
                assert!((0..n).all(|i| rep[i] as usize != i));
                let mut seen = vec![false; n];
                let mut lengths = Vec::new();
                for s in 0..n {
                    let mut len = 0;
                    let mut x = s;
                    while !seen[x] {
                        seen[x] = true;
                        x = rep[x] as usize;
                        len += 1;
                    }
                    if len > 0 {
                        lengths.push(len);
                    }
                }
                lengths.sort_unstable_by(|a, b| b.cmp(a));
                assert_eq!(lengths, c.cycle_lengths);
            }
        }
        assert_eq!(cycle_classes(8).len(), 7);
    }

    #[test]
    fn shuffle_count_matches_pairwise_definition() {
        // Every pair of permutations of 5 (padded to 8 columns) with no common cell.
        let perms = permutations(5);
        assert_eq!(perms.len(), 120);
        let mut seen_counts = [0usize; 3];
        for a in &perms {
            let (pa, _) = pack(a);
            let inv = ScalarInv::new(pa);
            for b in &perms {
                if (0..5).any(|c| a[c] == b[c]) {
                    continue;
                }
                let direct = (0..5)
                    .flat_map(|c| (c + 1..5).map(move |d| (c, d)))
                    .filter(|&(c, d)| a[c] == b[d] && a[d] == b[c])
                    .count();
                let (pb, _) = pack(b);
                assert_eq!(((inv.points(pb) - 3) / 2) as usize, direct);
                assert_eq!(intercalates_between(5, a, b), direct);
                #[cfg(target_arch = "x86_64")]
                if Kernel::detect() == Kernel::Avx2 {
                    assert_eq!(SimdInv::new(pa).points(pb), inv.points(pb));
                }
                seen_counts[direct] += 1;
            }
        }
        // Two disjoint rows of 5 differ by a derangement of type (5) or (3,2): 0 or 1.
        assert!(seen_counts[0] > 0 && seen_counts[1] > 0 && seen_counts[2] == 0);
    }
}
