//! `metewand canon [FILE]`: check one document in the restricted JSON domain and print its canonical form.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;

use crate::Failure;

const LONG_ABOUT: &str =
    "Reads one JSON document from FILE (or stdin when FILE is absent or -), checks it in Metewand's
restricted domain (UTF-8 without a byte-order mark, no duplicate member names, no lone surrogates, numbers that keep
their value, depth at most 128) and prints its RFC 8785 canonical form followed by a line feed.";

/// `metewand canon`.
#[derive(clap::Args)]
#[command(
    about = "print a JSON document's canonical form (RFC 8785) after checking it in Metewand's restricted domain",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 printed, 1 the document was rejected, 2 usage or I/O error"
)]
pub(crate) struct Args {
    /// the document to read (default: stdin, also when FILE is -)
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

/// The largest document read, as for every document Metewand reads from disk.
const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let source = args.file.filter(|path| path.as_os_str() != "-");
    let name = source.as_ref().map_or("stdin".to_owned(), |path| path.display().to_string());
    let name = name.as_str();
    let bytes = match &source {
        None => read_bounded(io::stdin().lock(), name)?,
        Some(path) => {
            #[allow(
                clippy::disallowed_methods,
                reason = "the file the user names on the command line, read as they ask"
            )]
            let file = File::open(path).map_err(|err| Failure::Usage(format!("canon: cannot open {name}: {err}")))?;
            read_bounded(file, name)?
        }
    };
    let value = metewand_protocol::parse(&bytes).map_err(|err| Failure::Rejected(format!("canon: {name}: {err}")))?;
    let mut out = metewand_protocol::to_canonical_vec(&value);
    out.push(b'\n');
    io::stdout().lock().write_all(&out).map_err(|err| Failure::Usage(format!("canon: cannot write stdout: {err}")))
}

fn read_bounded(reader: impl Read, name: &str) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| Failure::Usage(format!("canon: cannot read {name}: {err}")))?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(Failure::Rejected(format!(
            "canon: {name} is larger than {MAX_DOCUMENT_BYTES} bytes, the limit for a document"
        )));
    }
    Ok(bytes)
}
