//! The layout rules a reader relies on, kept by a test: every workspace member is a row of the README's table of
//! folders, and every Rust module file of a crate's `src/` (generated code aside) is named in ARCHITECTURE.md's
//! code map (`name.rs`, or `dir/` for a `dir/mod.rs`; `lib.rs` and `main.rs` are their crate's heading) and is at
//! most [`MAX_LINES`] lines long, so that it can be read as one concern.

use std::fs;
use std::path::Path;

/// The most lines a module file of a crate's `src/` may have; tests under `tests/` and generated code are not
/// bound by it.
pub(crate) const MAX_LINES: usize = 800;

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

/// The module files (paths relative to the workspace, `/`-separated) that `architecture` does not name.
pub(crate) fn modules_missing_from_map(files: &[String], architecture: &str) -> Vec<String> {
    files
        .iter()
        .filter(|file| {
            let mut parts = file.rsplit('/');
            let name = parts.next().unwrap_or_default();
            let named = match name {
                "lib.rs" | "main.rs" => return false,
                "mod.rs" => format!("{}/", parts.next().unwrap_or_default()),
                _ => name.to_owned(),
            };
            !architecture.contains(&named)
        })
        .cloned()
        .collect()
}

/// The files (path and text) over [`MAX_LINES`] lines, each with its count of lines.
pub(crate) fn files_over_the_limit(files: &[(String, String)]) -> Vec<(String, usize)> {
    files
        .iter()
        .map(|(path, text)| (path.clone(), text.lines().count()))
        .filter(|(_, lines)| *lines > MAX_LINES)
        .collect()
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
        let missing = modules_missing_from_map(&files, &read("ARCHITECTURE.md"));
        assert!(missing.is_empty(), "modules ARCHITECTURE.md's code map does not name: {missing:?}");
        let texts: Vec<(String, String)> = files.iter().map(|file| (file.clone(), read(file))).collect();
        let long = files_over_the_limit(&texts);
        assert!(long.is_empty(), "module files over {MAX_LINES} lines: {long:?}");
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
        let map = "- `walk.rs`: the walk.\n";
        assert_eq!(modules_missing_from_map(&files, map), ["alpha/src/store/mod.rs", "alpha/src/store/entry.rs"]);
        let map = "- `walk.rs`: the walk.\n- `store/`: the store; `entry.rs` an entry.\n";
        assert!(modules_missing_from_map(&files, map).is_empty());
        let texts = [
            ("alpha/src/walk.rs".to_owned(), "fn walk() {}\n".repeat(MAX_LINES)),
            ("alpha/src/store/mod.rs".to_owned(), "fn store() {}\n".repeat(MAX_LINES + 1)),
        ];
        assert_eq!(files_over_the_limit(&texts), [("alpha/src/store/mod.rs".to_owned(), MAX_LINES + 1)]);
    }
}
