//! A closed output pipe (`gridcensus ... | head -1`) ends a subcommand quietly: exit 0, nothing
//! on stderr. Board files written with a UTF-8 byte-order mark are read; a bad board file is
//! named in the error.

use std::io::Read;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_gridcensus");

/// Run with stdout's reader taking one byte and then closing the pipe.
fn run_and_close(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    let _ = out.read(&mut one);
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    (status.code(), err)
}

fn board_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gridcensus-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn solve_exits_quietly_when_the_pipe_closes() {
    // A 6x6 board with several answers: solve prints a grid, a certificate and per-rung lines.
    let nbx = board_file(
        "n.txt",
        ". . . . . .\n. . . . . .\n. . 1 . . .\n. . . . . .\n. . . . . .\n. . . . . 36\n",
    );
    let kak = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/kakurasu/6x6.txt");
    for args in [
        vec!["numbrix", "solve", nbx.to_str().unwrap()],
        vec!["kakurasu", "solve", kak],
        vec!["numbrix", "--help"],
    ] {
        for _ in 0..3 {
            let (code, err) = run_and_close(&args);
            assert_eq!(code, Some(0), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
}

#[test]
fn numbrix_board_with_bom_reads_and_bad_file_is_named() {
    let good = board_file("bom.txt", "\u{feff}1 2\n4 3\n");
    let out = Command::new(BIN)
        .args(["numbrix", "solve", good.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("unique answer"));
    let bad = board_file("bad.txt", "1 x\n. .\n");
    let out = Command::new(BIN)
        .args(["numbrix", "solve", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt") && err.lines().count() == 1, "{err}");
}

#[test]
fn link_hint_at_a_path_end_names_no_placeholder() {
    // A 1x3 strip with 3 printed: link pins 2 and 1; the first hint is r1c1 = 1, a path end.
    let b = board_file("strip.txt", ". . 3\n");
    let out = Command::new(BIN)
        .args(["numbrix", "hint", b.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("r1c1 = 1"), "{text}");
    assert!(
        text.contains("1 starts the path") && !text.contains(" - "),
        "{text}"
    );
}
