//! Numbrix: model, rungs, ladder, search, generator, studies. (Being built: see its issue.)

pub mod cli;
pub mod report;
