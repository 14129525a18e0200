//! The excerpt of an answer kept with its attempt: text of at most a given number of bytes,
//! cut on a character boundary.

/// `bytes` (already at most `limit` of them, read from the answer) as text of at most `limit`
/// bytes: a character the cut broke off is dropped, an invalid sequence is replaced by U+FFFD
/// (and the text shortened again if the replacements made it longer than `limit`).
pub(crate) fn cut(bytes: &[u8], limit: usize) -> String {
    let bytes = &bytes[..bytes.len().min(limit)];
    let mut text = String::with_capacity(bytes.len());
    let mut chunks = bytes.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        text.push_str(chunk.valid());
        let invalid = chunk.invalid();
        if invalid.is_empty() {
            continue;
        }
        // At the very end, an incomplete sequence is a character the cut broke off.
        let broken_off = chunks.peek().is_none()
            && std::str::from_utf8(invalid).is_err_and(|error| error.error_len().is_none());
        if !broken_off {
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    let mut end = text.len().min(limit);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole_and_long_text_is_cut_at_the_limit() {
        assert_eq!(cut(b"", 8), "");
        assert_eq!(cut(b"ok", 8), "ok");
        assert_eq!(cut(b"0123456789", 8), "01234567");
    }

    #[test]
    fn a_character_the_cut_breaks_is_dropped_whole() {
        // "é" is two bytes, "€" three, "𝄞" four: the limit falls inside each.
        assert_eq!(cut("abcé".as_bytes(), 4), "abc");
        assert_eq!(cut("ab€".as_bytes(), 4), "ab");
        assert_eq!(cut("a𝄞".as_bytes(), 4), "a");
        assert_eq!(cut("ab€".as_bytes(), 5), "ab€");
    }

    #[test]
    fn invalid_utf8_is_replaced_and_the_bound_still_holds() {
        assert_eq!(cut(b"a\xffb", 8), "a\u{fffd}b");
        // Each replacement is three bytes for one: the text is cut again to the limit.
        let text = cut(b"\xff\xff\xff\xff", 4);
        assert_eq!(text, "\u{fffd}");
        assert!(text.len() <= 4);
    }
}
