//! Judging a stored result again: a problem's evaluator, in a fresh confined session of its own, on a result and a
//! dataset already on disk (a bundle's), its metrics validated once the session has ended. A reader compares what it
//! answers with the record; nothing of an attempt is run again.
//!
//! The session is configured as an attempt's fresh evaluator is: it runs in a verified copy of its source, may write
//! only its metrics folder and its `TMPDIR`, sees the dataset and the result read-only, and the repository is hidden
//! but for what its command names.

use std::io;
use std::path::{Path, PathBuf};

use metewand_protocol::common::Verdict;
use metewand_protocol::messages::Path as WirePath;
use metewand_protocol::strict::JsonObject;

use crate::attempt::source::SourceCopyError;
use crate::attempt::{SOURCES_DIR, phase_timeouts, stored_copy, worker_command, worker_confinement};
use crate::session::{EvaluateParams, Evaluator};
use crate::{CheckedRepository, Session, SessionConfig, SessionError, ValidationError, WorkerOutputValidator};

/// What the evaluator answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// Its verdict.
    pub verdict: Verdict,
    /// Its metrics, validated against the problem's metric schema.
    pub metrics: JsonObject,
}

/// Why a result could not be judged again.
#[derive(Debug, thiserror::Error)]
pub enum RejudgeError {
    /// The repository has no such problem.
    #[error("the repository has no problem {0:?}")]
    UnknownProblem(String),
    /// A folder could not be made or named.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The folder.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The evaluator's source could not be copied.
    #[error("the evaluator's source cannot be copied: {0}")]
    Source(#[from] SourceCopyError),
    /// The evaluator declares a Python environment that is not built (in the repository's default state folder) or
    /// that changed since it was built.
    #[error("the evaluator's Python environment cannot be used: {0}")]
    Environment(#[from] crate::environment::EnvironmentError),
    /// The evaluator's session failed.
    #[error("the evaluator's session failed: {0}")]
    Session(#[from] SessionError),
    /// What the evaluator wrote is not valid metrics.
    #[error("the evaluator's metrics are invalid: {0}")]
    Metrics(#[from] ValidationError),
}

/// Judges the result in `result` on the dataset in `dataset` with `problem`'s evaluator, in a fresh session whose
/// folders (its source copy, `TMPDIR`, metrics and log) are made in `work`, a new folder.
pub fn rejudge(
    repository: &CheckedRepository,
    problem: &str,
    dataset: &Path,
    result: &Path,
    work: &Path,
) -> Result<Judged, RejudgeError> {
    let problem = repository.problems().get(problem).ok_or_else(|| RejudgeError::UnknownProblem(problem.to_owned()))?;
    let worker = &repository.workers()[problem.evaluator()];
    let io = |action, path: &Path| {
        let path = path.to_owned();
        move |source| RejudgeError::Io { action, path, source }
    };
    let (metrics, tmp) = (work.join("metrics"), work.join("tmp"));
    std::fs::create_dir(work).map_err(io("create", work))?;
    for folder in [&metrics, &tmp] {
        std::fs::create_dir(folder).map_err(io("create", folder))?;
    }
    let source = stored_copy(worker, &work.join(SOURCES_DIR))?;
    // The environment it declares, as `env build` made it in the repository's default state folder: never built here.
    let envs = repository.root().join(".metewand").join(crate::environment::ENVS_DIR);
    let environment = crate::environment::verified_environment(worker, &envs)?;
    let mut confinement = worker_confinement(worker, repository.limits())
        .writable(&metrics)
        .writable(&tmp)
        .hide_unless_named(repository.root())
        .readable(dataset)
        .readable(result);
    if let Some(venv) = &environment {
        confinement = confinement.readable(venv);
    }
    let command = worker_command(worker, &source, Some(&tmp), environment.as_deref());
    let log = work.join("problem_evaluator.log");
    let config =
        SessionConfig::new(command, worker.identity().clone(), phase_timeouts(repository), log).confine(confinement);
    let wire = |path: &Path| {
        path.to_str().and_then(|text| WirePath::try_from(text.to_owned()).ok()).ok_or_else(|| RejudgeError::Io {
            action: "name",
            path: path.to_owned(),
            source: io::Error::other("not a UTF-8 path"),
        })
    };
    let params = EvaluateParams {
        dataset_dir: wire(dataset)?,
        result_dir: wire(result)?,
        metrics_path: wire(&metrics.join("metrics.json"))?,
        problem_contract_id: problem.contract_id().into(),
        problem_parameters: problem.parameters().clone(),
    };
    let mut session = Session::<Evaluator>::connect(config)?;
    let response = session.evaluate(params)?;
    session.clear_scientific_deadline();
    session.shutdown()?;
    let validated = WorkerOutputValidator::new(repository).validate_metrics(problem, &metrics)?;
    Ok(Judged { verdict: response.verdict, metrics: validated.metrics().metrics.clone() })
}
