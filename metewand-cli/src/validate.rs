//! `metewand validate dataset|result|metrics DIR --repo R ...`: validate one output directory offline, exactly as
//! the runtime would.

use std::num::NonZeroUsize;
use std::path::Path;

use metewand_runtime::WorkerOutputValidator;
use metewand_runtime::validate::{DATASET_MANIFEST, RESULT_MANIFEST, ValidatedFile};

use crate::Failure;

const USAGE: &str = "usage: metewand validate dataset DIR --repo R --dataset D [--threads N]
       metewand validate result DIR --repo R --problem P [--threads N]
       metewand validate metrics DIR --repo R --problem P

Validates one directory a worker wrote, offline, exactly as the runtime does after the worker's session: the walk
(no links, FIFOs, sockets or devices; no undeclared file or directory; one hard link per file), the manifest at its
fixed name (dataset-manifest.json or result.json) in the restricted JSON domain and against Metewand's public schema,
its data against the schema the repository selects, and every declared file's size and SHA-256. For metrics, DIR
holds metrics.json and nothing else.

On success, prints one line per validated file, `SHA256 SIZE PATH`, in byte order of the paths, the manifest last.

options:
  --repo R        the benchmark repository whose schemas apply
  --dataset D     the dataset definition (for a dataset)
  --problem P     the problem contract (for a result or metrics)
  --threads N     how many threads hash files (default: the available parallelism)
  -h, --help      print this help

exit statuses: 0 valid, 1 rejected, 2 usage, repository or I/O error";

struct Arguments<'a> {
    kind: &'a str,
    dir: &'a str,
    repo: Option<&'a str>,
    dataset: Option<&'a str>,
    problem: Option<&'a str>,
    threads: Option<NonZeroUsize>,
}

fn usage(message: &str) -> Failure {
    Failure::Usage(format!("validate: {message}; run `metewand validate --help`"))
}

fn parse(args: &[String]) -> Result<Option<Arguments<'_>>, Failure> {
    let mut positional = Vec::new();
    let mut parsed = Arguments { kind: "", dir: "", repo: None, dataset: None, problem: None, threads: None };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value =
            |name: &str| rest.next().map(String::as_str).ok_or_else(|| usage(&format!("{name} needs a value")));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--repo" => parsed.repo = Some(value("--repo")?),
            "--dataset" => parsed.dataset = Some(value("--dataset")?),
            "--problem" => parsed.problem = Some(value("--problem")?),
            "--threads" => {
                let text = value("--threads")?;
                parsed.threads = Some(
                    text.parse().map_err(|_| usage(&format!("--threads must be a positive integer, not {text:?}")))?,
                );
            }
            flag if flag.starts_with('-') => return Err(usage(&format!("unknown option {flag:?}"))),
            other => positional.push(other),
        }
    }
    match positional[..] {
        [kind, dir] => {
            parsed.kind = kind;
            parsed.dir = dir;
        }
        [] | [_] => return Err(usage("name what to validate (dataset, result or metrics) and its DIR")),
        _ => return Err(usage("too many arguments")),
    }
    Ok(Some(parsed))
}

pub(crate) fn run(args: &[String]) -> Result<(), Failure> {
    let Some(arguments) = parse(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let repo = Path::new(arguments.repo.ok_or_else(|| usage("--repo is required"))?);
    match (arguments.kind, arguments.dataset, arguments.problem) {
        ("dataset", Some(_), None) | ("result" | "metrics", None, Some(_)) => {}
        ("dataset", None, _) => return Err(usage("a dataset is validated with --dataset D")),
        ("result" | "metrics", _, None) => return Err(usage("a result or metrics is validated with --problem P")),
        ("dataset" | "result" | "metrics", _, _) => {
            return Err(usage("use --dataset for a dataset and --problem for a result or metrics, not both"));
        }
        (other, _, _) => return Err(usage(&format!("cannot validate {other:?}: use dataset, result or metrics"))),
    }
    let repository = crate::check::load(repo)?;
    let mut validator = WorkerOutputValidator::new(&repository);
    if let Some(threads) = arguments.threads {
        validator = validator.with_threads(threads);
    }
    let dir = Path::new(arguments.dir);
    let result = match arguments.kind {
        "dataset" => {
            let name = arguments.dataset.unwrap_or_default();
            let dataset = repository
                .dataset(name)
                .ok_or_else(|| Failure::Usage(format!("validate: the repository declares no dataset {name:?}")))?;
            validator
                .validate_dataset(dataset, dir, DATASET_MANIFEST)
                .map(|v| lines(v.files(), Some(v.manifest_file())))
        }
        kind => {
            let name = arguments.problem.unwrap_or_default();
            let problem = repository
                .problem(name)
                .ok_or_else(|| Failure::Usage(format!("validate: the repository declares no problem {name:?}")))?;
            if kind == "result" {
                validator
                    .validate_result(problem, dir, RESULT_MANIFEST)
                    .map(|v| lines(v.files(), Some(v.manifest_file())))
            } else {
                validator.validate_metrics(problem, dir).map(|v| lines(std::slice::from_ref(v.file()), None))
            }
        }
    };
    match result {
        Ok(text) => {
            print!("{text}");
            Ok(())
        }
        Err(error) if error.is_io_error() => Err(Failure::Usage(format!("validate: {error}"))),
        Err(error) => Err(Failure::Rejected(format!("validate: {error}"))),
    }
}

fn lines(files: &[ValidatedFile], manifest: Option<&ValidatedFile>) -> String {
    files.iter().chain(manifest).map(|file| format!("{} {} {}\n", file.sha256(), file.size(), file.path())).collect()
}
