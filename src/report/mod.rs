//! The reporting step: read `results/`, check every figure that has a published or
//! cross-checked value, write `results/REPORT.md` and SVG charts, and fail loudly on a mismatch.
//!
//! Each puzzle module contributes [`Section`]s from its own `report` module; this module only
//! assembles them. A row of a section is either a **check** (something that can fail: a published
//! value, an independent implementation, a noise floor, a theorem) or a **finding** (a measured,
//! informational figure that cannot fail). Only checks count in the headline; a failed check makes
//! `gridcensus report` exit 1.
//!
//! Result files are grouped into [`Family`]s. A family none of whose files is present is *absent*:
//! in the default mode (a cluster run's shared directory holding some families) that is stated and
//! is not a failure; with `--complete` (what `make report` and CI use) an absent family fails.

pub mod chart;

use crate::engine::atomic::write_atomic_str;
use crate::error::CheckFailed;
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// Whether a report row can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Held to a published value, an independent implementation, a noise floor or a theorem.
    Check,
    /// Measured and informational: it cannot fail and never counts as a passed check.
    Finding,
}

/// One report row: a check (can fail) or a finding (cannot).
#[derive(Clone, Debug)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
    pub kind: Kind,
}

impl Check {
    /// A check: `ok` says whether the figure matched its reference.
    pub fn new(name: impl Into<String>, ok: bool, detail: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            ok,
            detail: detail.into(),
            kind: Kind::Check,
        }
    }
    /// A finding: a measured figure with no reference to fail against.
    pub fn finding(name: impl Into<String>, detail: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            ok: true,
            detail: detail.into(),
            kind: Kind::Finding,
        }
    }
    pub fn is_check(&self) -> bool {
        self.kind == Kind::Check
    }
    /// A check that every expected key is present: a family whose rows disappear fails
    /// instead of shrinking. `missing` lists the absent keys (empty when complete).
    pub fn rows_present(name: impl Into<String>, expected: usize, missing: &[String]) -> Self {
        let detail = if missing.is_empty() {
            format!("all {expected} expected rows present")
        } else {
            let shown: Vec<&str> = missing.iter().take(8).map(|s| s.as_str()).collect();
            format!(
                "{} of {expected} expected rows missing: {}{}",
                missing.len(),
                shown.join(", "),
                if missing.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            )
        };
        Check::new(name, missing.is_empty(), detail)
    }
    /// `got == want`, with both shown in the detail.
    pub fn eq<T: PartialEq + std::fmt::Display>(name: impl Into<String>, got: T, want: T) -> Self {
        let ok = got == want;
        Check::new(name, ok, format!("got {got}, expected {want}"))
    }
}

/// An SVG chart written beside REPORT.md.
#[derive(Clone, Debug)]
pub struct Chart {
    /// File name (no directory), e.g. `latin_census_order8.svg`.
    pub file: String,
    pub svg: String,
    pub caption: String,
}

/// A report section: markdown body, checks and charts.
#[derive(Clone, Debug, Default)]
pub struct Section {
    pub title: String,
    pub body: String,
    pub checks: Vec<Check>,
    pub charts: Vec<Chart>,
}

impl Section {
    pub fn new(title: impl Into<String>) -> Self {
        Section {
            title: title.into(),
            ..Default::default()
        }
    }
    /// A section that only says a result file is missing (a failed check).
    pub fn missing(title: impl Into<String>, file: &Path) -> Self {
        let mut s = Section::new(title);
        s.checks.push(Check::new(
            format!("{} present", file.display()),
            false,
            "missing: run `make results` to regenerate it",
        ));
        s
    }
}

/// Outcome of a report run.
pub struct ReportSummary {
    /// Checks (rows able to fail) evaluated.
    pub checks: usize,
    /// Findings (informational rows) listed.
    pub findings: usize,
    /// Families none of whose files is present.
    pub absent: Vec<String>,
    pub failed: Vec<String>,
    /// Directory the report was written to.
    pub dir: std::path::PathBuf,
}

type SectionFn = fn(&Path) -> Result<Vec<Section>>;

/// A result family: the files one job writes and the sections that check them.
pub struct Family {
    pub name: &'static str,
    /// Result files of the family, relative to the results directory.
    pub files: &'static [&'static str],
    pub sections: SectionFn,
}

/// Every result family, in report order.
pub fn families() -> Vec<Family> {
    vec![
        Family {
            name: "Latin census",
            files: &["latin_census.csv", "latin_census_summary.csv"],
            sections: crate::latin::report::census_sections,
        },
        Family {
            name: "Latin samplers",
            files: &["latin_samplers.csv"],
            sections: crate::latin::report::sampler_sections,
        },
        Family {
            name: "Calcudoku agreement",
            files: &["calcudoku_agree.csv"],
            sections: crate::calcudoku::report::sections,
        },
        Family {
            name: "Numbrix census",
            files: &["numbrix_census.csv", "numbrix_sampler.csv"],
            sections: crate::numbrix::census::report::sections,
        },
        Family {
            name: "Numbrix studies",
            files: &[
                "numbrix_parity.csv",
                "numbrix_space.csv",
                "numbrix_climb.csv",
                "numbrix_ablation.csv",
                "numbrix_clues.csv",
                "numbrix_pin_wall.csv",
                "numbrix_bank.csv",
            ],
            sections: crate::numbrix::report::sections,
        },
        Family {
            name: "Kakurasu",
            files: &["kakurasu_census.csv", "kakurasu_difficulty.csv"],
            sections: crate::kakurasu::report::sections,
        },
    ]
}

/// Sections of every present family; absent families are listed (and fail when `complete`).
pub fn all_sections(results: &Path, complete: bool) -> (Vec<Section>, Vec<String>) {
    let mut out = Vec::new();
    let mut absent = Vec::new();
    for fam in families() {
        let present = fam.files.iter().any(|f| results.join(f).exists());
        if !present {
            absent.push(fam.name.to_string());
            if complete {
                let mut s = Section::new(fam.name);
                s.checks.push(Check::new(
                    format!("{} present", fam.name),
                    false,
                    format!(
                        "none of {} in {}: run `make results` to regenerate them",
                        fam.files.join(", "),
                        results.display()
                    ),
                ));
                out.push(s);
            }
            continue;
        }
        match (fam.sections)(results) {
            Ok(s) => out.extend(s),
            Err(e) => {
                let mut s = Section::new(fam.name);
                s.checks.push(Check::new(
                    format!("{} results readable", fam.name),
                    false,
                    format!("{e:#}"),
                ));
                out.push(s);
            }
        }
    }
    (out, absent)
}

fn count(sections: &[Section], kind: Kind) -> usize {
    sections
        .iter()
        .map(|s| s.checks.iter().filter(|c| c.kind == kind).count())
        .sum()
}

/// Render sections to markdown (charts referenced by file name).
pub fn render(sections: &[Section], absent: &[String], complete: bool) -> String {
    let mut md = String::new();
    md.push_str("# gridcensus report\n\n");
    md.push_str("Generated by `gridcensus report` from the CSV files in this directory. ");
    md.push_str(
        "Each row is a **check** or a **finding**. A check can fail: it holds a computed figure \
         to a published value (OEIS, the write-ups' exact tables), to an independent \
         implementation, to a simulated noise floor or to a theorem, and a failed check makes the \
         command exit 1. A finding is a measured figure with nothing to fail against (for \
         example a disagreement with a sampled figure of a write-up, stated with its cause); \
         findings never count as passed checks.\n\n",
    );
    let total = count(sections, Kind::Check);
    let findings = count(sections, Kind::Finding);
    let failed: usize = sections
        .iter()
        .map(|s| s.checks.iter().filter(|c| !c.ok).count())
        .sum();
    let _ = writeln!(
        md,
        "**{} checks, {} passed, {} failed; {} findings.**\n",
        total,
        total - failed,
        failed,
        findings
    );
    if !absent.is_empty() {
        let _ = writeln!(
            md,
            "Result families absent from this directory{}: {}.\n",
            if complete {
                " (each a failed check)"
            } else {
                " (not checked)"
            },
            absent.join(", ")
        );
    }
    for s in sections {
        let _ = writeln!(md, "## {}\n", s.title);
        if !s.body.is_empty() {
            md.push_str(s.body.trim_end());
            md.push_str("\n\n");
        }
        for c in &s.charts {
            let _ = writeln!(md, "![{}]({})\n", c.caption, c.file);
        }
        let checks: Vec<&Check> = s.checks.iter().filter(|c| c.is_check()).collect();
        let finds: Vec<&Check> = s.checks.iter().filter(|c| !c.is_check()).collect();
        if !checks.is_empty() {
            md.push_str("| check | result | detail |\n| --- | --- | --- |\n");
            for c in checks {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} |",
                    c.name,
                    if c.ok { "pass" } else { "**FAIL**" },
                    c.detail
                );
            }
            md.push('\n');
        }
        if !finds.is_empty() {
            md.push_str("| finding | measured |\n| --- | --- |\n");
            for c in finds {
                let _ = writeln!(md, "| {} | {} |", c.name, c.detail);
            }
            md.push('\n');
        }
    }
    md
}

/// Build the report into `DIR/REPORT.md` (plus charts) and fail if any check failed.
pub fn run(results: &Path, complete: bool) -> Result<ReportSummary> {
    if !results.is_dir() {
        return Err(crate::error::input_error(format!(
            "{}: not a directory of result files",
            results.display()
        )));
    }
    let (sections, absent) = all_sections(results, complete);
    for s in &sections {
        for c in &s.charts {
            write_atomic_str(&results.join(&c.file), &c.svg)?;
        }
    }
    write_atomic_str(
        &results.join("REPORT.md"),
        &render(&sections, &absent, complete),
    )?;
    let failed: Vec<String> = sections
        .iter()
        .flat_map(|s| {
            s.checks
                .iter()
                .filter(|c| !c.ok)
                .map(move |c| format!("{}: {} ({})", s.title, c.name, c.detail))
        })
        .collect();
    Ok(ReportSummary {
        checks: count(&sections, Kind::Check),
        findings: count(&sections, Kind::Finding),
        absent,
        failed,
        dir: results.to_path_buf(),
    })
}

/// Turn a summary into the process outcome: an error naming every failed check.
pub fn into_result(summary: ReportSummary) -> Result<()> {
    let report = summary.dir.join("REPORT.md");
    if !summary.absent.is_empty() {
        eprintln!(
            "report: families absent from {}: {}",
            summary.dir.display(),
            summary.absent.join(", ")
        );
    }
    if summary.failed.is_empty() {
        eprintln!(
            "report: all {} checks passed, {} findings ({})",
            summary.checks,
            summary.findings,
            report.display()
        );
        Ok(())
    } else {
        for f in &summary.failed {
            eprintln!("FAILED {f}");
        }
        Err(anyhow::Error::new(CheckFailed(format!(
            "report: {} of {} checks failed (see {})",
            summary.failed.len(),
            summary.checks,
            report.display()
        ))))
    }
}

/// Read a CSV file with a header into rows of strings; a clear error if missing or malformed.
pub fn read_csv(path: &Path) -> Result<Vec<csv::StringRecord>> {
    let mut rdr = csv::Reader::from_path(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for r in rdr.records() {
        rows.push(r.map_err(|e| anyhow::anyhow!("malformed {}: {e}", path.display()))?);
    }
    Ok(rows)
}
