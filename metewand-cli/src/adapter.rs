//! `metewand adapter`: Metewand's own worker for a `[workers.X]` table with `adapter = "command"`, which the
//! executor starts in the worker's confinement; not a command for people (hidden from the help).

use std::ffi::OsString;

use metewand_runtime::protocol::common::Role;

use crate::Failure;
use metewand_runtime::exit::Exit;

/// `metewand adapter`.
#[derive(clap::Args)]
#[command(about = "serve the worker protocol for a command, run once per request (started by the executor)")]
pub(crate) struct Args {
    /// the role served
    #[arg(long, value_name = "ROLE", value_parser = parse_role)]
    role: Role,
    /// the file, in the folder the command writes, holding the manifest's data (default: the command's stdout)
    #[arg(long, value_name = "FILE")]
    result_data: Option<String>,
    /// the command and its words, with placeholders, after --
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<OsString>,
}

fn parse_role(text: &str) -> Result<Role, String> {
    text.parse()
        .map_err(|_| format!("a role is dataset_materializer, implementation or problem_evaluator, not {text:?}"))
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let adapter = metewand_adapter::Adapter { role: args.role, command: args.command, result_data: args.result_data };
    let status = metewand_adapter::serve(&adapter, std::io::stdin().lock(), std::io::stdout().lock());
    if status == 0 { Ok(()) } else { Err(Failure::Status(Exit::Failed)) }
}
