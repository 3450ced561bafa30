//! Latin squares: squares, intercalates, the reduced-square census, samplers, distances.

pub mod census;
pub mod census_csv;
pub mod cli;
pub mod estimate;
pub mod estimate_cli;
pub mod estimate_report;
pub mod jm;
pub mod moments;
pub mod moments_cli;
pub mod moments_report;
pub mod report;
pub mod sampler_cli;
pub mod sampler_report;
pub mod samplers;
pub mod square;
pub mod study;
pub mod wide;
pub mod wide_census;
