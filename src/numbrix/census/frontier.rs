//! The frontier counter: undirected Hamiltonian paths of w×L grids by a transfer matrix over
//! plug states (a "plug DP"), built on its own: it shares nothing with the walk engine.
//!
//! Cells are processed row by row. The frontier after a cell crosses w + 1 edges: the down edges
//! of the cells already processed in this row, the right edge of the last processed cell, and the
//! down edges of the previous row's remaining cells. Each frontier edge carries a plug:
//!
//! * `0`: the edge is unused;
//! * `1` / `2`: an open bracket / close bracket: the two ends of a partial path that leaves the
//!   frontier at both ends (brackets nest, since partial paths drawn in the processed region
//!   cannot cross);
//! * `3`: a partial path whose other end is already one of the two endpoints of the final path.
//!
//! The state also counts the path endpoints already used (0, 1 or 2). Every cell gets path
//! degree 1 (an endpoint) or 2; joining the two ends of one partial path would close a cycle and is
//! refused; the path is completed (two `3` plugs joined, or a `3` plug ended) only at the last cell
//! of a row, with no other plug left, and the completed paths are harvested there as the count of
//! the w×(rows so far) grid. One sweep of width w thus counts w×L for every L up to the maximum.

//!
//! Tables and threads. The states live in `PARTS` partitions (by a hash of the key), each a flat
//! list, with one hash map per partition. A cell step lets the input partitions emit their
//! successor states in parallel and folds them into the maps, then drains each map back into its
//! list; lists and maps keep their capacity between cells. Two folds ([`Fold`]): the buffered
//! fold writes every successor to a buffer per (input, output) partition and then folds each
//! output partition on its own (cache-friendly while a map fits the cache, but it holds all
//! successors); the batched fold sends successors through small per-thread batches, each folded
//! under its partition's lock when full (about one list entry and one map entry per state, four
//! times less memory). Sweeps of width [`BATCHED_FROM_WIDTH`] and more use the batched fold. The
//! counts are exact sums, so the order in which threads add them changes nothing.
//!
//! Arithmetic. Up to `U128_MAX_CELLS` cells the counts are `u128` (every addition checked). Past
//! that each count is held as residues modulo three primes just below 2^63 (a modulus near
//! 2^189) and recombined by the Chinese remainder theorem into a `BigUint`. An `f64` shadow of
//! every count is carried along, and a recombined value is accepted only if the shadow is below
//! half the modulus and agrees with it to 1e-9 relative (the shadow's own error is far smaller:
//! sums of non-negative terms, a few thousand roundings deep at most).

use anyhow::{Result, bail};
use num_bigint::BigUint;
use num_traits::ToPrimitive;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// Widest frontier accepted (2 bits per plug, w + 1 plugs, plus the end count, in a u64).
pub const MAX_WIDTH: usize = 24;
/// Largest sweep (width × length) counted in `u128`; 15×15 has about 7.3·10^33 undirected paths,
/// u128 holds 3.4·10^38 and A120443(16) ≈ 6.6·10^38 does not fit.
pub const U128_MAX_CELLS: usize = 225;
/// State partitions (a power of two).
const PARTS: usize = 32;
const PART_SHIFT: u32 = 64 - PARTS.trailing_zeros();

/// The residue moduli: the three largest primes below 2^63 (2^63 − 25, 2^63 − 165,
/// 2^63 − 259; primality is tested in this module's tests).
pub const MODULI: [u64; 3] = [
    9_223_372_036_854_775_783,
    9_223_372_036_854_775_643,
    9_223_372_036_854_775_549,
];

/// A multiplicative hasher for the u64 state keys.
#[derive(Default)]
struct StateHasher(u64);

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = (x ^ (x >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
}

type StateMap<C> = HashMap<u64, C, BuildHasherDefault<StateHasher>>;

/// The partition of a state key (a hash independent of the map's).
#[inline]
fn part_of(key: u64) -> usize {
    ((key ^ (key >> 31)).wrapping_mul(0xd6e8_feb8_6659_fd93) >> PART_SHIFT) as usize
}

/// A path count carried by the sweep.
pub trait Count: Copy + Send + Sync + 'static {
    fn zero() -> Self;
    fn one() -> Self;
    fn add(&mut self, other: &Self);
}

impl Count for u128 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    #[inline]
    fn add(&mut self, other: &Self) {
        *self = self
            .checked_add(*other)
            .expect("frontier count overflowed u128 (use the residue counter)");
    }
}

/// A count as residues modulo [`MODULI`], with an `f64` shadow of its size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Residues {
    pub r: [u64; 3],
    pub approx: f64,
}

impl Count for Residues {
    fn zero() -> Self {
        Residues {
            r: [0; 3],
            approx: 0.0,
        }
    }
    fn one() -> Self {
        Residues {
            r: [1; 3],
            approx: 1.0,
        }
    }
    #[inline]
    fn add(&mut self, other: &Self) {
        for ((a, b), m) in self.r.iter_mut().zip(other.r).zip(MODULI) {
            // Both below 2^63: the sum fits a u64.
            let s = *a + b;
            *a = if s >= m { s - m } else { s };
        }
        self.approx += other.approx;
    }
}

/// x⁻¹ mod m (x and m coprime).
fn inverse_mod(x: u64, m: u64) -> u64 {
    let (mut a, mut b) = (x as i128 % m as i128, m as i128);
    let (mut u, mut v) = (1i128, 0i128);
    while b != 0 {
        let q = a / b;
        (a, b) = (b, a - q * b);
        (u, v) = (v, u - q * v);
    }
    assert_eq!(a, 1, "{x} is not invertible mod {m}");
    u.rem_euclid(m as i128) as u64
}

/// The product of the moduli.
pub fn modulus() -> BigUint {
    MODULI.iter().fold(BigUint::from(1u32), |p, &m| p * m)
}

/// The unique x in [0, product of moduli) with the given residues (Chinese remainder theorem,
/// Garner's incremental form).
pub fn crt(r: &[u64; 3]) -> BigUint {
    let mut x = BigUint::from(r[0]);
    let mut prod = BigUint::from(MODULI[0]);
    for i in 1..3 {
        let m = MODULI[i];
        let x_mod = (&x % m).to_u64().unwrap();
        let p_mod = (&prod % m).to_u64().unwrap();
        let diff = (r[i] as u128 + m as u128 - x_mod as u128) % m as u128;
        let t = diff * inverse_mod(p_mod, m) as u128 % m as u128;
        x += &prod * (t as u64);
        prod *= m;
    }
    x
}

impl Residues {
    /// The exact count, refused unless its `f64` shadow confirms it is below the modulus.
    pub fn value(&self) -> Result<BigUint> {
        let x = crt(&self.r);
        let m = modulus().to_f64().unwrap();
        let xf = x.to_f64().unwrap();
        let below_half = self.approx.is_finite() && self.approx < 0.5 * m;
        if !below_half || (xf - self.approx).abs() > 1e-9 * self.approx.max(1.0) {
            bail!(
                "frontier residues do not determine the count: shadow {:e}, recombined {:e}",
                self.approx,
                xf
            );
        }
        Ok(x)
    }
}

/// One width's sweep: undirected Hamiltonian path counts of w×L for L = 1..=max_len.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sweep {
    pub width: usize,
    /// `counts[L - 1]` = undirected Hamiltonian paths of the w×L grid.
    pub counts: Vec<BigUint>,
    /// Largest number of distinct frontier states held at once.
    pub max_states: usize,
    /// `max_states_by_len[L - 1]`: the largest state count while sweeping the first L rows.
    pub max_states_by_len: Vec<u64>,
}

/// A sweep's raw output in the count type `C`.
pub struct RawSweep<C> {
    pub counts: Vec<C>,
    pub max_states_by_len: Vec<u64>,
}

#[inline]
fn get(s: u64, i: usize) -> u64 {
    (s >> (2 * i)) & 3
}

#[inline]
fn set(s: u64, i: usize, v: u64) -> u64 {
    (s & !(3u64 << (2 * i))) | (v << (2 * i))
}

/// Position of the bracket matching the one at `i` (open brackets search right, close left).
fn partner(s: u64, i: usize, positions: usize) -> usize {
    let mut depth = 0i32;
    if get(s, i) == 1 {
        for j in i..positions {
            match get(s, j) {
                1 => depth += 1,
                2 => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
    } else {
        for j in (0..=i).rev() {
            match get(s, j) {
                2 => depth += 1,
                1 => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
    }
    panic!("frontier state {s:#x} has an unmatched bracket at {i}");
}

/// The geometry of one sweep.
#[derive(Clone, Copy)]
struct Frame {
    w: usize,
    positions: usize,
    ends_shift: usize,
    plug_mask: u64,
}

impl Frame {
    fn new(w: usize) -> Self {
        let positions = w + 1;
        let ends_shift = 2 * positions;
        Frame {
            w,
            positions,
            ends_shift,
            plug_mask: (1u64 << ends_shift) - 1,
        }
    }

    /// New row: the old down plugs become up plugs at positions 1..=w; left plug empty.
    #[inline]
    fn shift_row(&self, s: u64) -> u64 {
        let plugs = s & self.plug_mask;
        debug_assert_eq!(get(plugs, self.w), 0, "a right plug left the grid");
        ((plugs << 2) & self.plug_mask) | (s & !self.plug_mask)
    }

    /// Every successor of state `s` across cell `c` of a row.
    #[inline(always)]
    fn successors(&self, s: u64, c: usize, mut emit_state: impl FnMut(u64)) {
        let last_in_row = c + 1 == self.w;
        let ends = s >> self.ends_shift;
        let plugs = s & self.plug_mask;
        let l = get(plugs, c);
        let u = get(plugs, c + 1);
        let base = set(set(plugs, c, 0), c + 1, 0);
        let ends_shift = self.ends_shift;
        let positions = self.positions;
        let mut emit = |p: u64, e: u64| emit_state(p | (e << ends_shift));
        // A completion is allowed only at a row end, with nothing else on the frontier.
        let may_complete = last_in_row && base == 0;
        match (l, u) {
            (0, 0) => {
                if !last_in_row {
                    emit(set(set(base, c, 1), c + 1, 2), ends); // down + right
                    if ends < 2 {
                        emit(set(base, c + 1, 3), ends + 1); // endpoint, right
                    }
                }
                if ends < 2 {
                    emit(set(base, c, 3), ends + 1); // endpoint, down
                }
                if ends == 0 && may_complete {
                    emit(0, 2); // a one-cell path
                }
            }
            (t, 0) | (0, t) => {
                emit(set(base, c, t), ends); // pass on downwards
                if !last_in_row {
                    emit(set(base, c + 1, t), ends); // pass on to the right
                }
                if ends < 2 {
                    match t {
                        3 => {
                            if may_complete {
                                emit(0, ends + 1);
                            }
                        }
                        _ => {
                            let i = if l != 0 { c } else { c + 1 };
                            let j = partner(plugs, i, positions);
                            emit(set(base, j, 3), ends + 1);
                        }
                    }
                }
            }
            (1, 2) => {} // the two ends of one partial path: a cycle
            (1, 1) => {
                let j = partner(plugs, c + 1, positions);
                emit(set(base, j, 1), ends);
            }
            (2, 2) => {
                let j = partner(plugs, c, positions);
                emit(set(base, j, 2), ends);
            }
            (2, 1) => emit(base, ends),
            (3, 3) => {
                if may_complete {
                    emit(0, ends);
                }
            }
            (3, t) => {
                let j = partner(plugs, c + 1, positions);
                debug_assert!(t == 1 || t == 2);
                emit(set(base, j, 3), ends);
            }
            (t, 3) => {
                let j = partner(plugs, c, positions);
                debug_assert!(t == 1 || t == 2);
                emit(set(base, j, 3), ends);
            }
            _ => unreachable!(),
        }
    }
}

/// Successors held by one thread before they are folded into the partition maps.
const BATCH: usize = 4096;

/// One thread's pending successors, by output partition.
struct Batches<C> {
    pending: Vec<Vec<(u64, C)>>,
}

impl<C: Count> Batches<C> {
    fn new() -> Self {
        Batches {
            pending: (0..PARTS).map(|_| Vec::with_capacity(BATCH)).collect(),
        }
    }

    #[inline]
    fn push(&mut self, maps: &[Mutex<StateMap<C>>], key: u64, n: C) {
        let p = part_of(key);
        self.pending[p].push((key, n));
        if self.pending[p].len() == BATCH {
            Self::flush(&mut self.pending[p], &maps[p]);
        }
    }

    fn flush(batch: &mut Vec<(u64, C)>, map: &Mutex<StateMap<C>>) {
        if batch.is_empty() {
            return;
        }
        let mut map = map.lock().expect("frontier map lock");
        for (k, n) in batch.drain(..) {
            map.entry(k).and_modify(|v| v.add(&n)).or_insert(n);
        }
    }

    fn flush_all(&mut self, maps: &[Mutex<StateMap<C>>]) {
        for (batch, map) in self.pending.iter_mut().zip(maps) {
            Self::flush(batch, map);
        }
    }
}

/// How a cell step folds the successor states into the partition maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fold {
    /// Every successor is first written to a buffer per (input, output) partition, then each
    /// output partition folds its buffers into its map: one map at a time, so a map that fits
    /// the cache stays there, at the price of holding all successors (three to four times the
    /// memory of the batched fold).
    Buffered,
    /// Successors go through small per-thread batches straight into the locked maps: memory is
    /// about one list entry and one map entry per state.
    Batched,
}

/// The narrowest sweep that uses the batched fold: narrower sweeps (at most 3.6 M states, about
/// 1.5 GB buffered at width 14) keep the faster buffered fold.
pub const BATCHED_FROM_WIDTH: usize = 15;

/// The fold a sweep of this width uses.
pub fn fold_for(width: usize) -> Fold {
    if width >= BATCHED_FROM_WIDTH {
        Fold::Batched
    } else {
        Fold::Buffered
    }
}

/// Count undirected Hamiltonian paths of w×L grids for L = 1..=max_len in one sweep, in the
/// count type `C`, with the width's fold ([`fold_for`]).
pub fn sweep_raw<C: Count>(width: usize, max_len: usize) -> RawSweep<C> {
    sweep_raw_with(width, max_len, fold_for(width))
}

/// [`sweep_raw`] with an explicit fold (both give the same counts and state numbers).
pub fn sweep_raw_with<C: Count>(width: usize, max_len: usize, fold: Fold) -> RawSweep<C> {
    assert!((1..=MAX_WIDTH).contains(&width), "frontier width {width}");
    let f = Frame::new(width);
    // States by partition, and one map per output partition behind a lock (uncontended in the
    // buffered fold, which folds each output partition on one thread).
    let mut cur: Vec<Vec<(u64, C)>> = (0..PARTS).map(|_| Vec::new()).collect();
    let maps: Vec<Mutex<StateMap<C>>> = (0..PARTS).map(|_| Mutex::default()).collect();
    // The buffered fold's successors by (input partition, output partition).
    let mut buf: Vec<Vec<Vec<(u64, C)>>> = match fold {
        Fold::Buffered => (0..PARTS)
            .map(|_| (0..PARTS).map(|_| Vec::new()).collect())
            .collect(),
        Fold::Batched => Vec::new(),
    };
    cur[part_of(0)].push((0, C::one()));
    let mut counts = Vec::with_capacity(max_len);
    let mut max_states = 1usize;
    let mut max_states_by_len = Vec::with_capacity(max_len);
    for row in 0..max_len {
        for c in 0..width {
            let shift = row > 0 && c == 0;
            let maps_ref = &maps;
            match fold {
                Fold::Batched => {
                    cur.par_iter().for_each_init(
                        || Batches::<C>::new(),
                        |batches, input| {
                            for &(s0, n) in input {
                                let s = if shift { f.shift_row(s0) } else { s0 };
                                f.successors(s, c, |k| batches.push(maps_ref, k, n));
                            }
                            batches.flush_all(maps_ref);
                        },
                    );
                    cur.par_iter_mut()
                        .zip(maps.par_iter())
                        .for_each(|(out, map)| {
                            let mut map = map.lock().expect("frontier map lock");
                            out.clear();
                            out.extend(map.drain());
                        });
                }
                Fold::Buffered => {
                    buf.par_iter_mut()
                        .zip(cur.par_iter())
                        .for_each(|(outs, input)| {
                            for o in outs.iter_mut() {
                                o.clear();
                            }
                            for &(s0, n) in input {
                                let s = if shift { f.shift_row(s0) } else { s0 };
                                f.successors(s, c, |k| outs[part_of(k)].push((k, n)));
                            }
                        });
                    // Each output partition folds its buffers and drains its map at once,
                    // while the map is still in the cache.
                    let buf_ref = &buf;
                    cur.par_iter_mut()
                        .zip(maps.par_iter())
                        .enumerate()
                        .for_each(|(p, (out, map))| {
                            let mut map = map.lock().expect("frontier map lock");
                            for outs in buf_ref {
                                for (k, n) in &outs[p] {
                                    map.entry(*k).and_modify(|v| v.add(n)).or_insert(*n);
                                }
                            }
                            out.clear();
                            out.extend(map.drain());
                        });
                }
            }
            max_states = max_states.max(cur.iter().map(Vec::len).sum());
        }
        // Harvest the completed paths: the whole w×(row+1) grid is covered by one path.
        let done = 2u64 << f.ends_shift;
        let part = &mut cur[part_of(done)];
        let count = match part.iter().position(|e| e.0 == done) {
            Some(i) => part.swap_remove(i).1,
            None => C::zero(),
        };
        counts.push(count);
        max_states_by_len.push(max_states as u64);
    }
    RawSweep {
        counts,
        max_states_by_len,
    }
}

/// Undirected Hamiltonian paths of w×L in `u128` (panics past its range).
pub fn sweep_u128(width: usize, max_len: usize) -> RawSweep<u128> {
    sweep_raw(width, max_len)
}

/// Undirected Hamiltonian paths of w×L by residues and the Chinese remainder theorem.
pub fn sweep_residues(width: usize, max_len: usize) -> Result<Sweep> {
    let raw = sweep_raw::<Residues>(width, max_len);
    let counts = raw
        .counts
        .iter()
        .map(Residues::value)
        .collect::<Result<Vec<_>>>()?;
    Ok(finish(width, counts, raw.max_states_by_len))
}

fn finish(width: usize, counts: Vec<BigUint>, max_states_by_len: Vec<u64>) -> Sweep {
    Sweep {
        width,
        counts,
        max_states: max_states_by_len.last().copied().unwrap_or(1) as usize,
        max_states_by_len,
    }
}

/// Count undirected Hamiltonian paths of w×L grids for L = 1..=max_len in one sweep: in `u128`
/// up to [`U128_MAX_CELLS`] cells, by residues past that.
pub fn sweep(width: usize, max_len: usize) -> Result<Sweep> {
    if width * max_len <= U128_MAX_CELLS {
        let raw = sweep_u128(width, max_len);
        let counts = raw.counts.iter().map(|&c| BigUint::from(c)).collect();
        Ok(finish(width, counts, raw.max_states_by_len))
    } else {
        sweep_residues(width, max_len)
    }
}

/// Undirected Hamiltonian paths of the rows×cols grid (at most [`U128_MAX_CELLS`] cells).
pub fn undirected_paths(rows: usize, cols: usize) -> u128 {
    let (w, l) = (rows.min(cols), rows.max(cols));
    sweep_u128(w, l).counts[l - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_grids() {
        assert_eq!(undirected_paths(1, 1), 1);
        assert_eq!(undirected_paths(1, 5), 1);
        assert_eq!(undirected_paths(2, 2), 4);
        assert_eq!(undirected_paths(3, 3), 20);
        assert_eq!(undirected_paths(3, 4), 62);
        assert_eq!(undirected_paths(4, 4), 276);
        let s = sweep(2, 12).unwrap();
        for m in 1..=12u128 {
            let want = if m == 1 { 1 } else { m * m - m + 2 };
            assert_eq!(s.counts[m as usize - 1], BigUint::from(want));
        }
    }

    fn is_prime(n: u64) -> bool {
        // Deterministic Miller–Rabin for 64-bit n (the first twelve primes as bases).
        let bases = [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
        if n < 2 {
            return false;
        }
        for &p in &bases {
            if n % p == 0 {
                return n == p;
            }
        }
        let mul = |a: u64, b: u64| (a as u128 * b as u128 % n as u128) as u64;
        let pow = |mut a: u64, mut e: u64| {
            let mut r = 1u64;
            while e > 0 {
                if e & 1 == 1 {
                    r = mul(r, a);
                }
                a = mul(a, a);
                e >>= 1;
            }
            r
        };
        let (mut d, mut s) = (n - 1, 0);
        while d % 2 == 0 {
            d /= 2;
            s += 1;
        }
        'bases: for &a in &bases {
            let mut x = pow(a, d);
            if x == 1 || x == n - 1 {
                continue;
            }
            for _ in 1..s {
                x = mul(x, x);
                if x == n - 1 {
                    continue 'bases;
                }
            }
            return false;
        }
        true
    }

    #[test]
    fn moduli_are_distinct_primes_below_2_63() {
        for (i, &m) in MODULI.iter().enumerate() {
            assert!(m < 1 << 63 && is_prime(m), "{m}");
            assert!(MODULI[..i].iter().all(|&p| p != m));
        }
        // The three largest: nothing prime between them and 2^63.
        let lo = MODULI[2];
        let primes = (lo..(1u64 << 63)).filter(|&n| is_prime(n)).count();
        assert_eq!(primes, 3);
        assert!(!is_prime(561) && is_prime(1_000_000_007));
    }

    #[test]
    fn crt_recovers_wide_values() {
        let m = modulus();
        let vals = [
            BigUint::from(0u32),
            BigUint::from(1u32),
            BigUint::from(u128::MAX),
            BigUint::from(u128::MAX) * 12_345_678_901u64 + 77u32,
            &m - 1u32,
        ];
        for v in vals {
            let r = [0, 1, 2].map(|i| (&v % MODULI[i]).to_u64().unwrap());
            assert_eq!(crt(&r), v);
        }
    }

    #[test]
    fn residue_shadow_refuses_a_wrapped_count() {
        // A count equal to the modulus plus 5 leaves residues of 5: the shadow must refuse it.
        let wrapped = Residues {
            r: [5; 3],
            approx: modulus().to_f64().unwrap(),
        };
        assert!(wrapped.value().is_err());
        let ok = Residues {
            r: [5; 3],
            approx: 5.0,
        };
        assert_eq!(ok.value().unwrap(), BigUint::from(5u32));
    }

    #[test]
    fn both_folds_give_the_same_sweep() {
        for w in 1..=10 {
            let a = sweep_raw_with::<u128>(w, 11, Fold::Buffered);
            let b = sweep_raw_with::<u128>(w, 11, Fold::Batched);
            assert_eq!(a.counts, b.counts, "width {w}");
            assert_eq!(a.max_states_by_len, b.max_states_by_len, "width {w}");
        }
        let a = sweep_raw_with::<Residues>(6, 9, Fold::Buffered);
        let b = sweep_raw_with::<Residues>(6, 9, Fold::Batched);
        assert_eq!(a.counts, b.counts);
    }

    #[test]
    fn residues_match_u128_on_every_sweep_to_side_12() {
        for w in 1..=12 {
            let exact = sweep_u128(w, 12);
            let res = sweep_residues(w, 12).unwrap();
            for l in 0..12 {
                assert_eq!(
                    res.counts[l],
                    BigUint::from(exact.counts[l]),
                    "{w}x{}",
                    l + 1
                );
            }
            assert_eq!(res.max_states_by_len, exact.max_states_by_len);
        }
    }
}
