//! The work-unit engine. It knows nothing about puzzles.
//!
//! A [`Job`] is an ordered list of `unit_count()` work units. Unit `i` is a pure function of the
//! job's parameters and `i` (its RNG stream, if any, comes from [`seed::unit_rng`] with the job's
//! master seed and `i`), and yields a [`Partial`] result. The total is the fold of all partials
//! **in unit-index order**, so the result never depends on the thread count, the schedule, the
//! shard split, or on whether the run was interrupted and resumed.
//!
//! * [`run::run`] executes a job's units (all of them, or one shard's) under rayon's work stealing;
//!   finished units stream over a crossbeam channel to a single writer thread that journals them
//!   (for `--resume`) and drives the progress bar.
//! * [`shard`] writes and merges partial files (`--shard I/N`, `gridcensus merge`).
//! * [`atomic`] writes every result file through a temp file and a rename; [`manifest`] records
//!   how it was made.
//! * [`restart`] is the Luby schedule of node budgets that the puzzles' restarting searches share.
//! * [`cli`] is the clap argument group (`--threads`, `--shard`, `--resume`, ...) every job
//!   subcommand flattens in, and the one function that drives a job from those arguments.

pub mod atomic;
pub mod cli;
pub mod clock;
pub mod manifest;
pub mod plan;
pub mod restart;
pub mod run;
pub mod seed;
pub mod shard;
pub mod table;

use serde::{Deserialize, Serialize, de::DeserializeOwned};

/// A job's identity: what it computes. Two runs with equal specs compute the same thing, so a
/// journal or partial file is only ever combined with a run of an equal spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSpec {
    /// Job kind, e.g. `"latin-census"`; the `merge` subcommand dispatches on it.
    pub kind: String,
    /// Canonical parameters (everything that changes the result, including the master seed).
    pub params: serde_json::Value,
    /// Master seed of the unit RNG streams (0 for exact enumerations).
    pub seed: u64,
}

impl JobSpec {
    pub fn new(kind: &str, params: serde_json::Value, seed: u64) -> Self {
        JobSpec {
            kind: kind.to_string(),
            params,
            seed,
        }
    }

    /// A short stable hex digest of the spec, used in default journal and partial file names.
    pub fn digest(&self) -> String {
        let text = serde_json::to_string(self).expect("spec serialises");
        // FNV-1a 64: stable across platforms and releases (unlike std's DefaultHasher).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}

/// A mergeable partial result. `merge` must be associative; the engine always folds partials in
/// unit-index order starting from `Default::default()`, so it need not be commutative.
pub trait Partial: Serialize + DeserializeOwned + Default + Send + 'static {
    fn merge(&mut self, other: Self);
}

/// One work unit handed to [`Job::run_unit`].
#[derive(Clone, Copy, Debug)]
pub struct Unit {
    pub index: u64,
    pub master_seed: u64,
}

impl Unit {
    /// This unit's private RNG stream, derived from (master seed, unit index) only.
    pub fn rng(&self) -> seed::UnitRng {
        seed::unit_rng(self.master_seed, self.index)
    }
}

/// A job: an ordered list of work units with mergeable results.
pub trait Job: Sync {
    type Partial: Partial;
    fn spec(&self) -> JobSpec;
    fn unit_count(&self) -> u64;
    /// Compute one unit. An error aborts the run (e.g. a sampler that hit its cap).
    fn run_unit(&self, unit: Unit) -> anyhow::Result<Self::Partial>;
    /// A short label for the progress bar.
    fn label(&self) -> String {
        self.spec().kind
    }
}

/// Integer histograms merge exactly: a `Vec<u64>` indexed by value, padded on merge.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram(pub Vec<u64>);

impl Histogram {
    pub fn add(&mut self, value: usize, count: u64) {
        if self.0.len() <= value {
            self.0.resize(value + 1, 0);
        }
        self.0[value] += count;
    }
    pub fn total(&self) -> u128 {
        self.0.iter().map(|&c| c as u128).sum()
    }
}

impl Partial for Histogram {
    fn merge(&mut self, other: Self) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a = a.checked_add(b).expect("histogram count overflow");
        }
    }
}

/// Ordered concatenation: partials that are lists of per-unit records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Records<T>(pub Vec<T>);

impl<T> Default for Records<T> {
    fn default() -> Self {
        Records(Vec::new())
    }
}

impl<T: Serialize + DeserializeOwned + Send + 'static> Partial for Records<T> {
    fn merge(&mut self, other: Self) {
        self.0.extend(other.0);
    }
}
