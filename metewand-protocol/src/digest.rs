//! SHA-256 digests: the one type every content digest in Metewand is held in (file records, source trees,
//! identities, schema ids), and the type of the schemas' `sha256`, which the generated types use in place of a
//! generated string type.

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
/// assert_eq!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".parse::<Sha256Digest>().unwrap(), digest);
/// // In a document it is its text, and nothing but 64 lowercase hexadecimal digits is one.
/// assert_eq!(serde_json::to_value(digest).unwrap(), serde_json::json!(digest.to_string()));
/// assert!(serde_json::from_str::<Sha256Digest>("\"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD\"").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Digest([u8; 32]);

impl Sha256Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Sha256Digest {
        Sha256Digest(Sha256::digest(bytes).into())
    }

    /// The digest whose 32 bytes are `bytes`.
    pub fn from_bytes(bytes: [u8; 32]) -> Sha256Digest {
        Sha256Digest(bytes)
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
        // Written from a table in one piece: a plan of a million attempts writes a digest as text for each, and
        // formatting them a byte at a time through `{:02x}` was a fifth of its time.
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0; 64];
        for (pair, byte) in text.chunks_exact_mut(2).zip(self.0) {
            pair[0] = DIGITS[usize::from(byte >> 4)];
            pair[1] = DIGITS[usize::from(byte & 0xf)];
        }
        f.write_str(std::str::from_utf8(&text).expect("hexadecimal digits are ASCII"))
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

impl serde::Serialize for Sha256Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Sha256Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Sha256Digest, D::Error> {
        struct DigestVisitor;
        impl serde::de::Visitor<'_> for DigestVisitor {
            type Value = Sha256Digest;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("64 lowercase hexadecimal digits")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Sha256Digest, E> {
                text.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(DigestVisitor)
    }
}
