//! Strong entity tags of API v2's single resources (RFC 9110 §8.8.3): `If-None-Match`
//! (§13.1.2) on their reads, `If-Match` (§13.1.1) on their writes.
//!
//! A tag is derived from the representation's bytes (the first 128 bits of their SHA-256):
//! it changes exactly when what the client would read changes, whatever changed it (a field,
//! a variant, the stock, a loyalty balance), and two servers, or two databases, give one
//! representation the same tag. Computing it costs a hash of a body the server writes anyway.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType, HeaderMap, HeaderValue};
use serde::Serialize;
use sha2::{Digest, Sha256};

use shop_ports::port::Precondition;

use crate::api_version::ApiVersion;
use crate::dto::page::DataDto;
use crate::error::{ApiError, FieldIssue};

/// `"` + 32 hex digits + `"`.
fn strong_tag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let mut tag = String::with_capacity(34);
    tag.push('"');
    for byte in &digest[..16] {
        tag.push_str(&format!("{byte:02x}"));
    }
    tag.push('"');
    tag
}

/// Whether `If-None-Match` names `tag` (or is `*`): the client holds the current
/// representation. The comparison is weak, as the RFC asks for this header: `W/"x"` matches
/// `"x"`. Several header lines are one list.
fn none_match(headers: &HeaderMap, tag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|list| list.split(','))
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == tag)
}

/// The `200` of a read of one product or client, `{data: ...}`: on v1 exactly as it always was;
/// on v2 with its `ETag`, or `304 Not Modified` with the `ETag` and no body when the request's
/// `If-None-Match` holds it (issue 35).
pub(crate) fn single_resource<D: Serialize>(
    version: ApiVersion,
    headers: &HeaderMap,
    data: D,
) -> Result<HttpResponse, ApiError> {
    let data = DataDto::new(data);
    match version {
        ApiVersion::V1 => Ok(HttpResponse::Ok().json(data)),
        ApiVersion::V2 => tagged_data(headers, &data),
    }
}

/// The entity tag of `data` as a v2 answer shows it, `{data: ...}`.
pub(crate) fn entity_tag<D: Serialize>(data: D) -> Result<String, ApiError> {
    let body = serde_json::to_vec(&DataDto::new(data))
        .map_err(|error| ApiError::Internal(error.into()))?;
    Ok(strong_tag(&body))
}

/// A write's answer with the resource in `data` and its `ETag`: `200` to a patch, `201` to a
/// create (with its `Location` then).
pub(crate) fn written<D: Serialize>(status: StatusCode, data: D) -> Result<HttpResponse, ApiError> {
    let body = serde_json::to_vec(&DataDto::new(data))
        .map_err(|error| ApiError::Internal(error.into()))?;
    let tag = HeaderValue::from_str(&strong_tag(&body))
        .map_err(|error| ApiError::Internal(error.into()))?;
    Ok(HttpResponse::build(status)
        .content_type(ContentType::json())
        .insert_header((header::ETAG, tag))
        .body(body))
}

/// A write's `If-Match`: the entity tags it names, or `*` (any current representation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum IfMatch {
    Any,
    Tags(Vec<String>),
}

const IF_MATCH_FORM: &str = "must be * or a comma-separated list of quoted entity tags, as an \
                             ETag gives them";

impl IfMatch {
    /// `None` without the header. Several header lines are one list. A weak tag (`W/"x"`) can
    /// never match, since `If-Match` compares strongly; an unquoted one is refused, so that a
    /// client that dropped the quotes learns it instead of failing every write with 412.
    pub(crate) fn parse(headers: &HeaderMap) -> Result<Option<Self>, FieldIssue> {
        let mut values = headers.get_all(header::IF_MATCH).peekable();
        if values.peek().is_none() {
            return Ok(None);
        }
        let mut tags = Vec::new();
        for value in values {
            let text = value
                .to_str()
                .map_err(|_| FieldIssue::new("If-Match", IF_MATCH_FORM))?;
            for candidate in text.split(',').map(str::trim) {
                if candidate == "*" {
                    return Ok(Some(Self::Any));
                }
                let quoted = candidate.trim_start_matches("W/");
                if quoted.len() < 2 || !quoted.starts_with('"') || !quoted.ends_with('"') {
                    return Err(FieldIssue::new("If-Match", IF_MATCH_FORM));
                }
                if !candidate.starts_with("W/") {
                    tags.push(candidate.to_owned());
                }
            }
        }
        Ok(Some(Self::Tags(tags)))
    }

    /// The condition on the resource as the write finds it: its tag, computed by `tag_of`
    /// from its representation, is one of these.
    pub(crate) fn precondition<T>(
        self,
        tag_of: impl Fn(&T) -> Result<String, ApiError> + Send + Sync + 'static,
    ) -> Precondition<T> {
        Precondition::new(move |current: &T| match &self {
            Self::Any => true,
            Self::Tags(tags) => tag_of(current).is_ok_and(|tag| tags.contains(&tag)),
        })
    }
}

fn tagged_data<D: Serialize>(
    headers: &HeaderMap,
    data: &DataDto<D>,
) -> Result<HttpResponse, ApiError> {
    let body = serde_json::to_vec(data).map_err(|error| ApiError::Internal(error.into()))?;
    let tag = strong_tag(&body);
    let value = HeaderValue::from_str(&tag).map_err(|error| ApiError::Internal(error.into()))?;
    if none_match(headers, &tag) {
        return Ok(HttpResponse::build(StatusCode::NOT_MODIFIED)
            .insert_header((header::ETAG, value))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .insert_header((header::ETAG, value))
        .body(body))
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderName;

    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                HeaderName::from_static("if-none-match"),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        headers
    }

    #[test]
    fn a_tag_is_strong_and_follows_every_byte() {
        let tag = strong_tag(br#"{"data":{"points":120}}"#);
        assert_eq!(tag.len(), 34);
        assert!(tag.starts_with('"') && tag.ends_with('"'));
        assert_eq!(tag, strong_tag(br#"{"data":{"points":120}}"#));
        assert_ne!(tag, strong_tag(br#"{"data":{"points":121}}"#));
    }

    fn if_match(values: &[&str]) -> Result<Option<IfMatch>, FieldIssue> {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::IF_MATCH, HeaderValue::from_str(value).unwrap());
        }
        IfMatch::parse(&headers)
    }

    #[test]
    fn if_match_compares_strongly_and_refuses_what_is_no_tag() {
        assert_eq!(if_match(&[]), Ok(None));
        assert_eq!(if_match(&["*"]), Ok(Some(IfMatch::Any)));
        assert_eq!(
            if_match(&["\"a\", W/\"b\"", "\"c\""]),
            Ok(Some(IfMatch::Tags(vec!["\"a\"".into(), "\"c\"".into()])))
        );
        for bad in ["abc", "\"", "", "\"a\", b"] {
            assert!(if_match(&[bad]).is_err(), "{bad}");
        }
        let tag = entity_tag(5).unwrap();
        let only_five = IfMatch::Tags(vec![tag]).precondition(|n: &i32| entity_tag(*n));
        assert!(only_five.holds(&5));
        assert!(!only_five.holds(&6));
        assert!(
            IfMatch::Any
                .precondition(|n: &i32| entity_tag(*n))
                .holds(&6)
        );
    }

    #[test]
    fn if_none_match_takes_lists_weak_tags_and_the_star() {
        let tag = "\"0123\"";
        assert!(none_match(&headers(&["\"0123\""]), tag));
        assert!(none_match(&headers(&["\"aaaa\", W/\"0123\""]), tag));
        assert!(none_match(&headers(&["\"aaaa\"", "\"0123\""]), tag));
        assert!(none_match(&headers(&["*"]), tag));
        assert!(!none_match(&headers(&["\"01234\""]), tag));
        assert!(!none_match(&headers(&["0123"]), tag), "a tag is quoted");
        assert!(!none_match(&HeaderMap::new(), tag));
    }
}
