//! Finding the bytes of a string that need attention, shared by the reader and the writer.

/// Bytes that end a plain run inside a string: a control character, a quote or a backslash. Reading must stop at
/// them and writing must escape them; everything else is copied as it is.
const STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The index of the first stop byte in `bytes` at or after `from`, or `bytes.len()` if there is none.
pub(super) fn plain_run_end(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from..];
    let mut end = 0;
    // Eight bytes at a time while none of them is a stop byte: most strings are long plain runs.
    for chunk in rest.chunks_exact(8) {
        let word = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
        if has_stop_byte(word) {
            break;
        }
        end += 8;
    }
    while end < rest.len() && !STOP[usize::from(rest[end])] {
        end += 1;
    }
    from + end
}

/// Whether any byte of `word` is a control character, a quote or a backslash.
fn has_stop_byte(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Flags a byte below `n`; the `!word` term leaves out bytes with the high bit set, so UTF-8 never counts.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS;
    let equal = |byte: u8| below(word ^ (ONES * u64::from(byte)), 1);
    below(word, 0x20) | equal(b'"') | equal(b'\\') != 0
}
