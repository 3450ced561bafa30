//! Numbrix sections of the report.

use crate::report::Section;
use anyhow::Result;
use std::path::Path;

pub fn sections(results: &Path) -> Result<Vec<Section>> {
    let mut out = Vec::new();
    out.extend(super::census::report::sections(results)?);
    Ok(out)
}
