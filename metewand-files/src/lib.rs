//! The executor's one way of touching a tree it does not trust: a worker's output, a dataset in the store, a
//! worker's source directory.
//!
//! Validation, source tree digests, source copies and the dataset store all go through this crate, which depends on
//! nothing of Metewand's but the protocol's digest type and the tree walker ([`tree`]):
//!
//! - [`RelativePath`] checks a path as text before it is ever joined to a directory;
//! - the walk ([`walk`](walk::walk)) looks at every entry beneath a directory descriptor with
//!   `fstatat(AT_SYMLINK_NOFOLLOW)` and opens each directory with `openat(O_DIRECTORY | O_NOFOLLOW)`, so no path is
//!   resolved through a symbolic link, and finds only regular files and directories;
//! - [`open_beneath`](walk::open_beneath) opens a walked file one component at a time, never following a link;
//! - the checked read ([`read_checked`](read::read_checked), [`hash_all`](read::hash_all)) checks an opened file on
//!   its descriptor (the inode the walk saw, a regular file, its link count and size), streams it through SHA-256
//!   without reading past the size it saw, and checks it again with `fstat` afterwards;
//! - [`Sha256Digest`] holds every digest;
//! - [`Dir`] holds one of the executor's own folders by a descriptor and creates each entry in it exclusively
//!   (`mkdirat`, `O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK`), refusing whatever a worker prepared at the name;
//!   [`create`] does the same for a path several folders deep (source copies, store entries);
//! - [`tree`] removes a tree, or makes it read-only, at any depth: folder by folder through descriptors, never
//!   following a link, holding a bounded number of descriptors;
//! - [`stamped`] remembers what reading a settled tree found, for as long as the tree keeps the stamp it had.
//!
//! Everything is done through `rustix` on descriptors; there is no `unsafe` code here.
//!
//! ```
//! use metewand_files::{Dir, RelativePath};
//!
//! assert!(RelativePath::new("solution/x.json").is_ok());
//! assert!(RelativePath::new("../x.json").is_err());
//! let dir = tempfile::tempdir().unwrap();
//! let folder = Dir::open(dir.path()).unwrap();
//! folder.create_dir("logs").unwrap();
//! assert!(folder.create_dir("logs").is_err(), "an entry is created exclusively");
//! ```

#![forbid(unsafe_code)]

pub mod create;
pub mod dir;
pub mod document;
pub mod path;
pub mod read;
pub mod stamped;
pub mod walk;

pub use create::copy_beneath;
pub use dir::{Dir, FsError};
pub use metewand_protocol::{DigestParseError, Sha256Digest};
pub use metewand_tree as tree;
pub use path::{PathError, RelativePath};
pub use read::{CANCEL_CHECK_BYTES, FileError, Hook, HookPoint, default_hash_threads};
pub use stamped::SETTLED;
pub use walk::{EntryType, MAX_WALK_DEPTH};
