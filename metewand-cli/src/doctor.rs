//! `metewand doctor`: what this machine's kernel offers for confining workers.

use metewand_runtime::session::KernelSupport;

use crate::{Failure, print_out};

/// `metewand doctor`.
#[derive(clap::Args)]
#[command(
    about = "print what this machine offers for confining workers",
    long_about = "Prints what this machine's kernel offers for confining workers: the Landlock ABI (1 or more: \
                  filesystem rules; 4: TCP rules; 6: signal and abstract-socket scopes), whether this process may \
                  give each worker a PID namespace, and whether user namespaces may be created. The last line says \
                  whether workers would run fully confined (what `metewand run --require-confinement` requires)."
)]
pub(crate) struct Args {}

pub(crate) fn run(_args: Args) -> Result<(), Failure> {
    let kernel = KernelSupport::probe();
    let yes_no = |flag: bool| if flag { "yes" } else { "no" };
    let abi = match kernel.landlock_abi {
        0 => "none".to_owned(),
        abi => abi.to_string(),
    };
    let expected = kernel.expected(false);
    let verdict =
        if expected.is_full() { "full".to_owned() } else { format!("partial ({})", expected.weaknesses().join(", ")) };
    let text = format!(
        "landlock abi {abi}\npid namespace {}\nuser namespace {}\nconfinement {verdict}\n",
        yes_no(kernel.pid_namespace),
        yes_no(kernel.user_namespace),
    );
    print_out("doctor", &text)
}
