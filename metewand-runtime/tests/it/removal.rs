//! Removing what a worker may leave in an attempt folder: `attempt::remove_tree` on a tree nested far deeper than
//! any path can name, with read-only and unlistable folders in it and links pointing out of it. Permissions stop
//! only a process without root's privileges, so when this test runs as root a copy of it also runs as uid 65534.

use std::fs;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use metewand_runtime::attempt::remove_tree;
use metewand_testkit::{Requirement, forward_skips, has_cap_sys_admin, skip};
use rustix::fs::{Mode, OFlags};

/// Set in the copy of this test binary that [`as_uid_65534`] starts.
const COPY_VAR: &str = "METEWAND_TEST_REMOVAL_COPY";

/// How deep the tree is: its deepest path is about 6,000 bytes, past `PATH_MAX` (4,096).
const DEPTH: usize = 3000;

const FOLDER: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// Builds at `root` [`DEPTH`] folders `d` one in the other, as a worker can (each made relative to its parent's
/// descriptor), with a file and links to `outside`'s `file` and `folder` every 700 levels, every 500th folder made
/// read-only (`r-x`) and, 250 levels below each, one made unlistable (`---`) once the next is made.
fn build(root: &Path, outside: &Path) {
    fs::create_dir(root).unwrap();
    let mut fd: OwnedFd = rustix::fs::open(root, FOLDER, Mode::empty()).unwrap();
    for depth in 1..=DEPTH {
        rustix::fs::mkdirat(&fd, "d", Mode::from_raw_mode(0o755)).unwrap();
        if depth % 700 == 0 {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC;
            let file = rustix::fs::openat(&fd, "data", flags, Mode::from_raw_mode(0o444)).unwrap();
            fs::File::from(file).write_all(b"left by a worker").unwrap();
            rustix::fs::symlinkat(outside.join("file"), &fd, "file-link").unwrap();
            rustix::fs::symlinkat(outside.join("folder"), &fd, "folder-link").unwrap();
        }
        let child = rustix::fs::openat(&fd, "d", FOLDER, Mode::empty()).unwrap();
        match depth % 500 {
            0 => rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o555)).unwrap(),
            250 => rustix::fs::fchmod(&fd, Mode::empty()).unwrap(),
            _ => {}
        }
        fd = child;
    }
}

fn removes_a_tree_3000_folders_deep() {
    let temp = tempfile::tempdir().unwrap();
    let (root, outside) = (temp.path().join("tmp-implementation"), temp.path().join("outside"));
    fs::create_dir_all(outside.join("folder")).unwrap();
    fs::write(outside.join("file"), "kept").unwrap();
    fs::write(outside.join("folder/inner"), "kept").unwrap();
    fs::set_permissions(outside.join("file"), fs::Permissions::from_mode(0o644)).unwrap();
    build(&root, &outside);
    let bottom = root.join(["d"; DEPTH].join("/"));
    assert!(bottom.as_os_str().len() > 4096, "the tree is deeper than a path can name");
    let error = fs::symlink_metadata(&bottom).unwrap_err();
    assert_eq!(error.raw_os_error(), Some(36), "File name too long: {error}");

    remove_tree(&root).unwrap_or_else(|error| panic!("removing the tree: {error}"));
    assert!(fs::symlink_metadata(&root).is_err(), "the tree is gone");
    assert_eq!(fs::read_to_string(outside.join("file")).unwrap(), "kept", "a link's target file is kept");
    assert_eq!(fs::read_to_string(outside.join("folder/inner")).unwrap(), "kept", "a link's target folder too");
    assert_eq!(fs::metadata(outside.join("file")).unwrap().permissions().mode() & 0o777, 0o644, "and unchanged");
    remove_tree(&root).expect("a missing path is not an error");
}

#[test]
fn a_tree_3000_folders_deep_with_read_only_folders_is_removed_and_its_links_are_not_followed() {
    if std::env::var_os(COPY_VAR).is_some() {
        assert!(!has_cap_sys_admin(), "the copy run by setpriv as uid 65534 holds CAP_SYS_ADMIN");
    }
    removes_a_tree_3000_folders_deep();
    if std::env::var_os(COPY_VAR).is_none() && has_cap_sys_admin() {
        as_uid_65534(
            "removal::a_tree_3000_folders_deep_with_read_only_folders_is_removed_and_its_links_are_not_followed",
        );
    }
}

/// Runs the test `name` again in a copy of this test binary started by `setpriv` as uid 65534, for whom the
/// folders' permissions hold; the copy makes its own temporary folders, and its skips are reported here.
fn as_uid_65534(name: &str) {
    let output = match Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env(COPY_VAR, "1")
        // The copy's skips come back through its stderr; uid 65534 could not append to this user's log.
        .env_remove(metewand_testkit::SKIP_LOG_VAR)
        .output()
    {
        Ok(output) => output,
        Err(error) => {
            let why = format!("setpriv cannot be run ({error}): the tree was not removed without privileges");
            skip(Requirement::Setpriv, &why);
            return;
        }
    };
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the copy of {name} run as uid 65534 failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("test result: ok. 1 passed"), "the copy ran {name}:\n{stdout}\n{stderr}");
    forward_skips(&stderr);
}
