//! Latin sections of the report: the census held to OEIS and to the write-up's table.

use super::census_csv::{CENSUS_FILE, SUMMARY_FILE, read_census, summarize, summary_csv};
use crate::reference::*;
use crate::report::{Chart, Check, Section, chart};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

pub fn census_sections(results: &Path) -> Result<Vec<Section>> {
    let path = results.join(CENSUS_FILE);
    if !path.exists() {
        return Ok(vec![Section::missing(
            "Latin census: intercalates in reduced Latin squares",
            &path,
        )]);
    }
    let table = read_census(&path)?;
    let mut s = Section::new("Latin census: intercalates in reduced Latin squares");
    s.body.push_str(
        "Exact histogram of intercalate counts over all reduced Latin squares (`results/latin_census.csv`), \
         summarised per order (`results/latin_census_summary.csv`).\n\n\
         | order | reduced squares | all squares | mean intercalates | share without | max | distinct counts |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    // The orders the file must hold: those its manifest says were computed (every order of the
    // committed census when there is no manifest).
    let mut expected: Vec<usize> = crate::report::recorded_specs(results, CENSUS_FILE)
        .iter()
        .filter(|sp| sp.kind == "latin-census")
        .filter_map(|sp| sp.params["order"].as_u64().map(|n| n as usize))
        .collect();
    if expected.is_empty() {
        expected = (1..=super::census::MAX_ORDER).collect();
    }
    expected.sort_unstable();
    expected.dedup();
    let missing: Vec<String> = expected
        .iter()
        .filter(|n| !table.contains_key(n))
        .map(|n| format!("order {n}"))
        .collect();
    s.checks.push(Check::rows_present(
        "every order the manifest records is in the census",
        expected.len(),
        &missing,
    ));
    // The summary is derived from the census: it must be exactly what the census gives.
    let summary_path = results.join(SUMMARY_FILE);
    let summary_ok = std::fs::read(&summary_path).is_ok_and(|b| b == summary_csv(&table));
    s.checks.push(Check::new(
        "summary file equals the summary of the census",
        summary_ok,
        if summary_ok {
            format!("{SUMMARY_FILE} matches {CENSUS_FILE} row for row")
        } else {
            format!(
                "{} is missing or differs from the summary of {CENSUS_FILE}",
                summary_path.display()
            )
        },
    ));
    for n in 1..=super::census::MAX_ORDER {
        let Some(hist) = table.get(&n) else {
            continue;
        };
        let m = summarize(n, hist);
        let _ = writeln!(
            s.body,
            "| {n} | {} | {} | {:.3} | {:.2}% | {} | {} |",
            m.reduced,
            m.all,
            m.mean,
            100.0 * m.share_without,
            m.max,
            m.distinct
        );
        s.checks.push(Check::eq(
            format!("order {n}: reduced squares = A000315({n})"),
            m.reduced,
            A000315_REDUCED_LATIN[n],
        ));
        s.checks.push(Check::eq(
            format!("order {n}: all squares = A002860({n})"),
            m.all,
            A002860_LATIN[n],
        ));
        s.checks.push(Check::eq(
            format!("order {n}: max intercalates = A092237({n})"),
            m.max as u64,
            A092237_MAX_INTERCALATES[n],
        ));
        s.checks.push(Check::eq(
            format!("order {n}: distinct counts = A368182({n})"),
            m.distinct as u64,
            A368182_DISTINCT_COUNTS[n],
        ));
        if let Some(&(_, mean, share, max)) = WRITEUP_LATIN_TABLE.iter().find(|r| r.0 == n) {
            let got = (
                format!("{:.3}", m.mean),
                format!("{:.2}", 100.0 * m.share_without),
                m.max as u64,
            );
            let want = (format!("{mean:.3}"), format!("{share:.2}"), max);
            s.checks.push(Check::new(
                format!("order {n}: write-up table (mean, % without, max)"),
                got == want,
                format!(
                    "got {} / {}% / {}, write-up {} / {}% / {}",
                    got.0, got.1, got.2, want.0, want.1, want.2
                ),
            ));
        }
    }
    for n in [7usize, 8] {
        if let Some(hist) = table.get(&n) {
            let total = hist.total() as f64;
            let pts: Vec<(i64, f64)> = hist
                .0
                .iter()
                .enumerate()
                .map(|(k, &c)| (k as i64, c as f64 / total))
                .collect();
            s.charts.push(Chart {
                file: format!("latin_census_order{n}.svg"),
                svg: chart::bars(
                    &format!("Intercalates in reduced Latin squares of order {n}"),
                    "intercalates",
                    "share of squares (log)",
                    &pts,
                    true,
                )?,
                caption: format!("order {n} intercalate distribution"),
            });
        }
    }
    Ok(vec![s])
}

pub fn sampler_sections(results: &Path) -> Result<Vec<Section>> {
    super::sampler_report::sections(results)
}
