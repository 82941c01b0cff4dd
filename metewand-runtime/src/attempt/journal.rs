//! What the attempt's record will say, collected as the attempt goes: the phases of its sessions, what each role's
//! session showed of itself, its logs, its dataset's and result's files, the implementation's time and statistics,
//! the evaluator's verdict and metrics. Each stage of the attempt is passed the [`Journal`] by `&mut` and notes
//! what it establishes the moment it does, so that a record made after any failure says everything that happened
//! before it. At the end [`Journal::into_record`] turns it into the record, from the parts `record.rs` makes.

use std::sync::mpsc::Sender;
use std::time::SystemTime;

use metewand_protocol::common::{Role, Verdict};
use metewand_protocol::generated::attempt_record as rec;
use metewand_protocol::generated::attempt_record::{AttemptRecord, FailureKind};
use metewand_protocol::handshake::Handshake;
use metewand_protocol::strict::{JsonObject, SafeUint, UniqueVec};

use super::AttemptPlan;
use super::failure::Failure;
use super::record::{
    confinement_record, cpus_record, environment_record, identity_record, log_path, phase_records, program_record,
    resources_record, sdk, timestamp,
};
use crate::SessionConfig;
use crate::cpus::CpuPlacement;
use crate::files::FsError;
use crate::protocol::Phase;
use crate::repository::Worker;
use crate::session::{ConfinementReport, PhaseTiming, Resources, SessionError, SessionRole, WorkerProgram};

/// What a session left for the record: once its handshake completed, the worker's report (capabilities, SDK).
#[derive(Debug, Default)]
pub(super) struct Seen {
    pub(super) handshake: Option<Handshake>,
    pub(super) program: Option<WorkerProgram>,
    pub(super) confinement: Option<ConfinementReport>,
    pub(super) cpus: Option<CpuPlacement>,
    pub(super) resources: Option<Resources>,
    /// How the session served the attempt (implementations and evaluators), once it answered hello.
    pub(super) session: Option<rec::Session>,
}

/// What the record will say, as far as the attempt got.
#[derive(Debug, Default)]
pub(super) struct Journal {
    pub(super) phases: Vec<PhaseTiming>,
    pub(super) materializer: Seen,
    pub(super) implementation: Seen,
    pub(super) evaluator: Seen,
    /// By role (as `role_index` numbers them), whether the attempt has its log.
    pub(super) logs: [bool; 3],
    /// By role, whether its log is already there, written by a reused session this attempt ended: the next
    /// session appends to it.
    pub(super) log_continues: [bool; 3],
    /// Why this attempt's sessions of each role failed to start ahead (see `ahead.rs`), where they did: said atop
    /// its log of the role when the attempt starts its own.
    pub(super) failed_ahead: [Option<String>; 3],
    /// The last worker that ran in this attempt and its last scientific request: the only one that can have left
    /// something where the executor is about to create its own entries.
    pub(super) last_worker: Option<(Role, Phase)>,
    /// Whether the dataset came from the store as it was, once resolved.
    pub(super) reused: Option<bool>,
    /// How many materializer sessions this attempt ran.
    pub(super) materializations: u32,
    /// The files of the dataset the attempt holds, once resolved.
    pub(super) dataset: Option<rec::FileRecords>,
    /// The implementation's answer: its time and statistics, which the record says even when its result is not
    /// valid.
    pub(super) implementation_time_ns: Option<SafeUint>,
    pub(super) statistics: Option<JsonObject>,
    /// The files of the result, once validated.
    pub(super) result: Option<rec::FileRecords>,
    /// A streamed attempt's profile, once every checkpoint was judged (see `profile.rs`).
    pub(super) profile: Vec<rec::ProfilePoint>,
    /// The evaluator's verdict from its answer, which the record says even when a check after it failed.
    pub(super) verdict: Option<Verdict>,
    pub(super) metrics: Option<JsonObject>,
}

impl Journal {
    /// A journal for an attempt whose sessions of each role failed to start ahead as `failed_ahead` says.
    pub(super) fn new(failed_ahead: [Option<String>; 3]) -> Journal {
        Journal { failed_ahead, ..Journal::default() }
    }

    pub(super) fn seen(&mut self, role: Role) -> &mut Seen {
        match role {
            Role::DatasetMaterializer => &mut self.materializer,
            Role::Implementation => &mut self.implementation,
            Role::ProblemEvaluator => &mut self.evaluator,
        }
    }

    /// Records what a session's handshake established: the worker's report, its program and its confinement.
    pub(super) fn saw<R: SessionRole>(&mut self, session: &crate::Session<R>) {
        let seen = self.seen(R::ROLE);
        seen.handshake = Some(session.handshake().clone());
        seen.program = session.program().cloned();
        seen.confinement = Some(session.confinement());
    }

    /// Starts a session as `config` says; a start that failed leaves the timing of its hello, if it got that far.
    pub(super) fn connect<R: SessionRole>(&mut self, config: SessionConfig) -> Result<crate::Session<R>, Failure> {
        self.connect_telling(config, None)
    }

    /// [`connect`](Journal::connect), telling `at_hello` once the worker has been started and its hello's clock runs
    /// (dropping it untold where the worker could not be started).
    pub(super) fn connect_telling<R: SessionRole>(
        &mut self,
        config: SessionConfig,
        at_hello: Option<Sender<()>>,
    ) -> Result<crate::Session<R>, Failure> {
        let connected = match at_hello {
            Some(at_hello) => crate::Session::<R>::connect_telling(config, at_hello),
            None => crate::Session::<R>::connect(config),
        };
        connected.map_err(|error| {
            self.phases.extend(error.timing().cloned());
            Failure::session(&error)
        })
    }

    /// Ends a session after its last scientific request: on success the deadline is cleared and the worker shut
    /// down; either way its timings are recorded and its processes are gone when this returns.
    pub(super) fn settle<R: SessionRole, T>(
        &mut self,
        mut session: crate::Session<R>,
        outcome: Result<T, SessionError>,
        role: Role,
    ) -> Result<T, Failure> {
        let value = match outcome {
            Ok(value) => value,
            Err(error) => {
                self.phases.extend(session.phases().iter().cloned());
                drop(session);
                return Err(Failure::session(&error));
            }
        };
        session.clear_scientific_deadline();
        let before = session.phases().to_vec();
        match session.shutdown() {
            Ok(summary) => {
                self.phases.extend(summary.phases);
                self.seen(role).resources = Some(summary.resources);
                Ok(value)
            }
            Err(error) => {
                self.phases.extend(before);
                self.phases.extend(error.timing().cloned());
                Err(Failure::session(&error))
            }
        }
    }

    /// An entry found where the executor creates its own, blamed as
    /// `Attempt::prepare_places` says (`run.rs`).
    pub(super) fn unexpected(&self, error: FsError) -> Failure {
        match (&error, self.last_worker) {
            (FsError::Unexpected { .. }, Some((role, phase))) => Failure::new(
                Some(role),
                Some(phase),
                FailureKind::InvalidOutput,
                format!("{role} worker's output is invalid: it left an {error}"),
            ),
            _ => Failure::executor("preparing a session", error),
        }
    }
}

impl Journal {
    /// The record of the attempt of `plan` started at `started_at`, as far as it got, ended by `failure` if one
    /// ended it.
    pub(super) fn into_record(
        self,
        plan: &AttemptPlan<'_>,
        started_at: SystemTime,
        failure: Option<Failure>,
    ) -> AttemptRecord {
        let outcome = match (&failure, self.verdict) {
            (Some(failure), _) if failure.kind == FailureKind::Cancelled => rec::Outcome::Cancelled,
            (Some(_), _) | (None, None) => rec::Outcome::Failed,
            (None, Some(verdict)) => verdict.into(),
        };
        let failure = failure.map(Failure::into_record);
        let materializer = plan.worker(plan.dataset.materializer());
        let implementer = plan.worker(plan.implementation.worker());
        let evaluator = plan.worker(plan.problem.evaluator());
        let implementation_handshake = self.implementation.handshake.clone();
        AttemptRecord {
            campaign: None,
            metewand_version: rec::AttemptRecordMetewandVersion::try_from(env!("CARGO_PKG_VERSION"))
                .unwrap_or_else(|_| unreachable!("a crate's version is not empty")),
            started_at: timestamp(started_at),
            finished_at: timestamp(SystemTime::now()),
            repository: rec::AttemptRecordRepository::try_from(plan.repository.root().to_string_lossy().into_owned())
                .unwrap_or_else(|_| unreachable!("a canonical path is not empty")),
            outcome,
            verdict: self.verdict,
            failure,
            problem: rec::Problem {
                contract_id: plan.problem.contract_id().clone(),
                name: plan.problem.checked_name().clone(),
                parameters: plan.problem.parameters().clone(),
                timed: Some(plan.problem.timed()),
            },
            dataset: rec::Dataset {
                files: self.dataset,
                key: plan.dataset.key(plan.dataset_seed),
                materializer: worker_session(materializer, &self.materializer),
                name: plan.dataset.checked_name().clone(),
                parameters: plan.dataset.parameters().clone(),
                reused: self.reused,
                seed: plan.dataset_seed,
            },
            implementation: rec::Implementation {
                capabilities: implementation_handshake.as_ref().map(|handshake| handshake.reported.clone()),
                confinement: self.implementation.confinement.as_ref().map(confinement_record),
                cpus: self.implementation.cpus.as_ref().map(cpus_record),
                resources: self.implementation.resources.as_ref().map(resources_record),
                files: self.result,
                identity: Some(identity_record(implementer)),
                program: self.implementation.program.as_ref().map(program_record),
                environment: environment_of(&self.implementation),
                session: self.implementation.session.clone(),
                profile: self.profile,
                implementation_time_ns: self.implementation_time_ns,
                name: plan.implementation.checked_name().clone(),
                origin: plan.implementation.external().map(|folder| rec::Origin {
                    folder: rec::OriginFolder::try_from(folder.to_string_lossy().into_owned())
                        .unwrap_or_else(|_| unreachable!("a canonical path is not empty")),
                    kind: rec::OriginKind::External,
                }),
                parameters: plan.implementation.parameters().clone(),
                sdk: implementation_handshake.as_ref().and_then(sdk),
                seed: plan.implementation_seed,
                selected: UniqueVec::try_from(vec![plan.selected()]).expect("one capability is unique"),
                statistics: self.statistics,
                worker_id: implementer.identity().clone(),
            },
            evaluator: worker_session(evaluator, &self.evaluator),
            metrics: self.metrics,
            phases: phase_records(&self.phases),
            logs: rec::Logs {
                dataset_materializer: self.logs[0].then(|| log_path(0)),
                implementation: self.logs[1].then(|| log_path(1)),
                problem_evaluator: self.logs[2].then(|| log_path(2)),
            },
        }
    }
}

/// The Python environment a session's program imports, when it is Python.
fn environment_of(seen: &Seen) -> Option<rec::PythonEnvironment> {
    seen.program.as_ref()?.environment.as_deref().map(environment_record)
}

pub(super) fn worker_session(worker: &Worker, seen: &Seen) -> rec::WorkerSession {
    rec::WorkerSession {
        capabilities: seen.handshake.as_ref().map(|handshake| handshake.reported.clone()),
        confinement: seen.confinement.as_ref().map(confinement_record),
        identity: Some(identity_record(worker)),
        program: seen.program.as_ref().map(program_record),
        environment: environment_of(seen),
        resources: seen.resources.as_ref().map(resources_record),
        sdk: seen.handshake.as_ref().and_then(sdk),
        session: seen.session.clone(),
        worker_id: worker.identity().clone(),
    }
}
