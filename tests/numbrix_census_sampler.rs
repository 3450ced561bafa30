//! Numbrix backbite sampler and the census/sampler commands end to end.

use gridcensus::engine::run::run_simple;
use gridcensus::numbrix::census::backbite::{Backbite, Variant};
use gridcensus::numbrix::census::sampler_job::{SamplerJob, list_paths, sampler_csv};
use gridcensus::reference::A120443_SQUARE_PATHS;
use proptest::prelude::*;
use rand::SeedableRng;
use std::process::Command;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn backbite_always_yields_a_hamiltonian_path(
        rows in 1usize..=8, cols in 1usize..=8, seed in any::<u64>(), compass in any::<bool>()
    ) {
        let v = if compass { Variant::Compass } else { Variant::Neighbour };
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut b = Backbite::snake(rows, cols);
        for _ in 0..(16 * rows * cols) {
            b.step(&mut rng, v);
            prop_assert!(b.is_hamiltonian());
        }
    }
}

#[test]
fn listed_paths_are_the_census() {
    for n in 2..=5 {
        let (keys, weights) = list_paths(n, n);
        assert_eq!(keys.len() as u128, A120443_SQUARE_PATHS[n]);
        assert!(weights.iter().all(|&w| (4..=16).contains(&w)));
        let mut k = keys.clone();
        k.sort_unstable();
        k.dedup();
        assert_eq!(k.len(), keys.len(), "edge keys are distinct");
    }
}

#[test]
fn sampler_is_deterministic_across_threads_and_finds_the_bias() {
    let job = SamplerJob::new(3, 4, Some(12_000), 16, 40, 7).unwrap();
    let a = job.finish(&run_simple(&job, Some(1)).unwrap()).unwrap();
    let b = job.finish(&run_simple(&job, Some(2)).unwrap()).unwrap();
    assert_eq!(sampler_csv(&a), sampler_csv(&b));
    let nb = a.iter().find(|r| r.variant == "neighbour").unwrap();
    let co = a.iter().find(|r| r.variant == "compass").unwrap();
    assert_eq!(nb.paths, 62);
    // The neighbour move weights paths by their end degrees: far from uniform at 12 000 draws.
    assert!(nb.tv_uniform > 3.0 * nb.floor_uniform_p95, "{nb:?}");
    // The compass move is symmetric: its distance from uniform is noise-sized.
    assert!(co.tv_uniform < 2.0 * co.floor_uniform_p95, "{co:?}");
    assert!(co.tv_end_degree > 3.0 * co.floor_end_degree_p95, "{co:?}");
    assert!(nb.acceptance_rate > co.acceptance_rate);
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gridcensus"))
}

#[test]
fn census_and_sampler_commands_write_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().to_str().unwrap();
    let st = bin()
        .args([
            "numbrix",
            "census",
            "--max-side",
            "6",
            "--walk-max-cells",
            "20",
        ])
        .args(["--results", res, "--no-progress", "--threads", "2"])
        .status()
        .unwrap();
    assert!(st.success());
    let csv = std::fs::read_to_string(dir.path().join("numbrix_census.csv")).unwrap();
    assert!(csv.starts_with("rows,cols,cells,method,undirected_paths,directed_paths,work\n"));
    assert!(csv.contains("\n6,6,36,frontier,229348,458696,"));
    assert!(csv.contains("\n4,5,20,walk,1006,2012,"));
    // Sharded run merges to the same bytes.
    let dir2 = tempfile::tempdir().unwrap();
    let res2 = dir2.path().to_str().unwrap();
    for shard in ["0/2", "1/2"] {
        let st = bin()
            .args([
                "numbrix",
                "census",
                "--max-side",
                "6",
                "--walk-max-cells",
                "20",
            ])
            .args(["--results", res2, "--no-progress", "--shard", shard])
            .status()
            .unwrap();
        assert!(st.success());
    }
    let parts: Vec<String> = std::fs::read_dir(dir2.path().join("partials"))
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .collect();
    let st = bin()
        .args(["merge", "--results", res2])
        .args(&parts)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(
        std::fs::read_to_string(dir2.path().join("numbrix_census.csv")).unwrap(),
        csv
    );

    let st = bin()
        .args(["numbrix", "sampler", "--sizes", "3x3", "--draws", "2000"])
        .args(["--floor-sims", "20", "--results", res, "--no-progress"])
        .status()
        .unwrap();
    assert!(st.success());
    let s = std::fs::read_to_string(dir.path().join("numbrix_sampler.csv")).unwrap();
    assert_eq!(s.lines().count(), 3);
    assert!(
        s.lines()
            .nth(1)
            .unwrap()
            .starts_with("3,3,20,neighbour,2000,16,")
    );
}

#[test]
fn bad_input_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().to_str().unwrap();
    for args in [
        vec!["numbrix", "census", "--max-side", "40"],
        vec!["numbrix", "census", "--walk-max-cells", "65"],
        vec!["numbrix", "sampler", "--sizes", "17x17"],
        vec!["numbrix", "sampler", "--sizes", "4by4"],
        vec!["numbrix", "sampler", "--draws", "0"],
    ] {
        let out = bin().args(&args).args(["--results", res]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn large_grids_record_moves_and_distinct_draws() {
    let job = SamplerJob::new(10, 10, None, 16, 10, 3).unwrap();
    assert!(!job.exact);
    let a = job.finish(&run_simple(&job, Some(1)).unwrap()).unwrap();
    let b = job.finish(&run_simple(&job, Some(2)).unwrap()).unwrap();
    assert_eq!(sampler_csv(&a), sampler_csv(&b));
    for r in &a {
        assert_eq!((r.draws, r.paths, r.snake_turns), (200, 0, 18));
        assert!(r.distinct_paths <= 200 && r.distinct_paths > 190, "{r:?}");
        assert!(r.mean_turns > 18.0);
    }
    let text = String::from_utf8(sampler_csv(&a)).unwrap();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("10,10,,neighbour,200,16,")
    );
}
