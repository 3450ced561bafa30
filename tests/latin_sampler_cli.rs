//! `gridcensus latin samplers` end to end: bad input (one line, exit 2, nothing written, never a
//! hang), determinism across thread counts and shards, merge, and the report section.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_gridcensus");

fn results_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let census = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/latin_census.csv");
    std::fs::copy(census, dir.path().join("latin_census.csv")).unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(["latin", "samplers", "--no-progress", "--results"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

const SMALL: [&str; 8] = [
    "--orders",
    "4-5",
    "--draws",
    "300",
    "--floor-sims",
    "3",
    "--batch",
    "70",
];

fn assert_input_error(dir: &Path, args: &[&str], needle: &str) {
    let out = run(dir, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line, got {err}"
    );
    assert!(err.contains(needle), "{args:?}: '{needle}' not in {err}");
    assert!(
        !dir.join("latin_samplers.csv").exists(),
        "{args:?} wrote a result"
    );
}

#[test]
fn bad_input_is_one_line_exit_2() {
    let d = results_dir();
    let p = d.path();
    // SMALL with one flag's value replaced (or the flag added).
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = SMALL.to_vec();
        match v.iter().position(|a| *a == extra[0]) {
            Some(i) => v[i + 1] = extra[1],
            None => v.extend_from_slice(extra),
        }
        v
    };
    assert_input_error(p, &with(&["--moves", "0"]), "T = 0");
    assert_input_error(p, &with(&["--moves", "n,0n^3"]), "T = 0");
    assert_input_error(p, &with(&["--thin", "0"]), "k = 0");
    assert_input_error(p, &with(&["--draws", "0"]), "--draws");
    assert_input_error(p, &with(&["--floor-sims", "0"]), "--floor-sims");
    assert_input_error(p, &with(&["--orders", "3"]), "outside");
    assert_input_error(
        p,
        &with(&["--orders", "9"]),
        "outside the sampler study's orders 4 to 8",
    );
    assert_input_error(p, &with(&["--samplers", "magic"]), "unknown sampler");
    assert_input_error(p, &with(&["--moves", "ten"]), "not a number");
    // An order missing from the census file: a clear error, before any work.
    let census = std::fs::read_to_string(p.join("latin_census.csv")).unwrap();
    let no6: String = census
        .lines()
        .filter(|l| !l.starts_with("6,"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(p.join("latin_census.csv"), no6).unwrap();
    assert_input_error(p, &with(&["--orders", "6"]), "missing from the census");
    // No census at all.
    let empty = tempfile::tempdir().unwrap();
    assert_input_error(empty.path(), &SMALL, "no census");
}

#[test]
fn a_reader_that_cannot_produce_a_square_stops_with_a_clear_error() {
    let d = results_dir();
    // T = 1 from the cyclic square of odd order is never proper: the chain cap ends it.
    let start = std::time::Instant::now();
    assert_input_error(
        d.path(),
        &[
            "--orders",
            "5",
            "--samplers",
            "fixed-time",
            "--moves",
            "1",
            "--chain-cap",
            "20000",
            "--draws",
            "10",
        ],
        "no proper square after T = 1 moves in 20000 chains",
    );
    assert!(start.elapsed().as_secs() < 20);
}

fn csv_without_seconds(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let sec = h.iter().position(|c| c == "wall_seconds");
    assert!(
        sec.is_none(),
        "wall-clock seconds must not be in the deterministic result file"
    );
    let mut out = vec![
        h.iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != sec)
            .map(|(_, c)| c)
            .collect::<Vec<_>>()
            .join(","),
    ];
    for r in rdr.records() {
        let r = r.unwrap();
        out.push(
            r.iter()
                .enumerate()
                .filter(|(i, _)| Some(*i) != sec)
                .map(|(_, c)| c)
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    out
}

#[test]
fn deterministic_across_threads_and_shards() {
    let a = results_dir();
    let b = results_dir();
    let c = results_dir();
    let one = run(a.path(), &[&SMALL[..], &["--threads", "1"]].concat());
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let two = run(b.path(), &[&SMALL[..], &["--threads", "2"]].concat());
    assert!(two.status.success());
    let rows_a = csv_without_seconds(&a.path().join("latin_samplers.csv"));
    assert_eq!(
        rows_a,
        csv_without_seconds(&b.path().join("latin_samplers.csv"))
    );
    // 2 orders × (naive + 3 wait + 3 fixed + 4 thinned + exact) rows and a header.
    assert_eq!(rows_a.len(), 1 + 2 * 12);
    // Shards, then merge.
    let mut parts: Vec<PathBuf> = Vec::new();
    for s in ["0/3", "1/3", "2/3"] {
        let part = c.path().join(format!("part-{}.json", &s[..1]));
        let out = run(
            c.path(),
            &[
                &SMALL[..],
                &["--shard", s, "--partial-out", part.to_str().unwrap()],
            ]
            .concat(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parts.push(part);
    }
    assert!(!c.path().join("latin_samplers.csv").exists());
    let out = Command::new(BIN)
        .arg("merge")
        .args(&parts)
        .arg("--results")
        .arg(c.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        rows_a,
        csv_without_seconds(&c.path().join("latin_samplers.csv"))
    );
    // A different seed gives a different result.
    let d = results_dir();
    assert!(
        run(d.path(), &[&SMALL[..], &["--seed", "7"]].concat())
            .status
            .success()
    );
    assert_ne!(
        rows_a,
        csv_without_seconds(&d.path().join("latin_samplers.csv"))
    );
}

#[test]
fn report_section_reads_the_csv() {
    let d = results_dir();
    let out = run(
        d.path(),
        &[
            "--orders",
            "6",
            "--draws",
            "4000",
            "--floor-sims",
            "10",
            "--samplers",
            "naive,wait-for-proper,fixed-time,exact",
            "--moves",
            "n^3",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sections = gridcensus::latin::sampler_report::sections(d.path()).unwrap();
    assert_eq!(sections.len(), 1);
    let s = &sections[0];
    assert!(s.body.contains("| 6 | fixed-time T=216 |"), "{}", s.body);
    assert!(s.charts[0].svg.starts_with("<svg"));
    let check = |name: &str| {
        s.checks
            .iter()
            .find(|c| c.name.contains(name))
            .unwrap_or_else(|| panic!("no check '{name}'"))
    };
    // Orders 4, 5, 7, 8 are absent from this small run: the presence check fails naming them.
    let present = check("orders 4–8 present");
    assert!(
        !present.ok && present.detail.contains("order 4") && !present.detail.contains("order 6")
    );
    // Naive backtracking at order 6 is far outside the floor even with 4,000 draws.
    assert!(check("order 6: naive outside").ok);
    let wfp = check("wait-for-proper T=216");
    assert!(
        !wfp.is_check(),
        "the write-up's finding is a finding, not a check"
    );
    assert!(wfp.detail.contains("reproduces"), "{}", wfp.detail);
    // Keyed table: a run of another order keeps order 6's rows.
    let out = run(
        d.path(),
        &[
            "--orders",
            "5",
            "--draws",
            "300",
            "--floor-sims",
            "3",
            "--samplers",
            "naive,exact",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(d.path().join("latin_samplers.csv")).unwrap();
    assert!(text.lines().any(|l| l.starts_with("5,naive")));
    assert!(text.lines().any(|l| l.starts_with("6,fixed-time")));
    let timing = std::fs::read_to_string(d.path().join("latin_samplers_timing.csv")).unwrap();
    assert!(timing.lines().any(|l| l.starts_with("6,fixed-time")));
}
