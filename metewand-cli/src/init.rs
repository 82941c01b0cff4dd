//! `metewand init`: a new benchmark repository that works as written.

use std::path::PathBuf;

use metewand_runtime::scaffold::{C_BUILD, Template, scaffold_from};

use crate::{Failure, print_out};

const ABOUT: &str = "Writes a complete benchmark repository into DIR (default: the current folder), which must be new \
or empty: metewand.toml, a dataset materializer, an implementation and a problem evaluator in Python (each in its \
own folder under workers/), their schemas, a campaign and a README. It passes `metewand check`, `metewand \
conformance --all` and `metewand run` as written, with the Python SDK importable by the `python3` on PATH (a virtual \
environment where `pip install ./metewand-cli ./sdk-python`, run in a checkout of Metewand, installed it: Metewand \
is not on PyPI yet). With --adapter command, the workers are commands Metewand's adapter runs instead: shell scripts \
for the materializer, the evaluator and one implementation, and a C program for the other, built with the `cc` \
command the README gives.";

/// `metewand init`.
#[derive(clap::Args)]
#[command(about = "Writes a new benchmark repository that works as written", long_about = ABOUT)]
pub(crate) struct Args {
    /// the folder to write (created when missing; it must be empty)
    #[arg(value_name = "DIR", default_value = ".")]
    dir: PathBuf,
    /// the benchmark's name, part of its schemas' ids (default: the folder's name)
    #[arg(long, value_name = "N")]
    name: Option<String>,
    /// command: workers that are plain commands run by Metewand's adapter (shell scripts and a C program) rather
    /// than Python workers of the SDK
    #[arg(long, value_enum, value_name = "ADAPTER")]
    adapter: Option<Adapter>,
}

/// `--adapter`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Adapter {
    Command,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let template = match args.adapter {
        Some(Adapter::Command) => Template::Command,
        None => Template::Sdk,
    };
    let written = scaffold_from(&args.dir, args.name.as_deref(), template)
        .map_err(|error| Failure::Usage(format!("init: {error}")))?;
    let dir = args.dir.display();
    if template == Template::Command {
        let mut out = format!("benchmark    {} in {dir} ({} files)\n", written.name, written.files.len());
        out.push_str(&format!(
            "next         metewand check {dir} && metewand run {dir} --problem sum --dataset small --implementation \
             sum-sh\n"
        ));
        let cc = metewand_runtime::session::find_program("cc".as_ref(), &args.dir, std::env::var_os("PATH").as_deref());
        match cc {
            Some(_) => out.push_str(&format!(
                "c            build the C implementation before running it: (cd {dir} && {C_BUILD})\n"
            )),
            None => out.push_str(&format!(
                "c            no C compiler (cc) on PATH: install one (apt install gcc, dnf install gcc, xcode-select \
                 --install), then (cd {dir} && {C_BUILD}); until then run sum-sh alone (--implementation sum-sh)\n"
            )),
        }
        let _ = print_out("init", &out);
        return Ok(());
    }
    let mut out = format!("benchmark    {} in {dir} ({} files)\n", written.name, written.files.len());
    out.push_str(&format!(
        "next         metewand check {dir} && metewand conformance {dir} --all && metewand run {dir} --problem mean \
         --dataset small --implementation mean\n"
    ));
    out.push_str(
        "sdk          its workers import the Python SDK from the python3 on PATH: run metewand from a virtual \
         environment where `pip install ./metewand-cli ./sdk-python` (in a checkout of Metewand; not on PyPI yet) \
         installed it\n",
    );
    let _ = print_out("init", &out);
    Ok(())
}
