//! `gridcensus numbrix census` and `gridcensus numbrix sampler`.

use crate::engine::cli::EngineArgs;
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CensusArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct SamplerArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run_census(_args: CensusArgs) -> Result<()> {
    Err(crate::error::input_error("numbrix census: not built yet"))
}

pub fn run_sampler(_args: SamplerArgs) -> Result<()> {
    Err(crate::error::input_error("numbrix sampler: not built yet"))
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(_kind: &str, _files: &[PathBuf], _results: &Path) -> Result<bool> {
    Ok(false)
}
