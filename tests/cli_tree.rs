//! The command line speaks one vocabulary: every option of every subcommand has help text, and
//! usage errors are one line with the usage hint and exit 2.

use clap::CommandFactory;
use std::process::Command;

fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" || arg.is_hide_set() {
            continue;
        }
        let help = arg
            .get_help()
            .map(|h| h.to_string())
            .or_else(|| arg.get_long_help().map(|h| h.to_string()))
            .unwrap_or_default();
        if help.trim().is_empty() {
            missing.push(format!("{path} --{id}"));
        }
    }
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        if sub.get_about().is_none() && sub.get_long_about().is_none() {
            missing.push(format!("{path} {} (subcommand)", sub.get_name()));
        }
        walk(sub, &format!("{path} {}", sub.get_name()), missing);
    }
}

#[test]
fn every_option_and_subcommand_has_help_text() {
    let cmd = gridcensus::cli::Cli::command();
    cmd.clone().debug_assert();
    let mut missing = Vec::new();
    walk(&cmd, "gridcensus", &mut missing);
    assert!(
        missing.is_empty(),
        "options without help text:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_usage_error_is_one_line_with_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_gridcensus"))
        .args(["latin", "census", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.starts_with("gridcensus: error: "), "{err}");
    assert!(
        err.contains("--no-such-flag") && err.contains("usage:"),
        "{err}"
    );
}

#[test]
fn help_still_exits_0() {
    let out = Command::new(env!("CARGO_BIN_EXE_gridcensus"))
        .args(["latin", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}
