//! SHA-256 digests: the one type every content digest in Metewand is held in (file records, source trees,
//! identities, schema ids).

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// A SHA-256 digest, written as 64 lowercase hexadecimal digits.
///
/// ```
/// use metewand_protocol::Sha256Digest;
///
/// let digest = Sha256Digest::of(b"abc");
/// assert_eq!(digest.to_string(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
/// assert_eq!(digest.to_string().parse::<Sha256Digest>().unwrap(), digest);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Digest([u8; 32]);

impl Sha256Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Sha256Digest {
        Sha256Digest(Sha256::digest(bytes).into())
    }

    /// The digest's 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The digest a finished `hasher` holds.
    pub fn from_hasher(hasher: Sha256) -> Sha256Digest {
        Sha256Digest(hasher.finalize().into())
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({self})")
    }
}

/// A string that is not 64 lowercase hexadecimal digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not 64 lowercase hexadecimal digits")]
pub struct DigestParseError(String);

impl FromStr for Sha256Digest {
    type Err = DigestParseError;

    fn from_str(text: &str) -> Result<Sha256Digest, DigestParseError> {
        let bytes = text.as_bytes();
        let lower_hex = |b: u8| match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            _ => None,
        };
        if bytes.len() != 64 {
            return Err(DigestParseError(text.to_owned()));
        }
        let mut digest = [0; 32];
        for (index, pair) in bytes.chunks_exact(2).enumerate() {
            match (lower_hex(pair[0]), lower_hex(pair[1])) {
                (Some(high), Some(low)) => digest[index] = high << 4 | low,
                _ => return Err(DigestParseError(text.to_owned())),
            }
        }
        Ok(Sha256Digest(digest))
    }
}
