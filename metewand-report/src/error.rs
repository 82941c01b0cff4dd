//! What a report or a comparison cannot be made from.

use std::path::PathBuf;

use metewand_campaign::FolderError;

/// Why campaign folders cannot be reported on; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The folder has no `campaign.json`.
    #[error(
        "{} is not a campaign folder (it has no campaign.json); give a folder `metewand campaign run` wrote \
         (STATE/campaigns/NAME/, or its --out)",
        path.display()
    )]
    NotACampaign {
        /// The folder.
        path: PathBuf,
    },
    /// `campaign.json` cannot be read or parsed.
    #[error("{0}")]
    Folder(FolderError),
    /// No planned attempt has a record yet.
    #[error("the campaign folder {} has no attempt records yet (0 of {planned} planned attempts ran); run `metewand campaign run` first", path.display())]
    NoRecords {
        /// The folder.
        path: PathBuf,
        /// Attempts in its plan.
        planned: usize,
    },
    /// A record fails its schema or names another attempt: the report would silently leave it out.
    #[error(
        "the record {} is invalid ({reason}){}; run `metewand campaign run` again to re-run it, or remove its folder",
        path.display(),
        if *others > 0 { format!(", and {others} more records of that folder are invalid") } else { String::new() }
    )]
    InvalidRecord {
        /// The record's path.
        path: PathBuf,
        /// Why.
        reason: String,
        /// How many other records of the folder are invalid.
        others: usize,
    },
    /// Folders of different repositories cannot be put in one report.
    #[error(
        "{} holds campaigns of repository {first_repository} but {} of repository {second_repository}; report \
         each repository's campaigns separately, or compare them with `metewand compare`",
        first.display(),
        second.display()
    )]
    DifferentRepositories {
        /// The first folder.
        first: PathBuf,
        /// Its repository.
        first_repository: String,
        /// The folder of another repository.
        second: PathBuf,
        /// That repository.
        second_repository: String,
    },
    /// No folder was given.
    #[error("no campaign folder was given")]
    NoFolders,
}

impl From<FolderError> for ReportError {
    fn from(error: FolderError) -> ReportError {
        match error {
            FolderError::NoPlan { path } => ReportError::NotACampaign { path },
            other => ReportError::Folder(other),
        }
    }
}
