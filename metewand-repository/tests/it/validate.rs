//! Hostile worker output, built on a real filesystem in temporary directories: each case fails with its own typed
//! error, and valid output is returned with its files in UTF-8 byte order.

use std::fs;
use std::num::NonZeroUsize;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use metewand_protocol::Sha256Digest;
use metewand_repository::validate::{
    Change, EntryType, HookPoint, PathError, ResultLayout, RootProblem, ValidationErrorKind, WorkerOutputValidator,
};
use metewand_repository::{CheckedRepository, ValidationError};
use serde_json::{Value, json};

use crate::golden;

fn repository() -> CheckedRepository {
    CheckedRepository::load(&golden()).unwrap()
}

/// Writes files under `root` (creating their directories).
fn write_files(root: &Path, files: &[(&str, &[u8])]) {
    for (path, contents) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }
}

/// File records that describe `files` truthfully.
fn records(files: &[(&str, &[u8])]) -> Value {
    Value::Array(
        files
            .iter()
            .map(|(path, contents)| {
                json!({"path": path, "size": contents.len(), "sha256": Sha256Digest::of(contents).to_string()})
            })
            .collect(),
    )
}

fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

const FILES: &[(&str, &[u8])] =
    &[("x.csv", b"1,2\n3,4\n"), ("parts/b.bin", b"\x00\x01\x02"), ("parts/a.txt", b"hello")];

/// A valid dataset output with FILES, whose manifest is `manifest`.
fn dataset_dir(manifest: Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), FILES);
    write_json(&dir.path().join("dataset-manifest.json"), &manifest);
    dir
}

fn dataset_manifest() -> Value {
    json!({"complete": true, "data": {"rows": 2}, "files": records(FILES)})
}

fn validate_dataset(root: &Path) -> Result<metewand_repository::ValidatedDataset, ValidationError> {
    let repository = repository();
    let dataset = repository.dataset("small").unwrap();
    WorkerOutputValidator::new(&repository).validate_dataset(dataset, root, "dataset-manifest.json")
}

fn dataset_error(root: &Path) -> ValidationErrorKind {
    let error = validate_dataset(root).expect_err("the output passed validation");
    let text = error.to_string();
    assert!(!text.contains('\n') && !text.ends_with('.'), "{text}");
    error.into_kind()
}

#[test]
fn valid_dataset_output_is_returned_in_byte_order() {
    let dir = dataset_dir(dataset_manifest());
    let validated = validate_dataset(dir.path()).unwrap();
    let paths: Vec<&str> = validated.files().iter().map(|f| f.path().as_str()).collect();
    assert_eq!(paths, ["parts/a.txt", "parts/b.bin", "x.csv"]);
    assert_eq!(validated.files()[0].size(), 5);
    assert_eq!(validated.files()[0].sha256(), Sha256Digest::of(b"hello"));
    assert_eq!(validated.schema(), "urn:example:dataset:1");
    assert_eq!(validated.manifest().data["rows"], 2);
    let manifest_bytes = fs::read(dir.path().join("dataset-manifest.json")).unwrap();
    assert_eq!(validated.manifest_file().sha256(), Sha256Digest::of(&manifest_bytes));
    assert_eq!(validated.manifest_file().size(), manifest_bytes.len() as u64);
    assert_eq!(validated.root(), dir.path());
}

#[test]
fn an_empty_dataset_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    write_json(&dir.path().join("dataset-manifest.json"), &json!({"complete": true, "data": {"rows": 1}, "files": []}));
    assert!(validate_dataset(dir.path()).unwrap().files().is_empty());
}

#[test]
fn returned_manifest_paths_are_checked_before_any_join() {
    let repository = repository();
    let dataset = repository.dataset("small").unwrap();
    let validator = WorkerOutputValidator::new(&repository);
    // The root does not even exist: the path is refused as text first.
    let nowhere = Path::new("/nonexistent/metewand/output");
    for (path, reason) in [
        ("../x", PathError::DotDotComponent),
        ("/etc/passwd", PathError::Absolute),
        ("a//b", PathError::RepeatedSeparator),
        ("a/", PathError::TrailingSeparator),
        ("a\\b", PathError::Backslash),
        ("C:/x", PathError::DrivePrefix),
        ("./a", PathError::DotComponent),
        ("", PathError::Empty),
    ] {
        let error = validator.validate_dataset(dataset, nowhere, path).unwrap_err();
        assert!(
            matches!(error.kind(), ValidationErrorKind::ManifestPath { path: p, reason: r } if p == path && *r == reason),
            "{path}: {error}"
        );
    }
}

#[test]
fn a_manifest_under_another_name_is_rejected_with_a_message_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), FILES);
    write_json(&dir.path().join("manifest.json"), &dataset_manifest());
    let repository = repository();
    let error = WorkerOutputValidator::new(&repository)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "manifest.json")
        .unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::ManifestName { path, expected } if path == "manifest.json" && *expected == "dataset-manifest.json"),
        "{error}"
    );
    assert!(error.to_string().contains("must be \"dataset-manifest.json\""), "{error}");
}

#[test]
fn manifest_paths_naming_outside_the_root_are_rejected() {
    for (path, reason) in [
        ("../x", PathError::DotDotComponent),
        ("/etc/passwd", PathError::Absolute),
        ("a//b", PathError::RepeatedSeparator),
        ("a/", PathError::TrailingSeparator),
        ("a\\b", PathError::Backslash),
        ("C:/x", PathError::DrivePrefix),
        ("./a", PathError::DotComponent),
    ] {
        let mut manifest = dataset_manifest();
        manifest["files"]
            .as_array_mut()
            .unwrap()
            .push(json!({"path": path, "size": 0, "sha256": Sha256Digest::of(b"").to_string()}));
        let dir = dataset_dir(manifest);
        let kind = dataset_error(dir.path());
        assert!(
            matches!(&kind, ValidationErrorKind::InvalidPath { path: p, reason: r } if p == path && *r == reason),
            "{path}: {kind}"
        );
    }
}

#[test]
fn a_symlink_to_a_file_outside_fails() {
    let outside = tempfile::NamedTempFile::new().unwrap();
    fs::write(outside.path(), b"secret").unwrap();
    let mut files = records(FILES);
    files
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "link", "size": 6, "sha256": Sha256Digest::of(b"secret").to_string()}));
    let dir = dataset_dir(json!({"complete": true, "data": {"rows": 2}, "files": files}));
    symlink(outside.path(), dir.path().join("link")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SpecialEntry { path, found: EntryType::SymbolicLink } if path == "link"),
        "{kind}"
    );
}

#[test]
fn a_symlink_to_a_directory_fails() {
    let dir = dataset_dir(dataset_manifest());
    symlink(dir.path().join("parts"), dir.path().join("more")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SpecialEntry { path, found: EntryType::SymbolicLink } if path == "more"),
        "{kind}"
    );
}

#[test]
fn a_symlink_loop_fails() {
    let dir = dataset_dir(dataset_manifest());
    symlink("loop-b", dir.path().join("parts/loop-a")).unwrap();
    symlink("loop-a", dir.path().join("parts/loop-b")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SpecialEntry { path, found: EntryType::SymbolicLink } if path == "parts/loop-a"),
        "{kind}"
    );
}

#[test]
fn a_dangling_symlink_fails() {
    let dir = dataset_dir(dataset_manifest());
    symlink("/nonexistent/metewand", dir.path().join("dangling")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SpecialEntry { path, found: EntryType::SymbolicLink } if path == "dangling"),
        "{kind}"
    );
}

#[test]
fn a_symlinked_manifest_fails() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), FILES);
    write_json(&dir.path().join("real.json"), &dataset_manifest());
    symlink("real.json", dir.path().join("dataset-manifest.json")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SpecialEntry { path, found: EntryType::SymbolicLink } if path == "dataset-manifest.json"),
        "{kind}"
    );
}

use metewand_testkit::mkfifo;

#[test]
fn a_fifo_fails_without_hanging() {
    let dir = dataset_dir(dataset_manifest());
    mkfifo(&dir.path().join("parts/pipe"));
    let started = Instant::now();
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SpecialEntry { path, found: EntryType::Fifo } if path == "parts/pipe"),
        "{kind}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_fifo_put_in_place_of_a_file_after_the_walk_does_not_hang() {
    let dir = dataset_dir(dataset_manifest());
    let target = dir.path().join("x.csv");
    let hook = Arc::new(move |point: HookPoint<'_>| {
        if let HookPoint::AfterWalk = point {
            fs::remove_file(&target).unwrap();
            mkfifo(&target);
        }
    });
    let repository = repository();
    let started = Instant::now();
    let error = WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "dataset-manifest.json")
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(error.kind(), ValidationErrorKind::Changed { path, change: Change::TypeChanged { found: EntryType::Fifo } } if path == "x.csv"),
        "{error}"
    );
}

#[test]
fn a_unix_socket_fails() {
    let dir = dataset_dir(dataset_manifest());
    let _listener = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SpecialEntry { path, found: EntryType::Socket } if path == "sock"),
        "{kind}"
    );
}

#[test]
fn a_hard_link_to_a_file_outside_fails() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_files(outside.path(), &[("x.csv", FILES[0].1)]);
    write_files(dir.path(), &FILES[1..]);
    fs::hard_link(outside.path().join("x.csv"), dir.path().join("x.csv")).unwrap();
    write_json(&dir.path().join("dataset-manifest.json"), &dataset_manifest());
    let kind = dataset_error(dir.path());
    assert!(matches!(&kind, ValidationErrorKind::MultipleLinks { path, links: 2 } if path == "x.csv"), "{kind}");
}

#[test]
fn a_hard_linked_manifest_fails() {
    let dir = dataset_dir(dataset_manifest());
    let outside = tempfile::tempdir().unwrap();
    fs::hard_link(dir.path().join("dataset-manifest.json"), outside.path().join("m.json")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(matches!(&kind, ValidationErrorKind::Changed { .. } | ValidationErrorKind::MultipleLinks { .. }), "{kind}");
    assert!(
        matches!(&kind, ValidationErrorKind::MultipleLinks { path, links: 2 } if path == "dataset-manifest.json"),
        "{kind}"
    );
}

#[test]
fn an_undeclared_file_fails() {
    let dir = dataset_dir(dataset_manifest());
    write_files(dir.path(), &[("parts/extra.txt", b"surprise")]);
    let kind = dataset_error(dir.path());
    assert!(matches!(&kind, ValidationErrorKind::UndeclaredFile { path } if path == "parts/extra.txt"), "{kind}");
}

#[test]
fn an_empty_undeclared_directory_fails() {
    let dir = dataset_dir(dataset_manifest());
    fs::create_dir_all(dir.path().join("parts/empty/deeper")).unwrap();
    let kind = dataset_error(dir.path());
    assert!(matches!(&kind, ValidationErrorKind::UndeclaredDirectory { path } if path == "parts/empty"), "{kind}");
}

#[test]
fn a_declared_file_that_is_missing_fails() {
    let mut manifest = dataset_manifest();
    manifest["files"]
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "parts/c.txt", "size": 1, "sha256": Sha256Digest::of(b"c").to_string()}));
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(matches!(&kind, ValidationErrorKind::MissingFile { path } if path == "parts/c.txt"), "{kind}");
}

#[test]
fn a_declared_directory_is_not_a_file() {
    let mut manifest = dataset_manifest();
    manifest["files"]
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "parts", "size": 0, "sha256": Sha256Digest::of(b"").to_string()}));
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::NotRegularFile { path, found: EntryType::Directory } if path == "parts"),
        "{kind}"
    );
}

#[test]
fn a_wrong_size_fails_with_both_sizes() {
    let mut manifest = dataset_manifest();
    manifest["files"][2]["size"] = json!(4);
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SizeMismatch { path, expected: 4, observed: 5 } if path == "parts/a.txt"),
        "{kind}"
    );
}

#[test]
fn a_wrong_digest_fails_with_both_digests() {
    let mut manifest = dataset_manifest();
    let wrong = Sha256Digest::of(b"HELLO");
    manifest["files"][2]["sha256"] = json!(wrong.to_string());
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::DigestMismatch { path, expected, observed }
            if path == "parts/a.txt" && *expected == wrong && *observed == Sha256Digest::of(b"hello")),
        "{kind}"
    );
}

#[test]
fn a_duplicate_path_fails() {
    let mut manifest = dataset_manifest();
    let first = manifest["files"][0].clone();
    manifest["files"].as_array_mut().unwrap().push(first);
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(matches!(&kind, ValidationErrorKind::DuplicatePath { path } if path == "x.csv"), "{kind}");
}

#[test]
fn a_manifest_declaring_itself_fails() {
    let mut manifest = dataset_manifest();
    manifest["files"]
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "dataset-manifest.json", "size": 1, "sha256": Sha256Digest::of(b"").to_string()}));
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::ManifestDeclaresItself { path } if path == "dataset-manifest.json"),
        "{kind}"
    );
}

#[test]
fn a_missing_manifest_fails() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), FILES);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::ManifestMissing { path } if path == "dataset-manifest.json"),
        "{kind}"
    );
}

/// A validator whose hook runs `action` on the path `target` when it is opened, before it is read.
fn validate_with_before_read(
    dir: &Path,
    target: &'static str,
    action: impl Fn(&Path) + Send + Sync + 'static,
) -> ValidationError {
    let root = dir.to_owned();
    let hook = Arc::new(move |point: HookPoint<'_>| {
        if let HookPoint::BeforeRead(path) = point
            && path == target
        {
            action(&root.join(path));
        }
    });
    let repository = repository();
    WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .validate_dataset(repository.dataset("small").unwrap(), dir, "dataset-manifest.json")
        .unwrap_err()
}

#[test]
fn a_file_that_grows_while_it_is_hashed_fails() {
    let dir = dataset_dir(dataset_manifest());
    let error = validate_with_before_read(dir.path(), "x.csv", |path| {
        use std::io::Write;
        fs::OpenOptions::new().append(true).open(path).unwrap().write_all(b"5,6\n").unwrap();
    });
    assert!(
        matches!(error.kind(), ValidationErrorKind::Changed { path, change: Change::Grew { expected: 8, observed: 9 } } if path == "x.csv"),
        "{error}"
    );
}

#[test]
fn a_large_file_that_grows_while_it_is_hashed_fails() {
    // Larger than one read buffer, so the growth lands after the first read.
    let big = vec![7_u8; 3 << 20];
    let files: &[(&str, &[u8])] = &[("big.bin", &big)];
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), files);
    write_json(
        &dir.path().join("dataset-manifest.json"),
        &json!({"complete": true, "data": {"rows": 1}, "files": records(files)}),
    );
    let error = validate_with_before_read(dir.path(), "big.bin", |path| {
        use std::io::Write;
        fs::OpenOptions::new().append(true).open(path).unwrap().write_all(&[1]).unwrap();
    });
    assert!(matches!(error.kind(), ValidationErrorKind::Changed { change: Change::Grew { .. }, .. }), "{error}");
}

#[test]
fn a_file_that_shrinks_while_it_is_hashed_fails() {
    let dir = dataset_dir(dataset_manifest());
    let error = validate_with_before_read(dir.path(), "x.csv", |path| {
        fs::OpenOptions::new().write(true).open(path).unwrap().set_len(3).unwrap();
    });
    assert!(
        matches!(error.kind(), ValidationErrorKind::Changed { path, change: Change::Shrank { expected: 8, observed: 3 } } if path == "x.csv"),
        "{error}"
    );
}

#[test]
fn a_file_rewritten_in_place_while_it_is_hashed_fails() {
    let dir = dataset_dir(dataset_manifest());
    let error = validate_with_before_read(dir.path(), "parts/a.txt", |path| {
        std::thread::sleep(Duration::from_millis(20));
        fs::write(path, b"HELLO").unwrap();
    });
    // The same length, but the descriptor's modification time moved (or the digest differs).
    assert!(
        matches!(
            error.kind(),
            ValidationErrorKind::Changed { change: Change::Modified, .. } | ValidationErrorKind::DigestMismatch { .. }
        ),
        "{error}"
    );
}

#[test]
fn a_file_replaced_by_a_directory_fails() {
    let dir = dataset_dir(dataset_manifest());
    let target = dir.path().join("x.csv");
    let hook = Arc::new(move |point: HookPoint<'_>| {
        if let HookPoint::AfterWalk = point {
            fs::remove_file(&target).unwrap();
            fs::create_dir(&target).unwrap();
        }
    });
    let repository = repository();
    let error = WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "dataset-manifest.json")
        .unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::Changed { path, change: Change::TypeChanged { found: EntryType::Directory } } if path == "x.csv"),
        "{error}"
    );
}

#[test]
fn a_file_replaced_by_a_symlink_after_the_walk_is_not_followed() {
    let dir = dataset_dir(dataset_manifest());
    let outside = tempfile::NamedTempFile::new().unwrap();
    fs::write(outside.path(), b"1,2\n3,4\n").unwrap();
    let (target, outside_path) = (dir.path().join("x.csv"), outside.path().to_owned());
    let hook = Arc::new(move |point: HookPoint<'_>| {
        if let HookPoint::AfterWalk = point {
            fs::remove_file(&target).unwrap();
            symlink(&outside_path, &target).unwrap();
        }
    });
    let repository = repository();
    let error = WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "dataset-manifest.json")
        .unwrap_err();
    assert!(
        matches!(
            error.kind(),
            ValidationErrorKind::Changed { change: Change::TypeChanged { found: EntryType::SymbolicLink }, .. }
        ),
        "{error}"
    );
}

#[test]
fn a_directory_replaced_by_a_symlink_after_the_walk_is_not_followed() {
    let dir = dataset_dir(dataset_manifest());
    let outside = tempfile::tempdir().unwrap();
    write_files(outside.path(), &[("a.txt", b"hello"), ("b.bin", b"\x00\x01\x02")]);
    let (target, outside_path) = (dir.path().join("parts"), outside.path().to_owned());
    let hook = Arc::new(move |point: HookPoint<'_>| {
        if let HookPoint::AfterWalk = point {
            fs::remove_dir_all(&target).unwrap();
            symlink(&outside_path, &target).unwrap();
        }
    });
    let repository = repository();
    let error = WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "dataset-manifest.json")
        .unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::Changed { path, change: Change::TypeChanged { found: EntryType::SymbolicLink } } if path == "parts/a.txt"),
        "{error}"
    );
}

#[test]
fn a_file_replaced_by_another_file_after_the_walk_fails() {
    let dir = dataset_dir(dataset_manifest());
    let target = dir.path().join("x.csv");
    let hook = Arc::new(move |point: HookPoint<'_>| {
        if let HookPoint::AfterWalk = point {
            let staged = target.with_extension("new");
            fs::write(&staged, b"1,2\n3,4\n").unwrap();
            fs::rename(&staged, &target).unwrap();
        }
    });
    let repository = repository();
    let error = WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "dataset-manifest.json")
        .unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::Changed { path, change: Change::Replaced } if path == "x.csv"),
        "{error}"
    );
}

#[test]
fn non_utf8_file_names_fail() {
    let dir = dataset_dir(dataset_manifest());
    let name = std::ffi::OsStr::from_bytes(b"bad-\xff-name");
    fs::write(dir.path().join("parts").join(name), b"x").unwrap();
    let kind = dataset_error(dir.path());
    assert!(matches!(&kind, ValidationErrorKind::NonUtf8Name { path } if path == "parts/bad-\u{fffd}-name"), "{kind}");
}

fn manifest_bytes_error(bytes: &[u8]) -> ValidationErrorKind {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), FILES);
    fs::write(dir.path().join("dataset-manifest.json"), bytes).unwrap();
    dataset_error(dir.path())
}

#[test]
fn a_manifest_with_duplicate_keys_fails() {
    let text = serde_json::to_string(&dataset_manifest()).unwrap().replacen(
        "{\"complete\":true",
        "{\"complete\":true,\"complete\":true",
        1,
    );
    let kind = manifest_bytes_error(text.as_bytes());
    assert!(
        matches!(&kind, ValidationErrorKind::Json { path, error } if path == "dataset-manifest.json"
            && matches!(error.kind(), metewand_protocol::ParseErrorKind::DuplicateKey { name } if name == "complete")),
        "{kind}"
    );
}

#[test]
fn a_manifest_with_a_bom_fails() {
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(serde_json::to_vec(&dataset_manifest()).unwrap());
    let kind = manifest_bytes_error(&bytes);
    assert!(
        matches!(&kind, ValidationErrorKind::Json { error, .. } if *error.kind() == metewand_protocol::ParseErrorKind::ByteOrderMark),
        "{kind}"
    );
}

#[test]
fn a_manifest_with_nan_like_numbers_fails() {
    for (literal, expected) in [
        ("NaN", None),
        ("Infinity", None),
        ("-Infinity", None),
        ("1e400", Some(metewand_protocol::ParseErrorKind::NumberOutOfRange)),
        ("9007199254740993", Some(metewand_protocol::ParseErrorKind::InexactInteger)),
    ] {
        let text =
            serde_json::to_string(&dataset_manifest()).unwrap().replace("\"rows\":2", &format!("\"rows\":{literal}"));
        let kind = manifest_bytes_error(text.as_bytes());
        match (&kind, expected) {
            (ValidationErrorKind::Json { error, .. }, Some(expected)) => {
                assert_eq!(*error.kind(), expected, "{literal}")
            }
            (ValidationErrorKind::Json { error, .. }, None) => {
                use metewand_protocol::ParseErrorKind;
                assert!(
                    matches!(error.kind(), ParseErrorKind::UnexpectedCharacter { .. } | ParseErrorKind::InvalidNumber),
                    "{literal}: {kind}"
                )
            }
            _ => panic!("{literal}: {kind}"),
        }
    }
}

#[test]
fn a_manifest_of_65_mib_fails_before_it_is_parsed() {
    let mut bytes = serde_json::to_vec(&dataset_manifest()).unwrap();
    bytes.resize(65 << 20, b' ');
    let kind = manifest_bytes_error(&bytes);
    assert!(
        matches!(&kind, ValidationErrorKind::DocumentTooLarge { path, size } if path == "dataset-manifest.json" && *size == 65 << 20),
        "{kind}"
    );
}

#[test]
fn a_manifest_just_under_the_limit_is_read() {
    let mut bytes = serde_json::to_vec(&dataset_manifest()).unwrap();
    bytes.resize(64 << 20, b' ');
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), FILES);
    fs::write(dir.path().join("dataset-manifest.json"), &bytes).unwrap();
    validate_dataset(dir.path()).unwrap();
}

#[test]
fn complete_false_fails_against_the_public_schema() {
    let mut manifest = dataset_manifest();
    manifest["complete"] = json!(false);
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::Schema { schema, diagnostics, .. }
            if schema == "urn:metewand:schema:artifact-manifest:1" && diagnostics[0].instance_path == "/complete"),
        "{kind}"
    );
}

#[test]
fn dataset_data_is_validated_against_the_output_schema() {
    let mut manifest = dataset_manifest();
    manifest["data"] = json!({"rows": 0});
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::Schema { schema, diagnostics, .. }
            if schema == "urn:example:dataset:1" && diagnostics[0].instance_path == "/data/rows"),
        "{kind}"
    );
}

#[test]
fn a_dataset_manifest_naming_another_schema_fails() {
    let mut manifest = dataset_manifest();
    manifest["schema"] = json!("urn:example:common:1");
    let dir = dataset_dir(manifest);
    let kind = dataset_error(dir.path());
    assert!(
        matches!(&kind, ValidationErrorKind::SchemaMismatch { named, selected, .. }
            if named == "urn:example:common:1" && selected == "urn:example:dataset:1"),
        "{kind}"
    );
    let mut manifest = dataset_manifest();
    manifest["schema"] = json!("urn:example:dataset:1");
    validate_dataset(dataset_dir(manifest).path()).unwrap();
}

#[test]
fn the_output_directory_itself_must_be_a_real_directory() {
    let dir = dataset_dir(dataset_manifest());
    let parent = tempfile::tempdir().unwrap();
    let link = parent.path().join("out");
    symlink(dir.path(), &link).unwrap();
    let error = validate_dataset(&link).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::Root { problem: RootProblem::SymbolicLink }), "{error}");
    let error = validate_dataset(&dir.path().join("x.csv")).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::Root { problem: RootProblem::NotADirectory }), "{error}");
    let error = validate_dataset(&dir.path().join("nothing")).unwrap_err();
    assert!(error.is_io_error(), "{error}");
}

fn result_manifest(files: &[(&str, &[u8])]) -> Value {
    json!({"data": {"coefficients": [1.5, -2]}, "files": records(files)})
}

fn validate_result(root: &Path) -> Result<metewand_repository::ValidatedResult, ValidationError> {
    let repository = repository();
    WorkerOutputValidator::new(&repository).validate_result(repository.problem("ls").unwrap(), root, "result.json")
}

#[test]
fn valid_result_output() {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[("fit/z.npy", b"zz"), ("fit/a.npy", b"aa"), ("README", b"r")];
    write_files(dir.path(), files);
    write_json(&dir.path().join("result.json"), &result_manifest(files));
    let validated = validate_result(dir.path()).unwrap();
    let paths: Vec<&str> = validated.files().iter().map(|f| f.path().as_str()).collect();
    assert_eq!(paths, ["README", "fit/a.npy", "fit/z.npy"]);
    assert_eq!(validated.schema(), "urn:example:result:1");
    // Naming the selected schema is allowed.
    let mut manifest = result_manifest(files);
    manifest["schema"] = json!("urn:example:result:1");
    write_json(&dir.path().join("result.json"), &manifest);
    validate_result(dir.path()).unwrap();
}

fn validate_in(base: &Path, layout: ResultLayout) -> Result<metewand_repository::ValidatedResult, ValidationError> {
    let repository = repository();
    let problem = repository.problem("ls").unwrap();
    WorkerOutputValidator::new(&repository).validate_result_in(problem, base, layout, "result.json")
}

/// A streamed result: checkpoints 1 and 2 each with a file of their own, and the final result with another.
fn streamed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in [1, 2] {
        let folder = dir.path().join(format!("checkpoints/{n}"));
        let files: &[(&str, &[u8])] = &[("x.npy", b"xx")];
        write_files(&folder, files);
        write_json(&folder.join("result.json"), &result_manifest(files));
    }
    let files: &[(&str, &[u8])] = &[("fit/x.npy", b"final")];
    write_files(dir.path(), files);
    write_json(&dir.path().join("result.json"), &result_manifest(files));
    dir
}

#[test]
fn a_streamed_result_and_each_checkpoint_are_validated_apart() {
    let dir = streamed();
    let error = validate_result(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::UndeclaredFile { .. }), "{error}");
    let whole = validate_in(dir.path(), ResultLayout::Streamed).unwrap();
    let paths: Vec<&str> = whole.files().iter().map(|f| f.path().as_str()).collect();
    assert_eq!(paths, ["fit/x.npy"]);
    let checkpoint = validate_in(dir.path(), ResultLayout::Checkpoint(2)).unwrap();
    assert_eq!(checkpoint.root(), dir.path().join("checkpoints/2"));
    assert_eq!(checkpoint.files()[0].path().as_str(), "x.npy");
    let repository = repository();
    let validator = WorkerOutputValidator::new(&repository);
    validator.revalidate_result(repository.problem("ls").unwrap(), &checkpoint).unwrap();
    // Only the top-level `checkpoints/` is not the final result's.
    fs::create_dir_all(dir.path().join("fit/checkpoints")).unwrap();
    fs::write(dir.path().join("fit/checkpoints/stray"), b"s").unwrap();
    let error = validate_in(dir.path(), ResultLayout::Streamed).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::UndeclaredFile { path } if path == "fit/checkpoints/stray"));
    // A missing checkpoint is no folder.
    let error = validate_in(dir.path(), ResultLayout::Checkpoint(3)).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::Root { .. }), "{error}");
}

#[test]
fn checkpoints_holds_only_the_announced_checkpoints_folders() {
    let repository = repository();
    let validator = WorkerOutputValidator::new(&repository);
    let dir = streamed();
    validator.check_checkpoint_folders(dir.path(), 2).unwrap();
    let unannounced = |error: ValidationError, expected: &str| {
        assert!(
            matches!(error.kind(), ValidationErrorKind::UnannouncedCheckpoint { path, .. } if path == expected),
            "{error}"
        );
    };
    unannounced(validator.check_checkpoint_folders(dir.path(), 1).unwrap_err(), "checkpoints/2");
    let empty = tempfile::tempdir().unwrap();
    validator.check_checkpoint_folders(empty.path(), 0).unwrap();
    for stray in ["checkpoints/notes.txt", "checkpoints/01/x", "checkpoints/0/x", "checkpoints/7/x"] {
        let dir = streamed();
        write_files(dir.path(), &[(stray, b"s")]);
        let top = stray.rsplit_once('/').map_or(stray, |(folder, _)| folder);
        let expected = if stray.ends_with(".txt") { stray } else { top };
        unannounced(validator.check_checkpoint_folders(dir.path(), 2).unwrap_err(), expected);
    }
    let dir = streamed();
    fs::create_dir(dir.path().join("checkpoints/3")).unwrap();
    unannounced(validator.check_checkpoint_folders(dir.path(), 2).unwrap_err(), "checkpoints/3");
}

#[test]
fn a_checkpoint_reached_through_a_link_fails() {
    let elsewhere = streamed();
    let dir = tempfile::tempdir().unwrap();
    symlink(elsewhere.path().join("checkpoints"), dir.path().join("checkpoints")).unwrap();
    let error = validate_in(dir.path(), ResultLayout::Checkpoint(1)).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::Root { problem: RootProblem::SymbolicLink }), "{error}");
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("checkpoints")).unwrap();
    symlink(elsewhere.path().join("checkpoints/1"), dir.path().join("checkpoints/1")).unwrap();
    let error = validate_in(dir.path(), ResultLayout::Checkpoint(1)).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::Root { problem: RootProblem::SymbolicLink }), "{error}");
}

#[test]
fn a_result_naming_another_repository_schema_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut manifest = result_manifest(&[]);
    // The data would satisfy the named schema, but a worker cannot redirect validation.
    manifest["schema"] = json!("urn:example:dataset:1");
    manifest["data"] = json!({"rows": 3});
    write_json(&dir.path().join("result.json"), &manifest);
    let error = validate_result(dir.path()).unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::SchemaMismatch { path, named, selected }
            if path == "result.json" && named == "urn:example:dataset:1" && selected == "urn:example:result:1"),
        "{error}"
    );
}

#[test]
fn result_data_is_always_validated_against_the_selected_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut manifest = result_manifest(&[]);
    manifest["data"] = json!({"coefficients": ["one"]});
    write_json(&dir.path().join("result.json"), &manifest);
    let error = validate_result(dir.path()).unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::Schema { schema, diagnostics, .. }
            if schema == "urn:example:result:1" && diagnostics[0].instance_path == "/data/coefficients/0"),
        "{error}"
    );
}

#[test]
fn a_result_manifest_must_be_named_result_json() {
    let dir = tempfile::tempdir().unwrap();
    write_json(&dir.path().join("out.json"), &result_manifest(&[]));
    let repository = repository();
    let error = WorkerOutputValidator::new(&repository)
        .validate_result(repository.problem("ls").unwrap(), dir.path(), "out.json")
        .unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::ManifestName { expected, .. } if *expected == "result.json"),
        "{error}"
    );
}

fn validate_metrics(root: &Path) -> Result<metewand_repository::ValidatedMetrics, ValidationError> {
    let repository = repository();
    WorkerOutputValidator::new(&repository).validate_metrics(repository.problem("ls").unwrap(), root)
}

#[test]
fn valid_metrics() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("metrics.json"), br#"{"metrics": {"rmse": 0.25}}"#).unwrap();
    let validated = validate_metrics(dir.path()).unwrap();
    assert_eq!(validated.metrics().metrics["rmse"], 0.25);
    assert_eq!(validated.file().path().as_str(), "metrics.json");
    assert!(validated.schema().starts_with("urn:metewand:inline:"));
}

#[test]
fn a_second_file_beside_metrics_fails() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("metrics.json"), br#"{"metrics": {"rmse": 0.25}}"#).unwrap();
    fs::write(dir.path().join("debug.log"), b"").unwrap();
    let error = validate_metrics(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::ExtraFile { path, .. } if path == "debug.log"), "{error}");
    fs::remove_file(dir.path().join("debug.log")).unwrap();
    fs::create_dir(dir.path().join("cache")).unwrap();
    let error = validate_metrics(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::UndeclaredDirectory { path } if path == "cache"), "{error}");
}

#[test]
fn metrics_follow_the_selected_schema_rule() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("metrics.json"), br#"{"metrics": {"rmse": -1}}"#).unwrap();
    let error = validate_metrics(dir.path()).unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::Schema { schema, diagnostics, .. }
            if schema.starts_with("urn:metewand:inline:") && diagnostics[0].instance_path == "/metrics/rmse"),
        "{error}"
    );
    fs::write(dir.path().join("metrics.json"), br#"{"metrics": {"rmse": 1}, "schema": "urn:example:result:1"}"#)
        .unwrap();
    let error = validate_metrics(dir.path()).unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::SchemaMismatch { named, .. } if named == "urn:example:result:1"),
        "{error}"
    );
    fs::write(dir.path().join("metrics.json"), br#"{"metrics": {"rmse": 1}, "extra": true}"#).unwrap();
    let error = validate_metrics(dir.path()).unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::Schema { schema, .. } if schema == "urn:metewand:schema:metrics:1"),
        "{error}"
    );
    fs::remove_file(dir.path().join("metrics.json")).unwrap();
    let error = validate_metrics(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::ManifestMissing { path } if path == "metrics.json"), "{error}");
}

#[test]
fn many_small_files_validate_with_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let contents: Vec<(String, Vec<u8>)> =
        (0..300).map(|i| (format!("d{}/f{i:04}.txt", i % 7), format!("file {i}").into_bytes())).collect();
    let files: Vec<(&str, &[u8])> = contents.iter().map(|(p, c)| (p.as_str(), c.as_slice())).collect();
    write_files(dir.path(), &files);
    write_json(
        &dir.path().join("dataset-manifest.json"),
        &json!({"complete": true, "data": {"rows": 1}, "files": records(&files)}),
    );
    let repository = repository();
    let dataset = repository.dataset("small").unwrap();
    for threads in [1, 2, 8] {
        let validated = WorkerOutputValidator::new(&repository)
            .with_threads(NonZeroUsize::new(threads).unwrap())
            .validate_dataset(dataset, dir.path(), "dataset-manifest.json")
            .unwrap();
        assert_eq!(validated.files().len(), 300);
        assert!(
            validated.files().windows(2).all(|w| w[0].path().as_str().as_bytes() < w[1].path().as_str().as_bytes())
        );
    }
    // With several failures, the first in byte order is reported whatever the thread count.
    fs::write(dir.path().join("d3/f0003.txt"), b"FILE 3").unwrap();
    fs::write(dir.path().join("d5/f0299.txt"), b"FILE 299").unwrap();
    for threads in [1, 2, 8] {
        let error = WorkerOutputValidator::new(&repository)
            .with_threads(NonZeroUsize::new(threads).unwrap())
            .validate_dataset(dataset, dir.path(), "dataset-manifest.json")
            .unwrap_err();
        assert!(
            matches!(error.kind(), ValidationErrorKind::DigestMismatch { path, .. } if path == "d3/f0003.txt"),
            "{error}"
        );
    }
}

/// A dataset output holding one sparse file of `size` bytes, declared with that size and a digest it does not have.
fn sparse_dataset(size: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::File::create(dir.path().join("huge.bin")).unwrap().set_len(size).unwrap();
    let files = json!([{"path": "huge.bin", "size": size, "sha256": Sha256Digest::of(b"not these bytes").to_string()}]);
    write_json(
        &dir.path().join("dataset-manifest.json"),
        &json!({"complete": true, "data": {"rows": 2}, "files": files}),
    );
    dir
}

#[test]
fn declared_sizes_beyond_the_output_limit_are_refused_before_any_file_is_read() {
    let copy = crate::golden_copy(|toml| toml + "\n[limits]\noutput_bytes = 1048576\n");
    let repository = CheckedRepository::load(copy.path()).unwrap();
    let dir = sparse_dataset(20 << 30);
    let read = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = read.clone();
    let hook = Arc::new(move |point: HookPoint<'_>| {
        if let HookPoint::BeforeRead(path) = point
            && path == "huge.bin"
        {
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let error = WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "dataset-manifest.json")
        .unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::OutputTooLarge { declared, limit: 1048576 } if *declared == 20 << 30),
        "{error}"
    );
    assert!(error.to_string().contains("[limits] output_bytes"), "{error}");
    assert!(!read.load(std::sync::atomic::Ordering::SeqCst), "the file was never opened for reading");
    assert!(!error.is_io_error() && !error.is_cancelled());
}

#[test]
fn a_cancel_during_hashing_ends_the_validation_as_cancelled() {
    static CANCEL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let dir = sparse_dataset(1 << 30);
    // The flag is set once the file is open and checked, before its first byte is read: the read must notice it
    // within its next few MiB instead of hashing the whole GiB to a digest mismatch.
    let hook = Arc::new(|point: HookPoint<'_>| {
        if let HookPoint::BeforeRead("huge.bin") = point {
            CANCEL.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let repository = repository();
    let error = WorkerOutputValidator::new(&repository)
        .with_hook(hook)
        .with_cancel(&CANCEL)
        .validate_dataset(repository.dataset("small").unwrap(), dir.path(), "dataset-manifest.json")
        .unwrap_err();
    assert!(matches!(error.kind(), ValidationErrorKind::Cancelled), "{error}");
    assert!(error.is_cancelled() && !error.is_io_error());
}

/// A result schema whose data names its files: `answer` directly, each of `parts` through `$ref` and `items`.
const NAMING_SCHEMA: &str = r##"{
  "$id": "urn:example:result:1",
  "type": "object",
  "required": ["coefficients"],
  "properties": {
    "coefficients": { "type": "array", "items": { "type": "number" } },
    "answer": { "$ref": "#/$defs/file" },
    "parts": { "type": "array", "items": { "$ref": "#/$defs/file" } },
    "note": { "type": "string" }
  },
  "$defs": { "file": { "type": "string", "format": "metewand-file" } }
}"##;

#[test]
fn a_result_naming_a_file_it_did_not_declare_is_invalid_output() {
    let repo = crate::golden_copy(|toml| toml);
    fs::write(repo.path().join("schemas/result.schema.json"), NAMING_SCHEMA).unwrap();
    let repository = CheckedRepository::load(repo.path()).unwrap();
    let validate = |data: Value, files: &[(&str, &[u8])]| {
        let dir = tempfile::tempdir().unwrap();
        write_files(dir.path(), files);
        write_json(&dir.path().join("result.json"), &json!({"data": data, "files": records(files)}));
        let problem = repository.problem("ls").unwrap();
        WorkerOutputValidator::new(&repository).validate_result(problem, dir.path(), "result.json").map(|_| ())
    };
    let files: &[(&str, &[u8])] = &[("sorted.npy", b"1 2 3"), ("parts/1.bin", b"1")];
    // The worker wrote sorted.npy but its data names sorted.f64, the file the evaluator will open.
    let error = validate(json!({"coefficients": [], "answer": "sorted.f64"}), files).unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::NamedFileMissing { pointer, path }
            if pointer == "/data/answer" && path == "sorted.f64"),
        "{error}"
    );
    assert!(error.to_string().contains("/data/answer names the file \"sorted.f64\""), "{error}");
    let error = validate(json!({"coefficients": [], "parts": ["parts/1.bin", "parts/2.bin"]}), files).unwrap_err();
    assert!(
        matches!(error.kind(), ValidationErrorKind::NamedFileMissing { pointer, .. } if pointer == "/data/parts/1"),
        "{error}"
    );
    // A string the schema does not mark is not a file's name; named files that are declared pass.
    validate(json!({"coefficients": [], "note": "sorted.f64"}), files).unwrap();
    validate(json!({"coefficients": [], "answer": "sorted.npy", "parts": ["parts/1.bin"]}), files).unwrap();
}
