//! `gridcensus`: a thin front over the library. Errors surface once, here, on one line.
//! Exit codes: 0 success, 1 a report check failed, 2 bad input or a refused operation
//! (usage errors included).

use clap::Parser;

fn main() {
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
        let code = if e.downcast_ref::<gridcensus::CheckFailed>().is_some() {
            1
        } else {
            2
        };
        eprintln!("gridcensus: error: {}", one_line(&e));
        std::process::exit(code);
    }
}

/// The error with its context chain on one line.
fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}
