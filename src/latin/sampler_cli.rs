//! `gridcensus latin samplers`: the Jacobson–Matthews sampler study.

use crate::engine::cli::EngineArgs;
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SamplerArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(_args: SamplerArgs) -> Result<()> {
    Err(crate::error::input_error("latin samplers: not built yet"))
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(_kind: &str, _files: &[PathBuf], _results: &Path) -> Result<bool> {
    Ok(false)
}
