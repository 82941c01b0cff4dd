// Only the three protocol roles are session roles.
use metewand_protocol::common::Role;
use metewand_session::SessionRole;

enum Orchestrator {}

impl SessionRole for Orchestrator {
    const ROLE: Role = Role::Implementation;
}

fn main() {}
