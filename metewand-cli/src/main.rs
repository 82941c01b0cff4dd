//! The `metewand` command: Metewand's tools for benchmark authors, worker authors and the people who run them.
//!
//! Each command is one module with its own `Args` (a `clap::Args` derive) and a `run(Args)`; [`Command`] lists
//! them. A failure is one sentence on stderr and an exit status; the logic lives in the libraries.

#![forbid(unsafe_code)]

mod adapter;
mod audit;
mod bundle;
mod campaign;
mod canon;
mod check;
mod compare;
mod completions;
mod conformance;
mod doctor;
mod env;
mod gate;
mod init;
mod report;
mod run;
mod validate;
mod verify;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use metewand_runtime::exit::Exit;

const ABOUT: &str = "Runs scientific benchmark attempts with untrusted worker processes.";

const EXIT_STATUSES: &str = "exit statuses: 0 success, 1 the input was rejected, 2 usage, repository or I/O error
(`check` reports an invalid repository with 2; `conformance` uses 1 when a check failed);
`run` also uses 1 for a verdict not reached, 3 for a failed attempt and 130 for a cancelled
one (see `metewand run --help`); `campaign run` uses 3 when an attempt failed and 130 when cancelled;
`compare --fail-on-regression` uses 1 when a cell is significantly worse; `verify` uses 1 for a bundle that
differs from what it claims; `audit` uses 1 when a re-run's verdict or time differs";

/// The command line: one subcommand.
#[derive(Parser)]
#[command(name = "metewand", version, about = ABOUT, after_help = EXIT_STATUSES, arg_required_else_help = true)]
#[command(max_term_width = 118)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every subcommand: a variant holding the command module's `Args`, dispatched in [`Command::run`].
#[derive(Subcommand)]
enum Command {
    Init(init::Args),
    Check(check::Args),
    Run(run::Args),
    Campaign(campaign::Args),
    Report(report::Args),
    Bundle(bundle::Args),
    Verify(verify::Args),
    Audit(audit::Args),
    Compare(compare::Args),
    Judge(campaign::judge::Args),
    Validate(validate::Args),
    Canon(canon::Args),
    Conformance(conformance::Args),
    Doctor(doctor::Args),
    Env(env::Args),
    Completions(completions::Args),
    #[command(hide = true)]
    Adapter(adapter::Args),
}

impl Command {
    fn run(self) -> Result<(), Failure> {
        match self {
            Command::Init(args) => init::run(args),
            Command::Check(args) => check::run(args),
            Command::Run(args) => run::run(args),
            Command::Campaign(args) => campaign::run(args),
            Command::Report(args) => report::run(args),
            Command::Bundle(args) => bundle::run(args),
            Command::Verify(args) => verify::run(args),
            Command::Audit(args) => audit::run(args),
            Command::Compare(args) => compare::run(args),
            Command::Judge(args) => campaign::judge::run(args),
            Command::Validate(args) => validate::run(args),
            Command::Canon(args) => canon::run(args),
            Command::Conformance(args) => conformance::run(args),
            Command::Doctor(args) => doctor::run(args),
            Command::Env(args) => env::run(args),
            Command::Completions(args) => completions::run(args),
            Command::Adapter(args) => adapter::run(args),
        }
    }
}

/// What a command's failure means for the exit status.
pub(crate) enum Failure {
    /// The input was read and rejected: [`Exit::Rejected`].
    Rejected(String),
    /// The command could not do its work (usage, I/O): [`Exit::Usage`].
    Usage(String),
    /// The command reported what happened itself and ends this way.
    Status(Exit),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return parse_failure(&error),
    };
    // A command worker's adapter is this program, started again in the worker's confinement.
    if let Ok(program) = std::env::current_exe() {
        metewand_runtime::attempt::set_adapter_program(program);
    }
    match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Rejected(message)) => {
            say(&message);
            ExitCode::from(Exit::Rejected.code())
        }
        Err(Failure::Usage(message)) => {
            say(&message);
            ExitCode::from(Exit::Usage.code())
        }
        Err(Failure::Status(exit)) => ExitCode::from(exit.code()),
    }
}

/// Parses a count that must be at least 1 (`--jobs`, `--pack`, `--threads`...), saying so in words: clap's own
/// message for 0 speaks of a "non-zero type".
pub(crate) fn at_least_one<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("must be at least 1, not 0".to_owned()),
        Ok(_) => text.parse::<T>().map_err(|_| format!("{text} is too large")),
        Err(_) => Err(format!("must be a whole number of at least 1, not {text:?}")),
    }
}

/// Writes `metewand: MESSAGE` to stderr. A closed stderr is not worth a panic: the exit status still tells.
pub(crate) fn say(message: &str) {
    let _ = writeln!(io::stderr().lock(), "metewand: {message}");
}

/// Writes a command's output to stdout; failing to is an I/O error of the command (exit 2), not a panic.
pub(crate) fn print_out(command: &str, text: &str) -> Result<(), Failure> {
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|error| Failure::Usage(format!("{command}: cannot write stdout: {error}")))
}

/// Help and version go to stdout with exit 0; `metewand` alone (or a command group without its subcommand)
/// prints the help to stderr with exit 2; every other parse error is one line on stderr with exit 2.
fn parse_failure(error: &clap::Error) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            ExitCode::from(Exit::Usage.code())
        }
        _ => {
            say(&one_sentence(&error.render().to_string()));
            ExitCode::from(Exit::Usage.code())
        }
    }
}

/// Folds clap's rendered error (a message, maybe an indented list, tips, a usage line and a pointer to `--help`)
/// into one line: the message with its list, the tips in parentheses, and the help command of the subcommand.
fn one_sentence(rendered: &str) -> String {
    let mut message = String::new();
    let mut tips = Vec::new();
    for (index, paragraph) in rendered.split("\n\n").enumerate() {
        let lines: Vec<&str> = paragraph.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
        let Some(first) = lines.first() else { continue };
        if index == 0 {
            message = first.strip_prefix("error: ").unwrap_or(first).to_owned();
            if lines.len() > 1 {
                message.push_str(if message.ends_with(':') { " " } else { ": " });
                message.push_str(&lines[1..].join(", "));
            }
        } else if first.starts_with("tip: ") {
            tips.extend(lines.iter().map(|line| line.to_string()));
        }
    }
    if !tips.is_empty() {
        message.push_str(&format!(" ({})", tips.join("; ")));
    }
    format!("{message}; run `{} --help`", subcommand_path(std::env::args_os().skip(1)))
}

/// `metewand`, then the subcommands the arguments name, as far as they name existing ones: only a command with
/// subcommands is descended into, and its first argument that is not a flag names the next one.
fn subcommand_path(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let mut command = Cli::command();
    let mut path = vec!["metewand".to_owned()];
    let mut args = args.filter(|arg| !arg.as_encoded_bytes().starts_with(b"-"));
    while command.has_subcommands() {
        let Some(next) = args.next().and_then(|arg| command.find_subcommand(&arg).cloned()) else { break };
        path.push(next.get_name().to_owned());
        command = next;
    }
    path.join(" ")
}

/// A seed given on the command line: decimal digits only (no sign, point or exponent), from 0 to 2^53 − 1.
pub(crate) fn parse_seed(text: &str) -> Result<metewand_protocol::strict::SafeUint, String> {
    const MESSAGE: &str = "a seed is an integer from 0 to 9007199254740991 written with decimal digits only";
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(MESSAGE.to_owned());
    }
    text.parse::<u64>()
        .ok()
        .and_then(|n| metewand_protocol::strict::SafeUint::try_from(n).ok())
        .ok_or_else(|| MESSAGE.to_owned())
}
