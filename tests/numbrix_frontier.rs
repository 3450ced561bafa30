//! The frontier counter's parallel sweep and wide arithmetic, and the census CSV as a keyed table.

use gridcensus::numbrix::census::frontier;
use gridcensus::reference::*;
use num_bigint::BigUint;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gridcensus"))
}

#[test]
fn sweep_is_thread_count_independent() {
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| frontier::sweep(9, 11).unwrap())
    };
    let one = run(1);
    let three = run(3);
    assert_eq!(one, three);
    assert_eq!(one.counts[8], BigUint::from(A120443_SQUARE_PATHS[9]));
}

#[test]
fn residue_sweep_matches_a120443_to_10_and_u128_on_long_strips() {
    // Residues and CRT against OEIS on squares, and against checked u128 on strips longer than
    // any square the u128 test reaches.
    for n in 1..=10 {
        let s = frontier::sweep_residues(n, n).unwrap();
        assert_eq!(
            s.counts[n - 1],
            BigUint::from(A120443_SQUARE_PATHS[n]),
            "{n}x{n}"
        );
    }
    for w in [3usize, 5, 6] {
        let exact = frontier::sweep_u128(w, 30);
        let res = frontier::sweep_residues(w, 30).unwrap();
        for l in 0..30 {
            assert_eq!(
                res.counts[l],
                BigUint::from(exact.counts[l]),
                "{w}x{}",
                l + 1
            );
        }
    }
}

#[test]
fn census_csv_keeps_rows_a_smaller_run_does_not_compute() {
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().to_str().unwrap();
    let census = |side: &str, cells: &str| {
        let st = bin()
            .args([
                "numbrix",
                "census",
                "--max-side",
                side,
                "--walk-max-cells",
                cells,
            ])
            .args(["--results", res, "--no-progress", "--threads", "2"])
            .status()
            .unwrap();
        assert!(st.success());
        std::fs::read_to_string(dir.path().join("numbrix_census.csv")).unwrap()
    };
    let big = census("7", "20");
    assert!(big.contains("\n7,7,49,frontier,13535280,27070560,"));
    assert!(big.contains("\n4,5,20,walk,1006,2012,"));
    // A smaller run recomputes its own rows (the same values) and keeps every other row.
    let small = census("4", "9");
    assert_eq!(small, big);
    let manifest =
        std::fs::read_to_string(dir.path().join("numbrix_census.csv.manifest.json")).unwrap();
    assert_eq!(manifest.matches("\"kind\": \"numbrix-census\"").count(), 2);
}

#[test]
fn census_refuses_a_side_past_17() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["numbrix", "census", "--max-side", "18"])
        .args(["--results", dir.path().to_str().unwrap(), "--no-progress"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("numbrix_census.csv").exists());
}
