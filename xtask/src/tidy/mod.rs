//! The layout rules a reader relies on, kept by a test:
//!
//! - every workspace member is a row of the README's table of folders;
//! - every Rust module file of a crate's `src/` (generated code aside) is named in ARCHITECTURE.md's code map under
//!   its own crate's heading ([`map`]) and is at most [`MAX_LINES`] lines long, so that it can be read as one
//!   concern; so is every Python source of the SDK ([`MAX_PYTHON_LINES`]; its generated models aside, and those
//!   [`LONG_PYTHON_SOURCES`] lists, each with its reason);
//! - a test file (`*/tests/**/*.rs`, `sdk-python/tests/*.py`) is at most [`MAX_TEST_LINES`] lines long;
//! - no function of library code (a crate's `src/`, its tests and generated code aside) is over
//!   [`MAX_FUNCTION_LINES`] lines, but those [`LONG_FUNCTIONS`] lists, each with its reason;
//! - library code imports no glob (`use x::*;`), but `use super::*;` in a test module and the places
//!   [`GLOB_IMPORTS`] lists, each with its reason;
//! - every relative link of a tracked Markdown file leads to a file or folder of the repository, and to a heading of
//!   a Markdown file ([`links`]);
//! - every path ARCHITECTURE.md's recipes name between [`PATHS_BEGIN`] and [`PATHS_END`] exists, so that a recipe
//!   cannot send a reader to a file that moved;
//! - library code never converts a value through its text: no `.to_string().parse()`, and no `.parse()` whose
//!   failure is a panic (`.parse().unwrap()`, `.parse().expect(..)`), which is how a print-and-parse between types
//!   hides.
//!
//! Rust sources are read with `syn` ([`syntax`]). An exception that no longer applies fails the test too, so that
//! the lists say what the code needs now.

mod links;
mod map;
mod syntax;

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use syntax::{Function, Scan};

/// The most lines a module file of a crate's `src/` may have; tests under `tests/` and generated code are not
/// bound by it.
pub(crate) const MAX_LINES: usize = 800;
/// The most lines a Python source of the SDK may have (`sdk-python/src/`, the generated models aside).
pub(crate) const MAX_PYTHON_LINES: usize = 800;
/// The most lines a test file may have (`*/tests/**/*.rs`, `sdk-python/tests/*.py`).
pub(crate) const MAX_TEST_LINES: usize = 1200;
/// The most lines a function of library code may have, from its `fn` to its closing brace.
pub(crate) const MAX_FUNCTION_LINES: usize = 150;

/// The functions of library code allowed over [`MAX_FUNCTION_LINES`]: file, function (`Type::name` for a method),
/// and why.
const LONG_FUNCTIONS: &[(&str, &str, &str)] = &[
    (
        "codegen/src/python/render.rs",
        "Module::render_class",
        "writes one Python class top to bottom, in the order of its text",
    ),
    (
        "metewand-campaign/src/plan.rs",
        "CampaignPlan::new",
        "expands a campaign's axes into its attempts in plan order, step by step",
    ),
    (
        "metewand-campaign/src/slurm/work.rs",
        "work",
        "one Slurm array task from start to end, its steps in the order they run",
    ),
    (
        "metewand-repository/src/load.rs",
        "Loader::check",
        "checks metewand.toml in the fixed order that decides which mistake is reported",
    ),
    (
        "metewand-session/src/process.rs",
        "spawn",
        "confinement prepared, the fork on its own thread, the worker collected: one ordered sequence",
    ),
    ("test-worker/src/attack.rs", "play", "one match arm per attack the test worker plays, each a few lines"),
    ("test-worker/src/main.rs", "serve", "the test worker's request loop, one match arm per fault it plays"),
];

/// The library code allowed to import with a glob: a file, or every file of a folder (ending in `/`), and why.
const GLOB_IMPORTS: &[(&str, &str)] = &[
    (
        "codegen/src/python/parse.rs",
        "a stage of the Python generator: mod.rs's model types and imports are its prelude",
    ),
    (
        "codegen/src/python/render.rs",
        "a stage of the Python generator: mod.rs's model types and imports are its prelude",
    ),
    (
        "metewand-repository/src/lib.rs",
        "gathers load.rs, model.rs and sources.rs into the one namespace the loader shares",
    ),
    ("metewand-repository/src/external.rs", "takes the loader's one namespace (lib.rs) as its prelude"),
    ("metewand-repository/src/load.rs", "takes the loader's one namespace (lib.rs) as its prelude"),
    ("metewand-repository/src/model.rs", "takes the loader's one namespace (lib.rs) as its prelude"),
    ("metewand-repository/src/sources.rs", "takes the loader's one namespace (lib.rs) as its prelude"),
    ("metewand-repository/src/worker.rs", "takes the loader's one namespace (lib.rs) as its prelude"),
];

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

/// The module files that are test code as a whole: declared by a `#[cfg(test)] mod name;` of another (`name.rs`
/// or `name/mod.rs` beside a `lib.rs`, `main.rs` or `mod.rs`, below the folder of the same name otherwise), and
/// every file below such a module's folder.
fn test_module_files(scans: &BTreeMap<String, Scan>) -> Vec<String> {
    let mut folders = Vec::new();
    for (file, scan) in scans {
        let (dir, name) = file.rsplit_once('/').unwrap_or(("", file));
        let dir = match name {
            "lib.rs" | "main.rs" | "mod.rs" => dir.to_owned(),
            _ => format!("{dir}/{}", name.trim_end_matches(".rs")),
        };
        folders.extend(scan.test_modules.iter().map(|module| format!("{dir}/{module}")));
    }
    scans
        .keys()
        .filter(|file| {
            folders.iter().any(|folder| {
                file.strip_suffix(".rs") == Some(folder.as_str())
                    || file.strip_prefix(folder.as_str()).is_some_and(|rest| rest.starts_with('/'))
            })
        })
        .cloned()
        .collect()
}

/// What [`functions_over_budget`] finds.
struct Budget<'a> {
    /// The functions over [`MAX_FUNCTION_LINES`] that no exception lists, each with its file.
    over: Vec<(&'a str, &'a Function)>,
    /// The exceptions (file and function) that no function over the budget matches any more.
    stale: Vec<(&'a str, &'a str)>,
}

/// The functions of `scans` over [`MAX_FUNCTION_LINES`] that `allowed` does not list (file and function), and the
/// entries of `allowed` that no such function matches any more.
fn functions_over_budget<'a>(scans: &'a BTreeMap<String, Scan>, allowed: &[(&'a str, &'a str, &'a str)]) -> Budget<'a> {
    let long: Vec<(&str, &Function)> = scans
        .iter()
        .flat_map(|(file, scan)| scan.functions.iter().map(move |function| (file.as_str(), function)))
        .filter(|(_, function)| function.lines > MAX_FUNCTION_LINES)
        .collect();
    let listed =
        |file: &str, function: &Function| allowed.iter().any(|(f, name, _)| *f == file && *name == function.name);
    let over = long.iter().filter(|(file, function)| !listed(file, function)).copied().collect();
    let stale = allowed
        .iter()
        .filter(|(file, name, _)| !long.iter().any(|(f, function)| f == file && function.name == *name))
        .map(|(file, name, _)| (*file, *name))
        .collect();
    Budget { over, stale }
}

/// The glob imports of `scans` that no rule allows (`use super::*;` in test code, or a place `allowed` lists), as
/// `file:line: import`, and the entries of `allowed` that no glob needs any more.
fn glob_imports<'a>(scans: &BTreeMap<String, Scan>, allowed: &[(&'a str, &str)]) -> (Vec<String>, Vec<&'a str>) {
    let covers = |place: &str, file: &str| if place.ends_with('/') { file.starts_with(place) } else { file == place };
    let mut found = Vec::new();
    let mut used = vec![false; allowed.len()];
    for (file, scan) in scans {
        for glob in scan.globs.iter().filter(|glob| !(glob.in_test && glob.import == "super::*")) {
            match allowed.iter().position(|(place, _)| covers(place, file)) {
                Some(index) => used[index] = true,
                None => found.push(format!("{file}:{}: use {};", glob.line, glob.import)),
            }
        }
    }
    let stale = allowed.iter().zip(used).filter(|(_, used)| !used).map(|((place, _), _)| *place).collect();
    (found, stale)
}

/// Parses every file of `files` (relative to `root`) with [`scan_texts`].
fn scan_library(root: &Path, files: &[String]) -> BTreeMap<String, Scan> {
    scan_texts(files.iter().map(|file| (file.clone(), fs::read_to_string(root.join(file)).unwrap())))
}

/// Parses every file (path and text); the files that are test code as a whole are scanned with every glob counted
/// as test code's and no function counted.
fn scan_texts(files: impl IntoIterator<Item = (String, String)>) -> BTreeMap<String, Scan> {
    let mut scans: BTreeMap<String, Scan> = files
        .into_iter()
        .map(|(file, text)| {
            let scan = syntax::scan(&text).unwrap_or_else(|error| panic!("{file}: {error}"));
            (file, scan)
        })
        .collect();
    for file in test_module_files(&scans) {
        let scan = scans.get_mut(&file).expect("a scanned file");
        scan.functions.clear();
        scan.bridges.clear();
        scan.globs.iter_mut().for_each(|glob| glob.in_test = true);
    }
    scans
}

/// The Markdown files git tracks, relative to `root`, with their texts (a tracked file deleted from the work tree
/// is left out).
fn tracked_markdown(root: &Path) -> BTreeMap<String, String> {
    let output = Command::new("git")
        .args(["ls-files", "-z", "--", "*.md"])
        .current_dir(root)
        .output()
        .expect("git lists the tracked Markdown files");
    assert!(output.status.success(), "git ls-files failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .expect("UTF-8 paths")
        .split('\0')
        .filter(|path| !path.is_empty())
        .filter_map(|path| Some((path.to_owned(), fs::read_to_string(root.join(path)).ok()?)))
        .collect()
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

        let scans = scan_library(&root, &files);
        assert!(scans["metewand-session/src/cpus.rs"].functions.len() > 5);
        assert!(scans["codegen/src/python/tests.rs"].functions.is_empty(), "a test module's file is test code");
        print_longest(&scans);
        let Budget { over, stale } = functions_over_budget(&scans, LONG_FUNCTIONS);
        let over: Vec<String> = over
            .iter()
            .map(|(file, function)| format!("{file}:{}: {} ({} lines)", function.line, function.name, function.lines))
            .collect();
        assert!(over.is_empty(), "functions over {MAX_FUNCTION_LINES} lines: {over:#?}");
        assert!(stale.is_empty(), "LONG_FUNCTIONS lists functions no longer over the budget: {stale:?}");
        let (globs, stale) = glob_imports(&scans, GLOB_IMPORTS);
        assert!(globs.is_empty(), "glob imports in library code: {globs:#?}");
        assert!(stale.is_empty(), "GLOB_IMPORTS lists places without a glob import: {stale:?}");
        let bridges: Vec<String> = scans
            .iter()
            .flat_map(|(file, scan)| scan.bridges.iter().map(move |line| format!("{file}:{line}")))
            .collect();
        assert!(
            bridges.is_empty(),
            "library code converting through text or panicking on a parse; convert the types directly (a From \
             impl, or the checked type built from its parts): {bridges:#?}"
        );

        let markdown = tracked_markdown(&root);
        assert!(markdown.contains_key("docs/decisions/README.md"), "{:?}", markdown.keys());
        let broken = links::broken_links(&markdown, |path| root.join(path).exists());
        assert!(broken.is_empty(), "links that lead nowhere: {broken:#?}");
    }

    /// Prints the ten longest functions of library code straight to stderr (past the test harness's capture).
    fn print_longest(scans: &BTreeMap<String, Scan>) {
        let mut all: Vec<(&String, &Function)> =
            scans.iter().flat_map(|(file, scan)| scan.functions.iter().map(move |function| (file, function))).collect();
        all.sort_by_key(|(file, function)| (std::cmp::Reverse(function.lines), (*file).clone(), function.line));
        let mut text = format!("tidy: the longest functions of library code (at most {MAX_FUNCTION_LINES} lines):\n");
        for (file, function) in all.iter().take(10) {
            text.push_str(&format!("  {:>4}  {file}:{}  {}\n", function.lines, function.line, function.name));
        }
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
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

    fn scans(files: &[(&str, &str)]) -> BTreeMap<String, Scan> {
        scan_texts(files.iter().map(|(file, text)| ((*file).to_owned(), (*text).to_owned())))
    }

    #[test]
    fn a_planted_long_function_is_found_and_a_stale_exception_too() {
        let body = "    let _ = 1;\n".repeat(MAX_FUNCTION_LINES - 2);
        let long = format!("fn fits() {{\n{body}}}\n\nstruct S;\n\nimpl S {{\n    fn over(&self) {{\n{body}\n}}\n}}\n");
        let planted = [
            ("alpha/src/lib.rs", "mod walk;\n#[cfg(test)]\nmod tests;\n"),
            ("alpha/src/walk.rs", long.as_str()),
            ("alpha/src/tests.rs", long.as_str()),
        ];
        let scans = scans(&planted);
        let Budget { over, stale } = functions_over_budget(&scans, &[]);
        let over: Vec<(&str, &str, usize)> =
            over.iter().map(|(file, function)| (*file, function.name.as_str(), function.lines)).collect();
        assert_eq!(over, [("alpha/src/walk.rs", "S::over", MAX_FUNCTION_LINES + 1)]);
        assert!(stale.is_empty());
        let allowed = [("alpha/src/walk.rs", "S::over", "why"), ("alpha/src/walk.rs", "fits", "why")];
        let Budget { over, stale } = functions_over_budget(&scans, &allowed);
        assert!(over.is_empty());
        assert_eq!(stale, [("alpha/src/walk.rs", "fits")]);
    }

    #[test]
    fn a_planted_glob_import_is_found_and_a_stale_exception_too() {
        let planted = [
            ("alpha/src/lib.rs", "mod walk;\nmod stages;\n#[cfg(test)]\nmod tests;\nuse walk::*;\n"),
            ("alpha/src/walk.rs", "fn f() {\n    use Kind::*;\n}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"),
            ("alpha/src/stages/mod.rs", "use super::*;\n"),
            ("alpha/src/tests.rs", "use super::*;\nuse crate::walk::*;\n"),
        ];
        let scans = scans(&planted);
        let (found, stale) = glob_imports(&scans, &[]);
        assert_eq!(
            found,
            [
                "alpha/src/lib.rs:5: use walk::*;",
                "alpha/src/stages/mod.rs:1: use super::*;",
                "alpha/src/tests.rs:2: use crate::walk::*;",
                "alpha/src/walk.rs:2: use Kind::*;",
            ]
        );
        assert!(stale.is_empty());
        let (found, stale) = glob_imports(&scans, &[("alpha/src/stages/", "why"), ("alpha/src/gone.rs", "why")]);
        assert_eq!(found.len(), 3);
        assert_eq!(stale, ["alpha/src/gone.rs"]);
    }

    #[test]
    fn a_planted_print_and_parse_counts_outside_a_test_modules_file_only() {
        let parse = "fn id() -> Id {\n    ID.to_string().parse().ok().unwrap_or_default()\n}\n";
        let planted = [
            ("alpha/src/lib.rs", format!("#[cfg(test)]\nmod tests;\n{parse}")),
            ("alpha/src/tests.rs", parse.to_owned()),
        ];
        let scans = scan_texts(planted.map(|(file, text)| (file.to_owned(), text)));
        assert_eq!(scans["alpha/src/lib.rs"].bridges, [4]);
        assert!(scans["alpha/src/tests.rs"].bridges.is_empty());
    }
}
