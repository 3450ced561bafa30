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

/// Histograms keyed by a parameter (an order, a size): the shape of every census table.
pub type HistogramTable = std::collections::BTreeMap<usize, crate::engine::Histogram>;

/// Read a three-column table `key,value,count` (exact integers) with the given header into
/// histograms by key. A missing file is an empty table; a malformed one an `InputError`.
pub fn read_histograms(path: &Path, header: &[&str; 3]) -> Result<HistogramTable> {
    let mut table = HistogramTable::new();
    if !path.exists() {
        return Ok(table);
    }
    let mut rdr = open_checked(path, header)?;
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let field = |j: usize| -> Result<u64> {
            rec.get(j).and_then(|s| s.parse().ok()).ok_or_else(|| {
                input_error(format!(
                    "{} line {}: field {} is not an integer",
                    path.display(),
                    i + 2,
                    j + 1
                ))
            })
        };
        let (key, value, count) = (field(0)? as usize, field(1)? as usize, field(2)?);
        table.entry(key).or_default().add(value, count);
    }
    Ok(table)
}

/// Bytes of a `key,value,count` table: one row per nonzero count, keys and values ascending.
pub fn histograms_csv(header: &[&str; 3], table: &HistogramTable) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).expect("in-memory writer");
    for (key, hist) in table {
        for (value, &count) in hist.0.iter().enumerate() {
            if count > 0 {
                w.write_record([key.to_string(), value.to_string(), count.to_string()])
                    .expect("in-memory writer");
            }
        }
    }
    w.into_inner().expect("in-memory writer")
}

/// One record of a checked CSV table: field accessors whose errors name the file and line.
pub struct Row<'a> {
    rec: csv::StringRecord,
    path: &'a Path,
    line: usize,
}

impl Row<'_> {
    /// The one-line error for a malformed field of this row.
    pub fn bad(&self) -> anyhow::Error {
        input_error(format!(
            "{} line {}: a field is malformed",
            self.path.display(),
            self.line
        ))
    }
    /// Field `j` as text.
    pub fn text(&self, j: usize) -> Result<&str> {
        self.rec.get(j).ok_or_else(|| self.bad())
    }
    /// Field `j` as an unsigned integer.
    pub fn int(&self, j: usize) -> Result<u64> {
        self.text(j)?.parse().map_err(|_| self.bad())
    }
}

/// Read a CSV table whose header must be `header`, turning each record into a value with `f`.
pub fn read_rows<T>(
    path: &Path,
    header: &[&str],
    mut f: impl FnMut(&Row) -> Result<T>,
) -> Result<Vec<T>> {
    let mut rdr = open_checked(path, header)?;
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        out.push(f(&Row {
            rec,
            path,
            line: i + 2,
        })?);
    }
    Ok(out)
}
