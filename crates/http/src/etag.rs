//! Strong entity tags of API v2's single resources (RFC 9110 §8.8.3), and `If-None-Match`
//! (§13.1.2) on their reads.
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

use crate::api_version::ApiVersion;
use crate::dto::page::DataDto;
use crate::error::ApiError;

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
