//! `metewand canon [FILE]`: check one document in the restricted JSON domain and print its canonical form.

use std::fs::File;
use std::io::{self, Read, Write};

use crate::Failure;

const USAGE: &str = "usage: metewand canon [FILE]

Reads one JSON document from FILE (or stdin when FILE is absent or -), checks it in Metewand's restricted domain
(UTF-8 without a byte-order mark, no duplicate member names, no lone surrogates, numbers that keep their value,
depth at most 128) and prints its RFC 8785 canonical form followed by a line feed.

exit statuses: 0 printed, 1 the document was rejected, 2 usage or I/O error";

/// The largest document read, as for every document Metewand reads from disk.
const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

pub(crate) fn run(args: &[String]) -> Result<(), Failure> {
    let source = match args {
        [] => None,
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            return Ok(());
        }
        [path] if path == "-" => None,
        [path] if path.starts_with('-') => {
            return Err(Failure::Usage(format!("canon: unknown option {path:?}; run `metewand canon --help`")));
        }
        [path] => Some(path.as_str()),
        _ => return Err(Failure::Usage("canon takes at most one FILE; run `metewand canon --help`".to_owned())),
    };
    let name = source.unwrap_or("stdin");
    let bytes = match source {
        None => read_bounded(io::stdin().lock(), name)?,
        Some(path) => {
            let file = File::open(path).map_err(|err| Failure::Usage(format!("canon: cannot open {path}: {err}")))?;
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
