//! What API v2's writes of products and clients share (issue 35): a problem with one member of
//! a body, named by its path (`variants[1].sku`, `billing.city`), and the bounds every written
//! text obeys.
//!
//! The delivery adapter reads the body's JSON types; the rules here take the values that had
//! the right type and say what else is wrong, so that one answer names every problem.

use crate::text::{InvalidLabel, parse_label};

/// Names, labels and display names (product, variant, client, category, brand).
pub const MAX_NAME_CHARS: usize = 200;
/// A client's other texts: phone, billing members.
pub const MAX_CONTACT_CHARS: usize = 200;
pub const MAX_TAGS: usize = 50;
pub const MAX_TAG_CHARS: usize = 50;

/// One problem with one member of a write's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberProblem {
    /// The member's path from the body's root: `name`, `billing.city`, `variants[1].sku`.
    pub path: String,
    pub message: String,
}

/// The problems found in a body, in the order they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberProblems(Vec<MemberProblem>);

impl MemberProblems {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(MemberProblem {
            path: path.into(),
            message: message.into(),
        });
    }

    /// `Ok(value)` passes through; `Err` is recorded under `path` and gives `None`.
    pub fn check<T, E: ToString>(&mut self, path: &str, result: Result<T, E>) -> Option<T> {
        result
            .map_err(|problem| self.push(path, problem.to_string()))
            .ok()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_vec(self) -> Vec<MemberProblem> {
        self.0
    }

    /// `Ok(value)` when nothing was found wrong and every member gave its value.
    pub fn verdict<T>(self, value: Option<T>) -> Result<T, Vec<MemberProblem>> {
        match value {
            Some(value) if self.is_empty() => Ok(value),
            _ => Err(self.into_vec()),
        }
    }
}

/// A required name: trimmed, 1 to 200 characters, no control character.
pub fn name(raw: &str) -> Result<String, InvalidLabel> {
    parse_label(raw, MAX_NAME_CHARS)
}

/// An optional text: trimmed, at most `max` characters, no control character; blank is `None`
/// (an empty company name is no company name).
pub fn optional_text(raw: &str, max: usize) -> Result<Option<String>, InvalidLabel> {
    match parse_label(raw, max) {
        Ok(text) => Ok(Some(text)),
        Err(InvalidLabel::Empty) => Ok(None),
        Err(other) => Err(other),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidTags {
    #[error("must hold at most {MAX_TAGS} tags")]
    TooMany,
    #[error("must hold tags of 1 to {MAX_TAG_CHARS} characters, without control characters")]
    BadTag,
}

/// At most 50 tags of 1 to 50 characters each, trimmed; a tag given twice is kept once, in
/// the order first given.
pub fn tags(raw: &[String]) -> Result<Vec<String>, InvalidTags> {
    if raw.len() > MAX_TAGS {
        return Err(InvalidTags::TooMany);
    }
    let mut kept: Vec<String> = Vec::with_capacity(raw.len());
    for tag in raw {
        let tag = parse_label(tag, MAX_TAG_CHARS).map_err(|_| InvalidTags::BadTag)?;
        if !kept.contains(&tag) {
            kept.push(tag);
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_keep_their_paths_in_order() {
        let mut problems = MemberProblems::new();
        assert_eq!(
            problems.check("name", name("  Mug ")),
            Some("Mug".to_owned())
        );
        assert_eq!(problems.check("variants[1].label", name(" ")), None);
        problems.push("billing.city", "too long");
        let found: Vec<_> = problems
            .clone()
            .into_vec()
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert_eq!(found, ["variants[1].label", "billing.city"]);
        assert!(problems.verdict(Some(1)).is_err());
        assert_eq!(MemberProblems::new().verdict(Some(1)), Ok(1));
        assert!(MemberProblems::new().verdict::<i32>(None).is_err());
    }

    #[test]
    fn names_and_optional_texts_are_bounded() {
        assert!(name(&"é".repeat(200)).is_ok());
        assert_eq!(
            name(&"é".repeat(201)),
            Err(InvalidLabel::TooLong { max: 200 })
        );
        assert_eq!(optional_text("  ", 10), Ok(None));
        assert_eq!(optional_text(" Lyon ", 10), Ok(Some("Lyon".to_owned())));
        assert!(optional_text("a\u{7}", 10).is_err());
    }

    #[test]
    fn tags_are_bounded_trimmed_and_kept_once() {
        let given: Vec<String> = [" vip", "vip ", "b2b"].map(String::from).to_vec();
        assert_eq!(tags(&given), Ok(vec!["vip".to_owned(), "b2b".to_owned()]));
        let many: Vec<String> = (0..51).map(|i| format!("t{i}")).collect();
        assert_eq!(tags(&many), Err(InvalidTags::TooMany));
        assert_eq!(tags(&["x".repeat(51)]), Err(InvalidTags::BadTag));
        assert_eq!(tags(&[" ".to_owned()]), Err(InvalidTags::BadTag));
        assert_eq!(tags(&[]), Ok(vec![]));
    }
}
