//! `metewand completions SHELL`: print a completion script for the shell, generated from the command definitions.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::{Cli, Failure, print_out};

/// `metewand completions`.
#[derive(clap::Args)]
#[command(
    about = "print a shell completion script (bash, zsh, fish, elvish or powershell) on stdout",
    long_about = "Prints a completion script for SHELL on stdout, generated from metewand's own command definitions.
For example: `metewand completions bash > ~/.local/share/bash-completion/completions/metewand`, `metewand
completions zsh > ~/.zfunc/_metewand` (with ~/.zfunc in $fpath), or `metewand completions fish >
~/.config/fish/completions/metewand.fish`.",
    after_help = "exit statuses: 0 printed, 2 usage or I/O error"
)]
pub(crate) struct Args {
    /// the shell to complete for
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "metewand", &mut script);
    print_out("completions", &String::from_utf8_lossy(&script))
}
