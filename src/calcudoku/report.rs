//! Calcudoku sections of the report: the agreement study (`results/calcudoku_agree.csv`).

use super::agree::{AGREE_FILE, read_agree};
use crate::reference::{
    CALCUDOKU_FLIP_EXPLAINED, CALCUDOKU_RANDOM_CUTS, CALCUDOKU_UNIQUE_HIDDEN,
    CALCUDOKU_UNIQUE_SHOWN,
};
use crate::report::{Check, Section};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

const TITLE: &str = "Calcudoku: solver against the independent verifier, signs shown and hidden";

pub fn sections(results: &Path) -> Result<Vec<Section>> {
    let path = results.join(AGREE_FILE);
    if !path.exists() {
        return Ok(vec![Section::missing(TITLE, &path)]);
    }
    let rows = read_agree(&path)?;
    let mut s = Section::new(TITLE);
    s.body.push_str(
        "Random boards (randomised-backtracking Latin square, random connected cut with the given \
         largest cage, random labels), each decided for uniqueness (cap 2) by the six-rung ladder \
         plus search and by the independent backtracking verifier, with signs shown and hidden. \
         Every certified intercalate flip of the cut square is checked to be a solution. \
         `explained` is the share of non-unique boards (signs shown) on which a certified flip \
         already names a second answer. Grades are with signs shown.\n\n\
         | order | largest cage | boards | unique (shown) | unique (hidden) | explained by a flip | \
         grades cage/single/hidden/must/subset/probe/search | mean nodes |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n",
    );
    let (mut tb, mut tus, mut tuh, mut tnu, mut tex) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for t in &rows {
        let g: Vec<String> = t.grades.iter().map(|x| x.to_string()).collect();
        let _ = writeln!(
            s.body,
            "| {} | {} | {} | {} | {} | {}/{} ({:.1}%) | {} | {:.2} |",
            t.order,
            t.max_cage,
            t.boards,
            t.unique_shown,
            t.unique_hidden,
            t.flip_explained_shown,
            t.nonunique_shown,
            100.0 * t.flip_explained_shown as f64 / t.nonunique_shown.max(1) as f64,
            g.join("/"),
            t.nodes_shown as f64 / t.boards.max(1) as f64
        );
        let k = format!("order {} largest cage {}", t.order, t.max_cage);
        s.checks.push(Check::eq(
            format!("{k}: solver = verifier, signs shown"),
            t.agree_shown,
            t.boards,
        ));
        s.checks.push(Check::eq(
            format!("{k}: solver = verifier, signs hidden"),
            t.agree_hidden,
            t.boards,
        ));
        s.checks.push(Check::eq(
            format!("{k}: hiding signs never lowers the count"),
            t.hidden_below_shown,
            0,
        ));
        s.checks.push(Check::eq(
            format!(
                "{k}: every certified flip is a solution ({} checked)",
                t.flips_checked
            ),
            t.flips_bad,
            0,
        ));
        s.checks.push(Check::eq(
            format!("{k}: no board with a certified flip is unique"),
            t.flip_but_unique,
            0,
        ));
        let graded: u64 = t.grades.iter().sum();
        s.checks.push(Check::eq(
            format!("{k}: every board graded"),
            graded,
            t.boards,
        ));
        tb += t.boards;
        tus += t.unique_shown;
        tuh += t.unique_hidden;
        tnu += t.nonunique_shown;
        tex += t.flip_explained_shown;
    }
    // Every (order, largest cage) row the manifest's runs computed must still be there.
    let mut expected = Vec::new();
    for sp in crate::report::recorded_specs(results, AGREE_FILE) {
        let list = |k: &str| -> Vec<u64> {
            sp.params[k]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_u64()).collect())
                .unwrap_or_default()
        };
        for o in list("orders") {
            for c in list("max_cages") {
                expected.push((o as usize, c as usize));
            }
        }
    }
    expected.sort_unstable();
    expected.dedup();
    let missing: Vec<String> = expected
        .iter()
        .filter(|(o, c)| !rows.iter().any(|t| t.order == *o && t.max_cage == *c))
        .map(|(o, c)| format!("order {o} largest cage {c}"))
        .collect();
    s.checks.push(Check::rows_present(
        "every row the manifest records is still there",
        expected.len(),
        &missing,
    ));

    let _ = write!(
        s.body,
        "\nOverall: {tb} boards; unique {tus} with signs shown and {tuh} hidden (hiding costs \
         {:.1}% of the unique boards); {tex} of {tnu} non-unique boards ({:.1}%) explained by a \
         certified flip. The write-up (orders 4–7 × largest cage 2–5, Jacobson–Matthews squares) \
         had {} of {} unique shown and {} hidden ({:.1}% lost), and {:.1}% explained ({} of {}). \
         Our squares come from randomised backtracking, not a uniform sampler, and our orders \
         stop at 6 (the verifier is plain backtracking), so these are comparisons, not checks.\n",
        100.0 * (tus as f64 - tuh as f64) / tus.max(1) as f64,
        100.0 * tex as f64 / tnu.max(1) as f64,
        CALCUDOKU_UNIQUE_SHOWN,
        CALCUDOKU_RANDOM_CUTS,
        CALCUDOKU_UNIQUE_HIDDEN,
        100.0 * (CALCUDOKU_UNIQUE_SHOWN - CALCUDOKU_UNIQUE_HIDDEN) as f64
            / CALCUDOKU_UNIQUE_SHOWN as f64,
        100.0 * CALCUDOKU_FLIP_EXPLAINED.0 as f64 / CALCUDOKU_FLIP_EXPLAINED.1 as f64,
        CALCUDOKU_FLIP_EXPLAINED.0,
        CALCUDOKU_FLIP_EXPLAINED.1,
    );
    Ok(vec![s])
}

/// The random-cut study (`results/calcudoku_cuts.csv`).
pub fn cuts_sections(results: &Path) -> Result<Vec<Section>> {
    super::report_cuts::cuts_sections(results)
}

/// The sign ablation (`results/calcudoku_signs.csv`).
pub fn signs_sections(results: &Path) -> Result<Vec<Section>> {
    super::report_cuts::signs_sections(results)
}
