//! Benchmark repositories: `metewand.toml` loaded with the positions of its keys and values and checked into a
//! [`CheckedRepository`].
//!
//! The check stops at the first mistake and reports it as one [`CheckError`] with its file, line and column. In
//! order, it checks: the TOML itself and its keys (no unknown key anywhere); `format = 1`; that every value maps
//! into the JSON domain; the schema catalog ([`crate::catalog`]); that every worker, role and schema reference
//! resolves; each worker's source directory and its digest; every parameter set against its schema; and the
//! `[timeouts]` and `[budgets]` durations. Identities are computed from the checked values.
//!
//! `model.rs` holds what a checked repository is (its workers, datasets, problems, implementations, budgets);
//! `load.rs` the loader that checks `metewand.toml` into one; `campaign.rs` the `[campaigns]` tables;
//! `worker.rs` the check of one `[workers.NAME]` table; `grid.rs` parameter grids, their points and the selections that name them; `external.rs` the implementations of a folder outside the repository (`metewand-implementation.toml`); `containment.rs` whether a folder lies inside a worker's source; `sources.rs` the hashed trees of workers' source
//! directories and include folders; `toml_value.rs` TOML values into JSON.

#![forbid(unsafe_code)]

mod campaign;
pub mod catalog;
mod containment;
pub mod diagnostic;
mod external;
pub mod grid;
pub mod identity;
mod load;
mod model;
mod sources;
mod toml_value;
pub mod validate;
mod worker;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::File;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use metewand_files::{self as files, document};
use metewand_protocol as protocol;
use metewand_protocol::Phase;
// The schema of `metewand.toml`: the keys each table allows are its objects' property names.
use metewand_protocol::common::{Capability, Name, Role};
/// What a problem's implementations are ranked by: `execute` (the default) or `prepare+execute`.
pub use metewand_protocol::generated::attempt_record::ProblemTimed as Timed;
use metewand_protocol::generated::repository_definition as definition;
use metewand_protocol::strict::{BoundedUint, JsonObject, PositiveNumber, SafeUint};
use serde_json::Value;
use toml::de::DeValue;

use crate::diagnostic::locate;
pub use crate::diagnostic::{CheckError, CheckErrorKind, Location, NotJsonReason, UnresolvedRef, did_you_mean};
use crate::protocol::declared::{SYSCALL_GROUPS, SyscallGroup, SyscallGroups};
pub use campaign::{CampaignSpec, MAX_PLAN_ATTEMPTS, Seeds};
pub use external::IMPLEMENTATION_FILE;
use toml_value::{
    Source, Table, Value_, boolean, check_substitutions, parse_document, string, strings, to_json, wrong_type,
};
pub use toml_value::{definition_json, expand};

use crate::catalog::CatalogBuilder;
pub use crate::catalog::SchemaCatalog;
use crate::files::walk::{OpenError, WalkError, open_beneath, open_root, walk};
use crate::files::{RelativePath, default_hash_threads};
use crate::identity::{
    DatasetKey, ProblemContractId, SourceTree, WorkerId, dataset_key, problem_contract_id, worker_identity,
};

use grid::GridAxis;
pub use grid::{DefinitionKind, Grid, MAX_GRID_POINTS, MAX_GRID_VALUES, Names, SelectionError, SelectionErrorKind};
pub use load::valid_name;
use load::*;
pub use model::*;
use sources::*;
pub use validate::{
    ValidatedDataset, ValidatedMetrics, ValidatedResult, ValidationError, ValidationErrorKind, WorkerOutputValidator,
};

#[cfg(test)]
mod tests {
    use super::valid_name;

    #[test]
    fn names() {
        assert!(valid_name("exact-solver"));
        assert!(valid_name("v1.2_x"));
        assert!(!valid_name(""));
        assert!(!valid_name("-x"));
        assert!(!valid_name("a b"));
        assert!(!valid_name("é"));
        assert!(!valid_name("a\n"));
    }
}
