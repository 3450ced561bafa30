//! gridcensus: exact censuses, sampling studies and solver benchmarks for solver-backed grid
//! puzzles (Calcudoku, Numbrix, Kakurasu) and the Latin squares under Calcudoku.
//!
//! The [`engine`] knows nothing about puzzles: it runs a [`engine::Job`] (an ordered list of work
//! units, each yielding a mergeable partial result) across threads, shards, journals and merges.
//! Each puzzle module keeps the same inner shape: model, rungs, ladder, search, generator, studies.

pub mod cli;
pub mod engine;
pub mod error;
pub mod reference;
pub mod report;

pub mod calcudoku;
pub mod kakurasu;
pub mod latin;
pub mod numbrix;

pub use error::{CheckFailed, InputError};
