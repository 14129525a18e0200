//! Query strings, parsed by hand so that every problem is reported, and reported at once.
//!
//! actix's `web::Query` stops at the first bad value, silently ignores unknown names (a typo
//! such as `?catgory=` would widen the result instead of failing) and keeps the last of two
//! values. Here an endpoint declares the names it accepts; unknown names, repeated names and
//! every bad value come back together in one 400 `VALIDATION_ERROR` whose `details` name each
//! parameter.
//!
//! Decoding is strict (`application/x-www-form-urlencoded`: `+` is a space, `%XX` a byte): a
//! malformed escape or bytes that are not UTF-8 are refused rather than replaced by U+FFFD as
//! `form_urlencoded`/`serde_urlencoded` do, since a silently altered filter value would
//! return the wrong rows.

use std::fmt::Display;

use shop_domain::pagination::{CursorKind, InvalidCursor};
use shop_domain::sync::{ChangedSince, changed_cursor_position, parse_updated_since};
use shop_domain::text::refuse_nul;

use crate::error::{ApiError, FieldIssue};

/// The decoded parameters of one request, each accepted name present at most once, plus the
/// issues found so far.
pub struct QueryParams {
    values: Vec<(&'static str, String)>,
    issues: Vec<FieldIssue>,
}

impl QueryParams {
    /// Decodes `raw` and checks its names against `accepted`. Only an undecodable query fails
    /// here; name problems are collected and reported by [`QueryParams::finish`] together with
    /// the value problems.
    pub fn parse(raw: &str, accepted: &[&'static str]) -> Result<Self, ApiError> {
        let pairs = decode(raw).map_err(|Undecodable| ApiError::Validation {
            message: "The query string could not be decoded.",
            details: Vec::new(),
        })?;
        let mut params = Self {
            values: Vec::new(),
            issues: Vec::new(),
        };
        let mut repeated: Vec<&'static str> = Vec::new();
        for (name, value) in pairs {
            let Some(known) = accepted.iter().copied().find(|known| *known == name) else {
                params.report_once(name, "is not a known parameter");
                continue;
            };
            if params.values.iter().any(|(given, _)| *given == known) {
                if !repeated.contains(&known) {
                    repeated.push(known);
                }
            } else {
                params.values.push((known, value));
            }
        }
        for name in repeated {
            // A repeated value is ambiguous: it is reported, not parsed.
            params.values.retain(|(given, _)| *given != name);
            params.report_once(name.to_owned(), "must be given at most once");
        }
        Ok(params)
    }

    fn report_once(&mut self, field: String, message: &str) {
        if !self.issues.iter().any(|issue| issue.field == field) {
            self.issues.push(FieldIssue::new(field, message));
        }
    }

    /// Parses the value of `name` when it was given; a failure is recorded under `name` with
    /// the parser's message and yields `None`, so that the other parameters are still checked.
    pub fn get<T, E: Display>(
        &mut self,
        name: &'static str,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Option<T> {
        let (_, value) = self.values.iter().find(|(given, _)| *given == name)?;
        if let Err(nul) = refuse_nul(value) {
            self.issues.push(FieldIssue::new(name, nul.to_string()));
            return None;
        }
        match parse(value) {
            Ok(parsed) => Some(parsed),
            Err(problem) => {
                self.issues.push(FieldIssue::new(name, problem.to_string()));
                None
            }
        }
    }

    /// The `cursor` and `updatedSince` of a list that can also be walked by changes
    /// (`shop_domain::sync`). Without `updatedSince`, the cursor is one of the list's usual
    /// order (`usual`); with it, one of the walk by changes (cursor kind `changed`, ids read by
    /// `parse_id`). An invalid `updatedSince` is reported alone, not with its cursor.
    pub fn walk<Position, Id>(
        &mut self,
        usual: impl FnOnce(&str) -> Result<Position, InvalidCursor>,
        changed: CursorKind,
        parse_id: impl Fn(&str) -> Option<Id>,
    ) -> (Option<Position>, Option<ChangedSince<Id>>) {
        if !self
            .values
            .iter()
            .any(|(given, _)| *given == "updatedSince")
        {
            return (self.get("cursor", usual), None);
        }
        let Some(since) = self.get("updatedSince", parse_updated_since) else {
            return (None, None);
        };
        let after = self.get("cursor", |text| {
            changed_cursor_position(text, changed, &parse_id)
        });
        (None, Some(ChangedSince { since, after }))
    }

    /// Records a problem found across parameters (such as a range whose bounds are reversed)
    /// under `field`, after the problems of the single values.
    pub fn reject(&mut self, field: &'static str, problem: impl Display) {
        self.issues
            .push(FieldIssue::new(field, problem.to_string()));
    }

    /// `Err` with every issue when there is at least one.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.issues.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.issues))
        }
    }
}

/// For endpoints that take no parameter: any name given is refused.
pub fn expect_none(raw: &str) -> Result<(), ApiError> {
    QueryParams::parse(raw, &[])?.finish()
}

#[derive(Debug, PartialEq, Eq)]
struct Undecodable;

fn decode(raw: &str) -> Result<Vec<(String, String)>, Undecodable> {
    raw.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((decode_component(name)?, decode_component(value)?))
        })
        .collect()
}

fn decode_component(text: &str) -> Result<String, Undecodable> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut input = text.bytes();
    while let Some(byte) = input.next() {
        bytes.push(match byte {
            b'+' => b' ',
            b'%' => {
                let high = input.next().and_then(hex_value).ok_or(Undecodable)?;
                let low = input.next().and_then(hex_value).ok_or(Undecodable)?;
                high << 4 | low
            }
            other => other,
        });
    }
    String::from_utf8(bytes).map_err(|_| Undecodable)
}

fn hex_value(digit: u8) -> Option<u8> {
    char::from(digit)
        .to_digit(16)
        .and_then(|value| u8::try_from(value).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues(result: Result<(), ApiError>) -> Vec<(String, String)> {
        match result {
            Err(ApiError::Validation { details, .. }) => details
                .into_iter()
                .map(|issue| (issue.field, issue.message))
                .collect(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn decodes_plus_and_percent_escapes() {
        assert_eq!(
            decode("q=%C3%A9charpe+laine&a=&b&&c=1%3D2"),
            Ok(vec![
                ("q".into(), "écharpe laine".into()),
                ("a".into(), String::new()),
                ("b".into(), String::new()),
                ("c".into(), "1=2".into()),
            ])
        );
        assert_eq!(decode(""), Ok(vec![]));
    }

    #[test]
    fn refuses_malformed_escapes_and_invalid_utf8() {
        for bad in ["q=%FF", "q=%zz", "q=%4", "q=%", "%C3=1"] {
            assert_eq!(decode(bad), Err(Undecodable), "{bad}");
        }
    }

    #[test]
    fn reports_unknown_and_repeated_names_with_bad_values() {
        let mut params = QueryParams::parse(
            "limit=1&limit=2&limit=3&foo=1&foo=2&n=x&bar",
            &["limit", "n"],
        )
        .unwrap();
        assert_eq!(params.get("limit", |v| v.parse::<u8>()), None);
        assert_eq!(params.get("n", |v| v.parse::<u8>()), None);
        let found = issues(params.finish());
        let fields: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(fields, ["foo", "bar", "limit", "n"]);
        assert_eq!(found[2].1, "must be given at most once");
        assert_eq!(found[0].1, "is not a known parameter");
    }

    #[test]
    fn absent_parameters_are_none_and_valid_ones_parse() {
        let mut params = QueryParams::parse("n=7", &["n", "m"]).unwrap();
        assert_eq!(params.get("n", |v| v.parse::<u8>()), Some(7));
        assert_eq!(params.get("m", |v| v.parse::<u8>()), None);
        assert!(params.finish().is_ok());
    }

    #[test]
    fn a_nul_character_is_refused_before_the_value_is_parsed() {
        let mut params = QueryParams::parse("q=ab%00cd&n=7", &["q", "n"]).unwrap();
        assert_eq!(params.get("q", |v| Ok::<_, String>(v.to_owned())), None);
        assert_eq!(params.get("n", |v| v.parse::<u8>()), Some(7));
        assert_eq!(
            issues(params.finish()),
            [(
                "q".to_owned(),
                "must not contain the NUL character (U+0000)".to_owned()
            )]
        );
    }

    #[test]
    fn endpoints_without_parameters_refuse_any() {
        assert!(expect_none("").is_ok());
        assert_eq!(issues(expect_none("x=1"))[0].0, "x");
    }
}
