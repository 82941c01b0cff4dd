//! Python models: plain classes with strict `from_dict` and `to_dict`, standard library only.

use crate::{Error, GeneratedFile, Schema};

pub(crate) fn generate(_schemas: &[Schema]) -> Result<Vec<GeneratedFile>, Error> {
    Ok(Vec::new())
}
