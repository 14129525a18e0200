//! Free-text values: labels, names and search terms.

/// Lower-cases for case-insensitive search. Both the stored search text and the caller's term
/// go through this one function, so they always agree (SQL `lower()` would only fold ASCII on
/// SQLite).
pub fn fold_case(text: &str) -> String {
    text.to_lowercase()
}

pub const MAX_SEARCH_LEN: usize = 100;

/// Refuses U+0000 in a text the service takes in (query parameter, body member, import value).
/// PostgreSQL's `text` cannot hold it while SQLite's can, so taking it would make the two
/// databases answer differently, or fail: it is refused where text enters.
pub fn refuse_nul(text: &str) -> Result<(), ContainsNul> {
    if text.contains('\0') {
        Err(ContainsNul)
    } else {
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must not contain the NUL character (U+0000)")]
pub struct ContainsNul;

/// A case-folded, trimmed, non-empty search term of at most 100 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchTerm(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be at most 100 characters")]
pub struct SearchTooLong;

impl SearchTerm {
    /// `Ok(None)` for a blank term: `q=` means "no search", not "match nothing".
    pub fn parse(raw: &str) -> Result<Option<Self>, SearchTooLong> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Ok(None);
        }
        if trimmed.chars().count() > MAX_SEARCH_LEN {
            return Err(SearchTooLong);
        }
        Ok(Some(Self(fold_case(trimmed))))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a folded search text contains this term.
    pub fn matches(&self, folded_text: &str) -> bool {
        folded_text.contains(self.0.as_str())
    }
}

/// A required human label (key label, shop name): trimmed, 1 to `max` characters, no control
/// characters.
pub fn parse_label(raw: &str, max: usize) -> Result<String, InvalidLabel> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(InvalidLabel::Empty);
    }
    if trimmed.chars().count() > max {
        return Err(InvalidLabel::TooLong { max });
    }
    if trimmed.chars().any(char::is_control) {
        return Err(InvalidLabel::ControlCharacter);
    }
    Ok(trimmed.to_owned())
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidLabel {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most {max} characters")]
    TooLong { max: usize },
    #[error("must not contain control characters")]
    ControlCharacter,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_is_case_insensitive_beyond_ascii() {
        let term = SearchTerm::parse("  ÉCHARPE ").unwrap().unwrap();
        assert!(term.matches(&fold_case("Grande écharpe en laine")));
    }

    #[test]
    fn nul_is_refused_anywhere_in_a_text() {
        for text in ["\0", "ab\0cd", "abc\0"] {
            assert_eq!(refuse_nul(text), Err(ContainsNul), "{text:?}");
        }
        assert_eq!(refuse_nul("tab\tand\nnewline are text"), Ok(()));
    }

    #[test]
    fn blank_search_is_no_search() {
        assert_eq!(SearchTerm::parse("   "), Ok(None));
    }

    #[test]
    fn search_length_is_bounded() {
        assert_eq!(SearchTerm::parse(&"a".repeat(101)), Err(SearchTooLong));
        assert!(SearchTerm::parse(&"é".repeat(100)).unwrap().is_some());
    }

    #[test]
    fn labels_are_trimmed_and_bounded() {
        assert_eq!(parse_label("  Zapier ", 10).unwrap(), "Zapier");
        assert_eq!(parse_label(" ", 10), Err(InvalidLabel::Empty));
        assert_eq!(
            parse_label("abcdefghijk", 10),
            Err(InvalidLabel::TooLong { max: 10 })
        );
        assert_eq!(parse_label("a\nb", 10), Err(InvalidLabel::ControlCharacter));
    }
}
