//! The census by sampled work units: its intervals cover the exact census at their nominal rate
//! (order 7, 200 independent replicates), its result bytes do not depend on the thread count,
//! and bad input is refused with exit 2.

use gridcensus::engine::Job;
use gridcensus::engine::run::{RunOptions, run};
use gridcensus::latin::census::CensusJob;
use gridcensus::latin::estimate::{EstimateJob, UnitDraw, Z95};
use gridcensus::latin::estimate_cli::exact_figures;
use gridcensus::latin::estimate_report::binomial_acceptance;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gridcensus");

#[test]
fn intervals_cover_the_order_7_census_at_the_nominal_rate() {
    let census = CensusJob::new(7).unwrap();
    let exact = census
        .finish(gridcensus::engine::run::run_simple(&census, None).unwrap())
        .unwrap();
    let want = exact_figures(7, &exact);
    let (k, reps) = (60u64, 200u64);
    let job = EstimateJob::new(7, 1, k, reps, 11).unwrap();
    let draws: Vec<UnitDraw> = run(&job, &RunOptions::default()).unwrap().total().0;
    assert_eq!(draws.len() as u64, k * reps);
    let mut hits = [0u64; 3];
    for rep in draws.chunks(k as usize) {
        let e = job.combine(rep);
        for (i, est) in [e.reduced, e.mean, e.variance].iter().enumerate() {
            hits[i] += est.covers(want[i].1, Z95) as u64;
        }
    }
    let (lo, hi) = binomial_acceptance(reps, 0.95, 0.01);
    for (i, h) in hits.iter().enumerate() {
        assert!(
            (lo..=hi).contains(h),
            "{}: {h}/{reps} 95% intervals cover the census (acceptance {lo}–{hi})",
            want[i].0
        );
    }
}

#[test]
fn a_biased_estimator_fails_the_coverage_check() {
    // Doubling every weight of one stratum biases the total: the same check must fail.
    let census = CensusJob::new(6).unwrap();
    let exact = census
        .finish(gridcensus::engine::run::run_simple(&census, None).unwrap())
        .unwrap();
    let want = exact_figures(6, &exact)[0].1;
    let (k, reps) = (30u64, 200u64);
    let job = EstimateJob::new(6, 1, k, reps, 5).unwrap();
    let mut draws: Vec<UnitDraw> = run(&job, &RunOptions::default()).unwrap().total().0;
    for d in draws.iter_mut().filter(|d| d.stratum == 0) {
        d.groups.push(2);
    }
    let hits = draws
        .chunks(k as usize)
        .filter(|rep| job.combine(rep).reduced.covers(want, Z95))
        .count() as u64;
    let (lo, _) = binomial_acceptance(reps, 0.95, 0.01);
    assert!(hits < lo, "{hits}/{reps} covered by a biased estimator");
}

fn gc(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[test]
fn same_bytes_at_1_and_2_threads_and_bad_input_exits_2() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for (dir, t) in [(&a, "1"), (&b, "2")] {
        let out = gc(&[
            "latin",
            "estimate",
            "--orders",
            "8",
            "--units",
            "60",
            "--threads",
            t,
            "--results",
            dir.path().to_str().unwrap(),
            "--no-progress",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let read = |d: &tempfile::TempDir| std::fs::read(d.path().join("latin_estimate.csv")).unwrap();
    assert_eq!(read(&a), read(&b));
    // A second order keeps the first order's rows (keyed table).
    let out = gc(&[
        "latin",
        "estimate",
        "--orders",
        "7",
        "--units",
        "30",
        "--results",
        a.path().to_str().unwrap(),
        "--no-progress",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(read(&a)).unwrap();
    assert!(text.lines().any(|l| l.starts_with("7,")) && text.lines().any(|l| l.starts_with("8,")));
    let before = read(&b);
    for bad in [
        vec!["--orders", "12"],
        vec!["--orders", "9", "--units", "3"],
        vec!["--orders", "9", "--depth", "8"],
        vec!["--orders", "9", "--replicates", "0"],
        vec!["--orders", "9", "--replicates", "5"], // no order-9 census for a coverage study
    ] {
        let mut args = vec!["latin", "estimate", "--results", b.path().to_str().unwrap()];
        args.extend(bad.iter());
        let out = gc(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim().lines().count(),
            1,
            "{bad:?}"
        );
    }
    assert_eq!(
        read(&b),
        before,
        "a refused run leaves the result untouched"
    );
}

#[test]
fn job_spec_records_every_parameter() {
    let j = EstimateJob::new(9, 3, 100, 1, 4).unwrap();
    let s = j.spec();
    assert_eq!(s.kind, "latin-estimate");
    assert_eq!(s.seed, 4);
    assert_eq!(s.params["depth"], 3);
    assert_eq!(j.unit_count(), 100);
}
