//! How two Python environments' distributions are said to differ, as `plan` and `compare` name them.

use metewand_campaign::changes::environment_difference;
use metewand_runtime::Sha256Digest;
use metewand_runtime::protocol::generated::attempt_record::PythonDistribution;

fn distribution(name: &str, version: &str, record: &[u8]) -> PythonDistribution {
    PythonDistribution {
        name: name.to_owned(),
        version: version.to_owned(),
        record_sha256: Some(Sha256Digest::of(record)),
    }
}

/// A version changed, a distribution added, one removed and one whose files changed under the same version, matched
/// by normalized name; the same distributions say nothing, and more than five differences are counted.
#[test]
fn each_kind_of_difference_is_named_once_by_normalized_name() {
    let then = [
        distribution("numpy", "1.26.4", b"a"),
        distribution("Typing_Extensions", "4.12.0", b"b"),
        distribution("pandas", "2.2.0", b"c"),
        distribution("attrs", "23.2.0", b"d"),
    ];
    let now = [
        distribution("numpy", "2.1.0", b"a2"),
        distribution("typing-extensions", "4.12.0", b"b"),
        distribution("scipy", "1.13.0", b"e"),
        distribution("attrs", "23.2.0", b"d2"),
    ];
    assert_eq!(
        environment_difference(&then, &now),
        "attrs 23.2.0 files changed, numpy 1.26.4 → 2.1.0, pandas 2.2.0 removed, scipy 1.13.0 added"
    );
    assert_eq!(environment_difference(&then, &then), "");
    let many: Vec<_> = (0..7).map(|n| distribution(&format!("p{n}"), "1", b"x")).collect();
    assert_eq!(
        environment_difference(&[], &many),
        "p0 1 added, p1 1 added, p2 1 added, p3 1 added, p4 1 added and 2 more"
    );
}
