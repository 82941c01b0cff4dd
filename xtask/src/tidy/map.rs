//! ARCHITECTURE.md's code map as the tidy rule reads it. Under `## Code map`, each crate has a heading
//! `` ### `crate/` `` and its section names the crate's module files in backquotes, by their path below `src/`
//! (`store.rs`, `attempt/store.rs`, `dir/` for `dir/mod.rs`) or by the end of that path when no other file of the
//! crate ends the same way (`sys/` for `session/sys/mod.rs`, `seccomp.rs` for `session/sys/seccomp.rs`). A name
//! that would fit two files of the crate names neither, and a name names nothing outside its crate's section, so a
//! file counts as named only where a reader looking for it would find it.

use std::collections::{BTreeMap, BTreeSet};

/// The module files (`crate/src/...`, `/`-separated) that the code map of `architecture` does not name under their
/// own crate's heading; a crate's `src/lib.rs` and `src/main.rs` are its heading itself.
pub(crate) fn modules_missing_from_map(files: &[String], architecture: &str) -> Vec<String> {
    let sections = crate_sections(architecture);
    let mut by_crate: BTreeMap<&str, Vec<(&String, String)>> = BTreeMap::new();
    for file in files {
        let Some((krate, path)) = file.split_once("/src/") else { continue };
        if path == "lib.rs" || path == "main.rs" {
            continue;
        }
        by_crate.entry(krate).or_default().push((file, key(path)));
    }
    let mut missing = Vec::new();
    for (krate, files) in by_crate {
        let keys: Vec<&str> = files.iter().map(|(_, key)| key.as_str()).collect();
        let named: BTreeSet<&str> =
            sections.get(krate).into_iter().flatten().filter_map(|name| resolve(name, &keys)).collect();
        missing.extend(files.iter().filter(|(_, key)| !named.contains(key.as_str())).map(|(file, _)| (*file).clone()));
    }
    missing.sort_by_key(|file| files.iter().position(|other| other == file));
    missing
}

/// How the map names a module file: its path below `src/`, `dir/` for a `dir/mod.rs`.
fn key(path: &str) -> String {
    match path.strip_suffix("mod.rs") {
        Some(dir) if dir.is_empty() || dir.ends_with('/') => dir.to_owned(),
        _ => path.to_owned(),
    }
}

/// The file of `keys` that `name` identifies: the one it is the whole path of, or else the only one whose path
/// ends with it (at a `/`).
fn resolve<'k>(name: &str, keys: &[&'k str]) -> Option<&'k str> {
    if let Some(exact) = keys.iter().find(|key| **key == name) {
        return Some(exact);
    }
    let mut ending = keys.iter().filter(|key| key.strip_suffix(name).is_some_and(|head| head.ends_with('/')));
    match (ending.next(), ending.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// Each crate's heading under `## Code map` (`` ### `crate/` ``), with the module names its section quotes.
fn crate_sections(architecture: &str) -> BTreeMap<String, Vec<String>> {
    let mut sections: BTreeMap<String, String> = BTreeMap::new();
    let (mut in_map, mut current, mut fenced) = (false, None, false);
    for line in architecture.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some(title) = line.strip_prefix("## ") {
            in_map = title.trim() == "Code map";
            current = None;
        } else if let Some(title) = line.strip_prefix("### ") {
            let title = title.trim().trim_matches('`');
            current = (in_map && title.ends_with('/')).then(|| title.trim_end_matches('/').to_owned());
        } else if let Some(krate) = &current {
            let text = sections.entry(krate.clone()).or_default();
            text.push_str(line);
            text.push('\n');
        }
    }
    sections.into_iter().map(|(krate, text)| (krate, quoted_names(&text))).collect()
}

/// The backquoted spans of `text` that can name a module file: a path of letters, digits, `_`, `-`, `.` and `/`
/// ending in `.rs` or `/` (a leading `src/` and a trailing `mod.rs` dropped).
fn quoted_names(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c)))
        .filter(|span| span.ends_with(".rs") || span.ends_with('/'))
        .map(|span| key(span.strip_prefix("src/").unwrap_or(span)))
        .filter(|name| !name.is_empty() && name != "lib.rs" && name != "main.rs")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|path| (*path).to_owned()).collect()
    }

    #[test]
    fn a_file_is_named_under_its_own_crate_by_a_name_that_identifies_it() {
        let files = files(&[
            "alpha/src/lib.rs",
            "alpha/src/walk.rs",
            "alpha/src/store/mod.rs",
            "alpha/src/store/entry.rs",
            "alpha/src/session/sys/mod.rs",
            "alpha/src/session/sys/seccomp.rs",
        ]);
        let map = "## Code map\n\n### `alpha/`\n\n- `walk.rs`: the walk.\n- `store/`: the store; `entry.rs` an \
                   entry.\n- `sys/` holds `seccomp.rs`.\n";
        assert!(modules_missing_from_map(&files, map).is_empty(), "{:?}", modules_missing_from_map(&files, map));
        let map = "## Code map\n\n### `alpha/`\n\n- `walk.rs`: the walk.\n";
        assert_eq!(
            modules_missing_from_map(&files, map),
            [
                "alpha/src/store/mod.rs",
                "alpha/src/store/entry.rs",
                "alpha/src/session/sys/mod.rs",
                "alpha/src/session/sys/seccomp.rs"
            ]
        );
    }

    #[test]
    fn a_name_found_anywhere_else_does_not_count() {
        // The name is a substring of another (`schema.rs` holds `a.rs`), or stands under another crate's heading, or
        // outside the code map.
        let planted = files(&["metewand-campaign/src/a.rs", "metewand-campaign/src/plan.rs"]);
        let map = "## Code map\n\n### `metewand-protocol/`\n\n- `schema.rs`, and `a.rs` too.\n\n### \
                   `metewand-campaign/`\n\n- `plan.rs`: the plan, beside `schema.rs`.\n\n## Cross-cutting \
                   invariants\n\n- `a.rs` is named here, outside the map.\n";
        assert_eq!(modules_missing_from_map(&planted, map), ["metewand-campaign/src/a.rs"]);
        // A file of a crate without a heading is named nowhere.
        let headless = files(&["beta/src/walk.rs"]);
        assert_eq!(modules_missing_from_map(&headless, "## Code map\n\n- `walk.rs`\n"), ["beta/src/walk.rs"]);
    }

    #[test]
    fn a_name_that_fits_two_files_names_neither_unless_it_is_one_of_their_whole_paths() {
        let files = files(&[
            "alpha/src/run.rs",
            "alpha/src/campaign/mod.rs",
            "alpha/src/campaign/run.rs",
            "alpha/src/attempt/mod.rs",
            "alpha/src/attempt/reuse.rs",
            "alpha/src/session/mod.rs",
            "alpha/src/session/reuse.rs",
        ]);
        let map = "## Code map\n\n### `alpha/`\n\n`run.rs`, `campaign/`, `attempt/`, `session/`, and `reuse.rs`.\n";
        assert_eq!(
            modules_missing_from_map(&files, map),
            ["alpha/src/campaign/run.rs", "alpha/src/attempt/reuse.rs", "alpha/src/session/reuse.rs"]
        );
        let map = "## Code map\n\n### `alpha/`\n\n`run.rs`, `campaign/run.rs`, `src/campaign/mod.rs`, \
                   `attempt/`, `attempt/reuse.rs`, `session/` and `session/reuse.rs`.\n";
        assert!(modules_missing_from_map(&files, map).is_empty());
    }
}
