//! `metewand report DIR...|BUNDLE [--out FILE] [--format html|markdown|csv|json]`: a report of campaign folders, or
//! of the campaigns of a bundle (checked as it is unpacked, named by its manifest's SHA-256), through
//! `metewand-report`. This module parses flags and writes the text the library makes.

use std::path::{Path, PathBuf};

use metewand_report::{Format, Records, Report, render};

use crate::{Failure, print_out, say};

const LONG_ABOUT: &str = "Reports what one or more campaign folders of one repository found: the plan against what
was done (an incomplete campaign is said first, with the count missing), failures by role, phase and kind with
links to their records and logs, per problem an implementation x dataset table (attempts, verdict counts, success
rate, the ranked time (the problem's `timed`: execute, or prepare+execute) median [IQR] with a bootstrap 95%
interval of the median, start-up, prepare and execute medians, median of each numeric metric), performance
profiles of time to `reached`, the ranked times on a log scale, a failure heatmap, and the environment
and identities. The HTML is one self-contained file (inline CSS and SVG, no script, nothing fetched); Markdown
holds the same tables, CSV the implementation x dataset table, JSON everything. The same records give the same
bytes.";

/// An output format.
#[derive(Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    Html,
    Markdown,
    Csv,
    Json,
}

/// `metewand report`.
#[derive(clap::Args)]
#[command(
    about = "write a report of campaign folders: tables and plots as one HTML file, or Markdown, CSV or JSON",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 written (also for an incomplete campaign, which the report and stderr say), 2 \
                  usage, a folder that\nis not a campaign folder or has no records or an invalid record, folders \
                  of different repositories, or an I/O error"
)]
pub(crate) struct Args {
    /// the campaign folders (of one repository), or one bundle `metewand bundle` wrote
    #[arg(value_name = "DIR|BUNDLE", required = true)]
    dirs: Vec<PathBuf>,
    /// write the report to FILE (atomically) instead of stdout; links are relative to its folder
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// the output format
    #[arg(long, value_enum, default_value = "html")]
    format: FormatArg,
    /// what the ranking, the tables, the profiles and the plots use (the title says so when it is not wall time)
    #[arg(long, value_enum, default_value = "wall")]
    measure: crate::gate::MeasureArg,
    #[command(flatten)]
    check: crate::campaign::CheckArgs,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let format = match args.format {
        FormatArg::Html => Format::Html,
        FormatArg::Markdown => Format::Markdown,
        FormatArg::Csv => Format::Csv,
        FormatArg::Json => Format::Json,
    };
    // A bundle is unpacked and checked in a temporary folder, kept until the report is written.
    let bundle = match args.dirs.as_slice() {
        [single] if single.is_file() => Some(metewand_bundle::open(single).map_err(|error| {
            Failure::Rejected(format!(
                "report: {} is refused: {error}; it is not the bundle its author wrote, so obtain it again",
                single.display()
            ))
        })?),
        _ => None,
    };
    let dirs = bundle.as_ref().map_or_else(|| args.dirs.clone(), metewand_bundle::Opened::campaign_folders);
    let records =
        Records::read_checked(&dirs, args.check.check()).map_err(|error| Failure::Usage(format!("report: {error}")))?;
    let records = records.measured(args.measure.measure());
    let base = match &args.out {
        Some(out) => out.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new(".")),
        None => Path::new("."),
    };
    let report = match &bundle {
        // Links into a temporary folder would lead nowhere once it is removed: they name the folders as bundled.
        Some(opened) => Report::new(&records, Some(opened.folder())).of_bundle(opened.manifest.digest.to_string()),
        None => Report::new(&records, Some(base)),
    };
    let text = render(&report, format);
    match &args.out {
        None => print_out("report", &text)?,
        Some(out) => write_out(out, base, &text)?,
    }
    let missing = report.missing();
    if missing > 0 {
        say(&format!(
            "report: the campaign is incomplete: {missing} of {} planned attempts have no terminal record (run \
             `metewand campaign run` again to resume)",
            report.planned()
        ));
    }
    Ok(())
}

/// Writes the report to `out` in `folder` atomically, so that no half-written report is ever at its name.
fn write_out(out: &Path, folder: &Path, text: &str) -> Result<(), Failure> {
    let Some(name) = out.file_name().and_then(|name| name.to_str()) else {
        return Err(Failure::Usage(format!("report: --out {} does not name a file", out.display())));
    };
    metewand_campaign::folder::write_atomically(folder, name, |file| file.write_all(text.as_bytes()))
        .map_err(|error| Failure::Usage(format!("report: cannot write {}: {error}", out.display())))
}
