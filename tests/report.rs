//! The reporting step fails loudly: a tampered census count or a missing result file makes
//! `gridcensus report` exit 1 naming the failed check; the committed results pass their checks.

use std::path::Path;
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_gridcensus")
}

fn copy_results(to: &Path) {
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("results")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn report(dir: &Path) -> (i32, String) {
    report_with(dir, &["--complete"])
}

fn report_with(dir: &Path, extra: &[&str]) -> (i32, String) {
    let out = Command::new(bin())
        .args(["report", "--results"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn committed_latin_census_passes_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    copy_results(dir.path());
    let (_, stderr) = report(dir.path());
    assert!(!stderr.contains("FAILED Latin census"), "{stderr}");
    let md = std::fs::read_to_string(dir.path().join("REPORT.md")).unwrap();
    assert!(
        md.contains("order 8: reduced squares = A000315(8) | pass"),
        "order 8 must be committed and checked"
    );
}

#[test]
fn a_tampered_count_fails_the_report() {
    let dir = tempfile::tempdir().unwrap();
    copy_results(dir.path());
    let path = dir.path().join("latin_census.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    // One extra order-6 square without intercalates: the order-6 total no longer matches OEIS.
    let tampered = text.replace("\n6,0,40\n", "\n6,0,41\n");
    assert_ne!(tampered, text);
    std::fs::write(&path, tampered).unwrap();
    let (code, stderr) = report(dir.path());
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("FAILED Latin census") && stderr.contains("order 6"),
        "{stderr}"
    );
}

#[test]
fn a_missing_result_file_fails_the_report() {
    let dir = tempfile::tempdir().unwrap();
    copy_results(dir.path());
    std::fs::remove_file(dir.path().join("latin_census.csv")).unwrap();
    let (code, stderr) = report(dir.path());
    assert_eq!(code, 1);
    assert!(stderr.contains("latin_census.csv present"), "{stderr}");
}

/// The committed result CSVs (timing side files included: they are held to their manifests'
/// digests like every result; `perf.csv` and `perf_long.csv` are measurement logs, not results).
fn result_csvs() -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("results"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".csv") && n != "perf.csv" && n != "perf_long.csv")
            .collect();
    v.sort();
    v
}

#[test]
fn the_committed_results_pass_and_the_headline_counts_only_checks() {
    let dir = tempfile::tempdir().unwrap();
    copy_results(dir.path());
    let (code, stderr) = report(dir.path());
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(dir.path().join("REPORT.md")).unwrap();
    let head = md
        .lines()
        .find(|l| l.starts_with("**") && l.contains("checks"))
        .unwrap();
    // "**N checks, N passed, 0 failed; M findings.**": the table rows add up to the headline.
    let nums: Vec<usize> = head
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let pass_rows = md.lines().filter(|l| l.contains(" | pass | ")).count();
    let finding_rows = md
        .lines()
        .skip_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| ") && !l.contains(" | pass | ") && !l.contains("**FAIL**"))
        .count();
    assert_eq!(nums[0], pass_rows, "{head}");
    assert_eq!(nums[2], 0, "{head}");
    assert!(finding_rows > 0, "findings are listed apart from checks");
}

#[test]
fn a_family_whose_rows_disappear_fails_instead_of_shrinking() {
    let base = tempfile::tempdir().unwrap();
    copy_results(base.path());
    let (code, stderr) = report(base.path());
    assert_eq!(code, 0, "the committed results must pass first: {stderr}");
    let mut not_guarded = Vec::new();
    for name in result_csvs() {
        let dir = tempfile::tempdir().unwrap();
        copy_results(dir.path());
        let path = dir.path().join(&name);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        if lines.len() < 3 {
            continue;
        }
        lines.pop();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let (code, _) = report(dir.path());
        if code != 1 {
            not_guarded.push(name);
        }
    }
    assert!(
        not_guarded.is_empty(),
        "deleting the last row of these result files still passes the report: {not_guarded:?}"
    );
}

#[test]
fn a_partial_results_directory_checks_what_is_there_and_names_what_is_absent() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    for f in ["latin_census.csv", "latin_census_summary.csv"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let (code, stderr) = report_with(dir.path(), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("absent") && stderr.contains("Kakurasu"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&dir.path().join("REPORT.md").display().to_string()),
        "{stderr}"
    );
    let md = std::fs::read_to_string(dir.path().join("REPORT.md")).unwrap();
    assert!(md.contains("A000315"), "the present family is checked");
    // With --complete an absent family fails, and the message names the real directory.
    let (code, stderr) = report_with(dir.path(), &["--complete"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&dir.path().display().to_string()),
        "{stderr}"
    );
}

#[test]
fn merge_of_an_unknown_or_foreign_file_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.json");
    std::fs::write(&f, "{\"not\": \"a partial\"}").unwrap();
    let out = Command::new(bin())
        .args(["merge", "--results"])
        .arg(dir.path())
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("corrupt or truncated partial file") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!dir.path().join("latin_census.csv").exists());
}

#[test]
fn a_square_past_the_stored_a120443_terms_is_a_finding_not_a_check() {
    let dir = tempfile::tempdir().unwrap();
    copy_results(dir.path());
    let path = dir.path().join("numbrix_census.csv");
    let mut text = std::fs::read_to_string(&path).unwrap();
    // The 17×17 frontier row replaced by a made-up count: nothing stored can confirm or refute it.
    let old = gridcensus::engine::shard::fnv64(text.as_bytes());
    text = text
        .lines()
        .filter(|l| !l.starts_with("17,17,289,frontier,"))
        .map(|l| format!("{l}\n"))
        .collect();
    text.push_str("17,17,289,frontier,123456789,246913578,1\n");
    std::fs::write(&path, &text).unwrap();
    // The manifest's digest follows the new bytes (only the count is under test here).
    let mpath = dir.path().join("numbrix_census.csv.manifest.json");
    let manifest = std::fs::read_to_string(&mpath).unwrap();
    assert!(manifest.contains(&old));
    let new = gridcensus::engine::shard::fnv64(text.as_bytes());
    std::fs::write(&mpath, manifest.replace(&old, &new)).unwrap();
    let (code, stderr) = report(dir.path());
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(dir.path().join("REPORT.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.contains("17x17 frontier undirected (past the stored A120443 terms)"))
        .unwrap_or_else(|| panic!("no 17x17 row in the report"));
    assert!(!row.contains(" | pass | "), "{row}");
    assert!(row.contains("123456789 undirected"), "{row}");
    assert!(md.contains("| 17 | 123456789 | – | not stored |"));
}
