//! The `metewand` command: Metewand's tools for benchmark authors, worker authors and the people who run them.

use std::process::ExitCode;

const USAGE: &str = "usage: metewand <command> [arguments]

Runs scientific benchmark attempts with untrusted worker processes.

options:
  -h, --help       print this help
  -V, --version    print the version";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("-V" | "--version") => {
            println!("metewand {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("-h" | "--help") | None => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("metewand: unknown command {other:?}; run `metewand --help` for the commands");
            ExitCode::from(2)
        }
    }
}
