//! The random-cut study and the sign ablation: the flip theorem on thousands of boards cut from
//! uniform squares, per-cage fillings against a brute-force count, and byte-identical result
//! files at 1 and 2 threads and through shards + merge.

use gridcensus::calcudoku::board::{Board, Cage, Op, op_holds};
use gridcensus::calcudoku::certificate::certified_flips;
use gridcensus::calcudoku::cuts::{cut_board, fillings};
use gridcensus::calcudoku::generate::{label, random_cut};
use gridcensus::calcudoku::solver::cage_fillings;
use gridcensus::calcudoku::squares::{SquareSource, draw_square};
use gridcensus::calcudoku::{Count, Rungs, solve};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::Path;
use std::process::Command;

/// A board with a certified flip has a second answer, so it is never unique; checked with signs
/// shown and hidden on 3,200 boards, uncapped search.
#[test]
fn no_board_with_a_surviving_flip_is_unique() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xc075);
    let (mut boards, mut with_flip, mut unique) = (0u32, 0u32, 0u32);
    for n in 4..=6 {
        for k in 2..=5 {
            for _ in 0..(if n == 6 { 150 } else { 300 }) {
                let (shown, square) = cut_board(n, k, SquareSource::Uniform, &mut rng);
                for board in [shown.clone(), shown.with_hidden_signs(true)] {
                    let flips = certified_flips(&board, &square);
                    let out = solve(&board, Rungs::ALL, 2, u64::MAX);
                    assert_ne!(out.count, Count::Unknown);
                    if !flips.is_empty() {
                        with_flip += 1;
                        assert!(
                            !out.unique(),
                            "a board with a certified flip came out unique:\n{}",
                            board.to_text()
                        );
                        for f in &flips {
                            assert!(board.is_solution(&f.apply(n, &square)));
                        }
                    }
                    unique += out.unique() as u32;
                    boards += 1;
                }
            }
        }
    }
    assert!(boards >= 6000, "{boards}");
    // Not vacuous: both sides of the theorem occur.
    assert!(
        with_flip > 500 && unique > 500,
        "{with_flip} with a flip, {unique} unique"
    );
}

fn conflict(n: usize, a: u8, b: u8) -> bool {
    let (a, b) = (a as usize, b as usize);
    a / n == b / n || a % n == b % n
}

/// Every tuple in 1..=n per cell, kept if no two cells of a row or column repeat and the cage
/// reaches its target (with the sign; with any allowed operation).
fn brute(n: usize, op: Op, target: u64, cells: &[u8]) -> (u64, u64) {
    let m = cells.len();
    let (mut s, mut h) = (0, 0);
    let total = n.pow(m as u32);
    let mut vals = vec![0u8; m];
    for code in 0..total {
        let mut c = code;
        for v in vals.iter_mut() {
            *v = (c % n) as u8 + 1;
            c /= n;
        }
        let ok = (0..m)
            .all(|i| (0..i).all(|j| !(conflict(n, cells[i], cells[j]) && vals[i] == vals[j])));
        if !ok {
            continue;
        }
        s += op_holds(op, target, &vals) as u64;
        h += Op::hidden_ops(m)
            .iter()
            .any(|&o| op_holds(o, target, &vals)) as u64;
    }
    (s, h)
}

#[test]
fn per_cage_fillings_match_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xf111);
    let mut cages = 0;
    for _ in 0..200 {
        let n = rng.random_range(3..=6);
        let k = rng.random_range(2..=4);
        let square = draw_square(n, SquareSource::Uniform, &mut rng);
        let cut = random_cut(n, k, &mut rng);
        let labelled = label(n, &square, &cut, &mut rng);
        let shown = Board::new(n, labelled.clone(), false).unwrap();
        let hidden = shown.with_hidden_signs(true);
        for (i, c) in labelled.iter().enumerate() {
            if c.cells.len() < 2 {
                continue;
            }
            let got = fillings(n, c.op, c.target, &c.cells);
            assert_eq!(
                got,
                brute(n, c.op, c.target, &c.cells),
                "cage {c:?} order {n}"
            );
            // And the solver's own enumeration.
            assert_eq!(got.0, cage_fillings(&shown, i).len() as u64);
            assert_eq!(got.1, cage_fillings(&hidden, i).len() as u64);
            assert!(got.0 >= 1 && got.1 >= got.0);
            cages += 1;
        }
    }
    // Targets no square gives (e.g. unreachable products) count zero on both sides.
    for (op, target) in [(Op::Mul, 7u64), (Op::Add, 2), (Op::Div, 5), (Op::Sub, 4)] {
        let cells = vec![0u8, 1];
        let c = Cage {
            op,
            target,
            cells: cells.clone(),
        };
        assert_eq!(
            fillings(4, c.op, c.target, &c.cells),
            brute(4, op, target, &cells)
        );
    }
    assert!(cages > 300, "{cages}");
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gridcensus"))
}

fn run_ok(args: &[&str]) {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "gridcensus {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn byte_identical_at_1_and_2_threads_and_through_shards() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "--orders",
        "4-5",
        "--max-cages",
        "2,4",
        "--boards",
        "120",
        "--large-boards",
        "0",
        "--seed",
        "9",
        "--no-progress",
    ];
    for cmd in ["cuts", "signs"] {
        let file = if cmd == "cuts" {
            "calcudoku_cuts.csv"
        } else {
            "calcudoku_signs.csv"
        };
        let mut outs = Vec::new();
        for t in ["1", "2"] {
            let d = dir.path().join(format!("{cmd}-t{t}"));
            let mut a = vec!["calcudoku", cmd];
            a.extend(base);
            a.extend(["--threads", t, "--results", d.to_str().unwrap()]);
            run_ok(&a);
            outs.push(read(&d.join(file)));
        }
        let d = dir.path().join(format!("{cmd}-shards"));
        let mut parts = Vec::new();
        for s in ["0/3", "1/3", "2/3"] {
            let p = d.join(format!("part-{}.json", &s[..1]));
            let mut a = vec!["calcudoku", cmd];
            a.extend(base);
            a.extend([
                "--shard",
                s,
                "--results",
                d.to_str().unwrap(),
                "--partial-out",
                p.to_str().unwrap(),
            ]);
            run_ok(&a);
            parts.push(p);
        }
        let mut a = vec!["merge".to_string()];
        a.extend(parts.iter().map(|p| p.display().to_string()));
        a.extend(["--results".into(), d.display().to_string()]);
        let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
        run_ok(&a);
        outs.push(read(&d.join(file)));
        assert_eq!(outs[0], outs[1], "{cmd}: 1 vs 2 threads");
        assert_eq!(outs[0], outs[2], "{cmd}: shards + merge");
        let text = String::from_utf8(outs[0].clone()).unwrap();
        assert!(text.lines().count() > 4, "{cmd}: {text}");
    }
    // A second run with other rows keeps the first run's rows (keyed table).
    let d = dir.path().join("cuts-t1");
    run_ok(&[
        "calcudoku",
        "cuts",
        "--orders",
        "6",
        "--max-cages",
        "3",
        "--boards",
        "50",
        "--large-boards",
        "0",
        "--no-progress",
        "--results",
        d.to_str().unwrap(),
    ]);
    let text = String::from_utf8(read(&d.join("calcudoku_cuts.csv"))).unwrap();
    assert_eq!(text.lines().count(), 1 + 4 + 1, "{text}");
    assert!(d.join("calcudoku_cuts_timing.csv").exists());
}

#[test]
fn bad_arguments_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().to_str().unwrap();
    for extra in [
        vec!["--node-cap", "0"],
        vec!["--orders", "10"],
        vec!["--max-cages", "0"],
        vec!["--boards", "0"],
        vec!["--squares", "sideways"],
    ] {
        let mut a = vec!["calcudoku", "cuts", "--results", r, "--no-progress"];
        a.extend(&extra);
        let out = bin().args(&a).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
    assert!(!dir.path().join("calcudoku_cuts.csv").exists());
}
