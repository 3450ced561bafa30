//! Numbrix: model, rungs, ladder, search, generator, studies; `census/` holds the raw walk
//! engine, the frontier counter and the backbite sampler.

pub mod census;
pub mod cli;
pub mod report;
