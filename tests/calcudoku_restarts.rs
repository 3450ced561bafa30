//! The search with randomised dom/wdeg restarts decides like the plain search: on random boards
//! (orders 4–6, signs shown, hidden and per-cage unsigned) its count at caps 1–4 equals the
//! independent verifier's, its answers are distinct verified solutions, and a decision is the same
//! on every run. A tiny restart unit forces many restarts on every board that needs search.

use gridcensus::calcudoku::generate::{seeded_board, seeded_mixed_board};
use gridcensus::calcudoku::solver::{Count, Rungs, SearchPolicy, solve_with};
use gridcensus::calcudoku::verify::verify_grid;
use gridcensus::calcudoku::{Board, verify_count};

fn board(seed: u64) -> Board {
    let n = 4 + (seed % 3) as usize;
    let max_cage = 2 + (seed % 4) as usize;
    if seed % 5 == 2 {
        // Every other cage unsigned.
        return seeded_mixed_board(n, max_cage, seed);
    }
    seeded_board(n, max_cage, seed % 5 == 1, seed).0
}

/// The independent verifier's answer count up to `cap`, and the count a search must report.
fn verified(b: &Board, cap: u64) -> (u64, Count) {
    let (want, _) = verify_count(b, cap);
    let expect = if want >= cap {
        Count::AtLeast(cap)
    } else {
        Count::Exact(want)
    };
    (want, expect)
}

#[test]
fn restarts_count_like_the_verifier() {
    // Weak rungs, so that boards need search and the restarts run.
    let rungs = Rungs::parse("cage,single").unwrap();
    let policy = SearchPolicy {
        restart_unit: 1,
        ..SearchPolicy::default()
    };
    let mut restarted = 0;
    for seed in 0..600u64 {
        let b = board(seed);
        let cap = 1 + seed % 4;
        let (want, expect) = verified(&b, cap);
        let out = solve_with(&b, rungs, cap, 1_000_000, policy);
        assert_eq!(
            out.count,
            expect,
            "seed {seed} cap {cap}\n{}",
            b.unsigned_text()
        );
        for (i, s) in out.solutions.iter().enumerate() {
            assert!(verify_grid(&b, s), "seed {seed}: invalid answer");
            assert!(
                !out.solutions[..i].contains(s),
                "seed {seed}: an answer returned twice"
            );
        }
        assert_eq!(out.solutions.len() as u64, want.min(cap), "seed {seed}");
        // The first run has 8 nodes: past them the restarts ran.
        if out.nodes > 9 {
            restarted += 1;
        }
        let again = solve_with(&b, rungs, cap, 1_000_000, policy);
        assert_eq!(
            (again.count, again.nodes, &again.solutions),
            (out.count, out.nodes, &out.solutions),
            "seed {seed}: not deterministic"
        );
    }
    assert!(
        restarted >= 30,
        "only {restarted} boards reached the restarts"
    );
}

#[test]
fn restart_unit_zero_is_the_plain_search() {
    for seed in 0..60u64 {
        let b = board(seed);
        let plain = gridcensus::calcudoku::solve(&b, Rungs::ALL, 2, 1_000_000);
        let off = solve_with(
            &b,
            Rungs::ALL,
            2,
            1_000_000,
            SearchPolicy {
                restart_unit: 0,
                ..SearchPolicy::default()
            },
        );
        assert_eq!(
            (off.count, off.nodes, &off.solutions),
            (plain.count, plain.nodes, &plain.solutions),
            "seed {seed}"
        );
    }
}

#[test]
fn restarts_a_node_cap_still_gives_unknown() {
    // A 9×9 tail board the plain search needs 770,350 nodes for: with 100 nodes in all, neither
    // policy may claim a verdict it has not reached.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/calcudoku/tail_open/9x9_cage4_min2_shown_seed1_board85.txt"
    ))
    .unwrap();
    let b = Board::parse(&text, false).unwrap();
    for unit in [0, 4] {
        let out = solve_with(
            &b,
            Rungs::ALL,
            2,
            100,
            SearchPolicy {
                restart_unit: unit,
                ..SearchPolicy::default()
            },
        );
        assert!(out.nodes <= 100, "unit {unit}: {} nodes", out.nodes);
        assert!(
            matches!(out.count, Count::Unknown | Count::AtLeast(2)),
            "unit {unit}: {:?}",
            out.count
        );
        if out.count == Count::Unknown {
            assert!(out.solutions.len() < 2);
        }
    }
}

const BIN: &str = env!("CARGO_BIN_EXE_gridcensus");
const BOARD85: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/calcudoku/tail_open/9x9_cage4_min2_shown_seed1_board85.txt"
);

#[test]
fn solve_takes_the_restart_unit_and_refuses_a_bad_one() {
    use std::process::Command;
    // The plain search needs 770,350 nodes on this board; restarts decide it within a few
    // thousand (docs/calcudoku-tail.md).
    let out = Command::new(BIN)
        .args([
            "calcudoku",
            "solve",
            BOARD85,
            "--restart-unit",
            "256",
            "--node-cap",
            "50000",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("answers: at least 2"), "{text}");
    for bad in ["0", "-3", "some"] {
        let out = Command::new(BIN)
            .args([
                "calcudoku",
                "solve",
                BOARD85,
                &format!("--restart-unit={bad}"),
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--restart-unit"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// A board whose signs are all hidden, or (every fourth seed) a board with every other cage
/// unsigned; orders 4–6, cages of three cells or more in most.
fn hidden_board(seed: u64) -> Board {
    let n = 4 + (seed % 3) as usize;
    let max_cage = 3 + (seed % 4) as usize;
    if seed % 4 == 3 {
        return seeded_mixed_board(n, max_cage, seed);
    }
    seeded_board(n, max_cage, true, seed).0
}

#[test]
fn operation_branches_count_like_the_verifier() {
    // Weak rungs, so that boards need search; exact counts up to cap 6 see every answer of the
    // operation branches (an answer whose cage reaches its target both ways is met under both).
    let rungs = Rungs::parse("cage,single").unwrap();
    let off = SearchPolicy::default();
    let on = SearchPolicy {
        op_branch: true,
        ..off
    };
    let mut differ = 0;
    for seed in 0..400u64 {
        let b = hidden_board(seed);
        let cap = 1 + seed % 6;
        let (_, expect) = verified(&b, cap);
        let a = solve_with(&b, rungs, cap, 1_000_000, on);
        assert_eq!(
            a.count,
            expect,
            "seed {seed} cap {cap}\n{}",
            b.unsigned_text()
        );
        for (i, s) in a.solutions.iter().enumerate() {
            assert!(verify_grid(&b, s), "seed {seed}: invalid answer");
            assert!(
                !a.solutions[..i].contains(s),
                "seed {seed}: an answer returned twice"
            );
        }
        let z = solve_with(&b, rungs, cap, 1_000_000, off);
        assert_eq!(
            z.count, expect,
            "seed {seed} cap {cap}, operation branches off"
        );
        if a.nodes != z.nodes {
            differ += 1;
        }
    }
    // The branches must actually be taken on a good share of the boards.
    assert!(
        differ >= 40,
        "the operation branches changed only {differ} searches"
    );
}

/// Decide boards 0..400 (caps 1–4) under each policy with the weak rungs `cage,single`: every
/// count must be the verifier's and every answer a solution by it. Per board, each policy's
/// nodes.
fn walks(policies: &[SearchPolicy]) -> Vec<Vec<u64>> {
    let rungs = Rungs::parse("cage,single").unwrap();
    (0..400u64)
        .map(|seed| {
            let b = board(seed);
            let cap = 1 + seed % 4;
            let (_, expect) = verified(&b, cap);
            policies
                .iter()
                .enumerate()
                .map(|(i, &policy)| {
                    let out = solve_with(&b, rungs, cap, 1_000_000, policy);
                    assert_eq!(out.count, expect, "seed {seed} cap {cap}, policy {i}");
                    for s in &out.solutions {
                        assert!(
                            verify_grid(&b, s),
                            "seed {seed}, policy {i}: invalid answer"
                        );
                    }
                    out.nodes
                })
                .collect()
        })
        .collect()
}

/// Whether a search took more nodes than the plain first run of restart unit 1 allows.
fn restarted(nodes: u64) -> bool {
    nodes > 1 + gridcensus::calcudoku::solver::FIRST_RUN_UNITS
}

#[test]
fn nogoods_keep_every_answer_and_cut_the_restarts() {
    // Restarts every node or two, with weak rungs: without nogoods each run walks again what the
    // runs before it walked; with them it may skip only what they finished, so the counts stay
    // the verifier's and the restarts take fewer nodes in all.
    let with = SearchPolicy {
        restart_unit: 1,
        nogoods: true,
        ..SearchPolicy::default()
    };
    let without = SearchPolicy {
        nogoods: false,
        ..with
    };
    let (mut nodes_with, mut nodes_without, mut fewer, mut restarts) = (0u64, 0u64, 0, 0);
    for n in walks(&[with, without]) {
        let (on, off) = (n[0], n[1]);
        nodes_with += on;
        nodes_without += off;
        fewer += usize::from(on < off);
        restarts += usize::from(restarted(off));
    }
    assert!(
        nodes_with < nodes_without,
        "nodes with nogoods {nodes_with}, without {nodes_without}"
    );
    // Most boards that restart at all take fewer nodes with the nogoods.
    assert!(
        restarts >= 20 && 2 * fewer > restarts,
        "{fewer} of {restarts} restarting boards took fewer nodes with nogoods \
         ({nodes_with} against {nodes_without})"
    );
}

#[test]
fn a_late_root_probe_grades_and_counts_like_a_first_one() {
    // All rungs, so the root's probe matters; a restart unit of 1 makes the late probe run at
    // the first restart on every board the first run does not decide, and the default unit
    // leaves most boards decided without it.
    use gridcensus::calcudoku::solver::{RootProbe, Rung};
    let (mut skipped, mut graded_late) = (0u64, 0u64);
    // Probe-graded boards of the committed bank (orders 5 and 6), read by their grade line.
    let mut probe_graded = Vec::new();
    for n in [5, 6] {
        let dir = format!("{}/bank/calcudoku/{n}x{n}", env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut taken = 0;
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            if taken < 20 && text.lines().any(|l| l.starts_with("# grade probe,")) {
                probe_graded.push(Board::parse(&text, false).unwrap());
                taken += 1;
            }
        }
    }
    assert_eq!(probe_graded.len(), 40);
    for unit in [1u64, 100] {
        let first = SearchPolicy {
            restart_unit: unit,
            root_probe: RootProbe::First,
            ..SearchPolicy::default()
        };
        let late = SearchPolicy {
            root_probe: RootProbe::Late,
            ..first
        };
        for seed in 0..240u64 {
            let b = if seed < 40 {
                probe_graded[seed as usize].clone()
            } else {
                board(seed)
            };
            let cap = 1 + seed % 3;
            let (_, expect) = verified(&b, cap);
            let f = solve_with(&b, Rungs::ALL, cap, 1_000_000, first);
            let l = solve_with(&b, Rungs::ALL, cap, 1_000_000, late);
            assert_eq!(f.count, expect, "seed {seed} cap {cap} first");
            assert_eq!(l.count, expect, "seed {seed} cap {cap} late");
            assert_eq!(l.grade, f.grade, "seed {seed} cap {cap} unit {unit}");
            for g in &l.solutions {
                assert!(verify_grid(&b, g), "seed {seed}: not an answer");
            }
            let p = Rung::Probe as usize;
            if f.grade == gridcensus::calcudoku::Grade::Rung(Rung::Probe) {
                // The late probe ran to grade the board: the same trace as the first one.
                assert_eq!(l.root, f.root, "seed {seed} cap {cap} unit {unit}");
                graded_late += 1;
            }
            if l.root[p].removed < f.root[p].removed {
                skipped += 1;
            }
        }
    }
    // Both paths are taken: boards decided without the root's probe, and boards graded by it.
    assert!(
        skipped >= 10,
        "only {skipped} boards skipped the root's probe"
    );
    assert!(graded_late >= 60, "only {graded_late} probe-graded boards");
}

#[test]
fn restart_seeds_change_the_walk_but_never_the_count() {
    // Under every restart seed the count is the verifier's; the seed reaches the restarts'
    // streams, so some board that restarts takes a different number of nodes under another
    // seed; a board the plain first run decides never restarts and takes the same nodes.
    let base = SearchPolicy {
        restart_unit: 1,
        ..SearchPolicy::default()
    };
    let policies: Vec<SearchPolicy> = [0u64, 1, 7]
        .iter()
        .map(|&rs| SearchPolicy {
            restart_seed: rs,
            ..base
        })
        .collect();
    let (mut differ, mut restarts) = (0, 0);
    for (seed, nodes) in walks(&policies).into_iter().enumerate() {
        if restarted(nodes[0]) {
            restarts += 1;
            differ += usize::from(nodes.iter().any(|&x| x != nodes[0]));
        } else {
            assert!(
                nodes.iter().all(|&x| x == nodes[0]),
                "seed {seed}: {nodes:?}"
            );
        }
    }
    assert!(restarts >= 20, "{restarts} boards restarted");
    assert!(differ >= restarts / 4, "{differ} of {restarts} differ");
}

#[test]
fn time_takes_restart_seeds_and_solve_takes_one() {
    use std::process::Command;
    let out = Command::new(BIN)
        .args(["calcudoku", "time", "--orders", "5", "--max-cages", "4"])
        .args([
            "--boards",
            "12",
            "--restart-unit",
            "1",
            "--restart-seed",
            "0-2",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for row in ["rs0", "rs1", "rs2", "mean"] {
        assert!(
            text.contains(&format!("5x5 cage 1-4 shown {row} ")),
            "{row}: {text}"
        );
    }
    let out = Command::new(BIN)
        .args(["calcudoku", "solve", BOARD85, "--restart-seed", "0,1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--restart-seed"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn shared_failure_weights_change_the_walk_but_never_the_count() {
    // `fail_share` only reweighs the restarts' branching: counts stay the verifier's either
    // way, and some board that restarts walks differently.
    let on = SearchPolicy {
        restart_unit: 1,
        fail_share: true,
        ..SearchPolicy::default()
    };
    let off = SearchPolicy {
        fail_share: false,
        ..on
    };
    let differ = walks(&[on, off]).iter().filter(|n| n[0] != n[1]).count();
    assert!(differ >= 5, "{differ} boards walk differently");
}

#[test]
fn learnt_nogoods_keep_every_answer_and_cut_nodes() {
    // A nogood learnt from a failure excludes only answers already met, so the counts stay the
    // verifier's, in a plain run and with restarts every node or two; the nogoods must prune
    // (fewer nodes in all) on the boards they change.
    let plain = SearchPolicy {
        restart_unit: 0,
        learn: true,
        ..SearchPolicy::default()
    };
    let restarting = SearchPolicy {
        restart_unit: 1,
        ..plain
    };
    let policies = [
        plain,
        SearchPolicy {
            learn: false,
            ..plain
        },
        restarting,
        SearchPolicy {
            learn: false,
            ..restarting
        },
    ];
    let (mut with, mut without, mut differ) = ([0u64; 2], [0u64; 2], [0usize; 2]);
    for n in walks(&policies) {
        for k in 0..2 {
            with[k] += n[2 * k];
            without[k] += n[2 * k + 1];
            differ[k] += usize::from(n[2 * k] != n[2 * k + 1]);
        }
    }
    for k in 0..2 {
        assert!(differ[k] >= 5, "{differ:?} boards walk differently");
        assert!(
            with[k] < without[k],
            "nodes {with:?} with, {without:?} without"
        );
    }
}
