//! What the kit's requests carry: each role's parameters, taken from the repository where there is one, and the
//! dataset and result the scientific requests need, a bare command's folders or made once by the repository's own
//! workers in the kit's work folder.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{DATASET_MANIFEST, Finding, Kit, Launch, Opened, Posed, Step, wire_path};
use crate::WorkerOutputValidator;
use crate::attempt::{AttemptPlan, RunOptions};
use crate::protocol::Phase;
use crate::protocol::common::Role;
use crate::protocol::generated::attempt_record::AttemptFailure;
use crate::protocol::messages::ProblemContractRef;
use crate::protocol::strict::{JsonObject, SafeUint};
use crate::repository::{CheckedRepository, Dataset, DefinitionKind, Implementation, Problem};
use crate::session::{EvaluateParams, PrepareParams};

/// What the scientific requests are given.
#[derive(Default)]
pub(super) struct Inputs {
    /// The dataset folder for `prepare` and `evaluate`, or why there is none.
    pub(super) dataset: Option<Result<PathBuf, String>>,
    /// The result folder for `evaluate`, or why there is none.
    pub(super) result: Option<Result<PathBuf, String>>,
}

impl Kit<'_> {
    // -- what the requests carry

    pub(super) fn own_method_phase(&self) -> Phase {
        match self.target.role {
            Role::DatasetMaterializer => Phase::Materialize,
            Role::Implementation => Phase::Reset,
            Role::ProblemEvaluator => Phase::Evaluate,
        }
    }

    pub(super) fn other_role_request(&self, opened: &Opened) -> (Phase, Value) {
        let dir = opened.dir.to_string_lossy().into_owned();
        match self.target.role {
            Role::DatasetMaterializer | Role::ProblemEvaluator => (
                Phase::Prepare,
                json!({"dataset_dir": dir, "id": "other-role", "implementation_parameters": {},
                    "implementation_seed": 0, "method": "prepare", "problem_contract_id": placeholder_contract(),
                    "problem_parameters": {}}),
            ),
            Role::Implementation => (
                Phase::Evaluate,
                json!({"dataset_dir": dir, "id": "other-role", "method": "evaluate",
                    "metrics_path": format!("{dir}/metrics.json"), "problem_contract_id": placeholder_contract(),
                    "problem_parameters": {}, "result_dir": dir}),
            ),
        }
    }

    pub(super) fn dataset_parameters(&self) -> JsonObject {
        self.own_dataset().map_or_else(JsonObject::new, |dataset| dataset.parameters().clone())
    }

    /// The dataset this materializer makes for the requests: the one named, or the repository's first it makes.
    pub(super) fn own_dataset(&self) -> Option<&Dataset> {
        let Launch::Repository { repository, .. } = &self.target.launch else { return None };
        let mut own = repository.datasets().values().filter(|dataset| dataset.materializer() == self.target.label);
        match &self.dataset {
            Some(name) => {
                let selected = repository.select(DefinitionKind::Dataset, name).unwrap_or_default();
                own.find(|dataset| selected.contains(&dataset.name()))
            }
            None => own.next(),
        }
    }

    /// The dataset an implementation's or evaluator's requests carry: the one named, or the repository's first.
    fn carried_dataset(&self) -> Option<&Dataset> {
        let Launch::Repository { repository, .. } = &self.target.launch else { return None };
        match &self.dataset {
            Some(name) => {
                let selected = repository.select(DefinitionKind::Dataset, name).ok()?;
                selected.first().and_then(|first| repository.dataset(first))
            }
            None => repository.datasets().values().next(),
        }
    }

    /// What a repository worker's requests posed: the problem (none for a materializer) and the dataset with its
    /// seed; `None` for a bare command.
    pub(super) fn posed(&self) -> Option<Posed> {
        let Launch::Repository { .. } = &self.target.launch else { return None };
        let (problem, dataset) = match self.target.role {
            Role::DatasetMaterializer => (None, self.own_dataset()),
            _ => (self.problem().map(|problem| problem.name().to_owned()), self.carried_dataset()),
        };
        Some(Posed {
            problem,
            dataset: dataset.map(|dataset| dataset.name().to_owned()),
            dataset_seed: self.dataset_seed,
        })
    }

    /// The problem the requests pose: the first the evaluator judges, or the repository's first.
    pub(super) fn problem(&self) -> Option<&Problem> {
        let Launch::Repository { repository, .. } = &self.target.launch else { return None };
        if let Some(problem) = &self.problem {
            return repository.problem(problem);
        }
        let mut problems = repository.problems().values();
        match self.target.role {
            Role::ProblemEvaluator => problems.find(|problem| problem.evaluator() == self.target.label),
            _ => problems.next(),
        }
    }

    /// The implementation entry whose parameters the requests carry: the first naming this worker.
    fn implementation(&self) -> Option<&Implementation> {
        let Launch::Repository { repository, .. } = &self.target.launch else { return None };
        repository.implementations().values().find(|implementation| implementation.worker() == self.target.label)
    }

    fn contract(&self) -> ProblemContractRef {
        let id = self.problem().map_or_else(placeholder_contract, |problem| problem.contract_id().as_str().to_owned());
        ProblemContractRef::try_from(id).expect("a contract id is nonempty")
    }

    pub(super) fn prepare_params(&mut self, seed: u64) -> Step<PrepareParams> {
        let dataset = self.dataset()?;
        Ok(PrepareParams {
            dataset_dir: wire_path(&dataset)?,
            problem_contract_id: self.contract(),
            problem_parameters: self.problem().map_or_else(JsonObject::new, |p| p.parameters().clone()),
            implementation_parameters: self
                .implementation()
                .map_or_else(JsonObject::new, |implementation| implementation.parameters().clone()),
            implementation_seed: SafeUint::try_from(seed).expect("a small seed"),
        })
    }

    pub(super) fn evaluate_params(&mut self, metrics: &Path) -> Step<EvaluateParams> {
        let dataset = self.dataset()?;
        let result = self.result()?;
        Ok(EvaluateParams {
            dataset_dir: wire_path(&dataset)?,
            result_dir: wire_path(&result)?,
            metrics_path: wire_path(metrics)?,
            problem_contract_id: self.contract(),
            problem_parameters: self.problem().map_or_else(JsonObject::new, |p| p.parameters().clone()),
        })
    }

    /// Whether the scientific requests can be made: `Err(why)` when an input is missing.
    pub(super) fn needs(&mut self) -> Result<(), String> {
        match self.target.role {
            Role::DatasetMaterializer => match &self.target.launch {
                Launch::Repository { .. } if self.own_dataset().is_none() => {
                    Err(format!("no dataset of the repository is made by {}", self.target.label))
                }
                _ => Ok(()),
            },
            Role::Implementation => self.dataset().map(drop).map_err(|problem| problem.why),
            Role::ProblemEvaluator => {
                if matches!(self.target.launch, Launch::Repository { .. }) && self.problem().is_none() {
                    return Err(format!("no problem of the repository is judged by {}", self.target.label));
                }
                self.dataset().and_then(|_| self.result()).map(drop).map_err(|problem| problem.why)
            }
        }
    }

    fn dataset(&mut self) -> Step<PathBuf> {
        self.provide();
        self.inputs.dataset.clone().expect("provided").map_err(Finding::new)
    }

    fn result(&mut self) -> Step<PathBuf> {
        self.provide();
        self.inputs.result.clone().expect("provided").map_err(Finding::new)
    }

    /// Finds or makes, once, the dataset (and for an evaluator the result) the requests need.
    fn provide(&mut self) {
        if self.inputs.dataset.is_none() {
            let (dataset, result) = self.make_inputs();
            self.inputs = Inputs { dataset: Some(dataset), result: Some(result) };
        }
    }

    fn make_inputs(&self) -> (Result<PathBuf, String>, Result<PathBuf, String>) {
        let repository = match &self.target.launch {
            Launch::Command(bare) => {
                let dataset = bare.dataset_dir.clone().ok_or_else(|| {
                    format!("a bare {} needs a dataset folder (--dataset DIR) for this", self.target.role)
                });
                let result = bare
                    .result_dir
                    .clone()
                    .ok_or_else(|| "a bare problem_evaluator needs a result folder (--result DIR) for this".to_owned());
                return (dataset, result);
            }
            Launch::Repository { repository, .. } => *repository,
        };
        match self.make_repository_inputs(repository) {
            Ok((dataset, result)) => (Ok(dataset), result),
            Err(why) => (Err(why.clone()), Err(why)),
        }
    }

    /// The repository's own workers make the dataset: its materializer alone for an implementation, a whole
    /// attempt of the repository's first implementation for an evaluator, which also needs its result.
    fn make_repository_inputs(
        &self,
        repository: &CheckedRepository,
    ) -> Result<(PathBuf, Result<PathBuf, String>), String> {
        let problem = self.problem().ok_or("the repository has no problem to pose")?;
        let dataset = self.carried_dataset().ok_or("the repository has no dataset")?;
        let implementation = match self.target.role {
            Role::Implementation => self.implementation(),
            _ => repository.implementations().values().next(),
        }
        .ok_or("the repository has no implementation entry for this")?;
        let seed = self.dataset_seed;
        let plan =
            AttemptPlan::new(repository, problem.name(), dataset.name(), implementation.name(), seed, SafeUint::ZERO)
                .map_err(|error| error.to_string())?;
        let folder = self.work.join("inputs");
        let state = self.store.clone().unwrap_or_else(|| self.work.join("inputs-state"));
        for dir in [&folder, &state] {
            fs::create_dir_all(dir).map_err(|error| format!("the executor could not create a folder: {error}"))?;
        }
        let options = RunOptions::new(state.clone());
        let entry = state.join("datasets").join(dataset.key(seed).to_string());
        let validator = WorkerOutputValidator::new(repository);
        let no_dataset = |failure: Option<&AttemptFailure>| {
            format!("the repository's materializer could not make dataset {:?}: {}", dataset.name(), describe(failure))
        };
        if self.target.role != Role::ProblemEvaluator {
            let made = plan.materialize_dataset(&folder, &options);
            validator
                .validate_dataset(dataset, &entry, DATASET_MANIFEST)
                .map_err(|_| no_dataset(made.failure.as_ref()))?;
            return Ok((entry, Err("only an evaluator is given a result".to_owned())));
        }
        let record = plan.run(&folder, &options);
        validator
            .validate_dataset(dataset, &entry, DATASET_MANIFEST)
            .map_err(|_| no_dataset(record.failure.as_ref()))?;
        let result_dir = folder.join("work/result");
        let result = validator.validate_result(problem, &result_dir, "result.json").map(|_| result_dir).map_err(|_| {
            format!(
                "implementation {:?} could not make a result: {}",
                implementation.name(),
                describe(record.failure.as_ref())
            )
        });
        Ok((entry, result))
    }
}

/// One line about an attempt that did not give the kit what it needed.
fn describe(failure: Option<&AttemptFailure>) -> String {
    match failure {
        Some(failure) => failure.message.as_str().lines().next().unwrap_or_default().to_owned(),
        None => "its attempt did not get that far".to_owned(),
    }
}

fn placeholder_contract() -> String {
    format!("mw1-problem-contract-{}", "0".repeat(64))
}
