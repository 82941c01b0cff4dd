//! A record file's stamp: its inode, ctime and mtime, by which an index entry (and the tally, `campaign.json`) is
//! trusted to name a file's bytes without hashing them again, once the file had settled when the stamp was taken.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use metewand_protocol::generated::campaign_index as written;

use crate::index::SETTLED;

/// A record file's inode, ctime and mtime, as an entry's `record.stamp` names them (`<inode>:<s>.<ns>:<s>.<ns>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    inode: u64,
    ctime: (u64, u32),
    mtime: (u64, u32),
}

impl Stamp {
    /// The stamp of a file's status; `None` for times before 1970.
    pub(crate) fn of(stat: &rustix::fs::Stat) -> Option<Stamp> {
        let time = |seconds: i64, nanos: i64| Some((u64::try_from(seconds).ok()?, u32::try_from(nanos).ok()?));
        Some(Stamp {
            inode: stat.st_ino,
            ctime: time(stat.st_ctime, stat.st_ctime_nsec as i64)?,
            mtime: time(stat.st_mtime, stat.st_mtime_nsec as i64)?,
        })
    }

    /// The stamp an entry names.
    pub(crate) fn parse(text: &str) -> Option<Stamp> {
        let time = |text: &str| {
            let (seconds, nanos) = text.split_once('.')?;
            (nanos.len() == 9).then_some(())?;
            Some((seconds.parse().ok()?, nanos.parse().ok()?))
        };
        let mut fields = text.split(':');
        let stamp =
            Stamp { inode: fields.next()?.parse().ok()?, ctime: time(fields.next()?)?, mtime: time(fields.next()?)? };
        fields.next().is_none().then_some(stamp)
    }

    /// The stamp as an entry holds it: its text (`Display`) in the schema's checked type, which refuses only a
    /// nanosecond count of more than nine digits, one no kernel gives.
    pub(crate) fn written(&self) -> Option<written::Stamp> {
        written::Stamp::try_from(self.to_string()).ok()
    }

    /// The stamp as 32 bytes, little-endian: inode, ctime's seconds and nanoseconds, mtime's.
    pub(crate) fn to_bytes(self) -> [u8; 32] {
        let mut bytes = [0; 32];
        bytes[..8].copy_from_slice(&self.inode.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.ctime.0.to_le_bytes());
        bytes[16..20].copy_from_slice(&self.ctime.1.to_le_bytes());
        bytes[20..28].copy_from_slice(&self.mtime.0.to_le_bytes());
        bytes[28..].copy_from_slice(&self.mtime.1.to_le_bytes());
        bytes
    }

    /// The stamp of [`Stamp::to_bytes`]; `None` for a nanosecond count over a second.
    pub(crate) fn from_bytes(bytes: &[u8; 32]) -> Option<Stamp> {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (ctime, mtime) = ((u64_at(8), u32_at(16)), (u64_at(20), u32_at(28)));
        (ctime.1 < 1_000_000_000 && mtime.1 < 1_000_000_000).then_some(Stamp { inode: u64_at(0), ctime, mtime })
    }

    /// Whether the file last changed [`SETTLED`] before `began`.
    pub(crate) fn settled(&self, began: SystemTime) -> bool {
        let changed = UNIX_EPOCH + Duration::new(self.ctime.0, self.ctime.1);
        changed + SETTLED < began
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Stamp { inode, ctime, mtime } = self;
        write!(f, "{inode}:{}.{:09}:{}.{:09}", ctime.0, ctime.1, mtime.0, mtime.1)
    }
}
