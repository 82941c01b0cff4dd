//! The layout rules a reader relies on, kept by a test: every workspace member is a row of the README's table of
//! folders, every Rust module file of a crate's `src/` (generated code aside) is named in ARCHITECTURE.md's code
//! map under its own crate's heading ([`map`]; `lib.rs` and `main.rs` are their crate's heading) and is at most
//! [`MAX_LINES`] lines long, so that it can be read as one concern, and every path ARCHITECTURE.md's recipes name
//! between [`PATHS_BEGIN`] and [`PATHS_END`] exists, so that a recipe cannot send a reader to a file that moved.

mod map;

use std::fs;
use std::path::Path;

/// The most lines a module file of a crate's `src/` may have; tests under `tests/` and generated code are not
/// bound by it.
pub(crate) const MAX_LINES: usize = 800;

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

/// The files (path and text) over [`MAX_LINES`] lines, each with its count of lines.
pub(crate) fn files_over_the_limit(files: &[(String, String)]) -> Vec<(String, usize)> {
    files
        .iter()
        .map(|(path, text)| (path.clone(), text.lines().count()))
        .filter(|(_, lines)| *lines > MAX_LINES)
        .collect()
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

/// Every `.rs` file below each member's `src/`, but generated code, relative to `root`.
pub(crate) fn module_files(root: &Path, members: &[String]) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{prefix}/{name}");
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                if name != "generated" {
                    walk(&entry.path(), &path, out);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for member in members {
        walk(&root.join(member).join("src"), &format!("{member}/src"), &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;

    #[test]
    fn the_workspace_keeps_each_rule() {
        let root = workspace_root();
        let read = |name: &str| fs::read_to_string(root.join(name)).unwrap();
        let members = members(&read("Cargo.toml"));
        assert!(members.contains(&"metewand-runtime".to_owned()), "{members:?}");
        let missing = members_missing_from_readme(&members, &read("README.md"));
        assert!(missing.is_empty(), "members without a row in the README's table of folders: {missing:?}");
        let files = module_files(&root, &members);
        assert!(files.contains(&"metewand-session/src/cpus.rs".to_owned()), "{files:?}");
        let missing = map::modules_missing_from_map(&files, &read("ARCHITECTURE.md"));
        assert!(missing.is_empty(), "modules ARCHITECTURE.md's code map does not name under their crate: {missing:?}");
        let texts: Vec<(String, String)> = files.iter().map(|file| (file.clone(), read(file))).collect();
        let long = files_over_the_limit(&texts);
        assert!(long.is_empty(), "module files over {MAX_LINES} lines: {long:?}");
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
        assert_eq!(files_over_the_limit(&texts), [("alpha/src/store/mod.rs".to_owned(), MAX_LINES + 1)]);
    }
}
