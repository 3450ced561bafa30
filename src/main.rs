//! `gridcensus`: a thin front over the library. Errors surface once, here, on one line.
//! Exit codes: 0 success, 1 a report check failed, 2 bad input or a refused operation
//! (usage errors included). A closed output pipe (`gridcensus ... | head -1`) ends any
//! subcommand quietly with exit 0.

use clap::Parser;

fn main() {
    quiet_on_closed_pipe();
    let cli = match gridcensus::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
                _ => {
                    eprintln!("gridcensus: error: {}", gridcensus::cli::usage_line(&e));
                    std::process::exit(2);
                }
            }
        }
    };
    if let Err(e) = gridcensus::cli::run(cli) {
        if is_broken_pipe(&e) {
            std::process::exit(0);
        }
        let code = if e.downcast_ref::<gridcensus::CheckFailed>().is_some() {
            1
        } else {
            2
        };
        eprintln!("gridcensus: error: {}", one_line(&e));
        std::process::exit(code);
    }
}

/// `print!` panics when stdout's reader has gone away (the runtime ignores SIGPIPE, so the write
/// fails with EPIPE). That is not an error of the run: the reader asked for no more output. Every
/// subcommand prints through the standard macros, so one panic hook covers them all; any other
/// panic keeps the default report.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// Whether an error comes from writing to a closed pipe (explicit `writeln!` to stdout).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error with its context chain on one line.
fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}
