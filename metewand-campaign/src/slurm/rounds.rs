//! A round of `campaign submit --until-decided` on Slurm: how its decide job submits the next round, with the
//! options the round's submission records, and how it records what it decided.

use std::num::NonZeroU64;
use std::path::{Path, PathBuf};

use metewand_protocol::generated::attempt_record::SessionMode;

use super::{Decision, Error, SlurmSubmission, SubmitConfig, UntilDecided, read_submission, write_submission};

impl SubmitConfig {
    /// How the decide job `own_job` of `submission` (a round of `--until-decided`) submits the next round: with the
    /// submission's program, state folder, pack size, sessions and Slurm options, failed attempts left as they are
    /// (a round retries nothing) and no check of programs; `None` for a submission without `--until-decided`.
    pub fn next_round(submission: &SlurmSubmission, own_job: Option<u64>) -> Option<SubmitConfig> {
        let until = submission.until_decided.clone()?;
        let (sessions, refused, ahead) = match &submission.sessions {
            Some(sessions) => {
                ((sessions.mode, sessions.warmup.get()), sessions.refused.clone(), sessions.ahead == Some(true))
            }
            None => ((SessionMode::Fresh, 0), Vec::new(), false),
        };
        Some(SubmitConfig {
            binary: PathBuf::from(submission.binary.as_str()),
            state_dir: PathBuf::from(submission.state_dir.as_str()),
            pack: NonZeroU64::new(submission.pack_size.get()).unwrap_or(NonZeroU64::MIN),
            max_parallel: until.max_parallel.and_then(|n| NonZeroU64::new(n.get())),
            time: until.time.clone(),
            partition: until.partition.clone(),
            account: until.account.clone(),
            sbatch_args: until.sbatch_args.clone(),
            retry_failed: false,
            rerun_changed: None,
            sweep_processes: submission.sweep_processes,
            sessions,
            refused,
            ahead,
            until_decided: Some(UntilDecided { decision: None, ..until }),
            own_job,
        })
    }
}

/// Records `decision` in submission `number` of `folder` (a round of `--until-decided`): what its decide job did.
pub fn record_decision(folder: &Path, number: u64, decision: Decision) -> Result<(), Error> {
    let mut submission = read_submission(folder, number)?;
    let Some(until) = submission.until_decided.as_mut() else {
        return Err(Error::NoSuchTask {
            what: format!("submission {number} of {} is not a round of --until-decided", folder.display()),
        });
    };
    until.decision = Some(decision);
    write_submission(&submission, folder)
}
