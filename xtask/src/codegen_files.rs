//! The file side of code generation: reads `schemas/`, asks the codegen library for the generated files, and
//! compares or writes them.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use codegen::{GeneratedFile, REGENERATE_COMMAND, SchemaSource};

const SCHEMA_SUFFIX: &str = ".schema.json";

/// How a generated file on disk differs from what the schemas produce.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Drift {
    /// The file is missing or its contents differ.
    Stale(String),
    /// The file says it is generated, but no schema produces it any more.
    Orphaned(String),
}

impl Drift {
    fn path(&self) -> &str {
        match self {
            Drift::Stale(path) | Drift::Orphaned(path) => path,
        }
    }
}

/// Reads every `schemas/*.schema.json` under `root`, sorted by name.
pub(crate) fn read_schemas(root: &Path) -> Result<Vec<SchemaSource>> {
    let dir = root.join("schemas");
    let mut sources = Vec::new();
    for entry in fs::read_dir(&dir).with_context(|| format!("could not list {}", dir.display()))? {
        let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str().and_then(|name| name.strip_suffix(SCHEMA_SUFFIX)) else {
            continue;
        };
        let text = fs::read_to_string(entry.path())
            .with_context(|| format!("could not read schemas/{name}{SCHEMA_SUFFIX}"))?;
        sources.push(SchemaSource { name: name.to_owned(), text });
    }
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    if sources.is_empty() {
        bail!("no *{SCHEMA_SUFFIX} files in {}", dir.display());
    }
    Ok(sources)
}

fn generate(root: &Path) -> Result<Vec<GeneratedFile>> {
    let sources = read_schemas(root)?;
    codegen::generate(&sources).context("the schemas could not be turned into code")
}

/// Compares what the schemas produce with the files under `root`.
pub(crate) fn drift(root: &Path) -> Result<Vec<Drift>> {
    let files = generate(root)?;
    let mut drift = Vec::new();
    for file in &files {
        let on_disk = fs::read(root.join(&file.path)).ok();
        if on_disk.as_deref() != Some(file.contents.as_bytes()) {
            drift.push(Drift::Stale(file.path.clone()));
        }
    }
    for path in orphans(root, &files)? {
        drift.push(Drift::Orphaned(path));
    }
    Ok(drift)
}

/// Files in the generated folders that say they are generated but are no longer produced.
fn orphans(root: &Path, files: &[GeneratedFile]) -> Result<Vec<String>> {
    let produced: BTreeSet<&str> = files.iter().map(|file| file.path.as_str()).collect();
    let folders: BTreeSet<&str> =
        files.iter().filter_map(|file| file.path.rsplit_once('/').map(|(folder, _)| folder)).collect();
    let mut orphans = Vec::new();
    for folder in folders {
        let Ok(entries) = fs::read_dir(root.join(folder)) else { continue };
        for entry in entries {
            let entry = entry.with_context(|| format!("could not list {folder}"))?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
            let path = format!("{folder}/{name}");
            if produced.contains(path.as_str()) || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let text = fs::read_to_string(entry.path()).unwrap_or_default();
            let first_line = text.lines().next().unwrap_or_default();
            if first_line.contains("Generated from") && first_line.contains(REGENERATE_COMMAND) {
                orphans.push(path);
            }
        }
    }
    Ok(orphans)
}

/// `cargo xtask codegen --check`: fails, naming each out-of-date file, unless everything is fresh.
pub(crate) fn check(root: &Path) -> Result<()> {
    let drift = drift(root)?;
    if drift.is_empty() {
        println!("generated files are up to date");
        return Ok(());
    }
    let names: Vec<String> = drift
        .iter()
        .map(|d| match d {
            Drift::Stale(path) => path.clone(),
            Drift::Orphaned(path) => format!("{path} (no schema produces it)"),
        })
        .collect();
    bail!("generated files are out of date: {}; run `{REGENERATE_COMMAND}` and commit the result", names.join(", "))
}

/// `cargo xtask codegen`: writes the files that changed and removes orphans. Returns one line per change.
pub(crate) fn write(root: &Path) -> Result<Vec<String>> {
    let files = generate(root)?;
    let drift = drift(root)?;
    let mut report = Vec::new();
    for item in &drift {
        let path = root.join(item.path());
        match item {
            Drift::Stale(relative) => {
                let file = files.iter().find(|file| &file.path == relative).expect("stale files are produced");
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent).with_context(|| format!("could not create {}", parent.display()))?;
                }
                fs::write(&path, &file.contents).with_context(|| format!("could not write {relative}"))?;
                report.push(format!("wrote {relative}"));
            }
            Drift::Orphaned(relative) => {
                fs::remove_file(&path).with_context(|| format!("could not remove {relative}"))?;
                report.push(format!("removed {relative}"));
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use metewand_testkit::copy_tree;

    use super::*;
    use crate::workspace_root;

    /// The drift check as part of `cargo test`: a schema edited without regenerating fails here.
    #[test]
    fn generated_files_match_the_schemas() {
        let root = workspace_root();
        let drift = drift(&root).expect("the schemas generate");
        assert!(drift.is_empty(), "generated files are out of date: {drift:?}; run `{REGENERATE_COMMAND}`");
    }

    /// A copy of the workspace's schemas and generated files, for tests that change them.
    fn scratch_workspace() -> tempfile::TempDir {
        let root = workspace_root();
        let scratch = tempfile::tempdir().unwrap();
        let files = generate(&root).unwrap();
        copy_tree(&root.join("schemas"), &scratch.path().join("schemas"));
        for file in &files {
            let target = scratch.path().join(&file.path);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::copy(root.join(&file.path), &target).unwrap();
        }
        scratch
    }

    #[test]
    fn an_edited_schema_fails_the_check_until_regenerated() {
        let scratch = scratch_workspace();
        let root = scratch.path();
        assert_eq!(drift(root).unwrap(), vec![], "the copy starts fresh");

        let schema_path = root.join("schemas/common.schema.json");
        let text = fs::read_to_string(&schema_path).unwrap();
        let edited = text.replacen("\"operation_failed\",\n        \"internal_error\"", "\"operation_failed\"", 1);
        assert_ne!(text, edited, "the edit applies");
        fs::write(&schema_path, edited).unwrap();

        let error = check(root).unwrap_err().to_string();
        assert!(error.contains("metewand-protocol/src/generated/common.rs"), "{error}");
        assert!(error.contains("sdk-python/src/metewand/models/common.py"), "{error}");
        assert!(error.contains(REGENERATE_COMMAND), "{error}");

        let report = write(root).unwrap();
        // The documents that use the failure code refer to the common modules' types, so they are unchanged.
        assert_eq!(report.len(), 2, "only the two common modules are rewritten: {report:?}");
        check(root).unwrap();
    }

    #[test]
    fn an_edited_request_annotation_fails_the_check_on_both_method_tables() {
        let scratch = scratch_workspace();
        let root = scratch.path();
        let schema_path = root.join("schemas/worker-protocol-message.schema.json");
        let text = fs::read_to_string(&schema_path).unwrap();
        let edited = text.replacen("\"x-capability\": \"streaming_profile\",\n", "", 1);
        assert_ne!(text, edited, "the edit applies");
        fs::write(&schema_path, edited).unwrap();

        let error = check(root).unwrap_err().to_string();
        let tables = [
            "metewand-protocol/src/generated/worker_protocol_methods.rs",
            "sdk-python/src/metewand/models/worker_protocol_methods.py",
        ];
        for table in tables {
            assert!(error.contains(table), "{error}");
        }
        let report = write(root).unwrap();
        // The annotations are no part of a message's shape: the message modules are unchanged.
        assert_eq!(report, tables.map(|table| format!("wrote {table}")), "only the two tables are rewritten");
        check(root).unwrap();
    }

    #[test]
    fn a_removed_schema_leaves_orphans_that_codegen_removes() {
        let scratch = scratch_workspace();
        let root = scratch.path();
        fs::remove_file(root.join("schemas/metrics.schema.json")).unwrap();
        let drift = drift(root).unwrap();
        assert!(drift.contains(&Drift::Orphaned("metewand-protocol/src/generated/metrics.rs".to_owned())), "{drift:?}");
        write(root).unwrap();
        assert!(!root.join("metewand-protocol/src/generated/metrics.rs").exists());
        check(root).unwrap();
    }
}
