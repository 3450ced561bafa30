//! The samplers of the study: naive backtracking, the four readers of the Jacobson–Matthews
//! chain (wait-for-proper, fixed-time, thinned, and the exact reference), each yielding an
//! intercalate count per drawn square with its cost in chains and moves.

use super::jm::JmChain;
use super::square::Square;
use crate::engine::Histogram;
use crate::error::input_error;
use anyhow::Result;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// A reader of the chain (or another sampler), as named on the command line and in the CSV.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reader", rename_all = "kebab-case")]
pub enum Reader {
    /// Fill cells in reading order with shuffled values, backtrack on a dead end.
    Naive,
    /// Run `t` moves from the cyclic square, then keep stepping until proper
    /// (error after `wait_cap` extra moves).
    WaitForProper { t: u64, wait_cap: u64 },
    /// Run exactly `t` moves from the cyclic square; keep the square if proper, else start a new
    /// chain (error after `chain_cap` chains for one square).
    FixedTime { t: u64, chain_cap: u64 },
    /// One chain per work unit: `burn_in` moves, then every `k`-th proper state visited
    /// (error after `wait_cap` moves without a proper state).
    Thinned { k: u64, burn_in: u64, wait_cap: u64 },
    /// Intercalate counts drawn from the exact census distribution.
    Exact,
}

impl Reader {
    /// Name in the CSV `sampler` column.
    pub fn name(&self) -> &'static str {
        match self {
            Reader::Naive => "naive",
            Reader::WaitForProper { .. } => "wait-for-proper",
            Reader::FixedTime { .. } => "fixed-time",
            Reader::Thinned { .. } => "thinned",
            Reader::Exact => "exact",
        }
    }
}

/// What a batch of draws produced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchOutcome {
    pub hist: Histogram,
    pub draws: u64,
    /// Chains started (J–M readers only).
    pub chains: u64,
    /// Chain moves made (J–M readers only).
    pub moves: u64,
}

/// The exact distribution of intercalate counts (a census histogram) with an exact sampler.
#[derive(Clone, Debug)]
pub struct ExactDist {
    cumulative: Vec<u64>,
    probs: Vec<f64>,
    mean: f64,
}

impl ExactDist {
    pub fn new(hist: &Histogram) -> Result<Self> {
        let total = hist.total();
        if total == 0 || total > u64::MAX as u128 {
            return Err(input_error(format!(
                "census histogram with {total} squares cannot be sampled"
            )));
        }
        let mut cumulative = Vec::with_capacity(hist.0.len());
        let mut acc = 0u64;
        for &c in &hist.0 {
            acc += c;
            cumulative.push(acc);
        }
        let probs: Vec<f64> = hist.0.iter().map(|&c| c as f64 / total as f64).collect();
        let mean = hist
            .0
            .iter()
            .enumerate()
            .map(|(k, &c)| k as u128 * c as u128)
            .sum::<u128>() as f64
            / total as f64;
        Ok(ExactDist {
            cumulative,
            probs,
            mean,
        })
    }

    pub fn probs(&self) -> &[f64] {
        &self.probs
    }

    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// One intercalate count with probability exactly count/total (uniform integer, then a
    /// binary search of the cumulative counts).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let total = *self.cumulative.last().unwrap();
        let u = rng.random_range(0..total);
        self.cumulative.partition_point(|&c| c <= u)
    }

    /// Total variation distance between a sampled histogram and this distribution.
    pub fn tv(&self, sample: &Histogram) -> f64 {
        tv_distance(sample, &self.probs)
    }
}

/// ½ Σ_k |p̂_k − p_k| over the union of the supports.
pub fn tv_distance(sample: &Histogram, probs: &[f64]) -> f64 {
    let total = sample.total() as f64;
    let len = sample.0.len().max(probs.len());
    let mut s = 0.0;
    for k in 0..len {
        let p_hat = sample.0.get(k).copied().unwrap_or(0) as f64 / total;
        let p = probs.get(k).copied().unwrap_or(0.0);
        s += (p_hat - p).abs();
    }
    0.5 * s
}

/// Naive backtracking: fill cells in reading order, trying the candidate symbols of each cell in
/// a shuffled order, backtracking on a dead end. Reaches every Latin square, not uniformly (it
/// picks uniformly among the *extendable* symbols of each cell in turn).
pub fn naive_square<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Square {
    assert!((1..=16).contains(&n));
    let mut cells = vec![0u8; n * n];
    let mut rows = vec![0u32; n];
    let mut cols = vec![0u32; n];
    // Per cell: the shuffled candidates and how many have been tried.
    let mut cand = vec![[0u8; 16]; n * n];
    let mut ncand = vec![0u8; n * n];
    let mut tried = vec![0u8; n * n];
    let mut i = 0usize;
    let mut fresh = true;
    loop {
        let (r, c) = (i / n, i % n);
        if fresh {
            let used = rows[r] | cols[c];
            let mut m = 0u8;
            for s in 0..n as u8 {
                if used & (1 << s) == 0 {
                    cand[i][m as usize] = s;
                    m += 1;
                }
            }
            // Fisher–Yates.
            for j in (1..m as usize).rev() {
                let t = rng.random_range(0..=j);
                cand[i].swap(j, t);
            }
            ncand[i] = m;
            tried[i] = 0;
        } else {
            // Coming back: undo this cell's current symbol.
            let s = cells[i];
            rows[r] &= !(1 << s);
            cols[c] &= !(1 << s);
        }
        if tried[i] < ncand[i] {
            let s = cand[i][tried[i] as usize];
            tried[i] += 1;
            cells[i] = s;
            rows[r] |= 1 << s;
            cols[c] |= 1 << s;
            i += 1;
            if i == n * n {
                return Square::from_cells(n, cells);
            }
            fresh = true;
        } else {
            // Dead end: back up one cell (cell 0 always has candidates, the search is complete).
            assert!(
                i > 0,
                "backtracking exhausted: no Latin square of order {n}?"
            );
            i -= 1;
            fresh = false;
        }
    }
}

/// Draw `count` squares with `reader` and record their intercalate counts.
/// `chain` must be a chain of the right order (reused to avoid allocation).
pub fn draw_batch<R: Rng + ?Sized>(
    reader: &Reader,
    n: usize,
    exact: &ExactDist,
    count: u64,
    rng: &mut R,
) -> Result<BatchOutcome> {
    let mut out = BatchOutcome::default();
    match reader {
        Reader::Naive => {
            for _ in 0..count {
                let sq = naive_square(n, rng);
                out.hist.add(sq.intercalates(), 1);
            }
        }
        Reader::Exact => {
            for _ in 0..count {
                out.hist.add(exact.sample(rng), 1);
            }
        }
        Reader::WaitForProper { t, wait_cap } => {
            let mut chain = JmChain::cyclic(n);
            for _ in 0..count {
                chain.reset();
                out.moves += wait_for_proper(&mut chain, *t, *wait_cap, rng)?;
                out.chains += 1;
                out.hist.add(chain.intercalates(), 1);
            }
        }
        Reader::FixedTime { t, chain_cap } => {
            let mut chain = JmChain::cyclic(n);
            for _ in 0..count {
                let chains = fixed_time(&mut chain, *t, *chain_cap, rng)?;
                out.chains += chains;
                out.moves += chains * t;
                out.hist.add(chain.intercalates(), 1);
            }
        }
        Reader::Thinned {
            k,
            burn_in,
            wait_cap,
        } => {
            let mut chain = JmChain::cyclic(n);
            chain.run(*burn_in, rng);
            out.moves += burn_in;
            out.chains = 1;
            for _ in 0..count {
                let mut seen = 0u64;
                let mut since_proper = 0u64;
                loop {
                    chain.step(rng);
                    out.moves += 1;
                    if chain.is_proper() {
                        seen += 1;
                        since_proper = 0;
                        if seen == *k {
                            break;
                        }
                    } else {
                        since_proper += 1;
                        if since_proper > *wait_cap {
                            return Err(input_error(format!(
                                "thinned reader: no proper state in {wait_cap} moves (order {n})"
                            )));
                        }
                    }
                }
                out.hist.add(chain.intercalates(), 1);
            }
        }
    }
    out.draws = count;
    Ok(out)
}

/// Wait-for-proper: `t` moves, then step until proper. Returns the moves made.
pub fn wait_for_proper<R: Rng + ?Sized>(
    chain: &mut JmChain,
    t: u64,
    wait_cap: u64,
    rng: &mut R,
) -> Result<u64> {
    chain.run(t, rng);
    let mut extra = 0u64;
    while !chain.is_proper() {
        if extra == wait_cap {
            return Err(input_error(format!(
                "wait-for-proper reader: still improper {wait_cap} moves after T = {t} (order {})",
                chain.order()
            )));
        }
        chain.step(rng);
        extra += 1;
    }
    Ok(t + extra)
}

/// Fixed-time: chains of exactly `t` moves from the cyclic square until one ends proper.
/// Returns the chains used; errors after `chain_cap` chains.
pub fn fixed_time<R: Rng + ?Sized>(
    chain: &mut JmChain,
    t: u64,
    chain_cap: u64,
    rng: &mut R,
) -> Result<u64> {
    for chains in 1..=chain_cap {
        chain.reset();
        chain.run(t, rng);
        if chain.is_proper() {
            return Ok(chains);
        }
    }
    Err(input_error(format!(
        "fixed-time reader: no proper square after T = {t} moves in {chain_cap} chains (order {}){}",
        chain.order(),
        if t == 1 && chain.order() % 2 == 1 {
            ": one move from the cyclic square of odd order is never proper"
        } else {
            ""
        }
    )))
}
