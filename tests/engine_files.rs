//! Nothing lost, nothing half-written: partial checksums, manifests never silently replaced,
//! unchanged results left untouched, interrupted group writes completed, stale temp files removed,
//! thread and shard-resume limits, and merge errors that name the real problem.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_gridcensus");

fn gc(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn gc_env(args: &[&str], key: &str, val: &str) -> Output {
    Command::new(BIN).args(args).env(key, val).output().unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn err(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn census(dir: &Path, orders: &str, extra: &[&str]) -> Output {
    let mut a = vec![
        "latin",
        "census",
        "--orders",
        orders,
        "--no-progress",
        "--results",
        p(dir),
    ];
    a.extend_from_slice(extra);
    gc(&a)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn partials(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("partials"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

#[test]
fn a_doctored_partial_is_caught_at_merge_by_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..2 {
        let out = census(dir.path(), "6", &["--shard", &format!("{i}/2")]);
        assert!(out.status.success(), "{}", err(&out));
    }
    let files = partials(dir.path());
    assert_eq!(files.len(), 2);
    // Raise one count by 6, as a corrupted or hand-edited partial would.
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let re_at = text.find("\"units\":").unwrap();
    let (head, tail) = text.split_at(re_at);
    let mut changed = false;
    let tail: String = {
        // Bump the first integer that follows a colon or bracket inside the payload.
        let bytes: Vec<char> = tail.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        let mut seen_numbers = 0;
        while i < bytes.len() {
            if !changed
                && bytes[i].is_ascii_digit()
                && i > 0
                && (bytes[i - 1] == ',' || bytes[i - 1] == '[')
            {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let n: u128 = bytes[start..i].iter().collect::<String>().parse().unwrap();
                seen_numbers += 1;
                // Skip the unit index (first number of each pair) and bump a count.
                if seen_numbers >= 3 && n > 0 {
                    out.push_str(&(n + 6).to_string());
                    changed = true;
                } else {
                    out.push_str(&n.to_string());
                }
                continue;
            }
            out.push(bytes[i]);
            i += 1;
        }
        out
    };
    assert!(changed, "no count found to doctor");
    std::fs::write(&files[0], format!("{head}{tail}")).unwrap();
    let mut args = vec!["merge", "--results", p(dir.path())];
    for f in &files {
        args.push(p(f));
    }
    let out = gc(&args);
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    let e = err(&out);
    assert!(e.contains("checksum") && e.contains(p(&files[0])), "{e}");
    assert!(!dir.path().join("latin_census.csv").exists());
}

#[test]
fn merge_names_the_real_problem() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        census(dir.path(), "5", &["--shard", "0/2"])
            .status
            .success()
    );
    let kak = gc(&[
        "kakurasu",
        "census",
        "--sizes",
        "3",
        "--no-progress",
        "--shard",
        "0/2",
        "--results",
        p(dir.path()),
    ]);
    assert!(kak.status.success(), "{}", err(&kak));
    let files = partials(dir.path());
    assert_eq!(files.len(), 2, "{files:?}");
    let mut args = vec!["merge", "--results", p(dir.path())];
    for f in &files {
        args.push(p(f));
    }
    let out = gc(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(err(&out).contains("different job kinds"), "{}", err(&out));
}

#[test]
fn a_foreign_or_unreadable_manifest_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("latin_census.csv.manifest.json");
    std::fs::write(&m, "{ not json").unwrap();
    let out = census(dir.path(), "4", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(err(&out).contains(p(&m)) && err(&out).contains("--replace-manifest"));
    assert!(!dir.path().join("latin_census.csv").exists());
    assert_eq!(std::fs::read_to_string(&m).unwrap(), "{ not json");
    // A manifest of another file is foreign too.
    std::fs::write(&m, r#"{"result":"other.csv","runs":[]}"#).unwrap();
    let out = census(dir.path(), "4", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err(&out).contains("other.csv"), "{}", err(&out));
    // With the explicit flag it is replaced.
    let out = census(dir.path(), "4", &["--replace-manifest"]);
    assert!(out.status.success(), "{}", err(&out));
    assert!(
        std::fs::read_to_string(&m)
            .unwrap()
            .contains("latin-census")
    );
}

#[test]
fn a_run_with_the_same_bytes_leaves_result_and_manifest_untouched() {
    let dir = tempfile::tempdir().unwrap();
    assert!(census(dir.path(), "1-5", &[]).status.success());
    let files = [
        "latin_census.csv",
        "latin_census.csv.manifest.json",
        "latin_census_summary.csv",
    ];
    let before: Vec<(Vec<u8>, std::time::SystemTime)> = files
        .iter()
        .map(|f| {
            let path = dir.path().join(f);
            (
                std::fs::read(&path).unwrap(),
                std::fs::metadata(&path).unwrap().modified().unwrap(),
            )
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let out = census(dir.path(), "1-5", &[]);
    assert!(out.status.success());
    assert!(err(&out).contains("unchanged"), "{}", err(&out));
    for (f, (bytes, mtime)) in files.iter().zip(before) {
        let path = dir.path().join(f);
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{f}");
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            mtime,
            "{f}"
        );
    }
}

#[test]
fn a_write_killed_between_two_sibling_files_is_completed_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    assert!(census(dir.path(), "1-4", &[]).status.success());
    // Die after the group's temp files and commit record are written, before any rename.
    let out = gc_env(
        &[
            "latin",
            "census",
            "--orders",
            "5",
            "--no-progress",
            "--results",
            p(dir.path()),
        ],
        "GRIDCENSUS_TEST_DIE_IN_GROUP",
        "1",
    );
    assert!(!out.status.success());
    assert!(names(dir.path()).iter().any(|n| n.starts_with(".tmp-")));
    // Both files still hold the old pair (orders 1-4): consistent.
    let census_text = std::fs::read_to_string(dir.path().join("latin_census.csv")).unwrap();
    assert!(!census_text.lines().any(|l| l.starts_with("5,")));
    // The next writer in the directory completes the group, then removes stale temp files.
    let out = census(dir.path(), "3", &[]);
    assert!(out.status.success(), "{}", err(&out));
    let census_text = std::fs::read_to_string(dir.path().join("latin_census.csv")).unwrap();
    let summary = std::fs::read_to_string(dir.path().join("latin_census_summary.csv")).unwrap();
    assert!(
        census_text.lines().any(|l| l.starts_with("5,")),
        "census completed"
    );
    assert!(
        summary.lines().any(|l| l.starts_with("5,")),
        "summary completed with it"
    );
    let left: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.starts_with(".tmp-") || n.starts_with(".commit-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn threads_above_the_bound_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = census(dir.path(), "5", &["--threads", "100000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err(&out).contains("--threads 100000"), "{}", err(&out));
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}

#[test]
fn resuming_a_shard_while_another_split_is_unfinished_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // An unfinished unsharded journal of the same job: copy a real journal header and no units.
    let out = census(dir.path(), "7", &["--shard", "0/2"]);
    assert!(out.status.success(), "{}", err(&out));
    let part = partials(dir.path()).pop().unwrap();
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&part).unwrap()).unwrap();
    let name = part
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace("-shard-0-of-2.json", ".jsonl");
    let header = serde_json::json!({
        "format": "gridcensus-journal/1",
        "spec": spec["spec"],
        "shard": {"index": 0, "count": 1},
        "units_total": spec["units_total"],
    });
    std::fs::create_dir_all(dir.path().join(".journal")).unwrap();
    std::fs::write(
        dir.path().join(".journal").join(&name),
        format!("{header}\n"),
    )
    .unwrap();
    let out = census(dir.path(), "7", &["--shard", "1/2", "--resume"]);
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(
        err(&out).contains("splits this job differently"),
        "{}",
        err(&out)
    );
}
