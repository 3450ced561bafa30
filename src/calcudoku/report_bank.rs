//! Report sections for the board bank (`calcudoku_bank*.csv`) and rung pricing
//! (`calcudoku_pricing.csv`).

use super::bank::{
    BANK_FILE, SUMMARY_FILE, TIMING_FILE, VERIFY_MAX_ORDER, read_index, read_summary, read_timing,
};
use super::pricing::{PRICING_FILE, read_pricing};
use super::solver::{ALL_RUNGS, RUNG_COUNT};
use crate::latin::census_csv::{CENSUS_FILE, read_census, summarize};
use crate::reference::{
    CALCUDOKU_WRITEUP_BANK, CALCUDOKU_WRITEUP_BANK_SIGNLESS, CALCUDOKU_WRITEUP_PRICING,
    CALCUDOKU_WRITEUP_PRICING_BOARDS, CALCUDOKU_WRITEUP_REPAIR_MS,
    CALCUDOKU_WRITEUP_REPAIRS_BY_FLIP,
};
use crate::report::{Check, Section};
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Orders the default bank covers; the family fails if one disappears.
pub const EXPECTED_ORDERS: [usize; 5] = [5, 6, 7, 8, 9];

/// Two-sided z for the bank-mean checks: Bonferroni over the (at most 4) orders with an exact
/// census mean at a family-wise false-alarm rate of 1%: Φ⁻¹(1 − 0.01/8) = 3.023.
pub const BANK_MEAN_Z: f64 = 3.023;

const BANK_TITLE: &str = "Calcudoku bank: repair-and-tighten boards on uniform squares";
const PRICING_TITLE: &str = "Calcudoku: the ladder priced rung by rung, on the bank";

fn mean_se(sum: f64, sumsq: f64, n: f64) -> (f64, f64) {
    let mean = sum / n;
    let var = if n > 1.0 {
        ((sumsq - sum * sum / n) / (n - 1.0)).max(0.0)
    } else {
        0.0
    };
    (mean, (var / n).sqrt())
}

pub fn bank_sections(results: &Path) -> Result<Vec<Section>> {
    let path = results.join(BANK_FILE);
    if !path.exists() {
        return Ok(vec![Section::missing(BANK_TITLE, &path)]);
    }
    let index = read_index(&path)?;
    let summary = read_summary(&results.join(SUMMARY_FILE))?;
    let timing = read_timing(&results.join(TIMING_FILE))?;
    let census = read_census(&results.join(CENSUS_FILE))?;
    let mut s = Section::new(BANK_TITLE);
    let mut by_order: BTreeMap<usize, Vec<&super::bank::IndexRow>> = BTreeMap::new();
    for r in &index {
        by_order.entry(r.order).or_default().push(r);
    }
    let missing: Vec<String> = EXPECTED_ORDERS
        .iter()
        .filter(|n| !by_order.contains_key(n) || !summary.contains_key(n))
        .map(|n| format!("order {n}"))
        .collect();
    s.checks.push(Check::rows_present(
        "bank orders present (index and summary)",
        EXPECTED_ORDERS.len(),
        &missing,
    ));
    s.body.push_str(
        "Every board: a Jacobson–Matthews fixed-time square (never discarded), a random connected \
         cut, repaired (split a cage where a second answer differs, certified intercalate flips \
         first) and tightened (merge neighbouring cages under every label while the answer stays \
         unique, until a full pass keeps nothing). Each board is proved unique by ladder+search \
         and, up to order 7, by the independent verifier. The filter bank beside it keeps only \
         cuts that come out unique and draws a new square otherwise (same boards per order). \
         Intercalates are of the board's square; ± is the sample standard error; differences are \
         in units of the exact σ/√boards (σ of the census distribution). The exact mean is read \
         from the committed Latin census.\n\n\
         | order | boards | bank intercalates | exact mean | bank − exact (SE) | filter bank | filter − exact (SE) | discarded squares | cages (mean) | splits by a flip |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut grade_rows = String::new();
    for (&n, rows) in &by_order {
        let k = rows.len() as f64;
        let sum: f64 = rows.iter().map(|r| r.intercalates as f64).sum();
        let sumsq: f64 = rows.iter().map(|r| (r.intercalates as f64).powi(2)).sum();
        let (mean, se) = mean_se(sum, sumsq, k);
        let exact = census.get(&n).map(|h| summarize(n, h).mean);
        // Under uniform squares the mean of k squares has standard deviation σ/√k, with σ the
        // census distribution's own (exact) standard deviation: the check uses that, not the
        // sample's (which is 0 when a small sample happens to be constant).
        let exact_sd = census.get(&n).map(|h| {
            let tot = h.total() as f64;
            let m = summarize(n, h).mean;
            let ex2: f64 =
                h.0.iter()
                    .enumerate()
                    .map(|(v, &c)| (v * v) as f64 * c as f64)
                    .sum::<f64>()
                    / tot;
            (ex2 - m * m).max(0.0).sqrt()
        });
        // Index rows must be exactly 0..boards (no gaps, no duplicates).
        let contiguous = rows.iter().enumerate().all(|(i, r)| r.index == i as u64);
        s.checks.push(Check::new(
            format!("order {n}: index rows 1..{} contiguous", rows.len()),
            contiguous,
            format!("{} rows", rows.len()),
        ));
        let want = if n <= VERIFY_MAX_ORDER {
            "ladder+search+verifier"
        } else {
            "ladder+search"
        };
        let proved = rows.iter().filter(|r| r.proofs == want).count();
        s.checks.push(Check::eq(
            format!("order {n}: every board proved unique ({want})"),
            proved,
            rows.len(),
        ));
        let sm = summary.get(&n);
        if let Some(sm) = sm {
            s.checks.push(Check::eq(
                format!("order {n}: summary and index count the same boards"),
                sm.v[1],
                rows.len() as u64,
            ));
        }
        let (fmean, fse) = sm
            .map(|sm| mean_se(sm.v[13] as f64, sm.v[14] as f64, sm.v[10] as f64))
            .unwrap_or((f64::NAN, f64::NAN));
        let (rmean, _) = sm
            .map(|sm| mean_se(sm.v[16] as f64, sm.v[17] as f64, sm.v[15].max(1) as f64))
            .unwrap_or((f64::NAN, f64::NAN));
        let splits: u64 = rows.iter().map(|r| r.splits).sum();
        let by_flip: u64 = rows.iter().map(|r| r.splits_by_flip).sum();
        let cages: f64 = rows.iter().map(|r| r.cages as f64).sum::<f64>() / k;
        // Differences in units of the exact σ/√k (see the check below).
        let ese = exact_sd.map(|sd| sd / k.sqrt());
        let fmt_diff = |m: f64, _e: f64| match (exact, ese) {
            (Some(x), Some(e)) => format!("{:+.3} ({:+.1} SE)", m - x, (m - x) / e.max(1e-12)),
            _ => "—".into(),
        };
        let _ = writeln!(
            s.body,
            "| {n} | {} | {mean:.3} ± {se:.3} | {} | {} | {fmean:.3} ± {fse:.3} | {} | {} (mean {rmean:.3}) | {cages:.1} | {by_flip}/{splits} ({:.1}%) |",
            rows.len(),
            exact
                .map(|x| format!("{x:.3}"))
                .unwrap_or_else(|| "no census".into()),
            fmt_diff(mean, se),
            fmt_diff(fmean, fse),
            sm.map(|sm| sm.v[15]).unwrap_or(0),
            100.0 * by_flip as f64 / splits.max(1) as f64,
        );
        match exact {
            Some(x) => {
                let ese = exact_sd.unwrap_or(0.0) / k.sqrt();
                s.checks.push(Check::new(
                    format!("order {n}: bank squares' mean intercalates within {BANK_MEAN_Z} SE of the exact mean"),
                    (mean - x).abs() <= BANK_MEAN_Z * ese,
                    format!(
                        "{mean:.3} (sample SE {se:.3}) against {x:.4}: {:+.2} SE, with SE = exact σ/√{} = {ese:.3}",
                        (mean - x) / ese.max(1e-12),
                        rows.len()
                    ),
                ))
            }
            None => s.checks.push(Check::finding(
                format!("order {n}: bank squares' mean intercalates"),
                format!("{mean:.3} ± {se:.3} (the census has no order {n}: no exact mean)"),
            )),
        }
        // The signless edition of each bank board: hiding signs only relaxes the cages, so the
        // board's own answer must survive (a board with no answer left is a solver fault).
        let lost = rows.iter().filter(|r| r.signs_hidden == "none").count();
        s.checks.push(Check::eq(
            format!("order {n}: every bank board keeps its answer with every sign hidden"),
            lost,
            0,
        ));
        let hidden_unique = rows.iter().filter(|r| r.signs_hidden == "unique").count();
        let hidden_unknown = rows.iter().filter(|r| r.signs_hidden == "unknown").count();
        s.checks.push(Check::finding(
            format!("order {n}: bank boards still unique with every sign hidden"),
            format!(
                "{hidden_unique} of {} ({:.1}%){}; the write-up: {} of {} of its bank",
                rows.len(),
                100.0 * hidden_unique as f64 / k,
                if hidden_unknown > 0 {
                    format!(", {hidden_unknown} undecided at the node cap")
                } else {
                    String::new()
                },
                CALCUDOKU_WRITEUP_BANK_SIGNLESS.0,
                CALCUDOKU_WRITEUP_BANK_SIGNLESS.1,
            ),
        ));
        if let (Some(x), Some(_)) = (exact, sm) {
            s.checks.push(Check::finding(
                format!("order {n}: keep-only-unique filter bank leans"),
                format!(
                    "filter {fmean:.3} ± {fse:.3} against exact {x:.3} ({:+.1} exact SE); the squares it discarded average {rmean:.3}",
                    (fmean - x) / ese.unwrap_or(0.0).max(1e-12)
                ),
            ));
        }
        if let Some(sm) = sm {
            s.checks.push(Check::finding(
                format!("order {n}: generator with and without the flip check"),
                format!(
                    "with: {} splits ({} by a flip, no search), {} searches, {} nodes; without: {} splits, {} searches, {} nodes; same board {} of {}",
                    sm.v[2], sm.v[3], sm.v[4], sm.v[5], sm.v[6], sm.v[7], sm.v[8], sm.v[9], sm.v[1]
                ),
            ));
        }
        let mut grades: BTreeMap<&str, u64> = BTreeMap::new();
        for r in rows {
            *grades.entry(r.grade.as_str()).or_default() += 1;
        }
        let order_names = [
            "cage", "single", "hidden", "must", "subset", "probe", "search",
        ];
        let cells: Vec<String> = order_names
            .iter()
            .map(|g| grades.get(g).copied().unwrap_or(0).to_string())
            .collect();
        let _ = writeln!(grade_rows, "| {n} | {} |", cells.join(" | "));
    }
    s.body.push_str(
        "\nGrade = the highest rung the root ladder needed (search: the ladder alone does not \
         finish). This is the notion of difficulty of Simon Tatham's Keen, whose levels are the \
         deduction sets its solver may use; here each bank board is labelled by the top rung it \
         needs.\n\n| order | cage | single | hidden | must | subset | probe | search |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    s.body.push_str(&grade_rows);
    if !timing.is_empty() {
        s.body.push_str(
            "\nGenerator CPU time per board (thread CPU clock, from `calcudoku_bank_timing.csv`; \
             machine-dependent):\n\n| order | method | boards | median ms | p90 ms | worst ms |\n\
             | ---: | --- | ---: | ---: | ---: | ---: |\n",
        );
        for ((n, m), (b, med, p90, max, _)) in &timing {
            let _ = writeln!(
                s.body,
                "| {n} | {m} | {b} | {med:.3} | {p90:.3} | {max:.3} |"
            );
        }
        if let Some((_, med, _, max, _)) = timing.get(&(7, "repair".to_string())) {
            s.checks.push(Check::finding(
                "7x7 generator median (target under 2 ms)",
                format!(
                    "{med:.3} ms median, {max:.1} ms worst ({}); the write-up: {} ms median, {} ms worst (JavaScript)",
                    if *med < 2.0 { "target met" } else { "target not met" },
                    CALCUDOKU_WRITEUP_REPAIR_MS.0,
                    CALCUDOKU_WRITEUP_REPAIR_MS.1
                ),
            ));
        }
    }
    let wb: Vec<String> = CALCUDOKU_WRITEUP_BANK
        .iter()
        .map(|(n, m, e)| format!("{n}x{n} {m:.2} ± {e:.2}"))
        .collect();
    let _ = write!(
        s.body,
        "\nThe write-up's bank (40 boards per order): {}, each within two standard errors; its flip \
         check placed {} of {} repairs without a search.\n",
        wb.join(", "),
        CALCUDOKU_WRITEUP_REPAIRS_BY_FLIP.0,
        CALCUDOKU_WRITEUP_REPAIRS_BY_FLIP.1
    );
    Ok(vec![s])
}

pub fn pricing_sections(results: &Path) -> Result<Vec<Section>> {
    let path = results.join(PRICING_FILE);
    if !path.exists() {
        return Ok(vec![Section::missing(PRICING_TITLE, &path)]);
    }
    let p = read_pricing(&path)?;
    let index = read_index(&results.join(BANK_FILE))?;
    let mut s = Section::new(PRICING_TITLE);
    let mut bank_orders: BTreeMap<usize, u64> = BTreeMap::new();
    let mut ladder_finished: BTreeMap<usize, u64> = BTreeMap::new();
    for r in &index {
        *bank_orders.entry(r.order).or_default() += 1;
        *ladder_finished.entry(r.order).or_default() += (r.grade != "search") as u64;
    }
    let mut missing = Vec::new();
    for &n in bank_orders.keys() {
        for r in ALL_RUNGS {
            if !p.0.contains_key(&(n, r as usize)) {
                missing.push(format!("order {n} {}", r.name()));
            }
        }
    }
    s.checks.push(Check::rows_present(
        "a row per (bank order, rung)",
        bank_orders.len() * RUNG_COUNT,
        &missing,
    ));
    for (&n, &k) in &bank_orders {
        if let Some(row) = p.0.get(&(n, 0)) {
            s.checks.push(Check::eq(
                format!("order {n}: pricing covers every bank board"),
                row.boards,
                k,
            ));
        }
        if let Some(row) = p.0.get(&(n, RUNG_COUNT - 1)) {
            s.checks.push(Check::eq(
                format!("order {n}: full ladder finishes exactly the boards the bank grades below search"),
                row.finished_climbing,
                ladder_finished[&n],
            ));
        }
    }
    // Totals over every order.
    let mut tot = [super::pricing::RungRow::default(); RUNG_COUNT];
    for (&(_, ri), row) in &p.0 {
        let t = &mut tot[ri];
        t.boards += row.boards;
        t.cells += row.cells;
        t.settled_climbing += row.settled_climbing;
        t.finished_climbing += row.finished_climbing;
        t.settled_by_rung += row.settled_by_rung;
        t.finished_without += row.finished_without;
        t.unchanged_without += row.unchanged_without;
        t.nodes_with += row.nodes_with;
        t.nodes_without += row.nodes_without;
        t.unknown_without += row.unknown_without;
        for q in 0..RUNG_COUNT {
            t.unchanged_also[q] += row.unchanged_also[q];
        }
    }
    s.body.push_str(
        "All bank boards, every order. *Climbing*: the root ladder with the rungs up to this one. \
         *Settled by it*: cells this rung settles in the full ladder. *Without it*: the root ladder \
         with every other rung; *unchanged* counts boards where it ends in exactly the full \
         ladder's candidates. Nodes: a uniqueness decision (cap 2) summed over the boards.\n\n\
         | rung | cells settled, climbing | finished, climbing | settled by it | finished without it | unchanged without it | search nodes without it (with) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for (ri, r) in ALL_RUNGS.iter().enumerate() {
        let t = &tot[ri];
        let _ = writeln!(
            s.body,
            "| {} | {} ({:.1}%) | {} / {} | {} | {} / {} | {} | {}{} ({}) |",
            r.name(),
            t.settled_climbing,
            100.0 * t.settled_climbing as f64 / t.cells.max(1) as f64,
            t.finished_climbing,
            t.boards,
            t.settled_by_rung,
            t.finished_without,
            t.boards,
            t.unchanged_without,
            t.nodes_without,
            if t.unknown_without > 0 {
                format!(" + {} capped", t.unknown_without)
            } else {
                String::new()
            },
            t.nodes_with
        );
        // Containment: a rung that changes nothing in the full ladder, but does once q is gone.
        if t.boards > 0 && t.unchanged_without == t.boards {
            let hosts: Vec<String> = ALL_RUNGS
                .iter()
                .enumerate()
                .filter(|&(qi, _)| qi != ri && t.unchanged_also[qi] < t.boards)
                .map(|(qi, q)| {
                    format!(
                        "{} (matters on {} boards without it)",
                        q.name(),
                        t.boards - t.unchanged_also[qi]
                    )
                })
                .collect();
            s.checks.push(Check::finding(
                format!("{} is contained in the other rungs", r.name()),
                format!(
                    "removing it leaves the ladder's end state unchanged on all {} boards and search nodes {} against {}; {}",
                    t.boards,
                    t.nodes_without,
                    t.nodes_with,
                    if hosts.is_empty() {
                        "no single other rung is needed for that".to_string()
                    } else {
                        format!("it is inside {}", hosts.join(", "))
                    }
                ),
            ));
        } else if t.boards > 0 {
            s.checks.push(Check::finding(
                format!("{}: boards where removing it changes the ladder", r.name()),
                format!(
                    "{} of {}; finished without it {} of {}; nodes {} without against {} with",
                    t.boards - t.unchanged_without,
                    t.boards,
                    t.finished_without,
                    t.boards,
                    t.nodes_without,
                    t.nodes_with
                ),
            ));
        }
    }
    let wp: Vec<String> = CALCUDOKU_WRITEUP_PRICING
        .iter()
        .map(|(r, cells, fin, finw)| {
            format!(
                "{r} {cells} cells, {fin}/{b}, without {finw}/{b}",
                b = CALCUDOKU_WRITEUP_PRICING_BOARDS
            )
        })
        .collect();
    let _ = write!(
        s.body,
        "\nThe write-up priced its {} shipped boards (orders 5–7): {}. It found `single` inside \
         `must` (dropping single left the search's node count unchanged). Our bank is tightened \
         to local maximality with cages up to the bank's largest size, so more of it needs search.\n",
        CALCUDOKU_WRITEUP_PRICING_BOARDS,
        wp.join("; ")
    );
    Ok(vec![s])
}
