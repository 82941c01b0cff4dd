//! A bundle made, unpacked and verified: the same files, byte for byte, a canonical manifest listing them, and the
//! same bytes when made again.

use std::fs;

use metewand_bundle::{MANIFEST_FILE, Manifest, unpack, verify_bundle, verify_folder};
use metewand_campaign::cache::CACHE_FILES;
use metewand_runtime::Sha256Digest;

use crate::{Fixture, files};

#[test]
fn a_bundle_unpacks_to_the_campaign_and_the_repository_it_was_made_from() {
    let fixture = Fixture::new();
    // Caches such as a reading leaves in `index/`.
    for cache in CACHE_FILES {
        fs::create_dir_all(fixture.campaign.join("index")).unwrap();
        fs::write(fixture.campaign.join(cache), b"bound to this folder's inodes").unwrap();
    }
    let (bundle, written) = fixture.bundle("main.tar.zst");
    let target = fixture.at("unpacked");
    let unpacked = unpack(&bundle, &target).unwrap();
    assert_eq!(unpacked.manifest.digest, written.digest);

    let got = files(&target);
    let mut campaign: Vec<_> = files(&fixture.campaign).into_iter().collect();
    campaign.sort();
    // The caches in `index/` are bound to the folder's own files: the bundle leaves them out.
    for (path, bytes) in &campaign {
        let expected = (!CACHE_FILES.contains(&path.as_str())).then_some(bytes);
        assert_eq!(got.get(&format!("campaigns/main/{path}")), expected, "{path}");
    }
    for path in ["metewand.toml", "workers/solver/solve.py", "workers/solver/lib/util.py", "schemas/result.schema.json"]
    {
        assert_eq!(got[&format!("repository/{path}")], fs::read(fixture.repo.join(path)).unwrap(), "{path}");
    }
    // Every file but the manifest is listed, with its size and digest, and the manifest names the workers.
    assert_eq!(written.files as usize, got.len() - 1);
    let manifest = Manifest::from_bytes(&got[MANIFEST_FILE]).unwrap();
    for entry in manifest.entries.iter() {
        let bytes = &got[entry.path.as_str()];
        assert_eq!((entry.size, entry.sha256), (bytes.len() as u64, Sha256Digest::of(bytes)), "{}", entry.path);
    }
    assert_eq!(manifest.digest, Sha256Digest::of(&got[MANIFEST_FILE]));
    let workers: Vec<&str> = manifest.document.workers.iter().map(|worker| worker.name.as_str()).collect();
    assert_eq!(workers, ["exact-solver", "gen", "judge"]);
    assert_eq!(manifest.document.campaigns[0].name, "main");

    let verified = verify_folder(&target).unwrap();
    assert!(verified.differences.is_empty(), "{:?}", verified.differences);
    assert_eq!((verified.records, verified.digest), (3, written.digest));
    // A reading of the unpacked campaign leaves its caches there: they are not the bundle's, and not differences;
    // a file of another name beside them is.
    fs::create_dir_all(target.join("campaigns/main/index")).unwrap();
    for cache in CACHE_FILES {
        fs::write(target.join("campaigns/main").join(cache), b"made by a reading").unwrap();
    }
    assert!(verify_folder(&target).unwrap().differences.is_empty());
    fs::write(target.join("campaigns/main/index/other.bin"), b"not a cache").unwrap();
    let differences = verify_folder(&target).unwrap().differences;
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert!(format!("{:?}", differences[0]).contains("campaigns/main/index/other.bin"), "{differences:?}");
    fs::remove_file(target.join("campaigns/main/index/other.bin")).unwrap();
    let (_, verified) = verify_bundle(&bundle).unwrap();
    assert!(verified.differences.is_empty(), "{:?}", verified.differences);
}

#[test]
fn the_same_files_make_the_same_bytes() {
    let fixture = Fixture::new();
    let (first, _) = fixture.bundle("first.tar.zst");
    let (second, _) = fixture.bundle("second.tar.zst");
    assert_eq!(fs::read(first).unwrap(), fs::read(second).unwrap());
}

#[test]
fn a_folder_that_cannot_be_bundled_is_refused_and_nothing_is_written() {
    let fixture = Fixture::new();
    std::os::unix::fs::symlink("/etc/passwd", fixture.campaign.join("link")).unwrap();
    let out = fixture.at("refused.tar.zst");
    let request = metewand_bundle::BundleRequest {
        campaigns: vec![fixture.campaign.clone()],
        with_datasets: false,
        state_dir: None,
    };
    let error = metewand_bundle::bundle(&request, &out).unwrap_err().to_string();
    assert!(error.contains("link") && error.contains("is a symbolic link"), "{error}");
    assert!(!out.exists());
    let leftovers: Vec<_> = fs::read_dir(fixture.dir.path()).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert!(leftovers.iter().all(|name| !name.to_string_lossy().starts_with(".bundle-")), "{leftovers:?}");
}
