//! Client search: case-insensitive over name, e-mail and phone, where a phone matches whatever
//! separators or French prefix the caller or the data uses.

use crate::text::{SearchTerm, SearchTooLong};

/// The national significant digits of a phone number: separators (spaces, dots, dashes,
/// parentheses, slashes) dropped, then a leading `+33`, `0033` or `0` dropped.
/// `+33 6 12-34.56.78` and `06 12 34 56 78` both become `612345678`.
pub fn normalize_phone(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '(' | ')' | '/' | '\u{a0}'))
        .collect();
    let national = kept
        .strip_prefix("+33")
        .or_else(|| kept.strip_prefix("0033"))
        .or_else(|| kept.strip_prefix('0'))
        .unwrap_or(&kept);
    national.to_owned()
}

/// A parsed `q`: the folded text, and the phone digits when the term reads as (part of) a
/// phone number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientSearch {
    pub text: SearchTerm,
    pub phone_digits: Option<String>,
}

impl ClientSearch {
    /// `Ok(None)` for a blank term.
    pub fn parse(raw: &str) -> Result<Option<Self>, SearchTooLong> {
        let Some(text) = SearchTerm::parse(raw)? else {
            return Ok(None);
        };
        let looks_like_phone = raw
            .trim()
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '.' | '-' | '+' | '(' | ')' | '/'));
        let digits = normalize_phone(raw.trim());
        let phone_digits =
            (looks_like_phone && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then_some(digits);
        Ok(Some(Self { text, phone_digits }))
    }

    /// Whether a client with this folded search text and these phone digits matches.
    pub fn matches(&self, folded_text: &str, phone_digits: &str) -> bool {
        self.text.matches(folded_text)
            || self
                .phone_digits
                .as_deref()
                .is_some_and(|digits| phone_digits.contains(digits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_french_number_normalises_alike() {
        for spelling in [
            "06 12 34 56 78",
            "0612345678",
            "+33 6 12 34 56 78",
            "+33612345678",
            "06.12.34.56.78",
            "06-12-34-56-78",
            "0033 6 12 34 56 78",
        ] {
            assert_eq!(normalize_phone(spelling), "612345678", "{spelling}");
        }
    }

    #[test]
    fn a_partial_number_in_any_spelling_finds_the_client() {
        let stored = normalize_phone("+33 6 12 34 56 78");
        for query in [
            "06 12 34",
            "+33 6 12",
            "12.34.56",
            "0612",
            "612345678",
            "56-78",
        ] {
            let search = ClientSearch::parse(query).unwrap().unwrap();
            assert!(search.matches("", &stored), "{query}");
        }
        let other = ClientSearch::parse("07 12").unwrap().unwrap();
        assert!(!other.matches("", &stored));
    }

    #[test]
    fn words_search_text_only() {
        let search = ClientSearch::parse("Dupont").unwrap().unwrap();
        assert_eq!(search.phone_digits, None);
        assert!(search.matches("marie dupont\nmarie@example.com", "612345678"));
        let email = ClientSearch::parse("MARIE@EXAMPLE").unwrap().unwrap();
        assert!(email.matches("marie dupont\nmarie@example.com", ""));
    }

    #[test]
    fn a_lone_zero_or_plus_does_not_match_every_phone() {
        assert_eq!(
            ClientSearch::parse("0").unwrap().unwrap().phone_digits,
            None
        );
        assert_eq!(
            ClientSearch::parse("+").unwrap().unwrap().phone_digits,
            None
        );
        assert_eq!(ClientSearch::parse(" ").unwrap(), None);
    }
}
