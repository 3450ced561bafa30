//! Report sections of the random-cut study (`results/calcudoku_cuts.csv`) and the sign ablation
//! (`results/calcudoku_signs.csv`).

use super::cuts::{
    CUTS_FILE, CUTS_TIMING_COLUMNS, CUTS_TIMING_FILE, CutsTally, SIGNS_FILE, mean_se, op_name,
    read_cuts, read_signs,
};
use super::squares::SquareSource;
use crate::latin::census_csv::{CENSUS_FILE, read_census};
use crate::reference::{
    CALCUDOKU_CUTS_BOARDS_PER_ROW, CALCUDOKU_CUTS_ROWS, CALCUDOKU_FLIP_EXPLAINED,
    CALCUDOKU_RANDOM_CUTS, CALCUDOKU_SIGN_ROWS, CALCUDOKU_SIGN_UNCHANGED, CALCUDOKU_UNIQUE_HIDDEN,
    CALCUDOKU_UNIQUE_SHOWN,
};
use crate::report::{Check, Section};
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

const CUTS_TITLE: &str = "Calcudoku: random cuts of uniform squares, flips and intercalates";
const SIGNS_TITLE: &str = "Calcudoku: what an operation sign is worth";

/// Rows the default study writes: uniform squares, orders 4–9 × largest cage 2–5.
pub const EXPECTED_ORDERS: [usize; 6] = [4, 5, 6, 7, 8, 9];
pub const EXPECTED_CAGES: [usize; 4] = [2, 3, 4, 5];
/// The write-up's orders (its pooled figures cover orders 4–7 × largest cage 2–5).
const WRITEUP_ORDERS: std::ops::RangeInclusive<usize> = 4..=7;
/// Noise-floor threshold (standard errors) for the sampled-mean checks.
const Z_CHECK: f64 = 4.0;

/// Exact mean and variance of the intercalate count per order, from the committed census.
fn exact_moments(results: &Path) -> Result<BTreeMap<usize, (f64, f64)>> {
    let census = read_census(&results.join(CENSUS_FILE))?;
    let mut out = BTreeMap::new();
    for (&n, h) in &census {
        let total = h.total() as f64;
        if total == 0.0 {
            continue;
        }
        let (mut m1, mut m2) = (0f64, 0f64);
        for (k, &c) in h.0.iter().enumerate() {
            let p = c as f64 / total;
            m1 += k as f64 * p;
            m2 += (k * k) as f64 * p;
        }
        out.insert(n, (m1, m2 - m1 * m1));
    }
    Ok(out)
}

/// z for the difference of two binomial proportions.
fn z_prop(a: u64, n: u64, b: u64, m: u64) -> (f64, f64, f64) {
    let (p, q) = (a as f64 / n as f64, b as f64 / m as f64);
    let se = (p * (1.0 - p) / n as f64 + q * (1.0 - q) / m as f64).sqrt();
    (p, q, if se > 0.0 { (p - q) / se } else { 0.0 })
}

fn pm(m: f64, s: f64) -> String {
    if m.is_finite() && s.is_finite() {
        format!("{m:.2} ± {s:.2}")
    } else if m.is_finite() {
        format!("{m:.2}")
    } else {
        "–".into()
    }
}

fn pct(a: u64, b: u64) -> f64 {
    100.0 * a as f64 / b.max(1) as f64
}

pub fn cuts_sections(results: &Path) -> Result<Vec<Section>> {
    let path = results.join(CUTS_FILE);
    if !path.exists() {
        return Ok(vec![Section::missing(CUTS_TITLE, &path)]);
    }
    let table = read_cuts(&path)?;
    let exact = exact_moments(results)?;
    let mut s = Section::new(CUTS_TITLE);
    s.body.push_str(
        "Random boards per (order, largest cage): a Latin square (uniform: the Jacobson–Matthews \
         chain read at n³ moves; backtrack: randomised backtracking, not uniform), a random \
         connected cut, random labels. Each board is decided for uniqueness (cap 2) by the ladder \
         plus search with signs shown and hidden. `explained` is the share of non-unique boards \
         on which a certified intercalate flip of the cut square is already a second answer. \
         Intercalate means are of the cut squares, ± one standard error; `exact` is the census \
         mean of the order.\n\n\
         | squares | order | largest cage | boards | unique | unique (signs hidden) | explained by a flip | \
         flip but unique | intercalates (unique) | (not unique) | all boards | exact | unknown |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for t in table.values() {
        let (mu, su) = mean_se(t.unique, t.ic_unique[0], t.ic_unique[1]);
        let (mn, sn) = mean_se(t.nonunique, t.ic_nonunique[0], t.ic_nonunique[1]);
        let (ma, sa) = mean_se(t.boards, t.ic_all[0], t.ic_all[1]);
        let ex = exact
            .get(&t.order)
            .map(|e| format!("{:.3}", e.0))
            .unwrap_or_else(|| "none".into());
        let _ = writeln!(
            s.body,
            "| {} | {} | {} | {} | {} ({:.1}%) | {} | {}/{} ({:.1}%) | {} | {} | {} | {} | {} | {} |",
            t.squares.name(),
            t.order,
            t.max_cage,
            t.boards,
            t.unique,
            pct(t.unique, t.boards),
            t.unique_hidden,
            t.flip_explained,
            t.nonunique,
            pct(t.flip_explained, t.nonunique),
            t.flip_but_unique,
            pm(mu, su),
            pm(mn, sn),
            pm(ma, sa),
            ex,
            t.unknown
        );
    }
    // Timing table (informational, from the timing file).
    let tpath = results.join(CUTS_TIMING_FILE);
    if tpath.exists() {
        let mut rdr = crate::engine::table::open_checked(&tpath, &CUTS_TIMING_COLUMNS)?;
        let _ = write!(
            s.body,
            "\nUniqueness decision time with signs shown (hdrhistogram over every board of the \
             row; `{CUTS_TIMING_FILE}`, measured on a shared, loaded machine):\n\n\
             | squares | order | largest cage | boards | median µs | p99 µs | max µs |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        );
        for rec in rdr.records().flatten() {
            let f: Vec<&str> = rec.iter().collect();
            if f.len() >= 7 {
                let _ = writeln!(
                    s.body,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    f[0], f[1], f[2], f[3], f[4], f[5], f[6]
                );
            }
        }
    }

    // Checks per row.
    for t in table.values() {
        let key = format!(
            "{} {}x{} largest cage {}",
            t.squares.name(),
            t.order,
            t.order,
            t.max_cage
        );
        s.checks.push(Check::eq(
            format!("{key}: no board with a surviving certified flip is unique (theorem)"),
            t.flip_but_unique,
            0,
        ));
        s.checks.push(Check::eq(
            format!(
                "{key}: every certified flip is a solution ({} checked)",
                t.flips_checked
            ),
            t.flips_bad,
            0,
        ));
        s.checks.push(Check::eq(
            format!("{key}: hiding the signs never lowers a board's count"),
            t.hidden_below_shown,
            0,
        ));
        s.checks.push(Check::eq(
            format!("{key}: every board counted once"),
            t.unique + t.nonunique + t.unknown,
            t.boards,
        ));
        if t.unknown + t.unknown_hidden > 0 {
            s.checks.push(Check::finding(
                format!("{key}: node cap hit"),
                format!(
                    "{} boards unknown with signs shown, {} hidden (left out of the counts)",
                    t.unknown, t.unknown_hidden
                ),
            ));
        }
        let (ma, sa) = mean_se(t.boards, t.ic_all[0], t.ic_all[1]);
        match (exact.get(&t.order), t.squares) {
            (Some(&(em, ev)), SquareSource::Uniform) => {
                let se = (ev / t.boards as f64).sqrt();
                let z = (ma - em) / se;
                s.checks.push(Check::new(
                    format!("{key}: mean intercalates of the cut squares = exact mean (|z| ≤ {Z_CHECK})"),
                    z.abs() <= Z_CHECK,
                    format!(
                        "{ma:.3} ± {sa:.3} over {} squares against the census mean {em:.3} (z = {z:.2}, standard error from the census variance)",
                        t.boards
                    ),
                ));
            }
            (Some(&(em, ev)), SquareSource::Backtrack) => {
                let z = (ma - em) / (ev / t.boards as f64).sqrt();
                s.checks.push(Check::finding(
                    format!("{key}: backtracking squares against the exact mean"),
                    format!("{ma:.3} ± {sa:.3} against {em:.3} (z = {z:.2}); backtracking is not uniform"),
                ));
            }
            (None, _) => s.checks.push(Check::finding(
                format!("{key}: mean intercalates of the cut squares"),
                format!(
                    "{ma:.3} ± {sa:.3}; the census has no order {}, so there is no exact mean to compare",
                    t.order
                ),
            )),
        }
        // Unique boards lean away from intercalates?
        let (mu, su) = mean_se(t.unique, t.ic_unique[0], t.ic_unique[1]);
        let (mn, sn) = mean_se(t.nonunique, t.ic_nonunique[0], t.ic_nonunique[1]);
        if t.unique >= 2 && t.nonunique >= 2 {
            let d = mn - mu;
            let se = (su * su + sn * sn).sqrt();
            s.checks.push(Check::finding(
                format!("{key}: unique boards lean away from intercalates"),
                format!(
                    "{} (unique {mu:.3} ± {su:.3}, not unique {mn:.3} ± {sn:.3}; difference {d:.3} ± {se:.3}, z = {:.1})",
                    if d / se > 2.0 {
                        "holds"
                    } else if d > 0.0 {
                        "same direction, within two standard errors"
                    } else {
                        "does not hold"
                    },
                    d / se
                ),
            ));
        }
    }
    let expected: Vec<String> = EXPECTED_ORDERS
        .iter()
        .flat_map(|&n| EXPECTED_CAGES.iter().map(move |&k| (n, k)))
        .filter(|&(n, k)| !table.contains_key(&(SquareSource::Uniform, n, k)))
        .map(|(n, k)| format!("uniform {n}x{n} largest cage {k}"))
        .collect();
    s.checks.push(Check::rows_present(
        "random-cut rows (uniform squares, orders 4–9 × largest cage 2–5)",
        EXPECTED_ORDERS.len() * EXPECTED_CAGES.len(),
        &expected,
    ));

    // Lean on every row (summary finding).
    let uni: Vec<&CutsTally> = table
        .values()
        .filter(|t| t.squares == SquareSource::Uniform)
        .collect();
    let lean: Vec<bool> = uni
        .iter()
        .filter(|t| t.unique >= 2 && t.nonunique >= 2)
        .map(|t| {
            let (mu, su) = mean_se(t.unique, t.ic_unique[0], t.ic_unique[1]);
            let (mn, sn) = mean_se(t.nonunique, t.ic_nonunique[0], t.ic_nonunique[1]);
            (mn - mu) / (su * su + sn * sn).sqrt() > 2.0
        })
        .collect();
    s.checks.push(Check::finding(
        "unique boards lean away from intercalates, uniform rows",
        format!(
            "more than two standard errors on {} of {} rows",
            lean.iter().filter(|&&b| b).count(),
            lean.len()
        ),
    ));

    // The write-up's printed rows, with binomial intervals.
    let mut cmp = String::new();
    for &(n, k, un, ex, nu, (wmu, wsu), (wmn, wsn)) in &CALCUDOKU_CUTS_ROWS {
        let Some(t) = table.get(&(SquareSource::Uniform, n, k)) else {
            continue;
        };
        let known = t.unique + t.nonunique;
        let (p, q, z) = z_prop(t.unique, known, un, CALCUDOKU_CUTS_BOARDS_PER_ROW);
        let (pe, qe, ze) = z_prop(t.flip_explained, t.nonunique, ex, nu);
        let (mu, su) = mean_se(t.unique, t.ic_unique[0], t.ic_unique[1]);
        let (mn, sn) = mean_se(t.nonunique, t.ic_nonunique[0], t.ic_nonunique[1]);
        let zu = (mu - wmu) / (su * su + wsu * wsu).sqrt();
        let zn = (mn - wmn) / (sn * sn + wsn * wsn).sqrt();
        let _ = writeln!(
            cmp,
            "| {n}×{n} | {k} | {:.1}% | {:.1}% ({z:+.1}) | {:.1}% | {:.1}% ({ze:+.1}) | {wmu:.2} / {wmn:.2} | {mu:.2} / {mn:.2} ({zu:+.1} / {zn:+.1}) |",
            100.0 * q,
            100.0 * p,
            100.0 * qe,
            100.0 * pe,
        );
        let verdict = |z: f64| {
            if z.abs() <= 2.0 {
                "within two standard errors"
            } else {
                "differs"
            }
        };
        s.checks.push(Check::finding(
            format!("{n}×{n} largest cage {k} against the write-up"),
            format!(
                "unique {:.1}% vs {:.1}% (z = {z:.1}, {}); explained {:.1}% vs {:.1}% (z = {ze:.1}, {}); \
                 intercalates unique {mu:.2} vs {wmu:.2} (z = {zu:.1}), not unique {mn:.2} vs {wmn:.2} (z = {zn:.1}). \
                 A difference in the unique share follows from the cut and labelling rules (cage-size \
                 draw, growth, operation choice), which the write-up does not fully specify",
                100.0 * p,
                100.0 * q,
                verdict(z),
                100.0 * pe,
                100.0 * qe,
                verdict(ze)
            ),
        ));
    }
    if !cmp.is_empty() {
        let _ = write!(
            s.body,
            "\nThe write-up's printed rows ({CALCUDOKU_CUTS_BOARDS_PER_ROW} boards each) beside ours; \
             z is the difference in standard errors (binomial for shares, combined standard error \
             for means):\n\n\
             | grid | largest cage | unique (write-up) | unique (ours, z) | explained (write-up) | explained (ours, z) | \
             intercalates unique / not (write-up) | (ours, z) |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n{cmp}"
        );
    }
    // Pooled over the write-up's 16 rows.
    let pool: Vec<&&CutsTally> = uni
        .iter()
        .filter(|t| WRITEUP_ORDERS.contains(&t.order) && (2..=5).contains(&t.max_cage))
        .collect();
    if !pool.is_empty() {
        let sum = |f: fn(&CutsTally) -> u64| pool.iter().map(|t| f(t)).sum::<u64>();
        let (b, u, nu, ex, uh) = (
            sum(|t| t.boards),
            sum(|t| t.unique),
            sum(|t| t.nonunique),
            sum(|t| t.flip_explained),
            sum(|t| t.unique_hidden),
        );
        let (p, q, z) = z_prop(
            ex,
            nu,
            CALCUDOKU_FLIP_EXPLAINED.0,
            CALCUDOKU_FLIP_EXPLAINED.1,
        );
        s.checks.push(Check::finding(
            format!(
                "orders 4–7 × largest cage 2–5 ({} rows): non-unique boards explained by a flip",
                pool.len()
            ),
            format!(
                "{ex} of {nu} ({:.1}%) against the write-up's {} of {} ({:.1}%), z = {z:.1}",
                100.0 * p,
                CALCUDOKU_FLIP_EXPLAINED.0,
                CALCUDOKU_FLIP_EXPLAINED.1,
                100.0 * q
            ),
        ));
        let lost = 100.0 * (u as f64 - uh as f64) / u.max(1) as f64;
        let wlost = 100.0 * (CALCUDOKU_UNIQUE_SHOWN - CALCUDOKU_UNIQUE_HIDDEN) as f64
            / CALCUDOKU_UNIQUE_SHOWN as f64;
        s.checks.push(Check::finding(
            "per board: unique with signs shown against hidden (orders 4–7 × largest cage 2–5)",
            format!(
                "of {b} boards {u} unique with signs and {uh} without: hiding every sign costs {lost:.1}% \
                 of the unique boards (write-up: of {} boards {} → {}, {wlost:.1}%). Our cut draws each \
                 cage's size uniformly from 1..=k, so it leaves many one-cell cages, which no sign \
                 touches",
                CALCUDOKU_RANDOM_CUTS, CALCUDOKU_UNIQUE_SHOWN, CALCUDOKU_UNIQUE_HIDDEN
            ),
        ));
    }
    Ok(vec![s])
}

pub fn signs_sections(results: &Path) -> Result<Vec<Section>> {
    let path = results.join(SIGNS_FILE);
    if !path.exists() {
        return Ok(vec![Section::missing(SIGNS_TITLE, &path)]);
    }
    let table = read_signs(&path)?;
    let mut s = Section::new(SIGNS_TITLE);
    // Pool the uniform rows of orders 4–7 × largest cage 2–5 by cage kind.
    #[derive(Default, Clone)]
    struct Pool {
        cages: u64,
        shown: u64,
        hidden: u64,
        bits: f64,
        unchanged: u64,
    }
    let mut kinds: BTreeMap<(usize, u8), Pool> = BTreeMap::new();
    let mut present = std::collections::BTreeSet::new();
    for (k, t) in &table {
        s.checks.push(Check::eq(
            format!(
                "{} {}x{} largest cage {} {}-cell {}: every cage has a filling with its sign",
                k.0.name(),
                k.1,
                k.1,
                k.2,
                k.3,
                op_name_rank(k.4)
            ),
            t.empty,
            0,
        ));
        s.checks.push(Check::eq(
            format!(
                "{} {}x{} largest cage {} {}-cell {}: hiding the sign never removes a filling",
                k.0.name(),
                k.1,
                k.1,
                k.2,
                k.3,
                op_name_rank(k.4)
            ),
            t.hidden_below_shown,
            0,
        ));
        if k.0 == SquareSource::Uniform {
            present.insert((k.1, k.2));
        }
        if k.0 != SquareSource::Uniform || !WRITEUP_ORDERS.contains(&k.1) || !(2..=5).contains(&k.2)
        {
            continue;
        }
        let p = kinds.entry((k.3, k.4)).or_default();
        p.cages += t.cages;
        p.shown += t.fill_shown;
        p.hidden += t.fill_hidden;
        p.bits += t.bits;
        p.unchanged += t.unchanged;
    }
    let missing: Vec<String> = EXPECTED_ORDERS
        .iter()
        .flat_map(|&n| EXPECTED_CAGES.iter().map(move |&k| (n, k)))
        .filter(|nk| !present.contains(nk))
        .map(|(n, k)| format!("uniform {n}x{n} largest cage {k}"))
        .collect();
    s.checks.push(Check::rows_present(
        "sign-ablation rows (uniform squares, orders 4–9 × largest cage 2–5)",
        EXPECTED_ORDERS.len() * EXPECTED_CAGES.len(),
        &missing,
    ));
    s.body.push_str(
        "Every multi-cell cage of the random cuts (uniform squares, orders 4–7 × largest cage 2–5, \
         the boards of `calcudoku cuts`), by kind. Fillings are value tuples of the cage's cells \
         (no repeat in a row or column inside the cage) that reach the target with the sign, and \
         with any operation the cage's size allows (sign hidden). Bits = mean over cages of \
         log2(fillings hidden / fillings shown).\n\n\
         | cage | cages | fillings with sign | without | bits the sign carries | no change at all |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let (mut all, mut same) = (0u64, 0u64);
    for (&(cells, op), p) in &kinds {
        let c = p.cages.max(1) as f64;
        let _ = writeln!(
            s.body,
            "| {cells} cells, {} | {} | {:.2} | {:.2} | {:.3} | {} ({:.1}%) |",
            op_name_rank(op),
            p.cages,
            p.shown as f64 / c,
            p.hidden as f64 / c,
            p.bits / c,
            p.unchanged,
            pct(p.unchanged, p.cages)
        );
        all += p.cages;
        same += p.unchanged;
    }
    let (pu, qu, zu) = z_prop(
        same,
        all,
        CALCUDOKU_SIGN_UNCHANGED.0,
        CALCUDOKU_SIGN_UNCHANGED.1,
    );
    let _ = writeln!(
        s.body,
        "\n{same} of {all} multi-cell cages ({:.1}%) admit exactly the same fillings with the sign hidden \
         (write-up: {} of {}, {:.1}%).",
        100.0 * pu,
        CALCUDOKU_SIGN_UNCHANGED.0,
        CALCUDOKU_SIGN_UNCHANGED.1,
        100.0 * qu
    );
    s.checks.push(Check::finding(
        "multi-cell cages unchanged by hiding the sign, against the write-up",
        format!(
            "{:.1}% vs {:.1}% (z = {zu:.1}); the mix of cage kinds follows the cut and labelling rules",
            100.0 * pu,
            100.0 * qu
        ),
    ));
    for &(cells, op, wc, ws, wh, wb, wu) in &CALCUDOKU_SIGN_ROWS {
        let Some(p) = kinds
            .iter()
            .find(|(k, _)| k.0 == cells && op_name_rank(k.1) == op)
            .map(|(_, p)| p.clone())
        else {
            s.checks.push(Check::finding(
                format!("{cells} cells, {op} against the write-up"),
                "no such cages in our cuts",
            ));
            continue;
        };
        let c = p.cages.max(1) as f64;
        let (pu, qu, zu) = z_prop(p.unchanged, p.cages, wu, wc);
        s.checks.push(Check::finding(
            format!("{cells} cells, {op} against the write-up"),
            format!(
                "{} cages: fillings {:.2} → {:.2} ({:.3} bits) vs {ws:.2} → {wh:.2} ({wb:.3} bits, {wc} cages); \
                 unchanged {:.1}% vs {:.1}% (z = {zu:.1}). Means depend on the mix of orders and targets \
                 the cut and labelling rules produce",
                p.cages,
                p.shown as f64 / c,
                p.hidden as f64 / c,
                p.bits / c,
                100.0 * pu,
                100.0 * qu
            ),
        ));
    }
    Ok(vec![s])
}

fn op_name_rank(r: u8) -> &'static str {
    use super::board::Op;
    op_name([Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Given][r as usize])
}
