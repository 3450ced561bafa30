//! Calcudoku (KenKen-style): board model and file format, the six-rung ladder, node-capped
//! search and counting, the intercalate-flip certificate, hidden-sign mode, grades and hints,
//! an independent verifier and a random board generator.

pub mod balance;
pub mod board;
pub mod certificate;
pub mod cli;
pub mod cuts;
pub mod generate;
pub mod keen;
pub mod report;
pub mod report_cuts;
pub mod solver;
pub mod squares;
mod table;
pub mod timing;
pub mod verify;

pub use board::{Board, Cage, Op};
pub use certificate::{Flip, certified_flips};
pub use solver::{Count, Grade, Outcome, RootProbe, Rung, Rungs, SearchPolicy, solve, solve_with};
pub use verify::verify_count;
pub mod agree;
pub mod bank;
pub mod pricing;
pub mod repair;
pub mod report_bank;
