//! The layout rules a reader relies on, kept by a test:
//!
//! - every workspace member is a row of the README's table of folders;
//! - every Rust module file of a crate's `src/` (generated code aside) is named in ARCHITECTURE.md's code map under
//!   its own crate's heading ([`map`]) and is at most [`MAX_LINES`] lines long, so that it can be read as one
//!   concern; so is every Python source of the SDK ([`MAX_PYTHON_LINES`]; its generated models aside, and those
//!   [`LONG_PYTHON_SOURCES`] lists, each with its reason);
//! - a test file (`*/tests/**/*.rs`, `sdk-python/tests/*.py`) is at most [`MAX_TEST_LINES`] lines long;
//! - every path ARCHITECTURE.md's recipes name between [`PATHS_BEGIN`] and [`PATHS_END`] exists, so that a recipe
//!   cannot send a reader to a file that moved.
//!
//! An exception that no longer applies fails the test too, so that the list says what the code needs now.

mod map;

use std::fs;
use std::path::Path;

/// The most lines a module file of a crate's `src/` may have; tests under `tests/` and generated code are not
/// bound by it.
pub(crate) const MAX_LINES: usize = 800;
/// The most lines a Python source of the SDK may have (`sdk-python/src/`, the generated models aside).
pub(crate) const MAX_PYTHON_LINES: usize = 800;
/// The most lines a test file may have (`*/tests/**/*.rs`, `sdk-python/tests/*.py`).
pub(crate) const MAX_TEST_LINES: usize = 1200;

/// The Python sources of the SDK allowed over [`MAX_PYTHON_LINES`], and why.
const LONG_PYTHON_SOURCES: &[(&str, &str)] = &[(
    "sdk-python/src/metewand/worker.py",
    "the worker loop with its role tables, which are changing; split once they settle",
)];

/// The marker that opens a part of ARCHITECTURE.md whose paths must exist.
pub(crate) const PATHS_BEGIN: &str = "<!-- tidy: every path below exists -->";

/// The marker that closes it.
pub(crate) const PATHS_END: &str = "<!-- tidy: end of paths -->";

/// The workspace members `Cargo.toml` lists (`members = [ "a", "b" ]`).
pub(crate) fn members(cargo_toml: &str) -> Vec<String> {
    let Some(start) = cargo_toml.find("members = [") else { return Vec::new() };
    let list = &cargo_toml[start + "members = [".len()..];
    let list = &list[..list.find(']').unwrap_or(list.len())];
    list.split(',').map(|item| item.trim().trim_matches('"').to_owned()).filter(|item| !item.is_empty()).collect()
}

/// The members no row of the README's tables names as `` `member/` ``.
pub(crate) fn members_missing_from_readme(members: &[String], readme: &str) -> Vec<String> {
    let rows: Vec<&str> = readme.lines().filter(|line| line.starts_with('|')).collect();
    members.iter().filter(|member| !rows.iter().any(|row| row.contains(&format!("`{member}/`")))).cloned().collect()
}

/// The files (path and text) over `limit` lines, each with its count of lines.
pub(crate) fn files_over(files: &[(String, String)], limit: usize) -> Vec<(String, usize)> {
    files.iter().map(|(path, text)| (path.clone(), text.lines().count())).filter(|(_, lines)| *lines > limit).collect()
}

/// The paths the marked part of `text` names: every code span between [`PATHS_BEGIN`] and [`PATHS_END`] that holds
/// a `/` (a span broken across lines keeps its line break, and so names nothing). `None` when the markers are
/// missing or out of order.
pub(crate) fn marked_paths(text: &str) -> Option<Vec<String>> {
    let start = text.find(PATHS_BEGIN)? + PATHS_BEGIN.len();
    let section = &text[start..start + text[start..].find(PATHS_END)?];
    // Between backticks: every second piece.
    Some(section.split('`').skip(1).step_by(2).filter(|span| span.contains('/')).map(str::to_owned).collect())
}

/// The paths, relative to `root`, that name no file or folder there.
pub(crate) fn missing_paths(root: &Path, paths: &[String]) -> Vec<String> {
    paths.iter().filter(|path| path.starts_with('/') || !root.join(path.as_str()).exists()).cloned().collect()
}

/// Every file below `dir` (relative to `root`, `/`-separated) whose name ends with `extension`, in name order,
/// without entering the folders `skip` names.
fn files_below(root: &Path, dir: &str, extension: &str, skip: &[&str], recursive: bool) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, extension: &str, skip: &[&str], recursive: bool, out: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{prefix}/{name}");
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                if recursive && !skip.contains(&name.as_str()) {
                    walk(&entry.path(), &path, extension, skip, recursive, out);
                }
            } else if name.ends_with(extension) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root.join(dir), dir, extension, skip, recursive, &mut out);
    out
}

/// Every `.rs` file below each member's `src/`, but generated code, relative to `root`.
pub(crate) fn module_files(root: &Path, members: &[String]) -> Vec<String> {
    members.iter().flat_map(|member| files_below(root, &format!("{member}/src"), ".rs", &["generated"], true)).collect()
}

/// Every Python source of the SDK that is not generated (its first line would say so).
fn python_sources(root: &Path) -> Vec<String> {
    files_below(root, "sdk-python/src", ".py", &["__pycache__"], true)
        .into_iter()
        .filter(|file| !fs::read_to_string(root.join(file)).unwrap_or_default().starts_with("# Generated from"))
        .collect()
}

/// Every test file: each member's `tests/**/*.rs`, and the SDK's `tests/*.py`.
fn test_files(root: &Path, members: &[String]) -> Vec<String> {
    let mut files: Vec<String> =
        members.iter().flat_map(|member| files_below(root, &format!("{member}/tests"), ".rs", &[], true)).collect();
    files.extend(files_below(root, "sdk-python/tests", ".py", &[], false));
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;

    #[test]
    fn the_workspace_keeps_each_rule() {
        let root = workspace_root();
        let read = |name: &str| fs::read_to_string(root.join(name)).unwrap();
        let texts = |files: &[String]| -> Vec<(String, String)> {
            files.iter().map(|file| (file.clone(), read(file))).collect()
        };
        let members = members(&read("Cargo.toml"));
        assert!(members.contains(&"metewand-runtime".to_owned()), "{members:?}");
        let missing = members_missing_from_readme(&members, &read("README.md"));
        assert!(missing.is_empty(), "members without a row in the README's table of folders: {missing:?}");

        let files = module_files(&root, &members);
        assert!(files.contains(&"metewand-session/src/cpus.rs".to_owned()), "{files:?}");
        let missing = map::modules_missing_from_map(&files, &read("ARCHITECTURE.md"));
        assert!(missing.is_empty(), "modules ARCHITECTURE.md's code map does not name under their crate: {missing:?}");
        let long = files_over(&texts(&files), MAX_LINES);
        assert!(long.is_empty(), "module files over {MAX_LINES} lines: {long:?}");

        let python = python_sources(&root);
        assert!(python.contains(&"sdk-python/src/metewand/worker.py".to_owned()), "{python:?}");
        assert!(!python.iter().any(|file| file.contains("/models/")), "generated models are not bound: {python:?}");
        let long: Vec<(String, usize)> = files_over(&texts(&python), MAX_PYTHON_LINES)
            .into_iter()
            .filter(|(file, _)| !LONG_PYTHON_SOURCES.iter().any(|(listed, _)| listed == file))
            .collect();
        assert!(long.is_empty(), "Python sources over {MAX_PYTHON_LINES} lines: {long:?}");
        for (listed, _) in LONG_PYTHON_SOURCES {
            let lines = read(listed).lines().count();
            assert!(lines > MAX_PYTHON_LINES, "{listed} is {lines} lines now: take it off LONG_PYTHON_SOURCES");
        }

        let tests = test_files(&root, &members);
        assert!(tests.contains(&"metewand-cli/tests/it/main.rs".to_owned()), "{tests:?}");
        assert!(tests.contains(&"sdk-python/tests/test_worker.py".to_owned()), "{tests:?}");
        let long = files_over(&texts(&tests), MAX_TEST_LINES);
        assert!(long.is_empty(), "test files over {MAX_TEST_LINES} lines: {long:?}");
    }

    #[test]
    fn every_path_the_recipes_name_exists() {
        let root = workspace_root();
        let architecture = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
        let paths = marked_paths(&architecture).expect("ARCHITECTURE.md marks the paths of its recipes");
        assert!(paths.contains(&"schemas/worker-protocol-message.schema.json".to_owned()), "{paths:?}");
        let missing = missing_paths(&root, &paths);
        assert!(missing.is_empty(), "paths ARCHITECTURE.md's recipes name that do not exist: {missing:?}");
    }

    #[test]
    fn a_planted_missing_path_is_found() {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir_all(root.path().join("alpha/src")).unwrap();
        fs::write(root.path().join("alpha/src/lib.rs"), "").unwrap();
        let text = format!(
            "Before: `beta/before.rs`.\n{PATHS_BEGIN}\n1. Edit `alpha/src/lib.rs` and `alpha/`, run `cargo xtask \
             codegen`,\n   then `alpha/src/gone.rs`, `alpha/src/\n   lib.rs` and `/etc/passwd`.\n{PATHS_END}\nAfter: \
             `beta/after.rs`.\n"
        );
        let paths = marked_paths(&text).unwrap();
        assert_eq!(paths, ["alpha/src/lib.rs", "alpha/", "alpha/src/gone.rs", "alpha/src/\n   lib.rs", "/etc/passwd"]);
        assert_eq!(missing_paths(root.path(), &paths), ["alpha/src/gone.rs", "alpha/src/\n   lib.rs", "/etc/passwd"]);
        assert_eq!(marked_paths("`alpha/src/lib.rs` with no markers"), None);
        assert_eq!(marked_paths(&format!("{PATHS_END} `alpha/src/gone.rs` {PATHS_BEGIN}")), None);
    }

    #[test]
    fn a_planted_violation_of_each_rule_is_found() {
        let members = members("[workspace]\nmembers = [\n    \"alpha\",\n    \"beta\",\n]\n");
        assert_eq!(members, ["alpha", "beta"]);
        let readme = "| folder | what |\n| `alpha/` | a crate |\n\nbeta/ is mentioned, but in no row\n";
        assert_eq!(members_missing_from_readme(&members, readme), ["beta"]);
        let files: Vec<String> =
            ["alpha/src/lib.rs", "alpha/src/walk.rs", "alpha/src/store/mod.rs", "alpha/src/store/entry.rs"]
                .map(String::from)
                .to_vec();
        let map = "## Code map\n\n### `alpha/`\n\n- `walk.rs`: the walk.\n";
        assert_eq!(map::modules_missing_from_map(&files, map), ["alpha/src/store/mod.rs", "alpha/src/store/entry.rs"]);
        let map =
            "## Code map\n\n### `alpha/`\n\n- `walk.rs`: the walk.\n- `store/`: the store; `entry.rs` an entry.\n";
        assert!(map::modules_missing_from_map(&files, map).is_empty());
        let texts = [
            ("alpha/src/walk.rs".to_owned(), "fn walk() {}\n".repeat(MAX_LINES)),
            ("alpha/src/store/mod.rs".to_owned(), "fn store() {}\n".repeat(MAX_LINES + 1)),
        ];
        assert_eq!(files_over(&texts, MAX_LINES), [("alpha/src/store/mod.rs".to_owned(), MAX_LINES + 1)]);
    }

    #[test]
    fn a_planted_long_python_source_or_test_file_is_found() {
        let python = [
            ("sdk-python/src/metewand/ok.py".to_owned(), "x = 1\n".repeat(MAX_PYTHON_LINES)),
            ("sdk-python/src/metewand/long.py".to_owned(), "x = 1\n".repeat(MAX_PYTHON_LINES + 1)),
        ];
        assert_eq!(files_over(&python, MAX_PYTHON_LINES), [("sdk-python/src/metewand/long.py".to_owned(), 801)]);
        let tests = [
            ("alpha/tests/it/run.rs".to_owned(), "// a line\n".repeat(MAX_TEST_LINES + 1)),
            ("sdk-python/tests/test_ok.py".to_owned(), "x = 1\n".repeat(MAX_TEST_LINES)),
        ];
        assert_eq!(files_over(&tests, MAX_TEST_LINES), [("alpha/tests/it/run.rs".to_owned(), 1201)]);
    }

    #[test]
    fn a_planted_test_file_layout_is_walked() {
        let dir = tempfile::tempdir().unwrap();
        for file in ["alpha/tests/it/main.rs", "alpha/tests/it/run/mod.rs", "sdk-python/tests/test_a.py"] {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "").unwrap();
        }
        fs::create_dir_all(dir.path().join("sdk-python/tests/workers")).unwrap();
        fs::write(dir.path().join("sdk-python/tests/workers/w.py"), "").unwrap();
        let files = test_files(dir.path(), &["alpha".to_owned()]);
        assert_eq!(files, ["alpha/tests/it/main.rs", "alpha/tests/it/run/mod.rs", "sdk-python/tests/test_a.py"]);
    }
}
