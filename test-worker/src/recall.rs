//! What a worker plays that hopes to tell one run of an attempt from another: a cache of its answers kept in
//! files between sessions (`cache-file`), and a time that depends on where it runs rather than on what it was
//! given (`slow-elsewhere`). An audit runs attempts again in fresh sessions; the first must gain nothing from
//! that (confinement leaves it nowhere to keep its cache), the second must be caught.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use metewand_protocol::messages::PrepareRequest;

/// How long the work an answer from the cache saves takes, and how long a run elsewhere is slowed by.
const SLOW: Duration = Duration::from_millis(300);

/// The cache file of the inputs the last `prepare` gave, and whether a readable copy of it was found.
static CACHE: Mutex<Option<(String, bool)>> = Mutex::new(None);

/// The folders a cache is looked for and written in: the session's `TMPDIR`, the working folder (the worker's
/// source), and the machine's shared temporary folders.
fn places() -> Vec<PathBuf> {
    let mut places: Vec<PathBuf> = env::var_os("TMPDIR").map(PathBuf::from).into_iter().collect();
    places.extend(env::current_dir().ok());
    places.extend([PathBuf::from("/tmp"), PathBuf::from("/var/tmp")]);
    places
}

/// At `prepare`: names the cache of its inputs (parameters, seed and dataset files) and looks for it, saying on
/// stderr `test-worker: cache hit PATH` when a copy is found.
pub(crate) fn look_up(prepare: &PrepareRequest) {
    let name = format!("test-worker-cache-{:016x}", fnv(&super::inputs_key(prepare).unwrap_or_default()));
    let hit = places().into_iter().map(|place| place.join(&name)).find(|path| path.is_file());
    if let Some(path) = &hit {
        eprintln!("test-worker: cache hit {}", path.display());
    }
    *CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((name, hit.is_some()));
}

/// At `execute`: answers at once from a cache found at `prepare`; otherwise does the slow work and writes the
/// cache everywhere it can, saying each place's outcome on stderr (`test-worker: cache write PATH: ok`).
pub(crate) fn execute_cached() {
    let Some((name, hit)) = CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone() else { return };
    if hit {
        return;
    }
    thread::sleep(SLOW);
    for place in places() {
        let path = place.join(&name);
        super::report("cache-write", &path.display().to_string(), fs::write(&path, "the answer\n"));
    }
}

/// At `execute`: sleeps when the result folder's path has a component `audits`, which no input says.
pub(crate) fn slow_elsewhere(result_dir: &Path) {
    if result_dir.components().any(|part| part.as_os_str() == "audits") {
        thread::sleep(SLOW);
    }
}

/// FNV-1a over the text: a name for the inputs that is the same in every process.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}
