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
//! The same holds for absent rows of a present family (a failed check named `... present`):
//! listed as findings by default, failed with `--complete`.

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
        if expected == 0 {
            return Check::new(name, false, "no expected rows: the manifest records no run");
        }
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
            name: "Latin estimate",
            files: &["latin_estimate.csv", "latin_estimate_coverage.csv"],
            sections: crate::latin::estimate_report::sections,
        },
        Family {
            name: "Latin moments",
            files: &["latin_moments.csv"],
            sections: crate::latin::moments_report::sections,
        },
        Family {
            name: "Calcudoku agreement",
            files: &["calcudoku_agree.csv"],
            sections: crate::calcudoku::report::sections,
        },
        Family {
            name: "Calcudoku random cuts",
            files: &["calcudoku_cuts.csv"],
            sections: crate::calcudoku::report::cuts_sections,
        },
        Family {
            name: "Calcudoku sign ablation",
            files: &["calcudoku_signs.csv"],
            sections: crate::calcudoku::report::signs_sections,
        },
        Family {
            name: "Calcudoku bank",
            files: &[
                "calcudoku_bank.csv",
                "calcudoku_bank_summary.csv",
                "calcudoku_bank_timing.csv",
            ],
            sections: crate::calcudoku::report_bank::bank_sections,
        },
        Family {
            name: "Calcudoku rung pricing",
            files: &["calcudoku_pricing.csv"],
            sections: crate::calcudoku::report_bank::pricing_sections,
        },
        Family {
            name: "Numbrix census",
            files: &["numbrix_census.csv", "numbrix_sampler.csv"],
            sections: crate::numbrix::census::report::sections,
        },
        Family {
            name: "Numbrix bank",
            files: &["numbrix_bank.csv"],
            sections: crate::numbrix::report::bank_sections,
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
            ],
            sections: crate::numbrix::report::sections,
        },
        Family {
            name: "Numbrix sparse boards",
            files: &["numbrix_sparse.csv", "numbrix_sparse_timing.csv"],
            sections: crate::numbrix::report::sparse_sections,
        },
        Family {
            name: "Numbrix reversal certificate",
            files: &["numbrix_certificate.csv"],
            sections: crate::numbrix::report::certificate_sections,
        },
        Family {
            name: "Kakurasu",
            files: &["kakurasu_census.csv", "kakurasu_difficulty.csv"],
            sections: crate::kakurasu::report::sections,
        },
    ]
}

/// Every result CSV of the directory held to the digest its manifest recorded when the file was
/// written: a row deleted, added or edited after the run fails here, whatever the family.
pub fn integrity_section(results: &Path) -> Section {
    use crate::engine::manifest::Manifest;
    let mut s = Section::new("Result files against their manifests");
    s.body.push_str(
        "Each result file was written with a manifest recording how it was made and an FNV-1a 64 \
         digest of its bytes; a file whose bytes no longer match (a row lost or edited after the \
         run) fails.\n",
    );
    let mut names: Vec<String> = std::fs::read_dir(results)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".csv"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for name in names {
        let path = results.join(&name);
        if !Manifest::path_for(&path).exists() {
            s.checks.push(Check::finding(
                format!("{name}: no manifest"),
                "not made by a gridcensus job (or its manifest is gone); not checked",
            ));
            continue;
        }
        match Manifest::read_beside(&path) {
            None => s.checks.push(Check::new(
                format!("{name}: manifest readable"),
                false,
                format!("{} is unreadable", Manifest::path_for(&path).display()),
            )),
            Some(m) => match m.result_fnv64 {
                None => s.checks.push(Check::finding(
                    format!("{name}: digest"),
                    "its manifest records no digest; bytes not checked",
                )),
                Some(want) => {
                    let got = std::fs::read(&path)
                        .map(|b| crate::engine::shard::fnv64(&b))
                        .unwrap_or_default();
                    s.checks.push(Check::new(
                        format!("{name}: bytes match the manifest's digest"),
                        got == want,
                        format!("digest {got}, manifest {want}"),
                    ));
                }
            },
        }
    }
    s
}

/// Sections of every present family; absent families are listed (and fail when `complete`).
pub fn all_sections(results: &Path, complete: bool) -> (Vec<Section>, Vec<String>) {
    let mut out = vec![integrity_section(results)];
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
            Ok(mut s) => {
                if !complete {
                    s.iter_mut().for_each(absent_rows_not_checked);
                }
                out.extend(s)
            }
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

/// Without `--complete`, a present family may hold only some of its rows (a cluster run of one
/// order into its own directory): a failed row presence check (a check named `... present`,
/// other than a file's `<file>.csv present`) becomes a finding that lists what is absent, as
/// absent families are listed. Every row that is present is still checked, a missing file of a
/// present family still fails, and with `--complete` absent rows fail.
fn absent_rows_not_checked(section: &mut Section) {
    for c in &mut section.checks {
        // A missing file of a present family (`<file>.csv present`) still fails.
        if c.is_check()
            && !c.ok
            && c.name.ends_with(" present")
            && !c.name.ends_with(".csv present")
        {
            c.kind = Kind::Finding;
            c.ok = true;
            c.detail = format!("absent, not checked without --complete ({})", c.detail);
        }
    }
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
    crate::engine::atomic::recover_dir(results)?;
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

/// The job specs recorded in the manifest beside `DIR/file` (empty when there is none): what
/// the runs that made the file computed, so a section can check that every row they wrote is
/// still there.
pub fn recorded_specs(results: &Path, file: &str) -> Vec<crate::engine::JobSpec> {
    crate::engine::manifest::Manifest::read_beside(&results.join(file))
        .map(|m| m.runs.into_iter().map(|r| r.spec).collect())
        .unwrap_or_default()
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

#[cfg(test)]
mod absent_rows_tests {
    use super::*;

    #[test]
    fn absent_rows_are_listed_not_failed_without_complete_only() {
        let mut s = Section::new("t");
        s.checks
            .push(Check::new("order 1 present", false, "missing"));
        s.checks.push(Check::new(
            "order 2: count = A000315(2)",
            false,
            "got 1, expected 2",
        ));
        s.checks
            .push(Check::new("order 3 present", true, "rows present"));
        s.checks
            .push(Check::new("r/latin_census.csv present", false, "missing"));
        absent_rows_not_checked(&mut s);
        assert!(
            s.checks[3].is_check() && !s.checks[3].ok,
            "a missing file still fails"
        );
        assert_eq!(s.checks[0].kind, Kind::Finding);
        assert!(s.checks[0].ok && s.checks[0].detail.contains("absent"));
        // A wrong value of a present row still fails; a passed presence check stays a check.
        assert!(s.checks[1].is_check() && !s.checks[1].ok);
        assert!(s.checks[2].is_check() && s.checks[2].ok);
    }
}
