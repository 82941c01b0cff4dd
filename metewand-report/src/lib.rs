//! Reports and comparisons of campaign folders: what a campaign found, in tables and plots a scientist would
//! publish. Statistics, tables and plots only: this crate starts no process and opens no connection; it reads
//! campaign folders through `metewand-campaign` and returns text.
//!
//! - [`Records::read`] reads one or more campaign folders of one repository (typed [`ReportError`]s for a folder
//!   that is not a campaign folder, one without records, an invalid record, or folders of different
//!   repositories).
//! - [`Report::new`] builds the report: per problem the ranking first (each implementation's mean rank over
//!   instances with a bootstrap interval, and who is tied with whom by signed-rank tests with Holm's adjustment:
//!   [`ranks::Ranking`]), the plan against what was done, failures by role, phase and kind with
//!   links to their logs, per problem the implementation × dataset table (verdict counts, success rate, execute
//!   time median \[IQR\] with a bootstrap 95% interval of the median and the smallest relative difference it
//!   resolves, median of each numeric metric), performance
//!   profiles, execute times and failures as plots, the convergence curves of streamed attempts (each changing
//!   metric's suboptimality against time, a panel per dataset, with the problem's tolerance and the time to reach
//!   it), the scaling along a dataset grid's keys, the environment and the identities. [`render`] writes it as
//!   one self-contained HTML file, Markdown, CSV or JSON.
//! - One table model, one plot frame, a renderer per format: each of the report's tables is built once as a
//!   [`table::Table`] and written by [`table::html`], [`table::markdown`] or [`table::csv`], and each plot supplies
//!   only its series to the one frame that draws its axes, ticks, labels and legend.
//! - [`Comparison`] matches two folders' attempts by cell and gives each cell a ratio of median execute times
//!   with a bootstrap interval, a Mann–Whitney U p-value and a verdict.
//! - [`standing`] says where a submission's implementations stand in a folder's ranking, problem by problem: what
//!   `metewand judge` prints.
//!
//! Everything is deterministic: bootstrap resampling uses [`stats::SplitMix64`] seeded from each cell's name, and
//! no time of writing is printed, so the same records give the same bytes.
//!
//! ```
//! use std::path::PathBuf;
//! use metewand_report::stats::{Summary, mann_whitney, seed_for};
//! use metewand_report::{Records, ReportError};
//!
//! // Execute times in seconds of two versions of one cell.
//! let before = [1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97];
//! let after = [2.01, 1.97, 2.05, 1.99, 2.02, 2.00, 1.98];
//! let summary = Summary::of(&before, seed_for("cell")).unwrap();
//! assert_eq!(summary.median, 1.00);
//! assert!(summary.ci_low <= summary.median && summary.median <= summary.ci_high);
//! // The same data and seed give the same interval.
//! assert_eq!(Summary::of(&before, seed_for("cell")), Some(summary));
//! // Every value of `after` is larger: the exact two-sided p-value is 2 / C(14, 7).
//! let test = mann_whitney(&before, &after).unwrap();
//! assert!(test.exact && (test.p - 2.0 / 3432.0).abs() < 1e-12);
//!
//! // A folder that is not a campaign folder is a typed error with one clear sentence.
//! let error = Records::read(&[PathBuf::from("/nonexistent/campaign")]).unwrap_err();
//! assert!(matches!(error, ReportError::NotACampaign { .. }));
//! assert!(error.to_string().contains("is not a campaign folder"));
//! ```

#![forbid(unsafe_code)]

pub mod compare;
pub mod curves;
pub mod decide;
pub mod error;
pub mod html;
pub mod judge;
mod kept;
pub mod load;
pub mod measure;
pub mod profile;
pub mod ranks;
mod reading;
pub mod report;
pub mod rounds;
pub mod scaling;
pub mod stats;
pub mod svg;
pub mod table;
pub mod tables;
pub mod text;
pub mod units;

use std::path::{Path, PathBuf};

pub use compare::{Change, Comparison, DEFAULT_FACTOR};
pub use error::ReportError;
pub use judge::{Standing, standing};
pub use load::Records;
pub use measure::Measure;
pub use profile::Profile;
pub use report::Report;

/// How a report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One self-contained HTML file.
    Html,
    /// Markdown tables.
    Markdown,
    /// The implementation × dataset table as CSV.
    Csv,
    /// The whole report as JSON.
    Json,
}

/// Reads the campaign folder `folder` as a report reads it (its index's entries trusted), so that the reading's
/// cache, `index/report.bin`, is left for the next report or comparison of it, which then decodes the cache rather
/// than every entry. Refuses what a report refuses: a folder with no record, or with an invalid one.
pub fn keep_reading(folder: &Path) -> Result<(), ReportError> {
    reading::FolderReading::read(folder, metewand_campaign::index::Check::Entries).map(drop)
}

/// Reads `folders` and writes their report in `format`, with links relative to the folder `base` (where the
/// report will be; `None` for the folders as given).
pub fn report(folders: &[PathBuf], base: Option<&Path>, format: Format) -> Result<String, ReportError> {
    let records = Records::read(folders)?;
    Ok(render(&Report::new(&records, base), format))
}

/// A report in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Html => html::render(report),
        Format::Markdown => text::markdown(report),
        Format::Csv => text::csv(report),
        Format::Json => text::json(report),
    }
}
