//! The scientific checks: the role's own request, each time in a fresh session, its output validated once the
//! worker has exited (`outputs`), then run again with the same seed and with another and the validated
//! inventories compared (`determinism`).

use std::time::Instant;

use super::{Check, CheckResult, DATASET_MANIFEST, Finding, Kit, Launch, OTHER_SEED, Outcome, SEED, Step, wire_path};
use crate::WorkerOutputValidator;
use crate::protocol::common::Role;
use crate::protocol::strict::SafeUint;
use crate::session::{ExecuteParams, MaterializeParams, Reply, Request};

impl Kit<'_> {
    // -- outputs and determinism

    pub(super) fn science(&mut self) {
        let started = Instant::now();
        if let Err(why) = self.needs() {
            self.results.push(CheckResult::new(Check::Outputs, Outcome::Skip, why.clone()));
            self.results.push(CheckResult::new(Check::Determinism, Outcome::Skip, why));
            return;
        }
        let validating = matches!(self.target.launch, Launch::Repository { .. });
        let first = self.scientific_run(SEED);
        let first = match first {
            Ok(inventory) => {
                let why = match &inventory {
                    Some(inventory) => format!("{} accepted by the validator", inventory.what),
                    None => format!("{} answered", self.own_method_phase().as_str()),
                };
                self.push(Check::Outputs, Ok(why), started);
                inventory
            }
            Err(problem) => {
                self.push(Check::Outputs, Err(problem), started);
                self.results.push(CheckResult::new(
                    Check::Determinism,
                    Outcome::Skip,
                    "needs an output the validator accepts",
                ));
                return;
            }
        };
        if !validating {
            // Replace the pass with a skip that says why nothing was validated.
            let why = format!(
                "{} answered, but a bare command has no repository whose schemas could validate its output",
                self.own_method_phase().as_str()
            );
            let result = self.results.last_mut().expect("just pushed");
            result.outcome = Outcome::Skip;
            result.why = why;
            self.results.push(CheckResult::new(
                Check::Determinism,
                Outcome::Skip,
                "compares validated inventories, which a bare command does not have",
            ));
            return;
        }
        let first = first.expect("a repository worker's output is validated");
        let started = Instant::now();
        let outcome = self.determinism(&first);
        let mut result = match outcome {
            Ok(Ok(why)) => CheckResult::new(Check::Determinism, Outcome::Pass, why),
            Ok(Err(why)) => {
                let outcome = if self.strict { Outcome::Fail } else { Outcome::Warn };
                CheckResult::new(Check::Determinism, outcome, why)
            }
            Err(problem) => problem.failed(Check::Determinism),
        };
        result.duration = started.elapsed();
        self.results.push(result);
    }

    /// `Ok(Ok(why))` deterministic, `Ok(Err(why))` a warning, `Err` a run that failed.
    fn determinism(&mut self, first: &Inventory) -> Step<Result<String, String>> {
        let again = self.scientific_run(SEED)?.expect("validated");
        if again.entries != first.entries {
            return Ok(Err(format!(
                "the same seed gave different outputs: {}",
                first.difference(&again).unwrap_or_else(|| "the inventories differ".to_owned())
            )));
        }
        if self.target.role == Role::ProblemEvaluator {
            return Ok(Ok("the same inputs gave the same metrics and verdict twice".to_owned()));
        }
        let other = self.scientific_run(OTHER_SEED)?.expect("validated");
        let seed_independent =
            matches!(self.target.launch, Launch::Repository { worker, .. } if worker.seed_independent());
        match (other.entries == first.entries, seed_independent) {
            (true, false) => Ok(Err(format!(
                "seeds {SEED} and {OTHER_SEED} gave the same output; does it use its seed? (a worker whose output \
                 does not depend on its seed says so with deterministic = \"seed-independent\")"
            ))),
            (true, true) => Ok(Ok(format!(
                "seed {SEED} twice and seed {OTHER_SEED} gave the same output, as a seed-independent worker's must"
            ))),
            (false, false) => Ok(Ok(format!("seed {SEED} twice gave the same output, seed {OTHER_SEED} another"))),
            (false, true) => Ok(Err(format!(
                "seeds {SEED} and {OTHER_SEED} gave different outputs, though the worker declares \
                 deterministic = \"seed-independent\""
            ))),
        }
    }

    /// The role's scientific request in a fresh session, shut down, then (for a repository worker) validated.
    fn scientific_run(&mut self, seed: u64) -> Step<Option<Inventory>> {
        let check = Check::Outputs;
        let mut opened = self.open(check)?;
        let seed = SafeUint::try_from(seed).expect("a small seed");
        let out = opened.out.clone();
        let (sent, outcome) = match self.target.role {
            Role::DatasetMaterializer => {
                let params = MaterializeParams {
                    source_dir: wire_path(&opened.source)?,
                    dataset_parameters: self.dataset_parameters(),
                    dataset_seed: seed,
                    output_dir: wire_path(&out)?,
                };
                let sent = format!("materialize with seed {seed} into {}", out.display());
                (sent, opened.session.call(Request::Materialize(params)))
            }
            Role::Implementation => {
                let prepare = self.prepare_params(seed.get())?;
                let sent = format!("prepare with implementation seed {seed}, then execute into {}", out.display());
                let execute = ExecuteParams { result_dir: wire_path(&out)? };
                let outcome = opened
                    .session
                    .call(Request::Prepare(prepare))
                    .and_then(|_| opened.session.call(Request::Execute(execute)));
                (sent, outcome)
            }
            Role::ProblemEvaluator => {
                let params = self.evaluate_params(&out.join("metrics.json"))?;
                let sent = format!("evaluate into {}", out.join("metrics.json").display());
                (sent, opened.session.call(Request::Evaluate(params)))
            }
        };
        let reply = match outcome {
            Ok(reply) => reply,
            Err(error) => {
                self.observe(check, &error);
                return Err(Finding::session(Some(sent.as_bytes()), &error));
            }
        };
        self.close(check, opened)?;
        let Launch::Repository { repository, .. } = &self.target.launch else { return Ok(None) };
        let validator = WorkerOutputValidator::new(repository);
        let rejected = |error: crate::ValidationError| {
            Finding::new(format!("the output was rejected: {error}")).sent(sent.as_bytes())
        };
        Ok(Some(match reply {
            Reply::Materialized(response) => {
                let dataset = self.own_dataset().expect("checked by needs");
                let manifest = response.dataset.manifest.to_string();
                if manifest != DATASET_MANIFEST {
                    return Err(Finding::new(format!(
                        "the dataset's manifest must be {DATASET_MANIFEST:?} at its root, not {manifest:?}"
                    )));
                }
                let validated = validator.validate_dataset(dataset, &out, &manifest).map_err(rejected)?;
                Inventory::of_files("the dataset", validated.files().iter().chain([validated.manifest_file()]))
            }
            Reply::Executed(response) => {
                let problem = self.problem().expect("checked by needs");
                let validated =
                    validator.validate_result(problem, &out, &response.result.manifest).map_err(rejected)?;
                Inventory::of_files("the result", validated.files().iter().chain([validated.manifest_file()]))
            }
            Reply::Evaluated(response) => {
                let problem = self.problem().expect("checked by needs");
                let validated = validator.validate_metrics(problem, &out).map_err(rejected)?;
                let mut inventory = Inventory::of_files("the metrics", [validated.file()]);
                let verdict = serde_json::to_value(response.verdict).expect("a verdict is a string");
                inventory.entries.push(("verdict".to_owned(), verdict.to_string()));
                inventory
            }
            Reply::Acknowledged => unreachable!("the last request of a scientific run has an answer of its own"),
        }))
    }
}

/// A validated output's inventory: every file with its digest.
struct Inventory {
    what: &'static str,
    entries: Vec<(String, String)>,
}

impl Inventory {
    fn of_files<'f>(
        what: &'static str,
        files: impl IntoIterator<Item = &'f crate::validate::ValidatedFile>,
    ) -> Inventory {
        // In the validator's order (sorted by path), the manifest last: a difference is reported in a data file
        // before the manifest that lists it.
        let entries: Vec<(String, String)> =
            files.into_iter().map(|file| (file.path().to_string(), file.sha256().to_string())).collect();
        Inventory { what, entries }
    }

    /// The first entry that differs, as one phrase.
    fn difference(&self, other: &Inventory) -> Option<String> {
        for (path, digest) in &self.entries {
            match other.entries.iter().find(|(other_path, _)| other_path == path) {
                None => return Some(format!("{path} is missing the second time")),
                Some((_, other_digest)) if other_digest != digest => {
                    return Some(format!("{path} has another content the second time"));
                }
                Some(_) => {}
            }
        }
        other
            .entries
            .iter()
            .find(|(path, _)| !self.entries.iter().any(|(own, _)| own == path))
            .map(|(path, _)| format!("{path} appears only the second time"))
    }
}
