//! What holds sessions between attempts, and what an attempt is lent of them: [`HeldSessions`], the sessions a
//! sequence of attempts keeps (reused ones, DESIGN §19, or those started ahead of their attempt, see `ahead.rs`); a
//! [`Held`] session, stopped, in a folder of its own, `STATE/sessions/.tmp-<random>/` ([`Attempt::held_folder`]);
//! the [`Reuse`] an attempt carries; and whether its evaluation goes through a held evaluator session
//! ([`Attempt::evaluator_held`]). What a held session does for an attempt is `reuse.rs`'s (the implementation's)
//! and `judge.rs`'s (the evaluator's).

use std::fs;
use std::path::{Path, PathBuf};

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record as rec;

use super::Cell;
use super::failure::Failure;
use super::record::role_index;
use super::run::Attempt;
use super::store::{self, remove_tree};
use crate::cpus::CpuSet;
use crate::files::FsError;
use crate::protocol::common::WorkerId;
use crate::repository::Worker;
use crate::session::{Implementation, KernelSupport, MountConfinement, ProcessIsolation, SessionRole};

/// The implementation sessions a sequence of attempts keeps between them (a campaign slot's, or a Slurm task's),
/// given to each attempt by [`AttemptPlan::run_holding`]. With [`SessionMode::Fresh`](rec::SessionMode) it holds
/// nothing and every attempt starts its own. Dropping it ends what it holds.
#[derive(Debug)]
pub struct HeldSessions {
    mode: rec::SessionMode,
    warmup: u64,
    /// Workers whose sessions are never reused (they did not pass the conformance kit's `reset-then-again`).
    refused: Vec<WorkerId>,
    /// What the kernel offers, asked once, at the first attempt lent sessions.
    kernel: Option<KernelSupport>,
    /// The CPUs the next attempt's sessions are started on ahead of it, outside every timed slot's (see `ahead.rs`).
    ahead_on: Option<CpuSet>,
    held: Option<Held>,
    /// The evaluator's session held for the next attempt.
    evaluator: Option<Held<crate::session::Evaluator>>,
    /// Why the next attempt's sessions of each role (as [`role_index`] numbers them) failed to start ahead, where
    /// they did: said in its log.
    failed_ahead: [Option<String>; 3],
}

/// A session kept for the next attempt of its worker, stopped.
pub(super) struct Held<R: SessionRole = Implementation> {
    pub(super) session: crate::Session<R>,
    pub(super) worker: WorkerId,
    /// Its folder, `STATE/sessions/.tmp-<random>/`, locked while it lives.
    pub(super) place: store::Staging,
    /// How many attempts it served.
    pub(super) served: u64,
    /// The cells of those attempts: it serves no cell twice.
    pub(super) cells: std::collections::BTreeSet<Cell>,
    /// How many of the session's phases were before this attempt's.
    pub(super) since: usize,
    /// How many warm-up cycles it ran before its first attempt.
    pub(super) warmup: u64,
    /// The session's phases its warm-up took, which no attempt records.
    pub(super) skip: std::ops::Range<usize>,
    /// Where it was started ahead of its attempt (see `ahead.rs`): a fresh session, which serves that one attempt.
    pub(super) ahead: Option<CpuSet>,
}

impl<R: SessionRole> std::fmt::Debug for Held<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held").field("place", &self.place).field("served", &self.served).finish()
    }
}

impl<R: SessionRole> Held<R> {
    /// Shuts the worker down (its processes are gone either way) and removes its folder.
    pub(super) fn end(self) {
        let Held { session, place, .. } = self;
        let _ = session.shutdown();
        let _ = remove_tree(place.path());
    }
}

impl HeldSessions {
    /// Sessions served as `mode` says.
    pub fn new(mode: rec::SessionMode) -> HeldSessions {
        HeldSessions {
            mode,
            warmup: 0,
            refused: Vec::new(),
            kernel: None,
            ahead_on: None,
            held: None,
            evaluator: None,
            failed_ahead: Default::default(),
        }
    }

    /// With fresh sessions, has [`AttemptPlan::run_ahead`] start the next attempt's sessions on `cpus` while an
    /// attempt runs: CPUs outside every timed slot's, such as [`SlotPlan::executor`](crate::cpus::SlotPlan::executor)'s.
    #[must_use]
    pub fn ahead_on(mut self, cpus: CpuSet) -> HeldSessions {
        self.ahead_on = Some(cpus);
        self
    }

    /// The CPUs the next attempt's sessions are started on ahead of it, when they are.
    pub(super) fn ahead(&self) -> Option<&CpuSet> {
        self.ahead_on.as_ref().filter(|_| self.mode == rec::SessionMode::Fresh)
    }

    /// What the kernel offers, asked once.
    pub(super) fn kernel(&mut self) -> KernelSupport {
        *self.kernel.get_or_insert_with(KernelSupport::probe)
    }

    /// Holds the sessions started ahead for the next attempt, in place of any left from an earlier one, and why
    /// those that failed to start did.
    pub(super) fn hold_ahead(
        &mut self,
        implementation: Ahead<Held>,
        evaluator: Ahead<Held<crate::session::Evaluator>>,
    ) {
        self.close();
        self.failed_ahead[role_index(Role::Implementation)] = implementation.as_ref().err().cloned().flatten();
        self.failed_ahead[role_index(Role::ProblemEvaluator)] = evaluator.as_ref().err().cloned().flatten();
        self.held = implementation.ok();
        self.evaluator = evaluator.ok();
    }

    /// Why the next attempt's sessions failed to start ahead, by role, where they did; taken by that attempt.
    pub(super) fn failed_ahead(&mut self) -> [Option<String>; 3] {
        std::mem::take(&mut self.failed_ahead)
    }

    /// Has each new reused session run `cycles` discarded prepare, execute and reset cycles on its first attempt's
    /// inputs before that attempt's own prepare (nothing for fresh sessions).
    #[must_use]
    pub fn warmup(mut self, cycles: u64) -> HeldSessions {
        self.warmup = cycles;
        self
    }

    /// Never reuses the sessions of the workers `refused` (their attempts start fresh sessions, and say so).
    #[must_use]
    pub fn refuse(mut self, refused: impl IntoIterator<Item = WorkerId>) -> HeldSessions {
        self.refused.extend(refused);
        self
    }

    /// The worker whose session is held, if one is: its next attempt would not start a worker.
    pub fn held_worker(&self) -> Option<&WorkerId> {
        self.held.as_ref().map(|held| &held.worker)
    }

    /// Whether the session held now (if any) would serve an attempt of `cell` itself, rather than be ended for a new
    /// one because it served the cell already: what a caller choosing among attempts prefers.
    pub fn serves_anew(&self, cell: &Cell) -> bool {
        self.held.as_ref().is_none_or(|held| !held.cells.contains(cell))
    }

    /// How sessions are served.
    pub fn mode(&self) -> rec::SessionMode {
        self.mode
    }

    /// Ends the session held, if any: its worker is shut down and its folder removed.
    pub fn close(&mut self) {
        if let Some(held) = self.held.take() {
            held.end();
        }
        if let Some(held) = self.evaluator.take() {
            held.end();
        }
        self.failed_ahead = Default::default();
    }

    /// What an attempt is lent: with reused sessions, the sessions held (and the rule to keep new ones); with fresh
    /// ones, the sessions started ahead for it, if any.
    pub(super) fn lend(&mut self) -> Option<Reuse> {
        let keeps = self.mode == rec::SessionMode::Reuse;
        if !keeps && self.held.is_none() && self.evaluator.is_none() {
            return None;
        }
        Some(Reuse {
            kernel: self.kernel(),
            keeps,
            held: self.held.take(),
            evaluator: self.evaluator.take(),
            warmup: if keeps { self.warmup } else { 0 },
            refused: self.refused.clone(),
        })
    }

    pub(super) fn give_back(&mut self, reuse: Option<Reuse>) {
        if let Some(reuse) = reuse {
            self.held = reuse.held.or(self.held.take());
            self.evaluator = reuse.evaluator.or(self.evaluator.take());
        }
    }
}

impl Drop for HeldSessions {
    fn drop(&mut self) {
        self.close();
    }
}

/// What an attempt run with reused sessions carries: the session held for it, if any, and given back after it.
pub(super) struct Reuse {
    /// What the kernel offers ([`HeldSessions`] asks once).
    pub(super) kernel: KernelSupport,
    /// Whether sessions are reused: kept after an attempt, and new ones held. Otherwise only sessions started
    /// ahead are lent, each for its one attempt.
    pub(super) keeps: bool,
    pub(super) held: Option<Held>,
    pub(super) evaluator: Option<Held<crate::session::Evaluator>>,
    pub(super) warmup: u64,
    pub(super) refused: Vec<WorkerId>,
}

impl Reuse {
    /// Ends every session it holds.
    pub(super) fn end(self) {
        if let Some(held) = self.held {
            held.end();
        }
        if let Some(evaluator) = self.evaluator {
            evaluator.end();
        }
    }

    /// Whether `worker`'s sessions would have a private view here, which a reused session needs (its inputs are
    /// shown there).
    pub(super) fn private_view(&self, worker: &Worker, isolation: ProcessIsolation) -> bool {
        self.kernel.expected_with(worker.network(), isolation).mounts == MountConfinement::Private
    }
}

/// A session started ahead, or why not: `None` where it was not tried, what happened where it failed.
pub(super) type Ahead<H> = Result<H, Option<String>>;

/// Makes `work/<name>/` in a held session's folder `place`, given to the identity its worker runs as: where one
/// request of it writes.
pub(super) fn request_folder(place: &Path, name: &str) -> Result<PathBuf, Failure> {
    let dir = place.join("work").join(name);
    fs::create_dir(&dir).and_then(|()| crate::session::hand_over(&dir)).map_err(|source| {
        Failure::executor("preparing a reused session", FsError::Io { action: "create", path: dir.clone(), source })
    })?;
    Ok(dir)
}

impl Attempt<'_, '_> {
    /// Whether this attempt's evaluation goes through a held evaluator session: with reused sessions, where the
    /// evaluator has a private view to be shown each attempt's inputs in; with fresh ones, where its evaluator was
    /// started ahead of it.
    pub(super) fn evaluator_held(&self, reuse: &Option<Reuse>) -> bool {
        let worker = self.plan.worker(self.plan.problem.evaluator());
        reuse.as_ref().is_some_and(|reuse| {
            let started = reuse.evaluator.as_ref().is_some_and(|held| &held.worker == worker.identity());
            (reuse.keeps || started) && reuse.private_view(worker, self.process_isolation)
        })
    }

    /// A new held session's folder, `STATE/sessions/.tmp-<random>/`, locked (as a dataset's staging folder is) for
    /// as long as the session lives, with `work/tmp/` and the mount points `dataset/` and (for an evaluator)
    /// `result/`. The folders of sessions no run holds (an interrupted run's) are removed first.
    pub(super) fn held_folder(&self) -> Result<store::Staging, Failure> {
        let sessions = self.datasets.with_file_name(SESSIONS_DIR);
        let made = fs::create_dir_all(&sessions).and_then(|()| {
            store::clean_leftovers(&sessions)?;
            let place = store::Staging::create(&sessions)?;
            fs::create_dir_all(place.path().join("work/tmp"))?;
            fs::create_dir(place.path().join("dataset"))?;
            fs::create_dir(place.path().join("result"))?;
            Ok(place)
        });
        made.map_err(|source| {
            Failure::executor("preparing a reused session", FsError::Io { action: "create", path: sessions, source })
        })
    }
}

/// The state folder's folder of held sessions.
pub const SESSIONS_DIR: &str = "sessions";
