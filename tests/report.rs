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
    let out = Command::new(bin())
        .args(["report", "--results"])
        .arg(dir)
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
