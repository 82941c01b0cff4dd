//! `metewand validate dataset|result|metrics DIR --repo R ...`: validate one output directory offline, exactly as
//! the runtime would.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use metewand_runtime::WorkerOutputValidator;
use metewand_runtime::repository::{DefinitionKind, SelectionErrorKind};
use metewand_runtime::validate::{DATASET_MANIFEST, RESULT_MANIFEST, RootProblem, ValidatedFile, ValidationErrorKind};

use crate::{Failure, print_out};

const LONG_ABOUT: &str = "usage: metewand validate dataset DIR --repo R --dataset D [--threads N]
       metewand validate result DIR --repo R --problem P [--threads N]
       metewand validate metrics DIR --repo R --problem P

Validates one directory a worker wrote, offline, exactly as the runtime does after the worker's session: the walk
(no links, FIFOs, sockets or devices; no undeclared file or directory; one hard link per file), the manifest at its
fixed name (dataset-manifest.json or result.json) in the restricted JSON domain and against Metewand's public schema,
its data against the schema the repository selects, and every declared file's size and SHA-256. For metrics, DIR
holds metrics.json and nothing else.

On success, prints one line per validated file, `SHA256 SIZE PATH`, in byte order of the paths, the manifest last.";

const EXIT_STATUSES: &str = "exit statuses: 0 valid, 1 rejected, 2 usage, repository or I/O error";

/// `metewand validate`: one subcommand per kind of output.
#[derive(clap::Args)]
#[command(
    about = "validate a directory a worker wrote, exactly as the runtime would",
    long_about = LONG_ABOUT,
    after_help = EXIT_STATUSES,
    subcommand_required = true
)]
pub(crate) struct Args {
    #[command(subcommand)]
    kind: Kind,
}

#[derive(clap::Subcommand)]
enum Kind {
    /// validate a dataset: DIR/dataset-manifest.json and the files it declares
    #[command(after_help = EXIT_STATUSES)]
    Dataset {
        #[command(flatten)]
        common: Common,
        /// the dataset definition whose schemas apply
        #[arg(long, value_name = "D")]
        dataset: String,
    },
    /// validate an implementation's result: DIR/result.json and the files it declares
    #[command(after_help = EXIT_STATUSES)]
    Result {
        #[command(flatten)]
        common: Common,
        /// the problem contract whose result schema applies
        #[arg(long, value_name = "P")]
        problem: String,
    },
    /// validate an evaluator's metrics: DIR/metrics.json, alone
    #[command(after_help = EXIT_STATUSES)]
    Metrics {
        #[command(flatten)]
        common: Common,
        /// the problem contract whose metric schema applies
        #[arg(long, value_name = "P")]
        problem: String,
    },
}

/// What every kind takes.
#[derive(clap::Args)]
struct Common {
    /// the directory the worker wrote
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// the benchmark repository whose schemas apply
    #[arg(long, value_name = "R")]
    repo: PathBuf,
    /// how many threads hash files (default: the available parallelism)
    #[arg(long, value_name = "N", value_parser = crate::at_least_one::<NonZeroUsize>)]
    threads: Option<NonZeroUsize>,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let (common, name) = match &args.kind {
        Kind::Dataset { common, dataset } => (common, dataset),
        Kind::Result { common, problem } | Kind::Metrics { common, problem } => (common, problem),
    };
    let repository = crate::gate::load(&common.repo)?;
    let mut validator = WorkerOutputValidator::new(&repository);
    if let Some(threads) = common.threads {
        validator = validator.with_threads(threads);
    }
    let dir = common.dir.as_path();
    let result = match &args.kind {
        Kind::Dataset { .. } => {
            // A grid's points share their schemas: the first of those named validates as any would.
            let dataset = match repository.select(DefinitionKind::Dataset, name) {
                Ok(points) => points.first().and_then(|point| repository.dataset(point)),
                Err(error) if matches!(error.kind(), SelectionErrorKind::UnknownName { .. }) => None,
                Err(other) => return Err(Failure::Usage(format!("validate: {other}"))),
            }
            .ok_or_else(|| Failure::Usage(format!("validate: the repository declares no dataset {name:?}")))?;
            validator
                .validate_dataset(dataset, dir, DATASET_MANIFEST)
                .map(|v| lines(v.files(), Some(v.manifest_file())))
        }
        kind => {
            let problem = repository
                .problem(name)
                .ok_or_else(|| Failure::Usage(format!("validate: the repository declares no problem {name:?}")))?;
            if let Kind::Result { .. } = kind {
                validator
                    .validate_result(problem, dir, RESULT_MANIFEST)
                    .map(|v| lines(v.files(), Some(v.manifest_file())))
            } else {
                validator.validate_metrics(problem, dir).map(|v| lines(std::slice::from_ref(v.file()), None))
            }
        }
    };
    match result {
        Ok(text) => print_out("validate", &text),
        // DIR names a file: the command was given the wrong argument, no worker wrote anything wrong.
        Err(error) if matches!(error.kind(), ValidationErrorKind::Root { problem: RootProblem::NotADirectory }) => {
            let manifest = match args.kind {
                Kind::Dataset { .. } => DATASET_MANIFEST,
                Kind::Result { .. } => RESULT_MANIFEST,
                Kind::Metrics { .. } => "metrics.json",
            };
            Err(Failure::Usage(format!(
                "validate: {} is not a folder; give the folder that holds {manifest}",
                dir.display()
            )))
        }
        Err(error) if error.is_io_error() => Err(Failure::Usage(format!("validate: {error}"))),
        Err(error) => Err(Failure::Rejected(format!("validate: {error}"))),
    }
}

fn lines(files: &[ValidatedFile], manifest: Option<&ValidatedFile>) -> String {
    files.iter().chain(manifest).map(|file| format!("{} {} {}\n", file.sha256(), file.size(), file.path())).collect()
}
