//! Error kinds that decide the process exit code (see `main.rs`).
//!
//! Everything is an `anyhow::Error` on its way up; `main` prints it on one line and exits with
//! code 2 (bad input, refused operation) unless the error is a [`CheckFailed`], which exits 1.

use thiserror::Error;

/// Bad input: a malformed file, an impossible option, a refused resume or merge. Exit code 2.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// A report check failed: results disagree with a published or cross-checked value. Exit code 1.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct CheckFailed(pub String);

/// Shorthand: `bail_input!("order {} out of range", n)` returns an [`InputError`].
#[macro_export]
macro_rules! bail_input {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new($crate::error::InputError(format!($($arg)*))))
    };
}

/// Build an [`InputError`] as an `anyhow::Error`.
pub fn input_error(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(InputError(msg.into()))
}
