//! `metewand compare A B [--factor F] [--fail-on-regression] [--format markdown|json]`: two campaign folders
//! compared cell by cell, through `metewand-report`. This module parses flags, prints and picks the exit status.

use std::path::PathBuf;

use metewand_report::{Change, Comparison, DEFAULT_FACTOR};

use crate::{Failure, print_out, say};
use metewand_runtime::exit::Exit;

const LONG_ABOUT: &str = "Compares campaign folder B with A (before and after a change, or two machines): attempts
are matched by cell (problem, dataset and dataset seed, implementation and implementation seed), and each matched
cell gets the ratio of B's median execute time to A's with a bootstrap 95% interval, a two-sided Mann-Whitney U
p-value, and a verdict: worse when the ratio is above the factor, better when below 1/factor, same otherwise; `~`
marks a difference that is not significant (p >= 0.05). A summary gives the geometric mean of the ratios; warnings
say when the environments (machine, kernel, CPU, Metewand, worker programs, -j) or the identities (workers,
contracts) differ. The same records give the same bytes.";

/// An output format.
#[derive(Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    Markdown,
    Json,
}

/// `metewand compare`.
#[derive(clap::Args)]
#[command(
    about = "compare two campaign folders cell by cell: ratio of median execute times, Mann-Whitney U, verdicts",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 compared, 1 with --fail-on-regression: a cell is significantly worse than the \
                  factor, 2 usage (--fail-on-regression where no cell's sample sizes can be significant, or where one side's \
                  times are reused sessions' and the other's fresh ones'),\na folder that \
                  is not a campaign folder or has no records or an invalid record, or an I/O error"
)]
pub(crate) struct Args {
    /// the campaign folder to compare against (before)
    #[arg(value_name = "A")]
    a: PathBuf,
    /// the campaign folder compared (after)
    #[arg(value_name = "B")]
    b: PathBuf,
    /// a cell is worse when B's median is above F times A's, better when below A's divided by F (F > 1)
    #[arg(long, value_name = "F", default_value_t = DEFAULT_FACTOR, value_parser = parse_factor)]
    factor: f64,
    /// exit 1 when any cell is significantly worse than the factor
    #[arg(long)]
    fail_on_regression: bool,
    /// the output format
    #[arg(long, value_enum, default_value = "markdown")]
    format: FormatArg,
    /// what the cells compare (the output says so when it is not wall time)
    #[arg(long, value_enum, default_value = "wall")]
    measure: crate::gate::MeasureArg,
    #[command(flatten)]
    check: crate::campaign::CheckArgs,
}

fn parse_factor(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(factor) if factor.is_finite() && factor > 1.0 => Ok(factor),
        _ => Err("the factor is a number greater than 1, such as 1.1".to_owned()),
    }
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let comparison = Comparison::by(&args.a, &args.b, args.factor, args.measure.measure(), args.check.check())
        .map_err(|error| Failure::Usage(format!("compare: {error}")))?;
    if comparison.cells.is_empty() {
        return Err(Failure::Usage(format!(
            "compare: no cell is in both campaigns ({} only in A, {} only in B), so there is nothing to compare; \
             compare two runs of the same benchmark (the same problem, dataset, implementation and seeds)",
            comparison.only_a, comparison.only_b
        )));
    }
    if let (true, Some((sessions_a, sessions_b))) = (args.fail_on_regression, comparison.sessions_differ()) {
        return Err(Failure::Usage(format!(
            "compare: --fail-on-regression compares like with like, but A's times are {sessions_a} and B's \
             {sessions_b}; run both campaigns with the same --sessions"
        )));
    }
    if args.fail_on_regression && !comparison.can_conclude() {
        return Err(Failure::Usage(format!(
            "compare: --fail-on-regression could never fire: the smallest p these cells' sample sizes allow is {:.3}, \
             not below {}; compare campaigns with at least 4 timed attempts a cell on each side",
            comparison.smallest_p(),
            comparison.alpha
        )));
    }
    let text = match args.format {
        FormatArg::Markdown => comparison.markdown(),
        FormatArg::Json => comparison.json(),
    };
    print_out("compare", &text)?;
    if !comparison.warnings.is_empty() {
        say(&format!(
            "compare: {} warnings: the two ran in different environments or with different identities (see the \
             output)",
            comparison.warnings.len()
        ));
    }
    let worse: Vec<String> =
        comparison.cells.iter().filter(|cell| cell.verdict == Change::Worse).map(|cell| cell.label()).collect();
    if args.fail_on_regression && !worse.is_empty() {
        let shown: Vec<&str> = worse.iter().take(5).map(String::as_str).collect();
        say(&format!(
            "compare: {} cells are significantly worse than {} times A: {}{}",
            worse.len(),
            args.factor,
            shown.join(", "),
            if worse.len() > shown.len() { ", ..." } else { "" }
        ));
        return Err(Failure::Status(Exit::Rejected));
    }
    Ok(())
}
