//! `metewand verify BUNDLE|FOLDER`: a bundle, or a bundle unpacked, checked against its manifest and its records,
//! through `metewand-bundle`. This module parses flags and prints what differs.

use std::path::PathBuf;

use metewand_bundle::{BundleError, Verification};

use crate::{Failure, print_out};

const LONG_ABOUT: &str = "Checks a bundle (the archive `metewand bundle` wrote) or a folder it was unpacked in: the
manifest is canonical and valid; every file is exactly what the manifest lists (none added, removed or changed, no
link, no path that leaves the folder, no more bytes than declared); every record is valid and filed under its id,
ran workers of the bundled repository, names result files the bundle holds, and has the metrics its metrics.json
holds. Each difference is one line on stdout. An archive is unpacked in a temporary folder that is removed after.";

/// `metewand verify`.
#[derive(clap::Args)]
#[command(
    about = "check a bundle, or an unpacked one, against its manifest and its records",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 verified, 1 a difference was found or the bundle was refused, 2 usage or I/O error"
)]
pub(crate) struct Args {
    /// the bundle, or the folder it was unpacked in
    #[arg(value_name = "BUNDLE|FOLDER")]
    bundle: PathBuf,
    /// also judge every stored result again with the bundled evaluator, each in a fresh confined session, on the
    /// bundled dataset (a bundle made with --with-datasets), and compare verdicts and metrics with the records
    #[arg(long)]
    rejudge: bool,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let name = args.bundle.display().to_string();
    let refused = |error: BundleError| match error {
        BundleError::Io { .. } | BundleError::TargetInUse { .. } => Failure::Usage(format!("verify: {error}")),
        error => Failure::Rejected(format!(
            "verify: {name} is refused: {error}; it is not the bundle its author wrote, so obtain it again"
        )),
    };
    let (opened, mut verification) = if args.bundle.is_dir() {
        (None, metewand_bundle::verify_folder(&args.bundle).map_err(refused)?)
    } else {
        let (opened, verification) = metewand_bundle::verify_bundle(&args.bundle).map_err(refused)?;
        (Some(opened), verification)
    };
    let mut judged = None;
    let mut unjudged = Vec::new();
    if args.rejudge {
        let (folder, manifest) = match &opened {
            Some(opened) => (opened.folder().to_owned(), &opened.manifest),
            None => (args.bundle.clone(), &metewand_bundle::read_manifest_file(&args.bundle).map_err(refused)?),
        };
        let rejudged = metewand_bundle::rejudge(&folder, manifest).map_err(refused)?;
        verification.differences.extend(rejudged.differences);
        unjudged = rejudged.unjudged;
        judged = Some((rejudged.judged, rejudged.checkpoints));
    }
    // Listed first, so that they are said whatever the differences are.
    let text: String = unjudged.iter().map(|record| format!("{record}\n")).collect();
    print_out("verify", &text)?;
    finish(&name, &verification, judged)?;
    unconfirmed(&name, unjudged.len())
}

/// Ends after the results that could not be judged again: exit 1 when there are any (`n`), since their verdicts
/// are then neither confirmed nor contradicted (which is not a difference of the bundle's).
fn unconfirmed(name: &str, n: usize) -> Result<(), Failure> {
    if n == 0 {
        return Ok(());
    }
    Err(Failure::Rejected(format!(
        "verify: {name} is as it claims, but {n} of its results could not be judged again (listed above), so their \
         verdicts are not confirmed; make the evaluator runnable from the bundle (or bundle with --with-datasets) \
         and verify again",
    )))
}

/// Lists the differences and ends: exit 0 when there are none, 1 otherwise.
pub(crate) fn finish(name: &str, verification: &Verification, judged: Option<(u64, u64)>) -> Result<(), Failure> {
    let mut text = String::new();
    for difference in &verification.differences {
        text.push_str(&format!("{difference}\n"));
    }
    if verification.differences.is_empty() {
        let judged = judged.map_or(String::new(), |(judged, checkpoints)| match checkpoints {
            0 => format!(", {judged} results judged again alike"),
            _ => format!(", {judged} results and {checkpoints} checkpoints judged again alike"),
        });
        text.push_str(&format!(
            "{name}: {} files and {} records verified{judged}\nmanifest SHA-256 {}\n",
            verification.files, verification.records, verification.digest
        ));
    }
    print_out("verify", &text)?;
    match verification.differences.len() {
        0 => Ok(()),
        n => Err(Failure::Rejected(format!(
            "verify: {name} differs from what it claims in {n} place{} listed above; do not trust its results",
            if n == 1 { "" } else { "s" }
        ))),
    }
}
