//! JSON request bodies, read and checked by hand so that every problem is reported at once.
//!
//! `web::Json<T>` would read the body before the handler runs (so before authentication),
//! accept any `Content-Type` ending in `+json`, stop at the first bad field and keep the last
//! of two equal keys. Here a write handler authenticates first, then calls [`read_object`]:
//! `Content-Type` must be `application/json` (parameters allowed); the body is read with the
//! app's `PayloadConfig` (64 KiB, 413 beyond) within `BODY_READ_TIMEOUT` (408 beyond: a client
//! trickling its body must not hold a connection and a handler); it must be JSON
//! (`INVALID_JSON` otherwise) and an object. Its members are then checked like query
//! parameters: unknown names, repeated names, missing and mistyped values all come back
//! together in one 400 `VALIDATION_ERROR`.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderMap};
use actix_web::{FromRequest as _, HttpRequest, mime, web};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use shop_domain::text::refuse_nul;

use crate::connection;
use crate::error::{ApiError, FieldIssue};

pub mod members;

/// The members of a JSON object body, each accepted name present at most once, plus the
/// issues found so far.
#[derive(Debug)]
pub struct JsonFields {
    accepted: &'static [&'static str],
    values: Vec<(&'static str, Value)>,
    issues: Vec<FieldIssue>,
    /// `false` when the body is JSON but not an object: then no member is reported missing.
    object: bool,
}

/// Checks the `Content-Type`, reads the body and parses it into [`JsonFields`]. Call it after
/// authentication: nothing of the body is read before.
pub async fn read_object(
    request: &HttpRequest,
    payload: web::Payload,
    accepted: &'static [&'static str],
) -> Result<JsonFields, ApiError> {
    if !is_json_content_type(request.headers()) {
        return Err(ApiError::not_json_content_type());
    }
    JsonFields::parse(&read_bytes(request, payload).await?, accepted)
}

/// The body of a write of API v2's products and clients, as [`members::Members`] (nested
/// objects, paths). A `PATCH` is a JSON Merge Patch (RFC 7396): its `Content-Type` may also
/// be `application/merge-patch+json`.
pub async fn read_members(
    request: &HttpRequest,
    payload: web::Payload,
    merge_patch: bool,
) -> Result<members::Members, ApiError> {
    let headers = request.headers();
    if !(is_json_content_type(headers) || merge_patch && is_merge_patch_content_type(headers)) {
        return Err(if merge_patch {
            ApiError::not_merge_patch_content_type()
        } else {
            ApiError::not_json_content_type()
        });
    }
    members::parse(&read_bytes(request, payload).await?)
}

/// The body, within the app's size limit and `BODY_READ_TIMEOUT`.
async fn read_bytes(request: &HttpRequest, payload: web::Payload) -> Result<web::Bytes, ApiError> {
    let read = web::Bytes::from_request(request, &mut payload.into_inner());
    actix_web::rt::time::timeout(connection::BODY_READ_TIMEOUT, read)
        .await
        .map_err(|_elapsed| ApiError::from_status(StatusCode::REQUEST_TIMEOUT))?
        .map_err(|error| ApiError::unreadable_body(&error))
}

/// Exactly one `Content-Type`, `application/merge-patch+json` with or without parameters.
fn is_merge_patch_content_type(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(header::CONTENT_TYPE);
    let (Some(value), None) = (values.next(), values.next()) else {
        return false;
    };
    value
        .to_str()
        .ok()
        .and_then(|text| text.parse::<mime::Mime>().ok())
        .is_some_and(|media| {
            media.type_() == mime::APPLICATION
                && media.subtype().as_str().eq_ignore_ascii_case("merge-patch")
                && media.suffix() == Some(mime::JSON)
        })
}

/// Exactly one `Content-Type`, of media type `application/json` in any case, with or without
/// parameters (`; charset=utf-8`). `+json` suffixes and other types are refused.
pub fn is_json_content_type(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(header::CONTENT_TYPE);
    let (Some(value), None) = (values.next(), values.next()) else {
        return false;
    };
    value
        .to_str()
        .ok()
        .and_then(|text| text.parse::<mime::Mime>().ok())
        .is_some_and(|media| {
            media.type_() == mime::APPLICATION
                && media.subtype() == mime::JSON
                && media.suffix().is_none()
        })
}

impl JsonFields {
    /// Parses `body`; only a body that is not JSON fails here (`INVALID_JSON`). Unknown and
    /// repeated names, or a body that is not an object, are collected as issues.
    pub fn parse(body: &[u8], accepted: &'static [&'static str]) -> Result<Self, ApiError> {
        let TopLevel(members) =
            serde_json::from_slice(body).map_err(|_syntax| ApiError::InvalidJson)?;
        let mut fields = Self {
            accepted,
            values: Vec::new(),
            issues: Vec::new(),
            object: members.is_some(),
        };
        let Some(members) = members else {
            fields
                .issues
                .push(FieldIssue::new("body", "must be a JSON object"));
            return Ok(fields);
        };
        let mut repeated: Vec<&'static str> = Vec::new();
        for (name, value) in members {
            let Some(known) = accepted.iter().copied().find(|known| *known == name) else {
                fields.report_once(name, "is not a known field");
                continue;
            };
            if fields.values.iter().any(|(given, _)| *given == known) {
                if !repeated.contains(&known) {
                    repeated.push(known);
                }
            } else {
                fields.values.push((known, value));
            }
        }
        for name in repeated {
            // Two values for one field are ambiguous: reported, not checked.
            fields.values.retain(|(given, _)| *given != name);
            fields.report_once(name.to_owned(), "must be given at most once");
        }
        Ok(fields)
    }

    fn report_once(&mut self, field: String, message: &str) {
        if !self.issues.iter().any(|issue| issue.field == field) {
            self.issues.push(FieldIssue::new(field, message));
        }
    }

    /// The value of `name`, or an issue `is required` (unless repeated, or not an object).
    fn take(&mut self, name: &'static str) -> Option<Value> {
        let position = self.values.iter().position(|(given, _)| *given == name);
        match position {
            Some(position) => Some(self.values.remove(position).1),
            None => {
                let already_reported = self.issues.iter().any(|issue| issue.field == name);
                if self.object && !already_reported {
                    self.issues.push(FieldIssue::new(name, "is required"));
                }
                None
            }
        }
    }

    /// Whether the body is an object with the member `name`, given once: for the members a
    /// request may leave out (a `PATCH`'s), read only when present.
    pub fn has(&self, name: &str) -> bool {
        self.values.iter().any(|(given, _)| *given == name)
    }

    /// A required string member.
    pub fn string(&mut self, name: &'static str) -> Option<String> {
        match self.take(name)? {
            Value::String(text) => self.text(name, text),
            _ => {
                self.reject(name, "must be a string");
                None
            }
        }
    }

    /// A required member that is a string or `null` (`Some(None)`).
    pub fn nullable_string(&mut self, name: &'static str) -> Option<Option<String>> {
        match self.take(name)? {
            Value::Null => Some(None),
            Value::String(text) => self.text(name, text).map(Some),
            _ => {
                self.reject(name, "must be a string or null");
                None
            }
        }
    }

    /// A required member that is an array of strings (possibly empty).
    pub fn strings(&mut self, name: &'static str) -> Option<Vec<String>> {
        let Value::Array(items) = self.take(name)? else {
            self.reject(name, "must be an array of strings");
            return None;
        };
        let mut strings = Vec::with_capacity(items.len());
        for item in items {
            let Value::String(text) = item else {
                self.reject(name, "must be an array of strings");
                return None;
            };
            strings.push(self.text(name, text)?);
        }
        Some(strings)
    }

    /// `text` unless it holds U+0000, which no database column keeps alike.
    fn text(&mut self, name: &'static str, text: String) -> Option<String> {
        match refuse_nul(&text) {
            Ok(()) => Some(text),
            Err(nul) => {
                self.reject(name, nul.to_string());
                None
            }
        }
    }

    /// A required integer member: a JSON number written without fraction or exponent that
    /// fits an `i64`. `2.0`, `1e3`, `"5"`, `null`, `true` and `9223372036854775808` are not.
    pub fn integer(&mut self, name: &'static str) -> Option<i64> {
        let integer = match self.take(name)? {
            Value::Number(number) => number.as_i64(),
            _ => None,
        };
        if integer.is_none() {
            self.reject(name, "must be an integer");
        }
        integer
    }

    /// Records a problem found by a later rule (the domain's) under `field`.
    pub fn reject(&mut self, field: &'static str, problem: impl Into<String>) {
        self.issues.push(FieldIssue::new(field, problem));
    }

    /// Every issue, in the order of the fields: the body itself and unknown names (as they
    /// appear) first, then the accepted names in their declared order.
    pub fn into_issues(self) -> Vec<FieldIssue> {
        let accepted = self.accepted;
        let mut issues = self.issues;
        issues.sort_by_key(|issue| {
            accepted
                .iter()
                .position(|name| *name == issue.field)
                .map_or(0, |position| position + 1)
        });
        issues
    }
}

/// A JSON document: `Some(members)` of an object, in order and with repeated names kept,
/// `None` for any other value. serde_json's own `Map` would keep only the last of two equal
/// names, and in sorted order.
struct TopLevel(Option<Vec<(String, Value)>>);

impl<'de> de::Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

impl<'de> Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry::<String, Value>()? {
            members.push(member);
        }
        Ok(TopLevel(Some(members)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        // Consumed so that a syntax error inside the array is still INVALID_JSON.
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(TopLevel(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel(None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel(None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel(None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel(None))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<TopLevel, E> {
        Ok(TopLevel(None))
    }
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    const ACCEPTED: &[&str] = &["a", "n"];

    fn issues(fields: JsonFields) -> Vec<(String, String)> {
        fields
            .into_issues()
            .into_iter()
            .map(|issue| (issue.field, issue.message))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(field, message)| ((*field).to_owned(), (*message).to_owned()))
            .collect()
    }

    #[test]
    fn only_application_json_is_json() {
        for good in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;charset=UTF-8",
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(good));
            assert!(is_json_content_type(&headers), "{good}");
        }
        for bad in [
            "text/plain",
            "application/vnd.api+json",
            "application/jsonx",
            "application/",
            "json",
            "",
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(bad));
            assert!(!is_json_content_type(&headers), "{bad}");
        }
        assert!(!is_json_content_type(&HeaderMap::new()));
        let mut twice = HeaderMap::new();
        for _ in 0..2 {
            twice.append(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
        }
        assert!(!is_json_content_type(&twice));
    }

    #[test]
    fn syntax_errors_are_invalid_json() {
        for bad in [
            &b""[..],
            b"{",
            b"{\"a\":1,}",
            b"[1,",
            b"{} {}",
            b"nul",
            b"{\"a\":\"\xff\"}",
        ] {
            let result = JsonFields::parse(bad, ACCEPTED);
            assert!(
                matches!(result, Err(ApiError::InvalidJson)),
                "{:?}: {result:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn a_string_holding_nul_is_refused() {
        let mut fields = JsonFields::parse(br#"{"a": "x\u0000y", "n": 1}"#, ACCEPTED).unwrap();
        assert_eq!(fields.string("a"), None);
        assert_eq!(fields.integer("n"), Some(1));
        assert_eq!(
            issues(fields),
            pairs(&[("a", "must not contain the NUL character (U+0000)")])
        );
    }

    #[test]
    fn other_json_values_are_not_an_object() {
        for other in ["[]", "[{\"a\":1}]", "1", "-2.5", "\"a\"", "true", "null"] {
            let fields = JsonFields::parse(other.as_bytes(), ACCEPTED).unwrap();
            let mut fields = fields;
            assert_eq!(fields.string("a"), None);
            assert_eq!(
                issues(fields),
                pairs(&[("body", "must be a JSON object")]),
                "{other}"
            );
        }
    }

    #[test]
    fn unknown_repeated_missing_and_mistyped_members_are_all_reported() {
        let body = br#"{"zz": 1, "n": 1, "b": 2, "n": 2, "zz": 3, "n": 3}"#;
        let mut fields = JsonFields::parse(body, ACCEPTED).unwrap();
        assert_eq!(fields.string("a"), None);
        assert_eq!(fields.integer("n"), None);
        assert_eq!(
            issues(fields),
            pairs(&[
                ("zz", "is not a known field"),
                ("b", "is not a known field"),
                ("a", "is required"),
                ("n", "must be given at most once"),
            ])
        );
    }

    #[test]
    fn integers_are_json_integers_within_i64() {
        for (text, expected) in [
            ("0", Some(0)),
            ("-7", Some(-7)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9223372036854775808", None),
            ("123456789012345678901234567890", None),
            ("1.5", None),
            ("2.0", None),
            ("1e3", None),
            ("\"5\"", None),
            ("null", None),
            ("true", None),
            ("[1]", None),
            ("{}", None),
        ] {
            let body = format!("{{\"n\": {text}}}");
            let mut fields = JsonFields::parse(body.as_bytes(), ACCEPTED).unwrap();
            assert_eq!(fields.integer("n"), expected, "{text}");
            let found = issues(fields);
            if expected.is_none() {
                assert_eq!(found, pairs(&[("n", "must be an integer")]), "{text}");
            } else {
                assert!(found.is_empty(), "{text}: {found:?}");
            }
        }
    }

    #[test]
    fn optional_nullable_and_list_members() {
        const MEMBERS: &[&str] = &["d", "e", "f"];
        let body = br#"{"d": null, "e": ["a", "b"], "f": ["a", 1]}"#;
        let mut fields = JsonFields::parse(body, MEMBERS).unwrap();
        assert!(fields.has("d") && !fields.has("zz"));
        assert_eq!(fields.nullable_string("d"), Some(None));
        assert_eq!(
            fields.strings("e"),
            Some(vec!["a".to_owned(), "b".to_owned()])
        );
        assert_eq!(fields.strings("f"), None);
        assert_eq!(
            issues(fields),
            pairs(&[("f", "must be an array of strings")])
        );
        let body = br#"{"d": 5, "e": "a", "f": ["x\u0000"]}"#;
        let mut fields = JsonFields::parse(body, MEMBERS).unwrap();
        assert_eq!(fields.nullable_string("d"), None);
        assert_eq!(fields.strings("e"), None);
        assert_eq!(fields.strings("f"), None);
        assert_eq!(
            issues(fields),
            pairs(&[
                ("d", "must be a string or null"),
                ("e", "must be an array of strings"),
                ("f", "must not contain the NUL character (U+0000)"),
            ])
        );
        let mut empty = JsonFields::parse(br#"{"e": []}"#, MEMBERS).unwrap();
        assert_eq!(empty.strings("e"), Some(vec![]));
        assert!(issues(empty).is_empty());
    }

    #[test]
    fn strings_must_be_strings() {
        let mut fields = JsonFields::parse(br#"{"a": 5, "n": null}"#, ACCEPTED).unwrap();
        assert_eq!(fields.string("a"), None);
        let mut ok = JsonFields::parse(br#"{"a": "\u00e9t\u00e9"}"#, ACCEPTED).unwrap();
        assert_eq!(ok.string("a").as_deref(), Some("été"));
        fields.reject("n", "later rule");
        assert_eq!(
            issues(fields),
            pairs(&[("a", "must be a string"), ("n", "later rule")])
        );
    }
}
