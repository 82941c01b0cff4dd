//! The offline catalog: public schemas embedded, each schema compiled once, nothing fetched.

use metewand_protocol::Sha256Digest;
use metewand_protocol::schema;
use metewand_repository::CheckedRepository;
use metewand_repository::catalog::{SchemaCatalog, SchemaOrigin};
use serde_json::json;

use crate::golden;

#[test]
fn the_catalog_holds_the_repository_files_the_inline_schemas_and_the_public_schemas() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    let catalog = repository.catalog();
    for public in schema::ALL {
        assert_eq!(catalog.origin(public.id), Some(&SchemaOrigin::Embedded { path: public.path }));
    }
    assert!(
        matches!(catalog.origin("urn:example:common:1"), Some(SchemaOrigin::File { path }) if path.ends_with("common.schema.json"))
    );
    let metric_schema =
        json!({"type": "object", "required": ["rmse"], "properties": {"rmse": {"type": "number", "minimum": 0}}});
    let inline =
        format!("urn:metewand:inline:{}", Sha256Digest::of(&metewand_protocol::to_canonical_vec(&metric_schema)));
    assert_eq!(SchemaCatalog::inline_id(&metric_schema), inline);
    assert_eq!(catalog.document(&inline), Some(&metric_schema));
    assert!(matches!(catalog.origin(&inline), Some(SchemaOrigin::Inline { .. })));
    assert_eq!(catalog.ids().count(), schema::ALL.len() + 4 + 1);
}

#[test]
fn references_resolve_inside_the_catalog() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    let catalog = repository.catalog();
    assert!(catalog.validate("urn:example:dataset:1", &json!({"rows": 3})).is_ok());
    let diagnostics = catalog.validate("urn:example:dataset:1", &json!({"rows": 0})).unwrap_err();
    assert_eq!(diagnostics[0].instance_path, "/rows");
    let closure = catalog.closure(["urn:example:dataset:1"]);
    assert_eq!(closure.keys().collect::<Vec<_>>(), ["urn:example:common:1", "urn:example:dataset:1"]);
}

#[test]
fn an_id_outside_the_catalog_is_a_diagnostic_not_a_fetch() {
    let catalog = SchemaCatalog::embedded();
    let diagnostics = catalog.validate("https://example.com/schema.json", &json!({})).unwrap_err();
    assert!(diagnostics[0].message.contains("no schema"), "{diagnostics:?}");
}
