//! Kakurasu sections of the report: the census (with its built-in and write-up checks) and the
//! difficulty table held to the write-up's table under binomial / sampling noise.

use super::census::{CENSUS_FILE, CensusSummary, FIBRES_FILE, read_fibres};
use crate::reference::*;
use crate::report::{Chart, Check, Section, chart};
use anyhow::{Result, anyhow};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

pub fn sections(results: &Path) -> Result<Vec<Section>> {
    let mut out = vec![census_section(results)?];
    out.extend(difficulty_sections(results)?);
    Ok(out)
}

const CENSUS_TITLE: &str = "Kakurasu census: uniquely solvable target vectors";

fn census_section(results: &Path) -> Result<Section> {
    let fpath = results.join(FIBRES_FILE);
    let cpath = results.join(CENSUS_FILE);
    if !fpath.exists() {
        return Ok(Section::missing(CENSUS_TITLE, &fpath));
    }
    let table = read_fibres(&fpath)?;
    let mut s = Section::new(CENSUS_TITLE);
    s.body.push_str(
        "Over all 2^(n²) shadings of an n×n board: the distinct target vectors (row and column \
         targets), those with exactly one shading (uniquely solvable boards), and the largest \
         number of shadings sharing one vector. Computed by a row-by-row DP over column sums \
         grouped by row-target vector (`results/kakurasu_census.csv`, fibre-size histogram in \
         `results/kakurasu_census_fibres.csv`). No earlier count is published; the write-up \
         folded 2×2 and 3×3 by hand.\n\n\
         | n | shadings | target vectors | uniquely solvable | share of vectors | ambiguous | largest fibre |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let summary_rows = if cpath.exists() {
        crate::report::read_csv(&cpath)?
    } else {
        Vec::new()
    };
    for (&n, h) in &table {
        let m = CensusSummary::of(n, h);
        let _ = writeln!(
            s.body,
            "| {n} | {} | {} | {} | {:.4}% | {} | {} |",
            m.shadings,
            m.target_vectors,
            m.unique_vectors,
            100.0 * m.unique_share(),
            m.ambiguous_vectors,
            m.max_fibre
        );
        s.checks.push(Check::eq(
            format!("n = {n}: fibres cover all 2^{} shadings", n * n),
            m.shadings,
            1u128 << (n * n),
        ));
        let row = summary_rows
            .iter()
            .find(|r| r.get(0) == Some(n.to_string().as_str()));
        let consistent = row.is_some_and(|r| {
            r.get(2) == Some(m.target_vectors.to_string().as_str())
                && r.get(3) == Some(m.unique_vectors.to_string().as_str())
                && r.get(6) == Some(m.max_fibre.to_string().as_str())
        });
        s.checks.push(Check::new(
            format!("n = {n}: kakurasu_census.csv agrees with the fibre histogram"),
            consistent,
            if consistent {
                "same counts"
            } else {
                "differs or missing"
            },
        ));
    }
    for &(n, amb) in &WRITEUP_KAKURASU_AMBIGUOUS {
        match table.get(&n) {
            Some(h) => s.checks.push(Check::eq(
                format!("n = {n}: ambiguous target vectors = write-up"),
                CensusSummary::of(n, h).ambiguous_vectors,
                amb,
            )),
            None => s
                .checks
                .push(Check::new(format!("n = {n} present"), false, "missing")),
        }
    }
    for n in 1..=6 {
        if !table.contains_key(&n) {
            s.checks.push(Check::new(
                format!("n = {n} present"),
                false,
                "missing: run `gridcensus kakurasu census --sizes 1-6`",
            ));
        }
    }
    if let Some((&n, h)) = table.iter().next_back().filter(|(n, _)| **n >= 4) {
        let pts: Vec<(i64, f64)> =
            h.0.iter()
                .enumerate()
                .filter(|(k, c)| *k > 0 && **c > 0)
                .map(|(k, &c)| (k as i64, c as f64))
                .collect();
        s.charts.push(Chart {
            file: format!("kakurasu_census_fibres_n{n}.svg"),
            svg: chart::bars(
                &format!("Kakurasu {n}×{n}: target vectors by number of shadings"),
                "shadings sharing the vector",
                "target vectors (log)",
                &pts,
                true,
            )?,
            caption: format!("{n}×{n} fibre-size distribution"),
        });
    }
    Ok(s)
}

/// One row of a difficulty CSV, by column name.
struct Row(HashMap<String, String>);

impl Row {
    fn f(&self, k: &str) -> f64 {
        self.0
            .get(k)
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    }
}

fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let mut rdr =
        csv::Reader::from_path(path).map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    let headers = rdr.headers()?.clone();
    let mut rows = Vec::new();
    for r in rdr.records() {
        let r = r.map_err(|e| anyhow!("malformed {}: {e}", path.display()))?;
        rows.push(Row(headers
            .iter()
            .map(String::from)
            .zip(r.iter().map(String::from))
            .collect()));
    }
    Ok(rows)
}

/// Two-proportion z score (pooled).
pub fn z_prop(x1: f64, n1: f64, p2: f64, n2: f64) -> f64 {
    let p1 = x1 / n1;
    let pooled = (x1 + p2 * n2) / (n1 + n2);
    let se = (pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)).sqrt();
    if se == 0.0 {
        if (p1 - p2).abs() < 1e-12 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        (p1 - p2) / se
    }
}

/// z score of two means, the spread estimated from our sample's sd.
pub fn z_mean(m1: f64, sd: f64, n1: f64, m2: f64, n2: f64) -> f64 {
    let se = sd * (1.0 / n1 + 1.0 / n2).sqrt();
    if se == 0.0 || se.is_nan() {
        if (m1 - m2).abs() < 1e-12 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        (m1 - m2) / se
    }
}

/// A figure with `prec` decimals, or "—" when there is none (no board in that class).
fn num(x: f64, prec: usize) -> String {
    if x.is_nan() {
        "—".into()
    } else {
        format!("{x:.prec$}")
    }
}

fn verdict(z: f64) -> &'static str {
    if z.is_nan() {
        "—"
    } else if z.abs() <= 3.0 {
        "consistent"
    } else {
        "**disagrees**"
    }
}

fn difficulty_files(results: &Path) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    let main = results.join("kakurasu_difficulty.csv");
    if main.exists() {
        v.push(main);
    }
    if let Ok(rd) = std::fs::read_dir(results) {
        let mut extra: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|f| f.to_str())
                    .is_some_and(|f| f.starts_with("kakurasu_difficulty_b") && f.ends_with(".csv"))
            })
            .collect();
        extra.sort();
        v.extend(extra);
    }
    v
}

fn difficulty_sections(results: &Path) -> Result<Vec<Section>> {
    let files = difficulty_files(results);
    if files.is_empty() {
        return Ok(vec![Section::missing(
            "Kakurasu difficulty: which rule set a board needs",
            &results.join("kakurasu_difficulty.csv"),
        )]);
    }
    let mut out = Vec::new();
    for path in files {
        let rows = read_rows(&path)?;
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let b = rows.first().map(|r| r.f("boards")).unwrap_or(0.0);
        let mut s = Section::new(format!(
            "Kakurasu difficulty: which rule set a board needs ({b} boards per size)"
        ));
        let _ = write!(
            s.body,
            "`results/{name}`: per size, boards from the rejection-sampling generator; the share \
             that each rule set finishes without search, rolls to a unique board, search with \
             enumeration (branch nodes, capped at 2 solutions: a uniqueness proof) on the boards \
             enumeration alone leaves unfinished, and cells decided when each rule set stalls.\n\n\
             | size | intervals finish | enumeration finishes | rolls to unique | search branches when needed | cells at interval stall | cells at enumeration stall |\n\
             | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        );
        for r in &rows {
            let _ = writeln!(
                s.body,
                "| {0}×{0} | {1}% | {2}% | {3} | {4} | {5} | {6} |",
                r.f("size"),
                num(100.0 * r.f("intervals_finish_share"), 1),
                num(100.0 * r.f("enumeration_finish_share"), 1),
                num(r.f("rolls_mean"), 3),
                num(r.f("enumeration_search_branches_mean"), 2),
                num(r.f("intervals_stall_cells_mean"), 1),
                num(r.f("enumeration_stall_cells_mean"), 1),
            );
        }
        let wb = WRITEUP_KAKURASU_BOARDS_PER_SIZE as f64;
        let _ = write!(
            s.body,
            "\nAgainst the write-up's table ({wb} boards per size). Shares: pooled two-proportion \
             z score with both sample sizes; means: z with the spread estimated from this \
             sample's standard deviation and both sample sizes. |z| ≤ 3 is read as consistent \
             with sampling noise. Search nodes are compared for orientation only: the write-up \
             does not define its node count, and here the branch cell is the first undecided \
             cell in row-major order.\n\n\
             | size | figure | here | write-up | z | verdict |\n| ---: | --- | ---: | ---: | ---: | --- |\n"
        );
        for &(n, int_pct, enum_pct, rolls, nodes) in &WRITEUP_KAKURASU_DIFFICULTY {
            let Some(r) = rows.iter().find(|r| r.f("size") as usize == n) else {
                continue;
            };
            let bn = r.f("boards");
            let zi = z_prop(r.f("intervals_finish"), bn, int_pct / 100.0, wb);
            let ze = z_prop(r.f("enumeration_finish"), bn, enum_pct / 100.0, wb);
            let zr = z_mean(r.f("rolls_mean"), r.f("rolls_sd"), bn, rolls, wb);
            let _ = writeln!(
                s.body,
                "| {n}×{n} | intervals finish | {:.1}% | {int_pct}% | {zi:.2} | {} |",
                100.0 * r.f("intervals_finish_share"),
                verdict(zi)
            );
            let _ = writeln!(
                s.body,
                "| {n}×{n} | enumeration finishes | {:.1}% | {enum_pct}% | {ze:.2} | {} |",
                100.0 * r.f("enumeration_finish_share"),
                verdict(ze)
            );
            let _ = writeln!(
                s.body,
                "| {n}×{n} | rolls to unique | {:.3} | {rolls} | {zr:.2} | {} |",
                r.f("rolls_mean"),
                verdict(zr)
            );
            if let Some(w) = nodes {
                let k = r.f("enumeration_stalls");
                let kw = (1.0 - enum_pct / 100.0) * wb;
                let zn = z_mean(
                    r.f("enumeration_search_branches_mean"),
                    r.f("enumeration_search_branches_sd"),
                    k,
                    w,
                    kw,
                );
                let _ = writeln!(
                    s.body,
                    "| {n}×{n} | search nodes when needed | {:.2} | {w} | {zn:.2} | {} (definitions may differ) |",
                    r.f("enumeration_search_branches_mean"),
                    verdict(zn)
                );
            }
            if n == 6 {
                let (wi, we) = WRITEUP_KAKURASU_6X6_STALL_CELLS;
                for (label, key, sdk, stalls, w, share) in [
                    (
                        "cells at interval stall",
                        "intervals_stall_cells_mean",
                        "intervals_stall_cells_sd",
                        "intervals_stalls",
                        wi,
                        int_pct,
                    ),
                    (
                        "cells at enumeration stall",
                        "enumeration_stall_cells_mean",
                        "enumeration_stall_cells_sd",
                        "enumeration_stalls",
                        we,
                        enum_pct,
                    ),
                ] {
                    let z = z_mean(
                        r.f(key),
                        r.f(sdk),
                        r.f(stalls),
                        w,
                        (1.0 - share / 100.0) * wb,
                    );
                    let _ = writeln!(
                        s.body,
                        "| 6×6 | {label} | {:.2} | {w} | {z:.2} | {} |",
                        r.f(key),
                        verdict(z)
                    );
                }
            }
        }
        for n in 4..=9usize {
            let Some(r) = rows.iter().find(|r| r.f("size") as usize == n) else {
                s.checks.push(Check::new(
                    format!("{name}: size {n} present"),
                    false,
                    "missing",
                ));
                continue;
            };
            let (i, e) = (r.f("intervals_finish"), r.f("enumeration_finish"));
            s.checks.push(Check::new(
                format!("{name}: {n}×{n} enumeration finishes every board intervals finish"),
                e >= i,
                format!("intervals {i}, enumeration {e} of {}", r.f("boards")),
            ));
        }
        out.push(s);
    }
    Ok(out)
}
