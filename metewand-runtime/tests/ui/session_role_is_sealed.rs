// Only the three protocol roles are session roles.
use metewand_runtime::protocol::common::Role;
use metewand_runtime::session::SessionRole;

enum Orchestrator {}

impl SessionRole for Orchestrator {
    const ROLE: Role = Role::Implementation;
}

fn main() {}
