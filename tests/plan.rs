//! `gridcensus plan`: unit counts and file names come from the job itself, nothing is written,
//! and only single engine jobs are accepted.

use gridcensus::engine::Job;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gridcensus");

fn plan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).arg("plan").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn paths_are_the_engines_default_shard_files() {
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("r");
    let res_s = res.to_str().unwrap();
    let (code, out, err) = plan(&[
        "--paths",
        "3",
        "--",
        "latin",
        "census",
        "--orders",
        "6",
        "--results",
        res_s,
    ]);
    assert_eq!(code, 0, "{err}");
    let job = gridcensus::latin::census::CensusJob::new(6).unwrap();
    let spec = job.spec();
    let digest = spec.digest();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[0],
        format!("job latin-census {digest} {}", job.unit_count())
    );
    for i in 0..3 {
        assert_eq!(
            lines[1 + i],
            format!(
                "shard {i} {res_s}/partials/latin-census-{digest}-shard-{i}-of-3.json {res_s}/.journal/latin-census-{digest}-shard-{i}-of-3.jsonl"
            )
        );
    }
    assert!(!res.exists(), "plan must write nothing");
}

#[test]
fn timed_plan_reports_units_and_a_suggestion_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("r");
    let (code, out, err) = plan(&[
        "--sample",
        "5",
        "--cores",
        "4",
        "--",
        "latin",
        "census",
        "--orders",
        "6",
        "--results",
        res.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let units = gridcensus::latin::census::CensusJob::new(6)
        .unwrap()
        .unit_count();
    assert!(out.contains(&format!("units:       {units}\n")), "{out}");
    assert!(
        out.contains(&format!("sample:      5 of {units} units")),
        "{out}"
    );
    // A tiny job: one shard per core.
    assert!(out.contains("suggestion:  --shards 4 for 4 cores"), "{out}");
    assert!(!res.exists(), "plan must write nothing");
}

#[test]
fn a_sample_of_every_unit_has_no_sampling_error() {
    let (code, out, err) = plan(&[
        "--sample",
        "1000",
        "--",
        "latin",
        "census",
        "--orders",
        "4",
        "--results",
        "/nonexistent/r",
    ]);
    assert_eq!(code, 0, "{err}");
    let units = gridcensus::latin::census::CensusJob::new(4)
        .unwrap()
        .unit_count();
    assert!(
        out.contains(&format!("sample:      {units} of {units} units")),
        "{out}"
    );
    assert!(out.contains("standard error 0.000000 s"), "{out}");
}

#[test]
fn refuses_what_it_cannot_plan() {
    // Not an engine job.
    let (code, _, err) = plan(&["--", "calcudoku", "solve", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("not an engine job"), "{err}");
    // Several jobs in sequence: refused with the job's own one-line message.
    let (code, _, err) = plan(&["--", "latin", "census", "--orders", "5-6"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    // A bad job option.
    let (code, _, err) = plan(&["--", "latin", "census", "--bogus"]);
    assert_eq!(code, 2);
    assert!(err.contains("plan:"), "{err}");
    // No job at all.
    let out = Command::new(BIN).arg("plan").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn kakurasu_and_calcudoku_jobs_plan_too() {
    let (code, out, err) = plan(&[
        "--sample",
        "2",
        "--",
        "kakurasu",
        "census",
        "--sizes",
        "5",
        "--results",
        "/nonexistent/r",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("job:         kakurasu-census"), "{out}");
    let (code, out, err) = plan(&[
        "--paths",
        "2",
        "--",
        "calcudoku",
        "agree",
        "--orders",
        "4",
        "--max-cages",
        "2",
        "--boards",
        "10",
        "--results",
        "/nonexistent/r",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("job calcudoku-agree "), "{out}");
    assert_eq!(out.lines().count(), 3);
}

/// A unit that parallelises inside (a frontier width sweeps its states over rayon's pool)
/// spends its time on the pool's threads: the plan counts every thread's CPU time, so a plan of
/// every unit comes close to the CPU the job itself takes.
#[test]
fn units_that_parallelise_inside_are_counted_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let job = [
        "numbrix",
        "census",
        "--max-side",
        "12",
        "--walk-max-cells",
        "0",
        "--no-progress",
        "--results",
    ];
    let usage = |who| {
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage writes one rusage through a valid pointer.
        assert_eq!(unsafe { libc::getrusage(who, &mut u) }, 0);
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
        t(u.ru_utime) + t(u.ru_stime)
    };
    let before = usage(libc::RUSAGE_CHILDREN);
    let out = Command::new(BIN)
        .args(job)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let job_cpu = usage(libc::RUSAGE_CHILDREN) - before;
    let mut args = vec!["--sample", "1000", "--budget", "300", "--"];
    args.extend(job);
    let p = dir.path().join("plan");
    args.push(p.to_str().unwrap());
    let (code, out, err) = plan(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("sample:      12 of 12 units"), "{out}");
    let line = out.lines().find(|l| l.starts_with("total:")).unwrap();
    // "total:       0.0004 CPU-hours (1.4 s), ..."
    let secs: f64 = line
        .split('(')
        .nth(1)
        .and_then(|x| x.split(" s)").next())
        .and_then(|x| x.trim().parse().ok())
        .unwrap_or_else(|| panic!("no seconds in {line}"));
    assert!(
        secs > 0.5 * job_cpu && secs < 2.0 * job_cpu,
        "plan {secs} s against the job's {job_cpu} s CPU\n{out}"
    );
}
