//! One run of the command: its words with the placeholders replaced, spawned in the worker's working directory
//! with the worker's environment, its stdout kept (up to [`STDOUT_LIMIT`]), its stderr the worker's; and the files
//! it left, for a manifest.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::Words;

/// The most a command may print on stdout: its data, not its log (stderr is the log).
pub const STDOUT_LIMIT: usize = 16 << 20;

/// A request the command failed: the answer's message and details.
#[derive(Debug)]
pub struct Failed {
    /// One sentence.
    pub message: String,
    /// The exit status or signal, where the command ended badly.
    pub details: Option<Value>,
}

impl From<String> for Failed {
    fn from(message: String) -> Failed {
        Failed { message, details: None }
    }
}

impl From<&str> for Failed {
    fn from(message: &str) -> Failed {
        Failed::from(message.to_owned())
    }
}

/// A command that exited with status 0.
#[derive(Debug)]
pub struct Finished {
    /// What it printed on stdout.
    pub stdout: Vec<u8>,
    /// From spawn to exit.
    pub elapsed: Duration,
}

/// Runs `command` with `words` and `parameters` (written to a file in `TMPDIR` for `{parameters}`).
pub(crate) fn run_in(
    command: &[OsString],
    words: &Words<'_>,
    parameters: &Map<String, Value>,
) -> Result<Finished, Failed> {
    let tmp = std::env::var_os("TMPDIR").map_or_else(std::env::temp_dir, PathBuf::from);
    // A name of this request's own: a temporary folder may be shared (a test's, a session's across requests).
    static REQUESTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let request = REQUESTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let parameters_file = tmp.join(format!("metewand-parameters-{}-{request}.json", std::process::id()));
    let text = serde_json::to_vec(parameters).map_err(|error| Failed::from(error.to_string()))?;
    fs::write(&parameters_file, text).map_err(|error| Failed::from(format!("cannot write the parameters: {error}")))?;
    let ran = run_command(command, words, &tmp, &parameters_file);
    let _ = fs::remove_file(&parameters_file);
    ran
}

fn run_command(
    command: &[OsString],
    words: &Words<'_>,
    tmp: &Path,
    parameters_file: &Path,
) -> Result<Finished, Failed> {
    let replace = |word: &OsString| -> Result<OsString, Failed> {
        let mut bytes = word.as_bytes().to_vec();
        let path = |path: Option<&Path>, name: &str| {
            path.map(|path| path.as_os_str().as_bytes().to_vec())
                .ok_or_else(|| Failed::from(format!("{{{name}}} has no value in this request")))
        };
        for name in crate::PLACEHOLDERS {
            let token = format!("{{{name}}}");
            if !contains(&bytes, token.as_bytes()) {
                continue;
            }
            let value = match name {
                "dataset" => path(words.dataset, name)?,
                "result" => path(words.result, name)?,
                "metrics" => path(words.metrics, name)?,
                "seed" => words
                    .seed
                    .map(|seed| seed.to_string().into_bytes())
                    .ok_or_else(|| Failed::from("{seed} has no value in this request"))?,
                "parameters" => parameters_file.as_os_str().as_bytes().to_vec(),
                _ => tmp.as_os_str().as_bytes().to_vec(),
            };
            bytes = replace_all(&bytes, token.as_bytes(), &value);
        }
        Ok(OsString::from_vec(bytes))
    };
    let words: Vec<OsString> = command.iter().map(replace).collect::<Result<_, _>>()?;
    let Some((program, arguments)) = words.split_first() else { return Err(Failed::from("the command is empty")) };
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|error| Failed::from(format!("cannot start {}: {error}", program.to_string_lossy())))?;
    let mut stdout = Vec::new();
    let read = child.stdout.take().expect("stdout is piped").take(STDOUT_LIMIT as u64 + 1).read_to_end(&mut stdout);
    if stdout.len() > STDOUT_LIMIT {
        // It would block on a full pipe nobody reads: it has printed more than its data may be.
        let _ = child.kill();
        let _ = child.wait();
        return Err(Failed::from(format!("the command printed more than {STDOUT_LIMIT} bytes on stdout")));
    }
    let status = child.wait().map_err(|error| Failed::from(format!("cannot wait for the command: {error}")))?;
    let elapsed = started.elapsed();
    read.map_err(|error| Failed::from(format!("cannot read the command's stdout: {error}")))?;
    if let Some(signal) = status.signal() {
        return Err(Failed {
            message: format!("the command was killed by signal {signal}"),
            details: Some(json!({"signal": signal})),
        });
    }
    match status.code() {
        Some(0) => Ok(Finished { stdout, elapsed }),
        code => Err(Failed {
            message: format!("the command exited with status {}", code.unwrap_or(-1)),
            details: Some(json!({"exit_status": code})),
        }),
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

fn replace_all(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = rest.windows(needle.len()).position(|window| window == needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(with);
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// Every regular file under `folder` but `manifest`, as file records in path order; links and other entries are
/// left out (the executor's validation refuses a folder that holds them).
pub(crate) fn files_of(folder: &Path, manifest: &str) -> io::Result<Vec<Value>> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        for entry in fs::read_dir(folder.join(&relative))? {
            let entry = entry?;
            let path = relative.join(entry.file_name());
            let kind = entry.file_type()?;
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && path != Path::new(manifest) {
                let mut file = fs::File::open(folder.join(&path))?;
                let mut digest = Sha256::new();
                let mut buffer = vec![0; 1 << 16];
                let mut size = 0u64;
                loop {
                    let read = file.read(&mut buffer)?;
                    if read == 0 {
                        break;
                    }
                    digest.update(&buffer[..read]);
                    size += read as u64;
                }
                let sha256 = metewand_protocol::Sha256Digest::from_hasher(digest).to_string();
                let name = path.to_str().ok_or_else(|| io::Error::other(format!("{} is not UTF-8", path.display())))?;
                files.push(json!({"path": name, "sha256": sha256, "size": size}));
            }
        }
    }
    files.sort_by(|a, b| a["path"].as_str().cmp(&b["path"].as_str()));
    Ok(files)
}
