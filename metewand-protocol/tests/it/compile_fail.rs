//! Constrained generated types cannot be built around their checks: their fields are private.

#[test]
fn constrained_types_cannot_be_built_by_hand() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
