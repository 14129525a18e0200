//! Lower-case hexadecimal, the text form of every random token the domain hands out (key
//! prefixes and secrets, session ids, form tokens) and of their digests.

/// Whether `text` is exactly `len` lower-case hex digits.
pub(crate) fn is_lower_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The `N` bytes that `2 * N` lower-case hex digits write, else `None`.
pub(crate) fn from_lower_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if !is_lower_hex(text, 2 * N) {
        return None;
    }
    let digit = |b: u8| {
        if b.is_ascii_digit() {
            b - b'0'
        } else {
            b - b'a' + 10
        }
    };
    let mut bytes = [0; N];
    for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        *byte = digit(pair[0]) << 4 | digit(pair[1]);
    }
    Some(bytes)
}

pub(crate) fn to_lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|byte| {
            [
                DIGITS[usize::from(byte >> 4)],
                DIGITS[usize::from(byte & 0x0f)],
            ]
        })
        .map(char::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_hex_reads_back_what_it_wrote_and_nothing_else() {
        let bytes = [0x00, 0x0f, 0xa5, 0xff];
        assert_eq!(to_lower_hex(&bytes), "000fa5ff");
        assert_eq!(from_lower_hex::<4>("000fa5ff"), Some(bytes));
        for refused in ["000FA5FF", "000fa5f", "000fa5ff0", "000fa5fg", ""] {
            assert_eq!(from_lower_hex::<4>(refused), None, "{refused:?}");
        }
    }
}
