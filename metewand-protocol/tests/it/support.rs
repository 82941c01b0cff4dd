//! Helpers shared by the test modules: where the workspace is, and JSON values compared by meaning.

use std::path::{Path, PathBuf};

use metewand_testkit::{Requirement, skip};
use serde_json::Value;

pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate sits in the workspace").to_owned()
}

/// Rewrites every integral number within ±(2^53 − 1) as an integer, so that `17.0` read by a JSON reader
/// compares equal to the `17` a type writes back: numbers are values, not spellings.
pub fn normalize_numbers(value: &Value) -> Value {
    const MAX: f64 = 9_007_199_254_740_991.0;
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() <= MAX => {
                if f >= 0.0 {
                    Value::from(f as u64)
                } else {
                    Value::from(f as i64)
                }
            }
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(normalize_numbers).collect()),
        Value::Object(members) => {
            Value::Object(members.iter().map(|(k, v)| (k.clone(), normalize_numbers(v))).collect())
        }
        _ => value.clone(),
    }
}

/// The shared conformance corpora: `$METEWAND_CORPORA`, or `shared/corpora` beside the workspace.
///
/// When the folder is absent this reports the skip through [`metewand_testkit::skip`] (to stderr and the skip log)
/// and returns `None`, so that the caller returns; where the corpora are required (`corpora` in
/// `METEWAND_TEST_REQUIRED`, and under `CI=true`) absence fails the test instead.
pub fn corpora() -> Option<PathBuf> {
    let dir = match std::env::var_os("METEWAND_CORPORA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    skip(Requirement::Corpora, &format!("no conformance corpora at {} (set METEWAND_CORPORA)", dir.display()));
    None
}
