//! The studies of the Numbrix write-up, each a job through the engine (deterministic, shardable,
//! resumable): one unit per (size, sample); every unit draws its answer from its own RNG
//! stream with the solver's own backbite sampler. Each writes one CSV of per-sample records
//! under `results/`; the report aggregates them.

use super::board::Board;
use super::generate::{adversarial, board_of, random_until_ladder, random_until_unique};
use super::ladder::{Ctx, Outcome, Rung, Rungs, State, Work, climb};
use super::path;
use crate::engine::seed::UnitRng;
use crate::engine::{Job, JobSpec, Records, Unit};
use anyhow::Result;
use rand::RngExt;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

/// Backbite moves per cell for every sampled answer.
pub const MOVES_PER_CELL: u64 = 16;

/// One study: what a unit computes for a square size and a sample index.
pub trait Study: Sync {
    type Rec: Serialize + DeserializeOwned + Send + Clone + 'static;
    const KIND: &'static str;
    const FILE: &'static str;
    fn params(&self) -> serde_json::Value;
    fn run(&self, size: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<Self::Rec>>;
    /// A measured wall time of a record (size, density factor, microseconds), for studies that
    /// write a timing file beside their result.
    fn timing(_rec: &Self::Rec) -> Option<(usize, f64, u64)> {
        None
    }
}

pub struct StudyJob<S: Study> {
    pub study: S,
    pub sizes: Vec<usize>,
    pub per_size: u64,
    pub seed: u64,
}

impl<S: Study> Job for StudyJob<S> {
    type Partial = Records<S::Rec>;
    fn spec(&self) -> JobSpec {
        JobSpec::new(
            S::KIND,
            serde_json::json!({"sizes": self.sizes, "per_size": self.per_size,
                               "moves_per_cell": MOVES_PER_CELL, "study": self.study.params()}),
            self.seed,
        )
    }
    fn unit_count(&self) -> u64 {
        self.sizes.len() as u64 * self.per_size
    }
    fn run_unit(&self, unit: Unit) -> Result<Records<S::Rec>> {
        let size = self.sizes[(unit.index / self.per_size) as usize];
        let mut rng = unit.rng();
        Ok(Records(self.study.run(
            size,
            unit.index % self.per_size,
            &mut rng,
        )?))
    }
}

/// Serialise records as CSV (header from the record's field names).
pub fn to_csv<T: Serialize>(recs: &[T]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in recs {
        w.serialize(r)?;
    }
    Ok(w.into_inner()?)
}

/// Read records back from a study CSV.
pub fn read_records<T: DeserializeOwned>(path: &std::path::Path) -> Result<Vec<T>> {
    let mut rdr = csv::Reader::from_path(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for r in rdr.deserialize() {
        out.push(r.map_err(|e| anyhow::anyhow!("malformed {}: {e}", path.display()))?);
    }
    Ok(out)
}

fn answer(size: usize, rng: &mut UnitRng) -> Vec<u32> {
    path::random_answer(size, size, MOVES_PER_CELL, rng)
}

/// A random reveal of `k` numbers of the answer.
fn reveal(ctx: &Ctx, ans: &[u32], k: usize, rng: &mut UnitRng) -> Board {
    let mut order: Vec<usize> = (0..ans.len()).collect();
    order.shuffle(rng);
    let mut mask = vec![false; ans.len()];
    for &c in &order[..k] {
        mask[c] = true;
    }
    board_of(ctx, ans, &mask)
}

// ---- parity law ---------------------------------------------------------------------------

pub struct Parity;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ParityRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    /// The cell of v has the colour of the cell of 1 flipped v−1 times, for every v.
    pub law_holds: bool,
    /// Both ends of the walk share a colour.
    pub ends_same_colour: bool,
    /// Odd cell count ⇔ both ends on the same colour.
    pub corollary_holds: bool,
}

impl Study for Parity {
    type Rec = ParityRec;
    const KIND: &'static str = "numbrix-parity";
    const FILE: &'static str = "numbrix_parity.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<ParityRec>> {
        let ans = answer(s, rng);
        let n = s * s;
        let mut pos = vec![0usize; n + 1];
        for (c, &v) in ans.iter().enumerate() {
            pos[v as usize] = c;
        }
        let colour = |c: usize| (c / s + c % s) & 1;
        let law = (1..=n).all(|v| colour(pos[v]) == (colour(pos[1]) + v - 1) & 1);
        let same = colour(pos[1]) == colour(pos[n]);
        Ok(vec![ParityRec {
            rows: s,
            cols: s,
            sample,
            law_holds: law,
            ends_same_colour: same,
            corollary_holds: same == (n % 2 == 1),
        }])
    }
}

// ---- search space after each of the first clues --------------------------------------------

pub struct Space {
    pub max_clues: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SpaceRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    pub clues: usize,
    /// Surviving cell×number pairs after pin+link reach their fixpoint.
    pub pairs: u64,
    /// The blank board's pairs (cells²).
    pub blank_pairs: u64,
}

impl Study for Space {
    type Rec = SpaceRec;
    const KIND: &'static str = "numbrix-space";
    const FILE: &'static str = "numbrix_space.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({"max_clues": self.max_clues, "ladder": "pin,link"})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<SpaceRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let n = s * s;
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(rng);
        let mut out = Vec::new();
        for k in 0..=self.max_clues.min(n) {
            let mut mask = vec![false; n];
            for &c in &order[..k] {
                mask[c] = true;
            }
            let b = board_of(&ctx, &ans, &mask);
            let mut st = State::new(&b).expect("answer clues are consistent");
            climb(&ctx, &mut st, Rungs(0b00_0011), &mut Work::default());
            out.push(SpaceRec {
                rows: s,
                cols: s,
                sample,
                clues: k,
                pairs: st.pairs(),
                blank_pairs: (n * n) as u64,
            });
        }
        Ok(out)
    }
}

// ---- cells pinned by each rung, climbing ----------------------------------------------------

/// The climbing ladders: rungs added from the bottom (the ruler measured beside link).
pub const CLIMB: [(&str, Rungs); 7] = [
    ("pin", Rungs(0b00_0001)),
    ("pin+ruler", Rungs(0b00_0101)),
    ("pin+link", Rungs(0b00_0011)),
    ("pin+link+ruler", Rungs(0b00_0111)),
    ("+block", Rungs(0b00_1011)),
    ("+edge", Rungs(0b01_1011)),
    ("+probe", Rungs::DEFAULT),
];

pub struct Climb {
    /// Share of the numbers revealed at random.
    pub reveal: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClimbRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    pub revealed: usize,
    pub ladder: String,
    pub pinned: usize,
    pub pairs: u64,
    pub solved: bool,
    pub bookkeeping: u64,
    pub probes: u64,
}

impl Study for Climb {
    type Rec = ClimbRec;
    const KIND: &'static str = "numbrix-climb";
    const FILE: &'static str = "numbrix_climb.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({"reveal": self.reveal})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<ClimbRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let k = ((s * s) as f64 * self.reveal).round() as usize;
        let b = reveal(&ctx, &ans, k, rng);
        Ok(CLIMB
            .iter()
            .map(|&(name, rungs)| {
                let (st, out, w) = climb_board(&ctx, &b, rungs);
                ClimbRec {
                    rows: s,
                    cols: s,
                    sample,
                    revealed: k,
                    ladder: name.to_string(),
                    pinned: st.pinned(),
                    pairs: st.pairs(),
                    solved: out == Outcome::Solved,
                    bookkeeping: w.bookkeeping(),
                    probes: w.probes,
                }
            })
            .collect())
    }
}

fn climb_board(ctx: &Ctx, b: &Board, rungs: Rungs) -> (State, Outcome, Work) {
    let mut st = State::new(b).expect("answer clues are consistent");
    let mut w = Work::default();
    let out = climb(ctx, &mut st, rungs, &mut w);
    (st, out, w)
}

// ---- removal ablation ----------------------------------------------------------------------

pub struct Ablation {
    pub reveal: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AblationRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    pub revealed: usize,
    /// The rung taken off the full ladder ("none" for the full ladder).
    pub removed: String,
    pub pinned: usize,
    pub solved: bool,
    pub same_pinned_as_full: bool,
    pub bookkeeping: u64,
    pub probes: u64,
}

impl Study for Ablation {
    type Rec = AblationRec;
    const KIND: &'static str = "numbrix-ablation";
    const FILE: &'static str = "numbrix_ablation.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({"reveal": self.reveal})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<AblationRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let k = ((s * s) as f64 * self.reveal).round() as usize;
        let b = reveal(&ctx, &ans, k, rng);
        let (full, _, _) = climb_board(&ctx, &b, Rungs::DEFAULT);
        let full_pinned: Vec<bool> = full.cv.iter().map(|x| x.count() == 1).collect();
        let mut out = Vec::new();
        for removed in [
            None,
            Some(Rung::Link),
            Some(Rung::Block),
            Some(Rung::Edge),
            Some(Rung::Probe),
        ] {
            let rungs = removed.map_or(Rungs::DEFAULT, |r| Rungs::DEFAULT.without(r));
            let (st, o, w) = climb_board(&ctx, &b, rungs);
            let pinned: Vec<bool> = st.cv.iter().map(|x| x.count() == 1).collect();
            out.push(AblationRec {
                rows: s,
                cols: s,
                sample,
                revealed: k,
                removed: removed.map_or("none", |r| r.name()).to_string(),
                pinned: st.pinned(),
                solved: o == Outcome::Solved,
                same_pinned_as_full: pinned == full_pinned,
                bookkeeping: w.bookkeeping(),
                probes: w.probes,
            });
        }
        Ok(out)
    }
}

// ---- clue sets ------------------------------------------------------------------------------

pub struct Clues;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CluesRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    /// The adversary's irredundant set for the ladder without the probe.
    pub adversarial: usize,
    /// Numbers revealed in random order until the answer is unique (ladder + search decides).
    pub random: usize,
    /// Numbers revealed in random order until the ladder (without the probe) finishes.
    pub random_ladder: usize,
}

impl Study for Clues {
    type Rec = CluesRec;
    const KIND: &'static str = "numbrix-clues";
    const FILE: &'static str = "numbrix_clues.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({"adversary": "pin,link,block,edge", "decide": "pin,link,edge+search",
                           "random_ladder": "pin,link,block,edge"})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<CluesRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let adv = adversarial(&ctx, &ans, Rungs::NO_PROBE, rng, &mut Work::default());
        let limits = super::search::Limits {
            cap: 2,
            node_cap: 2_000_000,
        };
        let rnd = random_until_unique(&ctx, &ans, Rungs::DECIDE, limits, rng)
            .ok_or_else(|| anyhow::anyhow!("clue study: a uniqueness decision hit the node cap"))?;
        let rnd_ladder = random_until_ladder(&ctx, &ans, Rungs::NO_PROBE, rng);
        Ok(vec![CluesRec {
            rows: s,
            cols: s,
            sample,
            adversarial: adv.clue_count(),
            random: rnd.clue_count(),
            random_ladder: rnd_ladder.clue_count(),
        }])
    }
}

// ---- the pin wall ---------------------------------------------------------------------------

pub struct PinWall;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PinWallRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    /// The adversary's irredundant set for pin alone.
    pub clues: usize,
    /// Pin alone with one more number taken away (at random) still finishes.
    pub finishes_with_one_fewer: bool,
}

impl Study for PinWall {
    type Rec = PinWallRec;
    const KIND: &'static str = "numbrix-pin-wall";
    const FILE: &'static str = "numbrix_pin_wall.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<PinWallRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let pin = Rungs::of(&[Rung::Pin]);
        let b = adversarial(&ctx, &ans, pin, rng, &mut Work::default());
        let printed: Vec<usize> = (0..s * s).filter(|&c| b.givens[c] != 0).collect();
        let mut fewer = b.clone();
        fewer.givens[printed[rng.random_range(0..printed.len())]] = 0;
        let finishes = super::search::ladder_finishes(&ctx, &fewer, pin, &mut Work::default());
        Ok(vec![PinWallRec {
            rows: s,
            cols: s,
            sample,
            clues: b.clue_count(),
            finishes_with_one_fewer: finishes,
        }])
    }
}

// ---- sparse boards: the walk search decides random reveals -------------------------------

/// The bank's clue density at 8×8–10×10 (printed numbers per cell: 9.6/64, 12.2/81, 14.6/100).
pub const BANK_DENSITY: f64 = 0.15;
/// Clue densities of the sparse study, as multiples of [`BANK_DENSITY`].
pub const SPARSE_FACTORS: [f64; 3] = [1.0, 0.75, 0.5];

pub struct Sparse {
    /// Node cap per decision.
    pub node_cap: u64,
    /// Largest side on which the raw walk engine re-counts every board.
    pub raw_max: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SparseRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    /// Multiple of the bank's clue density.
    pub factor: f64,
    pub clues: usize,
    /// The walk search's verdict at cap 2: "1", "2+" or "unknown".
    pub answers: String,
    pub nodes: u64,
    /// The raw walk engine's count at cap 2 ("1", "2+"), or "-" past `raw_max`.
    pub raw: String,
    /// Wall microseconds of the decision (moved to the timing file; not in the result CSV).
    #[serde(skip_serializing_if = "skip_time", default)]
    pub micros: Option<u64>,
}

fn skip_time(_: &Option<u64>) -> bool {
    // The result CSV must be byte-deterministic; timings go to numbrix_sparse_timing.csv.
    true
}

impl Study for Sparse {
    type Rec = SparseRec;
    const KIND: &'static str = "numbrix-sparse";
    const FILE: &'static str = "numbrix_sparse.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({"node_cap": self.node_cap, "raw_max": self.raw_max,
                           "density": BANK_DENSITY, "factors": SPARSE_FACTORS, "rungs": "decide"})
    }
    fn timing(r: &SparseRec) -> Option<(usize, f64, u64)> {
        r.micros.map(|m| (r.rows, r.factor, m))
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<SparseRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let n = s * s;
        let mut out = Vec::new();
        for f in SPARSE_FACTORS {
            let k = ((n as f64) * BANK_DENSITY * f).round() as usize;
            let b = reveal(&ctx, &ans, k, rng);
            let t = std::time::Instant::now();
            let v = super::search::count_in(
                &ctx,
                &b,
                Rungs::DECIDE,
                super::search::Limits {
                    cap: 2,
                    node_cap: self.node_cap,
                },
            );
            let micros = t.elapsed().as_micros() as u64;
            let answers = match v.count {
                super::search::Count::Exact(1) => "1",
                super::search::Count::Exact(0) => "0",
                super::search::Count::Unknown { .. } => "unknown",
                _ => "2+",
            };
            let raw = if s <= self.raw_max {
                match crate::numbrix::census::walk::count_solutions(s, s, &b.givens, 2) {
                    0 => "0",
                    1 => "1",
                    _ => "2+",
                }
            } else {
                "-"
            };
            out.push(SparseRec {
                rows: s,
                cols: s,
                sample,
                factor: f,
                clues: k,
                answers: answers.into(),
                nodes: v.nodes,
                raw: raw.into(),
                micros: Some(micros),
            });
        }
        Ok(out)
    }
}

// ---- the reversal certificate on random reveals -------------------------------------------

/// How much of the ambiguity of random reveals the reversal certificate explains.
pub struct Certify;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CertifyRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    /// Multiple of the bank's clue density revealed.
    pub factor: f64,
    pub clues: usize,
    /// The walk search's verdict at cap 2: "1", "2+" or "unknown".
    pub answers: String,
    /// A certificate was found on the drawn answer.
    pub certificate: bool,
    /// Its second answer is an answer of the board, other than the drawn one (checked with the
    /// board's own answer test, not the certificate's reasoning).
    pub certificate_valid: bool,
}

/// Densities of the certificate study (multiples of [`BANK_DENSITY`]).
pub const CERTIFY_FACTORS: [f64; 3] = [1.0, 0.75, 0.5];

impl Study for Certify {
    type Rec = CertifyRec;
    const KIND: &'static str = "numbrix-certificate";
    const FILE: &'static str = "numbrix_certificate.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({"density": BANK_DENSITY, "factors": CERTIFY_FACTORS, "rungs": "decide"})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<CertifyRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let n = s * s;
        let mut out = Vec::new();
        for f in CERTIFY_FACTORS {
            let k = (((n as f64) * BANK_DENSITY * f).round() as usize).max(1);
            let b = reveal(&ctx, &ans, k, rng);
            let v =
                super::search::count_in(&ctx, &b, Rungs::DECIDE, super::search::Limits::default());
            let answers = match v.count {
                super::search::Count::Exact(1) => "1",
                super::search::Count::Exact(0) => "0",
                super::search::Count::Unknown { .. } => "unknown",
                _ => "2+",
            };
            let cert = super::certificate::find(&b, &ans);
            out.push(CertifyRec {
                rows: s,
                cols: s,
                sample,
                factor: f,
                clues: k,
                answers: answers.into(),
                certificate: cert.is_some(),
                certificate_valid: cert
                    .as_ref()
                    .is_some_and(|c| c.second != ans && b.is_answer(&c.second)),
            });
        }
        Ok(out)
    }
}

// ---- the adversary with the probe on the ladder -------------------------------------------

/// The adversary's irredundant clue set for the whole default ladder (probe included).
pub struct ProbeAdversary;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProbeAdversaryRec {
    pub rows: usize,
    pub cols: usize,
    pub sample: u64,
    /// Printed numbers of the irredundant set for the default ladder (with the probe).
    pub with_probe: usize,
    /// The same answer's irredundant set for the ladder without the probe (its own draw order).
    pub without_probe: usize,
}

impl Study for ProbeAdversary {
    type Rec = ProbeAdversaryRec;
    const KIND: &'static str = "numbrix-probe-adversary";
    const FILE: &'static str = "numbrix_probe_adversary.csv";
    fn params(&self) -> serde_json::Value {
        serde_json::json!({"with": "default", "without": "pin,link,block,edge"})
    }
    fn run(&self, s: usize, sample: u64, rng: &mut UnitRng) -> Result<Vec<ProbeAdversaryRec>> {
        let ans = answer(s, rng);
        let ctx = Ctx::new(s, s);
        let with = adversarial(&ctx, &ans, Rungs::DEFAULT, rng, &mut Work::default());
        let without = adversarial(&ctx, &ans, Rungs::NO_PROBE, rng, &mut Work::default());
        Ok(vec![ProbeAdversaryRec {
            rows: s,
            cols: s,
            sample,
            with_probe: with.clue_count(),
            without_probe: without.clue_count(),
        }])
    }
}

#[cfg(test)]
mod tests {
    /// Wall time of the probe adversary on a few sampled answers (run by hand with `--ignored
    /// --nocapture`; PROBE_ADV="size answers").
    #[test]
    #[ignore]
    fn probe_adversary_timing() {
        use super::*;
        let spec = std::env::var("PROBE_ADV").unwrap_or_else(|_| "10 2".into());
        let mut it = spec.split_whitespace().map(|x| x.parse::<u64>().unwrap());
        let (s, k) = (it.next().unwrap() as usize, it.next().unwrap());
        let job = StudyJob {
            study: ProbeAdversary,
            sizes: vec![s],
            per_size: k,
            seed: 2026,
        };
        for u in 0..k {
            let t = std::time::Instant::now();
            let r = job
                .run_unit(crate::engine::Unit {
                    index: u,
                    master_seed: 2026,
                })
                .unwrap();
            eprintln!("{s}x{s} answer {u}: {:?} in {:?}", r.0[0], t.elapsed());
        }
    }
}
