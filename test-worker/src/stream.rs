//! `execute_stream`: the checkpoint exchange, played honestly or breaking one of its rules (`--stream MODE`).
//!
//! An honest stream sends checkpoints 1, 2, … (at most `--checkpoints N`, by default the request's
//! `max_checkpoints`), each after sleeping `--checkpoint-ms MS` and writing `checkpoints/<n>/result.json`, waits for
//! each answer and stops at `continue: false`; then it writes `result.json` and sends the execute-shaped response.
//! Every manifest is a valid result of the seed given at `prepare`; a checkpoint's data also names its number, which
//! an evaluator of the test worker reads ([`checkpoint_of`]).

use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use metewand_protocol::decode_message;
use metewand_protocol::frame::{Frame, FrameReader, encode_value};
use metewand_protocol::messages::{CheckpointAnswer, ExecuteStreamRequest};
use serde_json::{Value, json};

use crate::Options;

/// How a stream behaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Keep every rule.
    #[default]
    Honest,
    /// Send the first checkpoint with another id.
    OtherId,
    /// Send checkpoint 3 where 2 belongs.
    OutOfOrder,
    /// Send checkpoint `max_checkpoints + 1` where 2 belongs.
    PastMax,
    /// Go on after `continue: false`.
    IgnoreStop,
    /// Send one more checkpoint after the final response.
    AfterFinal,
    /// Send checkpoints 1 and 2 in one write, without waiting for the first answer.
    NoWait,
    /// Name the first checkpoint's manifest `result.json`.
    WrongManifest,
    /// After each answer from the second on, change checkpoint 1's result.
    ChangeEarlier,
    /// Leave a file in `checkpoints/` that is no checkpoint's.
    Stray,
    /// Between each checkpoint and its answer, keep a thread spinning, and report on stderr how much CPU time it
    /// had: `test-worker: spun <ns> ns before answer <n>`.
    Busy,
    /// Send each checkpoint from a thread that at once maps and fills 256 MiB of memory in one system call (kernel
    /// work, which the worker cannot be stopped in the middle of), and report on stderr how much CPU time that took:
    /// `test-worker: populated <ns> ns after checkpoint <n>`.
    Populate,
}

impl Stream {
    pub(crate) fn parse(name: &str) -> Option<Stream> {
        Some(match name {
            "honest" => Stream::Honest,
            "other-id" => Stream::OtherId,
            "out-of-order" => Stream::OutOfOrder,
            "past-max" => Stream::PastMax,
            "ignore-stop" => Stream::IgnoreStop,
            "after-final" => Stream::AfterFinal,
            "no-wait" => Stream::NoWait,
            "wrong-manifest" => Stream::WrongManifest,
            "change-earlier" => Stream::ChangeEarlier,
            "busy" => Stream::Busy,
            "populate" => Stream::Populate,
            "stray" => Stream::Stray,
            _ => return None,
        })
    }
}

/// Serves one `execute_stream` request: its checkpoints, then its final response.
pub(crate) fn serve<R: BufRead>(
    reader: &mut FrameReader<R>,
    out: &mut impl Write,
    request: &Frame,
    options: &Options,
    seed: u64,
) -> Result<(), String> {
    let request: ExecuteStreamRequest = decode_message(request).map_err(|error| error.to_string())?;
    let mode = options.stream;
    let id = request.id.to_string();
    let dir = Path::new(request.result_dir.as_str());
    let max = request.max_checkpoints.get();
    let count = options.checkpoints.unwrap_or(max);
    let send = |out: &mut dyn Write, line: &[u8]| out.write_all(line).and_then(|()| out.flush());
    let mut n = 0;
    while n < count || mode == Stream::IgnoreStop && n < max + 1 {
        n += 1;
        thread::sleep(options.checkpoint_pause);
        write(&dir.join(format!("checkpoints/{n}/result.json")), &result(seed, Some(n)))?;
        let number = match mode {
            Stream::OutOfOrder if n == 2 => 3,
            Stream::PastMax if n == 2 => max + 1,
            _ => n,
        };
        let sent_id = if mode == Stream::OtherId { format!("{id}9") } else { id.clone() };
        let manifest = if mode == Stream::WrongManifest {
            "result.json".to_owned()
        } else {
            format!("checkpoints/{number}/result.json")
        };
        let mut line = checkpoint(&sent_id, number, &manifest);
        if mode == Stream::NoWait {
            write(&dir.join("checkpoints/2/result.json"), &result(seed, Some(2)))?;
            line.extend(checkpoint(&id, 2, "checkpoints/2/result.json"));
        }
        let spinning = (mode == Stream::Busy).then(spin);
        let populating = if mode == Stream::Populate {
            Some(send_and_populate(line))
        } else {
            send(out, &line).map_err(|error| error.to_string())?;
            None
        };
        let answer = read_answer(reader)?;
        if let Some(populating) = populating {
            let populated = populating.join().map_err(|_| "the populating thread panicked")??;
            let _ = writeln!(io::stderr(), "test-worker: populated {populated} ns after checkpoint {n}");
        }
        if let Some((stop, spinner)) = spinning {
            stop.store(true, Ordering::SeqCst);
            let spun = spinner.join().map_err(|_| "the spinning thread panicked")?;
            let _ = writeln!(io::stderr(), "test-worker: spun {spun} ns before answer {n}");
        }
        if mode == Stream::ChangeEarlier && n >= 2 {
            write(&dir.join("checkpoints/1/result.json"), &result(seed, Some(100)))?;
        }
        if !answer.continue_ && mode != Stream::IgnoreStop {
            break;
        }
    }
    write(&dir.join("result.json"), &result(seed, None))?;
    if mode == Stream::Stray {
        write(&dir.join("checkpoints/stray.bin"), "kept beside the checkpoints\n")?;
    }
    let response = json!({
        "id": id, "implementation_time_ns": null, "ok": true, "result": {"manifest": "result.json"},
        "statistics": {"checkpoints": n},
    });
    let mut line = encode_value(&response).expect("answers are small");
    if mode == Stream::AfterFinal {
        line.extend(checkpoint(&id, n + 1, &format!("checkpoints/{}/result.json", n + 1)));
    }
    send(out, &line).map_err(|error| error.to_string())
}

fn checkpoint(id: &str, n: u64, manifest: &str) -> Vec<u8> {
    let message: Value = json!({"checkpoint": n, "id": id, "result": {"manifest": manifest}});
    encode_value(&message).expect("a checkpoint is small")
}

fn read_answer<R: BufRead>(reader: &mut FrameReader<R>) -> Result<CheckpointAnswer, String> {
    match reader.read_frame() {
        Ok(Some(frame)) => decode_message(&frame).map_err(|error| error.to_string()),
        Ok(None) => Err("stdin ended before a checkpoint's answer".to_owned()),
        Err(error) => Err(format!("cannot read a checkpoint's answer: {error}")),
    }
}

/// Starts a thread that spins until told to stop, and returns its CPU time in nanoseconds.
fn spin() -> (Arc<AtomicBool>, thread::JoinHandle<u128>) {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let spinner = thread::spawn(move || {
        let start = thread_cpu_ns();
        while !flag.load(Ordering::SeqCst) {
            std::hint::spin_loop();
        }
        thread_cpu_ns() - start
    });
    // Let the thread start spinning before the checkpoint goes out.
    thread::sleep(Duration::from_millis(5));
    (stop, spinner)
}

/// Starts a thread that writes `line` (a checkpoint) to stdout and straight after maps 256 MiB with
/// `MAP_POPULATE`; it returns the CPU time the mapping took, in nanoseconds.
fn send_and_populate(line: Vec<u8>) -> thread::JoinHandle<Result<u128, String>> {
    const BYTES: usize = 256 << 20;
    thread::spawn(move || {
        // Straight to the descriptor: the main thread is about to wait for the answer, and holds nothing of stdout.
        let mut stdout = std::mem::ManuallyDrop::new(unsafe_stdout());
        stdout.write_all(&line).map_err(|error| format!("cannot send a checkpoint: {error}"))?;
        let start = thread_cpu_ns();
        // SAFETY: a new private anonymous mapping, unmapped below and never otherwise touched.
        let mapped = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        let took = thread_cpu_ns() - start;
        if mapped == libc::MAP_FAILED {
            return Err(format!("cannot map {BYTES} bytes: {}", io::Error::last_os_error()));
        }
        // SAFETY: the mapping made above, of that length.
        unsafe { libc::munmap(mapped, BYTES) };
        Ok(took)
    })
}

/// The process's stdout as a file, not to be closed.
fn unsafe_stdout() -> std::fs::File {
    use std::os::fd::FromRawFd;
    // SAFETY: descriptor 1 stays open for the worker's life; the caller never drops the file.
    unsafe { std::fs::File::from_raw_fd(1) }
}

fn thread_cpu_ns() -> u128 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the local timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    now.tv_sec as u128 * 1_000_000_000 + now.tv_nsec as u128
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|error| format!("creating {}: {error}", parent.display()))?;
    }
    crate::write(path, contents)
}

/// A result manifest with no files: the seed, and the checkpoint's number for a checkpoint.
fn result(seed: u64, checkpoint: Option<u64>) -> String {
    let data = match checkpoint {
        Some(n) => json!({"checkpoint": n, "seed": seed}),
        None => json!({"seed": seed}),
    };
    let bytes = encode_value(&json!({"data": data, "files": []})).expect("a manifest is small");
    String::from_utf8(bytes).expect("canonical JSON is UTF-8")
}

/// The checkpoint number a result directory's manifest names in its data, if any.
pub(crate) fn checkpoint_of(result_dir: &Path) -> Option<u64> {
    let bytes = std::fs::read(result_dir.join("result.json")).ok()?;
    let manifest: Value = serde_json::from_slice(&bytes).ok()?;
    manifest["data"]["checkpoint"].as_u64()
}
