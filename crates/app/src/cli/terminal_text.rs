//! Stored text as the CLI prints it: anyone with a `stock:write` key writes adjustment
//! reasons, anyone with an import file writes names and labels, and an operator reads them in
//! a terminal. A terminal obeys the control characters it is sent (ESC sequences move the
//! cursor, rewrite or hide lines, set the window's title; CR goes back over a line; BEL
//! rings), and bidi controls reorder what follows them on the line. So every such character
//! is printed as a visible escape, `\u{1b}`, and a backslash as `\\` so that an escape the
//! text spelled out itself cannot pass for one.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// `text` with every character a terminal would act on escaped: C0 (tab and line feed
/// included, so that a value stays in its column and on its line), DEL, C1, and the bidi
/// controls. Borrowed when there is nothing to escape.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\\' {
            shown.push_str("\\\\");
        } else if needs_escape(c) {
            // Writing into a String cannot fail.
            let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// A `Display` of [`for_terminal`], for `writeln!` arguments.
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&for_terminal(self.0))
    }
}

/// Each line of a multi-line message escaped on its own, the line breaks kept: for a message
/// whose lines the CLI made itself (one problem of a refused file per line).
pub fn lines_for_terminal(text: &str) -> String {
    text.split('\n')
        .map(for_terminal)
        .collect::<Vec<_>>()
        .join("\n")
}

fn needs_escape(c: char) -> bool {
    c == '\\' || c.is_control() || is_bidi_control(c)
}

/// The formatting characters of the Unicode bidirectional algorithm (UAX #9, table 4): marks,
/// embeddings, overrides and isolates.
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_kept_as_it_is() {
        for text in ["casse", "Théière — noir", "日本語", ""] {
            assert!(matches!(for_terminal(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn control_and_bidi_characters_become_visible_escapes() {
        assert_eq!(
            for_terminal("a\u{1b}]0;pwned\u{7}\rb\tc\nd\u{7f}\u{85}"),
            "a\\u{1b}]0;pwned\\u{7}\\u{d}b\\u{9}c\\u{a}d\\u{7f}\\u{85}"
        );
        assert_eq!(
            for_terminal("\u{202e}fdp.exe\u{2066}x\u{2069}\u{200f}\u{61c}"),
            "\\u{202e}fdp.exe\\u{2066}x\\u{2069}\\u{200f}\\u{61c}"
        );
    }

    #[test]
    fn a_spelled_out_escape_cannot_pass_for_a_real_one() {
        assert_eq!(for_terminal("\\u{1b}"), "\\\\u{1b}");
        assert_eq!(for_terminal("\\u{1b}\u{1b}"), "\\\\u{1b}\\u{1b}");
    }

    #[test]
    fn each_line_of_a_message_is_escaped_and_the_lines_kept() {
        assert_eq!(
            lines_for_terminal("refused:\nproducts[0].name\u{1b}[2K: bad\r"),
            "refused:\nproducts[0].name\\u{1b}[2K: bad\\u{d}"
        );
    }
}
