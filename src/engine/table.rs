//! Reading result tables back: open a CSV and insist on its exact header, with one-line
//! [`InputError`](crate::error::InputError)s naming the file.

use crate::error::input_error;
use anyhow::Result;
use std::path::Path;

/// Open `path` as a CSV whose header must be exactly `header`.
pub fn open_checked(path: &Path, header: &[&str]) -> Result<csv::Reader<std::fs::File>> {
    let mut rdr = csv::Reader::from_path(path)
        .map_err(|e| input_error(format!("cannot read {}: {e}", path.display())))?;
    let headers = rdr
        .headers()
        .map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?
        .clone();
    if headers.iter().collect::<Vec<_>>() != header {
        return Err(input_error(format!(
            "{} has unexpected columns {:?}",
            path.display(),
            headers
        )));
    }
    Ok(rdr)
}
