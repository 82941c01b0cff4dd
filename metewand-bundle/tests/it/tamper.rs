//! Bundles tampered with one way at a time: each is refused with what and where, and unpacking one leaves nothing
//! behind, neither in the folder it made nor outside it.

use std::fs;
use std::io::Read;
use std::path::Path;

use metewand_bundle::{BundleError, unpack, verify_folder};

use crate::Fixture;

/// One entry of an archive as the tests rewrite it.
#[derive(Clone)]
struct Raw {
    path: String,
    kind: tar::EntryType,
    data: Vec<u8>,
    link: Option<String>,
}

impl Raw {
    fn file(path: &str, data: &[u8]) -> Raw {
        Raw { path: path.to_owned(), kind: tar::EntryType::Regular, data: data.to_vec(), link: None }
    }
}

/// The entries of a bundle, in order.
fn entries(bundle: &Path) -> Vec<Raw> {
    let decoder = zstd::Decoder::new(fs::File::open(bundle).unwrap()).unwrap();
    let mut archive = tar::Archive::new(decoder);
    let mut out = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        let path = String::from_utf8(entry.path_bytes().into_owned()).unwrap();
        out.push(Raw { path, kind: entry.header().entry_type(), data, link: None });
    }
    out
}

/// Writes `entries` as a bundle at `out`, followed within the compressed stream by `trailing`. A path a well-made
/// archive could not hold (`..`, absolute) is written into the header as it is.
fn write(out: &Path, entries: &[Raw], trailing: &[u8]) {
    let mut builder = tar::Builder::new(Vec::new());
    for raw in entries {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(raw.kind);
        header.set_mode(0o644);
        header.set_size(raw.data.len() as u64);
        let plain = raw.kind == tar::EntryType::Regular && !raw.path.starts_with('/') && !raw.path.contains("..");
        if plain {
            builder.append_data(&mut header, &raw.path, &raw.data[..]).unwrap();
            continue;
        }
        header.as_old_mut().name[..raw.path.len()].copy_from_slice(raw.path.as_bytes());
        if let Some(link) = &raw.link {
            header.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
        }
        header.set_cksum();
        builder.append(&header, &raw.data[..]).unwrap();
    }
    let mut tar = builder.into_inner().unwrap();
    tar.extend_from_slice(trailing);
    fs::write(out, zstd::encode_all(&tar[..], 3).unwrap()).unwrap();
}

/// A fixture's bundle rewritten by `edit`, unpacked into a new folder: the error, after checking that the folder
/// was removed and that nothing was written beside it.
fn refused(edit: impl FnOnce(&mut Vec<Raw>), trailing: &[u8]) -> BundleError {
    let fixture = Fixture::new();
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let mut raw = entries(&bundle);
    edit(&mut raw);
    let tampered = fixture.at("tampered.tar.zst");
    write(&tampered, &raw, trailing);
    refused_bundle(&fixture, &tampered)
}

fn refused_bundle(fixture: &Fixture, bundle: &Path) -> BundleError {
    let scratch = fixture.at("scratch");
    fs::create_dir(&scratch).unwrap();
    let target = scratch.join("target");
    let error = unpack(bundle, &target).unwrap_err();
    assert!(!target.exists(), "the refused bundle's folder is removed");
    assert_eq!(fs::read_dir(&scratch).unwrap().count(), 0, "nothing is written beside it");
    assert!(!fixture.at("evil").exists() && !Path::new("/tmp/metewand-bundle-evil").exists());
    error
}

/// The index of the entry at `suffix`'s path.
fn find(raw: &[Raw], suffix: &str) -> usize {
    raw.iter().position(|entry| entry.path.ends_with(suffix)).unwrap()
}

#[test]
fn an_untouched_rewrite_is_accepted() {
    // The tests' writer makes bundles that are accepted as they are, so each refusal below is the tampering's.
    let fixture = Fixture::new();
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let rewritten = fixture.at("rewritten.tar.zst");
    write(&rewritten, &entries(&bundle), &[]);
    unpack(&rewritten, &fixture.at("target")).unwrap();
}

#[test]
fn a_truncated_bundle_is_refused() {
    let fixture = Fixture::new();
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let bytes = fs::read(&bundle).unwrap();
    for keep in [bytes.len() / 2, bytes.len() - 1] {
        let cut = fixture.at("cut.tar.zst");
        fs::write(&cut, &bytes[..keep]).unwrap();
        let error = refused_bundle(&fixture, &cut);
        assert!(matches!(error, BundleError::Truncated { .. }), "{error}");
        fs::remove_dir(fixture.at("scratch")).unwrap();
    }
}

#[test]
fn a_changed_file_is_refused_naming_it() {
    let error = refused(
        |raw| {
            let index = find(raw, "work/result/answer.txt");
            raw[index].data = b"answer X\n".to_vec();
        },
        &[],
    );
    let BundleError::Modified { path, what } = &error else { panic!("{error}") };
    assert!(path.ends_with("work/result/answer.txt") && what.contains("SHA-256"), "{error}");
}

#[test]
fn a_file_of_another_size_is_refused() {
    let error = refused(
        |raw| {
            let index = find(raw, "repository/metewand.toml");
            raw[index].data.truncate(10);
        },
        &[],
    );
    assert!(matches!(&error, BundleError::Modified { path, .. } if path == "repository/metewand.toml"), "{error}");
}

#[test]
fn an_added_file_is_refused() {
    let error = refused(|raw| raw.insert(1, Raw::file("campaigns/extra.txt", b"extra")), &[]);
    assert!(matches!(&error, BundleError::Added { path } if path == "campaigns/extra.txt"), "{error}");
    let error = refused(|raw| raw.push(Raw::file("repository/zzz.py", b"late")), &[]);
    assert!(matches!(&error, BundleError::Added { path } if path == "repository/zzz.py"), "{error}");
}

#[test]
fn a_removed_file_is_refused() {
    let error = refused(
        |raw| {
            raw.remove(find(raw, "workers/judge/judge.py"));
        },
        &[],
    );
    assert!(matches!(&error, BundleError::Removed { path } if path.ends_with("workers/judge/judge.py")), "{error}");
    let error = refused(
        |raw| {
            raw.pop();
        },
        &[],
    );
    assert!(matches!(error, BundleError::Removed { .. }), "{error}");
}

#[test]
fn a_manifest_that_is_not_canonical_is_refused() {
    let error = refused(
        |raw| {
            let value: serde_json::Value = serde_json::from_slice(&raw[0].data).unwrap();
            raw[0].data = serde_json::to_vec_pretty(&value).unwrap();
        },
        &[],
    );
    assert!(matches!(error, BundleError::NotCanonical { offset: 1 }), "{error}");
    let error = refused(|raw| raw.swap(0, 1), &[]);
    assert!(matches!(&error, BundleError::BadManifest { reason } if reason.contains("first entry")), "{error}");
}

#[test]
fn paths_that_escape_are_refused() {
    for (path, why) in [
        ("../evil", "has a .. component"),
        ("campaigns/../../evil", "has a .. component"),
        ("/tmp/metewand-bundle-evil", "is absolute"),
    ] {
        let error = refused(|raw| raw.insert(1, Raw::file(path, b"evil")), &[]);
        assert!(
            matches!(&error, BundleError::UnsafePath { path: got, reason } if got == path && reason == why),
            "{error}"
        );
    }
}

#[test]
fn links_are_refused() {
    for (kind, name) in [(tar::EntryType::Symlink, "symbolic link"), (tar::EntryType::Link, "hard link")] {
        let error = refused(
            |raw| {
                let link =
                    Raw { path: "campaigns/a".to_owned(), kind, data: Vec::new(), link: Some("/etc".to_owned()) };
                raw.insert(1, link);
            },
            &[],
        );
        assert!(
            matches!(&error, BundleError::NotAFile { path, kind } if path == "campaigns/a" && kind == name),
            "{error}"
        );
    }
}

#[test]
fn a_bomb_is_refused() {
    // An entry that yields far more than the manifest declares for it.
    let error = refused(
        |raw| {
            let index = find(raw, "work/result/answer.txt");
            raw[index].data = vec![0; 8 << 20];
        },
        &[],
    );
    assert!(matches!(&error, BundleError::Bomb { what } if what.contains("answer.txt")), "{error}");
    // A stream that goes on after the archive's end.
    let error = refused(|_| {}, &vec![0; 4 << 20]);
    assert!(matches!(error, BundleError::Bomb { .. }), "{error}");
}

#[test]
fn an_unpacked_bundle_lists_every_difference() {
    let fixture = Fixture::new();
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let target = fixture.at("target");
    unpack(&bundle, &target).unwrap();
    let result = target.join("campaigns/main/attempts").join(&fixture.ids[0]).join("work/result/answer.txt");
    fs::write(&result, "changed\n").unwrap();
    fs::write(target.join("campaigns/main/added.txt"), "added").unwrap();
    fs::remove_file(target.join("repository/workers/gen/gen.py")).unwrap();
    std::os::unix::fs::symlink("/etc", target.join("repository/link")).unwrap();
    let verified = verify_folder(&target).unwrap();
    let lines: Vec<String> = verified.differences.iter().map(ToString::to_string).collect();
    let expect = [
        "the file campaigns/main/added.txt is not in the manifest (added)",
        "work/result/answer.txt differs from the manifest: it holds 8 bytes",
        "the entry \"repository/link\" is a symbolic link",
        "the file repository/workers/gen/gen.py of the manifest is missing (removed)",
    ];
    for (line, expect) in lines.iter().zip(expect) {
        assert!(line.contains(expect), "{line:?} says {expect:?}");
    }
    // The bundled repository no longer has its generator's source: its identity is another.
    assert!(lines.len() > expect.len(), "{lines:#?}");
    assert!(lines.iter().any(|line| line.contains("worker gen has identity")), "{lines:#?}");
}
