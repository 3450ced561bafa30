//! Numbrix: model, rungs, ladder, search, reversal certificate, bank and studies; `census/`
//! holds the raw walk engine, the frontier counter and the backbite sampler.

pub mod bank;
pub mod bits;
pub mod board;
pub mod census;
pub mod certificate;
pub mod cli;
pub mod degrees;
pub mod generate;
pub mod ladder;
pub mod ladder_check;
pub mod path;
pub mod report;
pub mod search;
pub mod second;
pub mod studies;
pub mod walk_search;
