//! `metewand bundle FOLDER... --out FILE [--with-datasets]`: campaign folders, their repository and optionally their
//! datasets in one archive a reader verifies, through `metewand-bundle`. This module parses flags and prints.

use std::path::PathBuf;

use metewand_bundle::{BundleError, BundleRequest};

use crate::{Failure, print_out};

const LONG_ABOUT: &str = "Writes one archive (tar compressed with zstd) holding the campaign folders as they are
(records, exports, results, metrics, logs), the repository they ran (metewand.toml, its schema files and every
worker's source and include trees, as their identities were computed) and, with --with-datasets, the datasets of
the store their plans name; its first entry is manifest.json, canonical JSON listing every other file with its
size and SHA-256. The manifest's SHA-256 names the bundle: it is printed here, by `metewand verify` and in the
report of the bundle. The same files give the same bytes. A reader runs `metewand verify FILE` and `metewand report
FILE`.";

/// `metewand bundle`.
#[derive(clap::Args)]
#[command(
    about = "write campaign folders, their repository and optionally their datasets as one verifiable archive",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 written, 2 usage, a folder that cannot be bundled, or an I/O error"
)]
pub(crate) struct Args {
    /// the campaign folders (of one repository)
    #[arg(value_name = "FOLDER", required = true)]
    folders: Vec<PathBuf>,
    /// the archive to write (atomically)
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// also bundle the datasets the campaigns' plans name, from the store
    #[arg(long)]
    with_datasets: bool,
    /// with --with-datasets, the state folder whose store holds them (default: REPO/.metewand/)
    #[arg(long, value_name = "DIR", requires = "with_datasets")]
    state_dir: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let request =
        BundleRequest { campaigns: args.folders, with_datasets: args.with_datasets, state_dir: args.state_dir };
    let written = metewand_bundle::bundle(&request, &args.out).map_err(|error| match error {
        BundleError::Changed { .. } => Failure::Rejected(format!("bundle: {error}")),
        error => Failure::Usage(format!("bundle: {error}; nothing was written to {}", args.out.display())),
    })?;
    print_out(
        "bundle",
        &format!(
            "{}: {} files, {} bytes ({} compressed)\nmanifest SHA-256 {}\n",
            args.out.display(),
            written.files,
            written.bytes,
            written.compressed,
            written.digest
        ),
    )
}
