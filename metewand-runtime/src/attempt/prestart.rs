//! The evaluator's session started beside the implementation's: its configuration, what it is recorded as when it
//! does not evaluate, and the check that its places are as it left them after its hello, while it was stopped.

use std::fs;
use std::io;

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::FailureKind;

use super::failure::{Failure, Tmpdir};
use super::held::Reuse;
use super::journal::Journal;
use super::record::{LOG_PATHS, output_folder, role_index};
use super::run::{Attempt, Folders};
use super::store::remove_tree;
use crate::SessionConfig;
use crate::cpus::CpuSet;
use crate::files::FsError;
use crate::protocol::Phase;
use crate::session::{EvaluateParams, Evaluator, PhaseTiming};

/// A session's place by its path in the attempt folder, and what is there: its type and inode, and for a folder the
/// names in it (see [`Attempt::places`]).
pub(super) type Place = (String, Option<(fs::FileType, u64, Vec<std::ffi::OsString>)>);

/// The evaluator's session started beside the implementation's: connected (and stopped while the implementation
/// runs), or the failure its start ended with (and its hello's timing, when it got that far), which is the attempt's
/// only once the implementation's part succeeded.
pub(super) enum Prestarted {
    Ready { session: Box<crate::Session<Evaluator>>, tmpdir: Tmpdir, params: EvaluateParams },
    Failed(Failure, Option<PhaseTiming>),
}

impl Attempt<'_, '_> {
    /// The evaluator's configuration, `TMPDIR` and request, for a session started beside the implementation's:
    /// `None` where it may not be or would gain nothing: only where Landlock keeps the implementation from writing
    /// outside its own folders (the evaluator's places exist while the implementation runs), and where the attempt's
    /// workers have two CPUs or more (on one, the two starts would only take turns).
    pub(super) fn evaluator_config(
        &self,
        folders: &Folders,
        journal: &mut Journal,
        reuse: &Option<Reuse>,
    ) -> Result<Option<(SessionConfig, Tmpdir, EvaluateParams)>, Failure> {
        let cpus = match &self.cpus {
            Some(cpus) => cpus.len(),
            None => CpuSet::of_current_thread().map_or(1, |cpus| cpus.len()),
        };
        // A held evaluator (reused sessions) is not started beside: it waits, stopped, for its next evaluate.
        if crate::session::landlock_abi() == 0 || cpus < 2 || self.evaluator_held(reuse) {
            return Ok(None);
        }
        self.evaluator_session_config(folders, journal).map(Some)
    }

    /// The evaluator's configuration, `TMPDIR` and request, for a fresh session in the attempt folder.
    pub(super) fn evaluator_session_config(
        &self,
        folders: &Folders,
        journal: &mut Journal,
    ) -> Result<(SessionConfig, Tmpdir, EvaluateParams), Failure> {
        let plan = self.plan;
        let worker = plan.worker(plan.problem.evaluator());
        let metrics_dir = self.folder.join("work/metrics");
        let (config, _source, tmpdir) =
            self.session_config(folders, journal, worker, Role::ProblemEvaluator, &metrics_dir)?;
        let params = EvaluateParams {
            dataset_dir: self.path(&self.entry)?,
            result_dir: self.path(&self.folder.join("work/result"))?,
            metrics_path: self.path(&metrics_dir.join("metrics.json"))?,
            problem_contract_id: plan.problem.contract_id().into(),
            problem_parameters: plan.problem.parameters().clone(),
        };
        Ok((config, tmpdir, params))
    }

    /// What is at `role`'s places (its log, `TMPDIR` and output folder), each by its path in the attempt folder: the
    /// entry's type and inode, and for a folder the names in it.
    pub(super) fn places(&self, role: Role) -> Vec<Place> {
        let tmp = format!("work/tmp-{role}");
        let output = output_folder(role).map(|name| format!("work/{name}"));
        [Some(LOG_PATHS[role_index(role)]), Some(tmp.as_str()), output.as_deref()]
            .into_iter()
            .flatten()
            .map(|relative| {
                let path = self.folder.join(relative);
                let found = fs::symlink_metadata(&path).ok().map(|metadata| {
                    let mut names: Vec<std::ffi::OsString> = if metadata.is_dir() {
                        fs::read_dir(&path).map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
                    } else {
                        Ok(Vec::new())
                    }
                    .unwrap_or_default();
                    names.sort();
                    (metadata.file_type(), std::os::unix::fs::MetadataExt::ino(&metadata), names)
                });
                (relative.to_owned(), found)
            })
            .collect()
    }

    /// `role`'s places as [`Attempt::places`] found them `before`, or the invalid output of the last worker that ran.
    pub(super) fn places_unchanged(&self, journal: &Journal, role: Role, before: &[Place]) -> Result<(), Failure> {
        let now = self.places(role);
        let Some((relative, found)) = now.iter().zip(before).find(|(now, before)| now != before).map(|(now, _)| now)
        else {
            return Ok(());
        };
        let what = match found {
            None => "removed it".to_owned(),
            Some((kind, _, _)) if std::os::unix::fs::FileTypeExt::is_fifo(kind) => "put a FIFO in its place".to_owned(),
            Some((kind, _, _)) if kind.is_symlink() => "put a symbolic link in its place".to_owned(),
            Some((kind, _, names)) if kind.is_dir() => {
                let names: Vec<String> = names.iter().map(|name| name.to_string_lossy().into_owned()).collect();
                format!("changed what it holds (now {names:?})")
            }
            Some(_) => "replaced it".to_owned(),
        };
        let (role_at_fault, phase) = journal.last_worker.unwrap_or((Role::Implementation, Phase::Execute));
        let message = format!(
            "{role_at_fault} worker's output is invalid: it {what} at {relative}, made for the {role}'s session"
        );
        Err(Failure::new(Some(role_at_fault), Some(phase), FailureKind::InvalidOutput, message))
    }

    /// Removes what the executor made for `role`'s session (its log, `TMPDIR` and output folder) after a session
    /// that did nothing but say hello was ended, so that another can start in its place.
    pub(super) fn remove_places(&self, journal: &mut Journal, role: Role) -> Result<(), Failure> {
        let index = role_index(role);
        journal.logs[index] = false;
        let log = self.folder.join(LOG_PATHS[index]);
        let removed = match fs::remove_file(&log) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            result => result,
        };
        removed
            .map_err(|source| FsError::Io { action: "remove", path: log, source })
            .and_then(|()| self.remove_session_folders(role))
            .map_err(|error| Failure::executor("ending a started session", error))
    }

    /// Removes `role`'s `TMPDIR` and output folder in the attempt folder, where they still are: a session's `TMPDIR`
    /// goes with it (when its `Tmpdir` is dropped), and what is gone already is skipped.
    pub(super) fn remove_session_folders(&self, role: Role) -> Result<(), FsError> {
        let work = self.folder.join("work");
        let folders = [Some(work.join(format!("tmp-{role}"))), output_folder(role).map(|name| work.join(name))];
        folders
            .into_iter()
            .flatten()
            .filter(|path| fs::symlink_metadata(path).is_ok())
            .try_for_each(|path| remove_tree(&path).map_err(|source| FsError::Io { action: "remove", path, source }))
    }
}

/// Ends a started evaluator that will not evaluate: it ran (its hello is recorded, and its log kept), and every
/// process of it is killed and reaped when it is dropped here.
pub(super) fn discard(journal: &mut Journal, prestarted: Option<Prestarted>) {
    match prestarted {
        Some(Prestarted::Ready { session, .. }) => journal.phases.extend(session.phases().iter().cloned()),
        Some(Prestarted::Failed(_, timing)) => journal.phases.extend(timing),
        None => {}
    }
}
