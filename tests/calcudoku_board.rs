//! Board model, file format, validation errors, and the command line.

use gridcensus::InputError;
use gridcensus::calcudoku::Board;
use gridcensus::calcudoku::generate::seeded_board;
use gridcensus::calcudoku::solver::{Rung, Rungs, cage_fillings, hints};
use gridcensus::calcudoku::{Count, Grade, solve};
use std::process::Command;

fn err_of(text: &str) -> String {
    let e = Board::parse(text, false).expect_err("should be refused");
    assert!(
        e.downcast_ref::<InputError>().is_some(),
        "not an InputError: {e}"
    );
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "error is not one line: {msg}");
    msg
}

#[test]
fn format_round_trips() {
    for seed in 0..200 {
        let n = 3 + (seed % 7) as usize;
        let (b, sq) = seeded_board(n, 1 + (seed % 6) as usize, false, seed);
        let back = Board::parse(&b.to_text(), false).unwrap();
        assert_eq!(back.n, b.n);
        assert_eq!(back.cages, b.cages);
        assert!(back.is_solution(&sq));
    }
}

#[test]
fn a_byte_order_mark_is_ignored() {
    let (b, _) = seeded_board(5, 4, false, 11);
    let text = b.to_text();
    let with_bom = format!("\u{feff}{text}");
    assert_eq!(Board::parse(&with_bom, false).unwrap().to_text(), text);
    let id = gridcensus::calcudoku::keen::to_id(&b).unwrap();
    let read = |t: &str| gridcensus::calcudoku::keen::read_board(t, false).unwrap();
    assert_eq!(
        read(&format!("\u{feff}{id}")).to_text(),
        read(&id).to_text()
    );
    // A mark anywhere else is still refused.
    assert!(Board::parse(&format!("{text}\u{feff}"), false).is_err());
}

#[test]
fn validation_names_the_cage_or_cell() {
    assert!(err_of("order 10\n").contains("order 10 is out of range"));
    assert!(err_of("order 2\n").contains("out of range"));
    assert!(err_of("").contains("expected 'order N'"));
    let base = "order 3\n+ 6 r1c1 r1c2 r1c3\n+ 6 r2c1 r2c2 r2c3\n";
    assert!(err_of(base).contains("cell r3c1 is in no cage"));
    let twice = format!("{base}+ 6 r3c1 r3c2 r3c3 r2c3\n");
    assert!(err_of(&twice).contains("cell r2c3 is covered twice (cages 2 and 3)"));
    let disc = format!("{base}+ 4 r3c1 r3c3\n= 2 r3c2\n");
    assert!(err_of(&disc).contains("cage 3 (+4 at r3c1 r3c3) is not connected"));
    let sub3 = format!("{base}- 1 r3c1 r3c2 r3c3\n");
    assert!(err_of(&sub3).contains("'-' labels only two-cell cages"));
    let one = format!("{base}+ 1 r3c1\n* 6 r3c2 r3c3\n");
    assert!(err_of(&one).contains("a one-cell cage must use '='"));
    let zero = format!("{base}+ 0 r3c1 r3c2 r3c3\n");
    assert!(err_of(&zero).contains("target must be positive"));
    let far = format!("{base}+ 10 r3c1 r3c2 r3c3\n");
    assert!(err_of(&far).contains("target 10 is out of reach"));
    let prod = format!("{base}* 7 r3c1 r3c2 r3c3\n");
    assert!(err_of(&prod).contains("target 7 is out of reach"));
    let div = format!("{base}/ 4 r3c1 r3c2\n= 1 r3c3\n");
    assert!(err_of(&div).contains("cage 3 (/4 at r3c1 r3c2): target 4 is out of reach"));
    assert!(err_of("order 3\n+ 6 r1c1 r1c4\n").contains("'r1c4' is not a cell"));
    assert!(err_of("order 3\n% 6 r1c1 r1c2\n").contains("unknown operation '%'"));
}

#[test]
fn rules_as_written() {
    // Repeats inside a cage are allowed unless they share a row or column.
    let b = Board::parse(
        "order 3\n+ 4 r1c1 r1c2 r2c2\n+ 14 r1c3 r2c1 r2c3 r3c1 r3c2 r3c3\n",
        false,
    )
    .unwrap();
    assert_eq!(cage_fillings(&b, 0), vec![vec![1, 2, 1]]);
    // − and ÷ in either order.
    let pair = |op: &str, t: u32, hide: bool| {
        let text = format!("order 3\n{op} {t} r1c1 r1c2\n+ 7 r1c3 r2c1 r2c2 r2c3 r3c1 r3c2 r3c3\n");
        cage_fillings(&Board::parse(&text, hide).unwrap(), 0)
    };
    assert_eq!(
        pair("-", 1, false),
        vec![vec![1, 2], vec![2, 1], vec![2, 3], vec![3, 2]]
    );
    assert_eq!(pair("/", 3, false), vec![vec![1, 3], vec![3, 1]]);
    // Hidden signs: any operation a pair allows.
    assert_eq!(pair("-", 1, true).len(), 4);
    assert_eq!(
        pair("/", 2, true),
        vec![vec![1, 2], vec![1, 3], vec![2, 1], vec![3, 1]]
    );
    // One-cell cages give their value.
    let g = Board::parse(
        "order 3\n= 2 r1c1\n+ 16 r1c2 r1c3 r2c1 r2c2 r2c3 r3c1 r3c2 r3c3\n",
        false,
    )
    .unwrap();
    assert_eq!(cage_fillings(&g, 0), vec![vec![2]]);
}

#[test]
fn known_boards() {
    // Every cell given: unique, settled by the cage rung; a Latin clash: no solution.
    let mut text = String::from("order 3\n");
    let sq = [1, 2, 3, 2, 3, 1, 3, 1, 2];
    for (i, v) in sq.iter().enumerate() {
        text.push_str(&format!("= {v} r{}c{}\n", i / 3 + 1, i % 3 + 1));
    }
    let b = Board::parse(&text, false).unwrap();
    let out = solve(&b, Rungs::ALL, 2, 1000);
    assert_eq!(out.count, Count::Exact(1));
    assert_eq!(out.grade, Grade::Rung(Rung::Cage));
    assert_eq!(out.solutions[0], sq.to_vec());
    let bad = text.replace("= 2 r1c2", "= 1 r1c2");
    let b = Board::parse(&bad, false).unwrap();
    let out = solve(&b, Rungs::ALL, 2, 1000);
    assert_eq!(out.count, Count::Exact(0));
    assert_eq!(out.grade, Grade::NoSolution);
    // With no rungs at all, search alone still counts correctly.
    // (No rungs means no pruning before the leaves: keep it to order 3.)
    for seed in 0..20 {
        let (b, _) = seeded_board(3, 3, seed % 2 == 0, seed);
        let all = solve(&b, Rungs::ALL, 100, u64::MAX).count;
        assert_eq!(solve(&b, Rungs::NONE, 100, u64::MAX).count, all);
        let (b, _) = seeded_board(4, 3, seed % 2 == 0, seed);
        let all = solve(&b, Rungs::ALL, 100, u64::MAX).count;
        assert_eq!(
            solve(&b, Rungs::only(Rung::Single), 100, u64::MAX).count,
            all
        );
    }
    // A node cap gives unknown, never a guess.
    let open = Board::parse(
        "order 4\n+ 10 r1c1 r1c2 r1c3 r1c4\n+ 10 r2c1 r2c2 r2c3 r2c4\n\
         + 10 r3c1 r3c2 r3c3 r3c4\n+ 10 r4c1 r4c2 r4c3 r4c4\n",
        false,
    )
    .unwrap();
    let out = solve(&open, Rungs::ALL, 1_000_000, 50);
    assert_eq!(
        solve(&open, Rungs::ALL, 1_000, u64::MAX).count,
        Count::Exact(576)
    );
    assert_eq!(out.count, Count::Unknown);
    assert!(out.nodes <= 51);
}

#[test]
fn hints_name_rung_and_reason() {
    let text = std::fs::read_to_string("examples/calcudoku/unique_6x6.txt").unwrap();
    let b = Board::parse(&text, false).unwrap();
    let (hs, _) = hints(&b, Rungs::ALL, 1000);
    assert!(!hs.is_empty());
    assert_eq!(hs[0].rung, Rung::Cage);
    let (hs, _) = hints(&b, Rungs::only(Rung::Cage).with(Rung::Hidden), 1000);
    let h = hs
        .iter()
        .find(|h| h.rung == Rung::Hidden)
        .expect("a hidden step");
    assert!(h.reason.contains("fits only at"), "{}", h.reason);
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gridcensus"))
}

#[test]
fn cli_solve_hint_generate() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["calcudoku", "solve", "examples/calcudoku/unique_7x7.txt"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("answers: 1 (unique)"), "{s}");
    assert!(s.contains("grade: ") && s.contains("nodes: 1"), "{s}");

    let out = bin()
        .args([
            "calcudoku",
            "hint",
            "--hide-signs",
            "examples/calcudoku/unique_7x7.txt",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.starts_with("1. ") && s.trim_end().ends_with("(cage)"),
        "{s}"
    );

    let make = |seed: &str| {
        bin()
            .args(["calcudoku", "generate", "--order", "5", "--seed", seed])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(make("11"), make("11"));
    assert_ne!(make("11"), make("12"));
    let path = dir.path().join("b.txt");
    std::fs::write(&path, make("11")).unwrap();
    let out = bin()
        .args(["calcudoku", "solve", "--cap", "1000"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());

    // Bad input: one line on stderr, exit code 2.
    std::fs::write(&path, "order 4\n+ 3 r1c1 r1c2\n").unwrap();
    let out = bin()
        .args(["calcudoku", "solve"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8(out.stderr).unwrap();
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.contains("in no cage"), "{e}");

    // A board with no solution is reported, not a crash.
    std::fs::write(
        &path,
        "order 3\n= 1 r1c1\n= 1 r1c2\n+ 16 r1c3 r2c1 r2c2 r2c3 r3c1 r3c2 r3c3\n",
    )
    .unwrap();
    let out = bin()
        .args(["calcudoku", "solve"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("no solution")
    );
}

#[test]
fn example_boards() {
    let mut seen = 0;
    for entry in std::fs::read_dir("examples/calcudoku").unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            continue; // the tail set, checked below
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let b = Board::parse(&std::fs::read_to_string(&path).unwrap(), false).unwrap();
        let out = solve(&b, Rungs::ALL, 2, 10_000_000);
        if name.starts_with("two_answers") {
            assert_eq!(out.count, Count::AtLeast(2), "{name}");
            assert_eq!(out.grade, Grade::Search, "{name}");
        } else {
            assert_eq!(out.count, Count::Exact(1), "{name}");
        }
        if name.starts_with("must") {
            assert_eq!(out.grade, Grade::Rung(Rung::Must), "{name}");
        }
        if name.starts_with("probe") {
            assert_eq!(out.grade, Grade::Rung(Rung::Probe), "{name}");
        }
        seen += 1;
    }
    assert!(seen >= 7);
}

#[test]
fn agree_job_is_deterministic_across_threads_and_shards() {
    let run = |dir: &std::path::Path, extra: &[&str]| {
        let out = bin()
            .args([
                "calcudoku",
                "agree",
                "--orders",
                "4",
                "--max-cages",
                "2-3",
                "--boards",
                "120",
                "--no-progress",
                "--results",
            ])
            .arg(dir)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    run(a.path(), &["--threads", "1"]);
    run(b.path(), &["--threads", "2"]);
    let read =
        |d: &std::path::Path| std::fs::read_to_string(d.join("calcudoku_agree.csv")).unwrap();
    let csv = read(a.path());
    assert_eq!(csv, read(b.path()));
    assert_eq!(csv.lines().count(), 3);
    let (p0, p1) = (c.path().join("p0.json"), c.path().join("p1.json"));
    for (shard, p) in [("0/2", &p0), ("1/2", &p1)] {
        let ps = p.to_string_lossy().to_string();
        run(c.path(), &["--shard", shard, "--partial-out", &ps]);
    }
    let out = bin()
        .arg("merge")
        .arg(&p0)
        .arg(&p1)
        .arg("--results")
        .arg(c.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(csv, read(c.path()));
}

#[test]
fn unsigned_cages_validate_against_every_operation() {
    // 3 + 4 = 7 on a 4x4: out of reach for '-', fine for '?' and under hidden signs.
    let text = |op: &str| {
        format!(
            "order 4\n{op} 7 r1c1 r1c2\n+ 7 r1c3 r1c4\n+ 10 r2c1 r2c2 r2c3 r2c4\n\
             + 10 r3c1 r3c2 r3c3 r3c4\n+ 10 r4c1 r4c2 r4c3 r4c4\n"
        )
    };
    assert!(err_of(&text("-")).contains("out of reach for '-'"));
    let b = Board::parse(&text("?"), false).unwrap();
    assert!(b.cage_hidden(0) && !b.cage_hidden(1));
    assert!(Board::parse(&text("-"), true).is_ok());
    // A '?' cage no operation reaches is refused, naming every operation.
    let far = "order 4\n? 50 r1c1 r1c2\n+ 7 r1c3 r1c4\n+ 10 r2c1 r2c2 r2c3 r2c4\n\
               + 10 r3c1 r3c2 r3c3 r3c4\n+ 10 r4c1 r4c2 r4c3 r4c4\n";
    assert!(err_of(far).contains("any operation"), "{}", err_of(far));
    // '?' round-trips through the text format.
    assert_eq!(Board::parse(&b.to_text(), false).unwrap().cages, b.cages);
}

#[test]
fn unsigned_text_gives_the_hidden_board() {
    use gridcensus::calcudoku::verify_count;
    for seed in 0..40 {
        let (b, _) = seeded_board(4, 3, true, seed);
        let u = Board::parse(&b.unsigned_text(), false).unwrap();
        assert!(!u.hide_signs && (0..u.cages.len()).all(|i| u.cage_hidden(i)));
        assert_eq!(verify_count(&b, 50).0, verify_count(&u, 50).0);
        assert_eq!(
            solve(&b, Rungs::ALL, 50, 1_000_000).count,
            solve(&u, Rungs::ALL, 50, 1_000_000).count
        );
    }
}

#[test]
fn keen_ids_round_trip() {
    use gridcensus::calcudoku::keen::{parse_id, to_id};
    for seed in 0..300 {
        let n = 3 + (seed % 7) as usize;
        let (b, sq) = seeded_board(n, 1 + (seed % 8) as usize, false, seed);
        let id = to_id(&b).unwrap();
        let back = parse_id(&id).unwrap();
        assert!(back.is_solution(&sq), "{id}");
        let mut want = b.cages.clone();
        want.sort_by_key(|c| c.cells[0]);
        let mut got = back.cages.clone();
        got.sort_by_key(|c| c.cells[0]);
        assert_eq!(got, want, "{id}");
        assert_eq!(to_id(&back).unwrap(), id);
    }
    // Keen's parameters (difficulty letter, multiplication only) are accepted.
    let (b, _) = seeded_board(6, 4, false, 7);
    let id = to_id(&b).unwrap();
    let desc = id.split_once(':').unwrap().1;
    for p in ["6dn", "6dxm", "6"] {
        assert_eq!(
            parse_id(&format!("{p}:{desc}")).unwrap().cages.len(),
            b.cages.len()
        );
    }
    assert!(parse_id(&format!("6dq:{desc}")).is_err());
    assert!(parse_id(&format!("7:{desc}")).is_err());
    // Hidden signs have no Keen ID.
    assert!(to_id(&b.with_hidden_signs(true)).is_err());
}

#[test]
fn keen_id_of_a_known_board() {
    use gridcensus::calcudoku::keen::{parse_id, to_id};
    // 3x3: cages {r1c1 r1c2}, {r1c3 r2c3}, {r2c1 r3c1}, {r2c2}, {r3c2 r3c3}.
    let text = "order 3\n+ 3 r1c1 r1c2\n- 1 r1c3 r2c3\n/ 2 r2c1 r3c1\n= 3 r2c2\n* 6 r3c2 r3c3\n";
    let b = Board::parse(text, false).unwrap();
    // Walls between horizontal neighbours in reading order: no, yes | yes, yes | yes, no; then
    // between vertical neighbours column by column: yes, no | yes, yes | no, yes; then the
    // virtual wall. Non-walls before each wall: a _ _ _ a a _ a _, and the run of three '_'
    // is written '_3'. Clues by first cell: +3, -1, /2, =3 (Keen writes a3), *6.
    let id = to_id(&b).unwrap();
    assert_eq!(id, "3:a_3aa_a_,a3s1d2a3m6");
    let back = parse_id(&id).unwrap();
    assert_eq!(back.to_text(), b.to_text());
}

#[test]
fn generate_keen_options() {
    let run = |args: &[&str]| {
        let out = bin()
            .args(["calcudoku", "generate"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let t = run(&[
        "--order",
        "6",
        "--max-cage",
        "4",
        "--no-singletons",
        "--mul-only",
        "--seed",
        "3",
    ]);
    let b = Board::parse(&t, false).unwrap();
    assert!(
        b.cages
            .iter()
            .all(|c| c.cells.len() >= 2 && c.cells.len() <= 4)
    );
    assert!(
        b.cages
            .iter()
            .all(|c| c.op == gridcensus::calcudoku::Op::Mul)
    );
    let t = run(&["--order", "5", "--grade", "single", "--seed", "2"]);
    let b = Board::parse(&t, false).unwrap();
    let o = solve(&b, Rungs::ALL, 2, 1_000_000);
    assert!(o.unique() && o.grade == Grade::Rung(Rung::Single), "{t}");
    let id = run(&["--order", "5", "--seed", "2", "--format", "keen"]);
    let kb = gridcensus::calcudoku::keen::parse_id(id.trim()).unwrap();
    let tb = Board::parse(&run(&["--order", "5", "--seed", "2"]), false).unwrap();
    assert_eq!(kb.cages.len(), tb.cages.len());
    // A board file may hold a Keen ID.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("k.txt");
    std::fs::write(&p, &id).unwrap();
    let out = bin().args(["calcudoku", "solve"]).arg(&p).output().unwrap();
    assert!(out.status.success());
}

#[test]
fn time_takes_lists_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "calcudoku",
            "time",
            "--orders",
            "4,5",
            "--max-cages",
            "3",
            "--boards",
            "20",
            "--signs",
            "both",
            "--tail-out",
        ])
        .arg(dir.path())
        .args(["--tail-count", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8(out.stdout).unwrap();
    for set in [
        "4x4 cage 1-3 shown",
        "4x4 cage 1-3 hidden",
        "5x5 cage 1-3 shown",
        "5x5 cage 1-3 hidden",
    ] {
        assert!(s.contains(set), "{s}");
    }
    let saved = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(saved, 8);
    let out = bin()
        .args(["calcudoku", "time"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8(out.stdout).unwrap().contains("8 file(s)"));
    let out = bin()
        .args(["calcudoku", "time", "--node-cap", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `calcudoku time --threads N` decides the same boards alike at any thread count (verdicts,
/// nodes and board order in the boards CSV), and refuses 0 threads with exit 2.
#[test]
fn time_decides_alike_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut cols = Vec::new();
    for t in ["1", "2", "3"] {
        let csv = dir.path().join(format!("t{t}.csv"));
        let out = bin()
            .args(["calcudoku", "time", "--orders", "6", "--max-cages", "5"])
            .args(["--boards", "60", "--signs", "both", "--threads", t])
            .arg("--boards-csv")
            .arg(&csv)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains(&format!("{t} thread(s)")), "{stdout}");
        // set, board, nodes, answers: everything but the times.
        let text = std::fs::read_to_string(&csv).unwrap();
        let rows: Vec<String> = text
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{},{},{},{}", f[0], f[1], f[4], f[5])
            })
            .collect();
        assert_eq!(rows.len(), 121);
        cols.push(rows);
    }
    assert_eq!(cols[0], cols[1]);
    assert_eq!(cols[0], cols[2]);
    // Some boards need search, so the nodes column is not trivially equal.
    let nodes = |r: &String| r.split(',').nth(2).unwrap().parse::<u64>().unwrap();
    assert!(cols[0].iter().skip(1).any(|r| nodes(r) > 1));
    let out = bin()
        .args(["calcudoku", "time", "--boards", "5", "--threads", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--threads") && err.lines().count() == 1,
        "{err}"
    );
}

/// The tail boards: each has two or more answers, found alike by the default search policy and
/// by probing at every node (skipped on 9×9 boards with cages of 7 or more cells, where it
/// costs a probe pass per node), and every answer is a solution by the independent verifier.
#[test]
fn tail_boards_decide_alike_under_both_policies() {
    use gridcensus::calcudoku::solve_with;
    use gridcensus::calcudoku::solver::SearchPolicy;
    use gridcensus::calcudoku::verify::verify_grid;
    let mut seen = 0;
    for entry in std::fs::read_dir("examples/calcudoku/tail").unwrap() {
        let path = entry.unwrap().path();
        let b = Board::parse(&std::fs::read_to_string(&path).unwrap(), false).unwrap();
        let a = solve(&b, Rungs::ALL, 2, 1_000_000);
        assert_eq!(a.count, Count::AtLeast(2), "{}", path.display());
        let mut sols = a.solutions.clone();
        if b.n < 9 || b.cages.iter().all(|c| c.cells.len() < 7) {
            let e = solve_with(&b, Rungs::ALL, 2, 1_000_000, SearchPolicy::PROBE_EVERYWHERE);
            assert_eq!(e.count, Count::AtLeast(2), "{}", path.display());
            sols.extend(e.solutions);
        }
        for s in &sols {
            assert!(verify_grid(&b, s), "{}", path.display());
        }
        seen += 1;
    }
    assert!(seen >= 3);
}
