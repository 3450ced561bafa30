//! Kakurasu at the binary level: solve/hint on the example boards, input errors (exit 2, nothing
//! written), the census against a direct brute force (n = 1..4) and the write-up's 2×2 / 3×3
//! facts, and determinism of both jobs across thread counts, shards and merges.

use gridcensus::kakurasu::census::{CensusSummary, brute_force, read_fibres};
use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gridcensus"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn ex(name: &str) -> String {
    format!("{}/examples/kakurasu/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn solve_and_hint_examples() {
    let (c, out, _) = run(&["kakurasu", "solve", &ex("6x6.txt")]);
    assert_eq!(c, 0);
    assert!(
        out.contains("unique solution") && out.contains("agrees"),
        "{out}"
    );
    let (c, out, _) = run(&["kakurasu", "solve", &ex("2x2_unsatisfiable.txt")]);
    assert_eq!(c, 0);
    assert!(out.contains("no solution: the targets"), "{out}");
    let (_, out, _) = run(&["kakurasu", "solve", &ex("3x3_ambiguous.txt"), "--cap", "10"]);
    assert!(out.contains("2 solutions"), "{out}");
    let (_, out, _) = run(&["kakurasu", "solve", &ex("8x8_needs_search.txt")]);
    assert!(
        out.contains("enumeration alone: stalls") && out.contains("unique solution"),
        "{out}"
    );
    let (c, out, _) = run(&["kakurasu", "hint", &ex("4x4.txt")]);
    assert_eq!(c, 0);
    assert!(
        out.starts_with("1. row ") && (out.contains("— shade it") || out.contains("— cross it")),
        "{out}"
    );
    let (_, out, _) = run(&[
        "kakurasu",
        "hint",
        "--steps",
        "0",
        &ex("8x8_needs_search.txt"),
    ]);
    assert!(out.contains("needs a guess"), "{out}");
    // The older spelling is the same as --steps 0.
    let (_, old, _) = run(&["kakurasu", "hint", "--all", &ex("8x8_needs_search.txt")]);
    assert_eq!(old, out);
    // --steps N prints N numbered deductions, each applied before the next.
    let (_, out, _) = run(&["kakurasu", "hint", "--steps", "2", &ex("4x4.txt")]);
    assert!(
        out.starts_with("1. row ") && out.contains("\n2. row "),
        "{out}"
    );
    assert!(!out.contains("\n3. row "), "{out}");
    let (_, out, _) = run(&["kakurasu", "hint", &ex("6x6_with_marks.txt")]);
    assert!(out.contains("row 3"), "{out}");
}

#[test]
fn bad_input_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "size 3\nrows 1 2 7\ncols 1 2 3\n").unwrap();
    let (c, _, err) = run(&["kakurasu", "solve", bad.to_str().unwrap()]);
    assert_eq!(c, 2);
    assert!(err.contains("row 3 target 7 is out of range"), "{err}");
    std::fs::write(&bad, "size 3\nrows 1 2\ncols 1 2 3\n").unwrap();
    let (c, _, err) = run(&["kakurasu", "hint", bad.to_str().unwrap()]);
    assert_eq!(c, 2);
    assert!(err.contains("needs 3 row targets, got 2"), "{err}");
    let res = dir.path().join("res");
    let r = res.to_str().unwrap();
    for args in [
        vec!["kakurasu", "census", "--sizes", "0-3", "--results", r],
        vec!["kakurasu", "census", "--sizes", "8", "--results", r],
        vec!["kakurasu", "difficulty", "--sizes", "4-10", "--results", r],
        vec!["kakurasu", "difficulty", "--boards", "0", "--results", r],
    ] {
        let (c, _, err) = run(&args);
        assert_eq!(c, 2, "{args:?}: {err}");
    }
    assert!(!res.exists() || std::fs::read_dir(&res).unwrap().next().is_none());
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[test]
fn census_matches_brute_force_and_the_write_up() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().to_str().unwrap();
    let (c, _, err) = run(&[
        "kakurasu",
        "census",
        "--sizes",
        "1-4",
        "--results",
        r,
        "--threads",
        "2",
    ]);
    assert_eq!(c, 0, "{err}");
    let table = read_fibres(&dir.path().join("kakurasu_census_fibres.csv")).unwrap();
    for n in 1..=4 {
        assert_eq!(table[&n], brute_force(n), "n = {n}");
    }
    let s2 = CensusSummary::of(2, &table[&2]);
    assert_eq!(s2.ambiguous_vectors, 0);
    let s3 = CensusSummary::of(3, &table[&3]);
    assert_eq!(
        (s3.shadings, s3.ambiguous_vectors, s3.max_fibre),
        (512, 1, 2)
    );
    // Shards + merge give the same file; another size keeps the rows already there.
    let d2 = tempfile::tempdir().unwrap();
    let r2 = d2.path().to_str().unwrap();
    assert_eq!(
        run(&[
            "kakurasu",
            "census",
            "--sizes",
            "1-3",
            "--results",
            r2,
            "--threads",
            "1"
        ])
        .0,
        0
    );
    let mut parts = Vec::new();
    for i in 0..3 {
        let part = d2.path().join(format!("p{i}.json"));
        let shard = format!("{i}/3");
        let (c, _, err) = run(&[
            "kakurasu",
            "census",
            "--sizes",
            "4",
            "--shard",
            &shard,
            "--results",
            r2,
            "--partial-out",
            part.to_str().unwrap(),
        ]);
        assert_eq!(c, 0, "{err}");
        parts.push(part.to_str().unwrap().to_string());
    }
    let mut args = vec!["merge", "--results", r2];
    args.extend(parts.iter().map(|s| s.as_str()));
    let (c, _, err) = run(&args);
    assert_eq!(c, 0, "{err}");
    for f in ["kakurasu_census.csv", "kakurasu_census_fibres.csv"] {
        assert_eq!(read(&dir.path().join(f)), read(&d2.path().join(f)), "{f}");
    }
}

#[test]
fn difficulty_is_deterministic_across_threads_and_shards() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let common = [
        "kakurasu",
        "difficulty",
        "--boards",
        "60",
        "--sizes",
        "4-6",
        "--seed",
        "9",
    ];
    let mut args: Vec<&str> = common.to_vec();
    args.extend(["--threads", "1", "--results", a.path().to_str().unwrap()]);
    let (c, _, err) = run(&args);
    assert_eq!(c, 0, "{err}");
    let mut parts = Vec::new();
    for i in 0..2 {
        let part = b.path().join(format!("p{i}.json"));
        let shard = format!("{i}/2");
        let mut args: Vec<&str> = common.to_vec();
        let pp = part.to_str().unwrap().to_string();
        args.extend(["--threads", "2", "--shard", &shard, "--partial-out", &pp]);
        args.extend(["--results", b.path().to_str().unwrap()]);
        assert_eq!(run(&args).0, 0);
        parts.push(pp);
    }
    let mut margs = vec!["merge", "--results", b.path().to_str().unwrap()];
    margs.extend(parts.iter().map(|s| s.as_str()));
    assert_eq!(run(&margs).0, 0);
    let f = "kakurasu_difficulty_b60.csv";
    let got = read(&a.path().join(f));
    assert_eq!(got, read(&b.path().join(f)));
    let text = String::from_utf8(got).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
}

#[test]
fn committed_results_pass_the_report_checks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let secs = gridcensus::kakurasu::report::sections(&dir).unwrap();
    assert!(secs.len() >= 2);
    for s in &secs {
        assert!(!s.checks.is_empty(), "{}", s.title);
        for c in &s.checks {
            assert!(c.ok, "{}: {} ({})", s.title, c.name, c.detail);
        }
    }
}

#[test]
fn noise_scores() {
    use gridcensus::kakurasu::report::{z_mean, z_prop};
    // 80/200 against the write-up's 43.5% of 200: pooled p = 0.4175.
    let z = z_prop(80.0, 200.0, 0.435, 200.0);
    assert!((z + 0.7098).abs() < 1e-3, "{z}");
    assert_eq!(z_prop(200.0, 200.0, 1.0, 200.0), 0.0);
    let z = z_mean(1.25, 0.59, 200.0, 1.14, 200.0);
    assert!((z - 0.11 / (0.59 * 0.01f64.sqrt())).abs() < 1e-9);
}
