//! The agreement study, as an engine job: random boards per (order, largest cage), each solved
//! with signs shown and hidden by the ladder + search and by the independent verifier (both to
//! a cap of 2, i.e. a uniqueness decision), with every certified intercalate flip checked.
//!
//! `results/calcudoku_agree.csv`, one row per (order, largest cage):
//! `order,max_cage,boards,agree_shown,agree_hidden,unique_shown,unique_hidden,
//! hidden_below_shown,nonunique_shown,flip_explained_shown,flips_checked,flips_bad,
//! flip_but_unique,grade_cage,grade_single,grade_hidden,grade_must,grade_subset,grade_probe,
//! grade_search,mean_nodes_shown`.

use super::certificate::certified_flips;
use super::generate::random_board;
use super::solver::{Count, Grade, Rungs, solve};
use super::verify::{verify_count, verify_grid};
use crate::engine::{Job, JobSpec, Records, Unit};
use crate::error::input_error;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

pub const AGREE_FILE: &str = "calcudoku_agree.csv";
pub const AGREE_KIND: &str = "calcudoku-agree";
const CHUNK: u64 = 50;
const NODE_CAP: u64 = 50_000_000;

pub const COLUMNS: [&str; 21] = [
    "order",
    "max_cage",
    "boards",
    "agree_shown",
    "agree_hidden",
    "unique_shown",
    "unique_hidden",
    "hidden_below_shown",
    "nonunique_shown",
    "flip_explained_shown",
    "flips_checked",
    "flips_bad",
    "flip_but_unique",
    "grade_cage",
    "grade_single",
    "grade_hidden",
    "grade_must",
    "grade_subset",
    "grade_probe",
    "grade_search",
    "mean_nodes_shown",
];

/// Counts for one (order, largest cage) and a slice of its boards.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub order: usize,
    pub max_cage: usize,
    pub boards: u64,
    /// Boards where min(solver count, 2) equals min(verifier count, 2).
    pub agree_shown: u64,
    pub agree_hidden: u64,
    pub unique_shown: u64,
    pub unique_hidden: u64,
    /// Boards whose hidden-sign count came out below the shown count (must be 0).
    pub hidden_below_shown: u64,
    pub nonunique_shown: u64,
    /// Non-unique (shown) boards on which a certified flip of the cut square exists.
    pub flip_explained_shown: u64,
    /// Certified flips checked (both modes) and those that were not solutions (must be 0).
    pub flips_checked: u64,
    pub flips_bad: u64,
    /// Boards with a certified flip that the solver called unique (must be 0: a theorem).
    pub flip_but_unique: u64,
    /// Grades with signs shown: cage, single, hidden, must, subset, probe, search.
    pub grades: [u64; 7],
    pub nodes_shown: u64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.boards += o.boards;
        self.agree_shown += o.agree_shown;
        self.agree_hidden += o.agree_hidden;
        self.unique_shown += o.unique_shown;
        self.unique_hidden += o.unique_hidden;
        self.hidden_below_shown += o.hidden_below_shown;
        self.nonunique_shown += o.nonunique_shown;
        self.flip_explained_shown += o.flip_explained_shown;
        self.flips_checked += o.flips_checked;
        self.flips_bad += o.flips_bad;
        self.flip_but_unique += o.flip_but_unique;
        for i in 0..7 {
            self.grades[i] += o.grades[i];
        }
        self.nodes_shown += o.nodes_shown;
    }
}

pub struct AgreeJob {
    pub orders: Vec<usize>,
    pub max_cages: Vec<usize>,
    pub boards: u64,
    pub seed: u64,
}

impl AgreeJob {
    fn chunks(&self) -> u64 {
        self.boards.div_ceil(CHUNK)
    }
    pub fn new(orders: Vec<usize>, max_cages: Vec<usize>, boards: u64, seed: u64) -> Result<Self> {
        if orders.is_empty() || max_cages.is_empty() || boards == 0 {
            return Err(input_error("agree: empty orders, cages or boards"));
        }
        for &n in &orders {
            if !(3..=7).contains(&n) {
                return Err(input_error(format!(
                    "agree: order {n} is out of range 3..=7 (the verifier is plain backtracking)"
                )));
            }
        }
        for &k in &max_cages {
            if !(1..=6).contains(&k) {
                return Err(input_error(format!(
                    "agree: largest cage {k} is out of range 1..=6"
                )));
            }
        }
        Ok(AgreeJob {
            orders,
            max_cages,
            boards,
            seed,
        })
    }
}

fn count2(c: Count) -> u64 {
    match c {
        Count::Exact(k) | Count::AtLeast(k) => k.min(2),
        Count::Unknown => u64::MAX,
    }
}

impl Job for AgreeJob {
    type Partial = Records<Tally>;
    fn spec(&self) -> JobSpec {
        JobSpec::new(
            AGREE_KIND,
            serde_json::json!({
                "orders": self.orders,
                "max_cages": self.max_cages,
                "boards": self.boards,
                "chunk": CHUNK,
                "version": 1,
            }),
            self.seed,
        )
    }
    fn unit_count(&self) -> u64 {
        (self.orders.len() * self.max_cages.len()) as u64 * self.chunks()
    }
    fn run_unit(&self, unit: Unit) -> Result<Records<Tally>> {
        let chunks = self.chunks();
        let cell = (unit.index / chunks) as usize;
        let chunk = unit.index % chunks;
        let n = self.orders[cell / self.max_cages.len()];
        let k = self.max_cages[cell % self.max_cages.len()];
        let count = CHUNK.min(self.boards - chunk * CHUNK);
        let mut rng = unit.rng();
        let mut t = Tally {
            order: n,
            max_cage: k,
            ..Tally::default()
        };
        for _ in 0..count {
            let (shown, square) = random_board(n, k, false, &mut rng);
            let hidden = shown.with_hidden_signs(true);
            let os = solve(&shown, Rungs::ALL, 2, NODE_CAP);
            let oh = solve(&hidden, Rungs::ALL, 2, NODE_CAP);
            if os.count == Count::Unknown || oh.count == Count::Unknown {
                return Err(anyhow::anyhow!(
                    "agree: node cap hit on a board of order {n}:\n{}",
                    shown.to_text()
                ));
            }
            let (cs, ch) = (count2(os.count), count2(oh.count));
            let (vs, _) = verify_count(&shown, 2);
            let (vh, _) = verify_count(&hidden, 2);
            t.boards += 1;
            t.agree_shown += (cs == vs) as u64;
            t.agree_hidden += (ch == vh) as u64;
            t.unique_shown += (cs == 1) as u64;
            t.unique_hidden += (ch == 1) as u64;
            t.hidden_below_shown += (ch < cs) as u64;
            t.nodes_shown += os.nodes;
            t.grades[match os.grade {
                Grade::Rung(r) => r as usize,
                _ => 6,
            }] += 1;
            let fs = certified_flips(&shown, &square);
            if cs >= 2 {
                t.nonunique_shown += 1;
                t.flip_explained_shown += (!fs.is_empty()) as u64;
            }
            for (board, flips, c) in [
                (&shown, fs, cs),
                (&hidden, certified_flips(&hidden, &square), ch),
            ] {
                for f in &flips {
                    t.flips_checked += 1;
                    t.flips_bad += (!verify_grid(board, &f.apply(n, &square))) as u64;
                }
                t.flip_but_unique += (!flips.is_empty() && c == 1) as u64;
            }
        }
        Ok(Records(vec![t]))
    }
    fn label(&self) -> String {
        "calcudoku agree".into()
    }
}

/// Sum the per-unit tallies by (order, largest cage).
pub fn aggregate(parts: &Records<Tally>) -> BTreeMap<(usize, usize), Tally> {
    let mut out: BTreeMap<(usize, usize), Tally> = BTreeMap::new();
    for t in &parts.0 {
        out.entry((t.order, t.max_cage))
            .or_insert_with(|| Tally {
                order: t.order,
                max_cage: t.max_cage,
                ..Tally::default()
            })
            .add(t);
    }
    out
}

pub fn agree_csv(table: &BTreeMap<(usize, usize), Tally>) -> String {
    let mut s = COLUMNS.join(",");
    s.push('\n');
    for t in table.values() {
        let _ = write!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            t.order,
            t.max_cage,
            t.boards,
            t.agree_shown,
            t.agree_hidden,
            t.unique_shown,
            t.unique_hidden,
            t.hidden_below_shown,
            t.nonunique_shown,
            t.flip_explained_shown,
            t.flips_checked,
            t.flips_bad,
            t.flip_but_unique
        );
        for g in t.grades {
            let _ = write!(s, ",{g}");
        }
        let _ = writeln!(s, ",{:.3}", t.nodes_shown as f64 / t.boards.max(1) as f64);
    }
    s
}

/// Read `calcudoku_agree.csv` back (all columns as integers except the last).
pub fn read_agree(path: &Path) -> Result<Vec<Tally>> {
    let mut rdr = csv::Reader::from_path(path)
        .map_err(|e| input_error(format!("cannot read {}: {e}", path.display())))?;
    let headers = rdr.headers()?.clone();
    if headers.iter().collect::<Vec<_>>() != COLUMNS {
        return Err(input_error(format!(
            "{} has unexpected columns",
            path.display()
        )));
    }
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let v: Vec<u64> = (0..20)
            .map(|j| rec.get(j).and_then(|x| x.parse().ok()))
            .collect::<Option<_>>()
            .ok_or_else(|| input_error(format!("{}: a field is not an integer", path.display())))?;
        let boards = v[2];
        let mean: f64 = rec.get(20).and_then(|x| x.parse().ok()).unwrap_or(0.0);
        out.push(Tally {
            order: v[0] as usize,
            max_cage: v[1] as usize,
            boards,
            agree_shown: v[3],
            agree_hidden: v[4],
            unique_shown: v[5],
            unique_hidden: v[6],
            hidden_below_shown: v[7],
            nonunique_shown: v[8],
            flip_explained_shown: v[9],
            flips_checked: v[10],
            flips_bad: v[11],
            flip_but_unique: v[12],
            grades: [v[13], v[14], v[15], v[16], v[17], v[18], v[19]],
            nodes_shown: (mean * boards as f64).round() as u64,
        });
    }
    Ok(out)
}
