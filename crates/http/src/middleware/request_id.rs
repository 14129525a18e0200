//! The request id: one per request, in its log lines and echoed as `X-Request-Id`.
//!
//! A client (or a proxy in front) may send its own id so that its logs and ours can be joined:
//! it is kept when it is sane, that is one header of 1 to 128 visible ASCII characters (no
//! spaces, no control characters), so that it cannot forge log fields or grow without bound.
//! Anything else is replaced by a fresh UUIDv7 (time-ordered, so ids sort like the requests).

use std::fmt;

use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};

pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest incoming id kept.
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// The id of one request; always a valid header value. Stored in the request's extensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    /// The incoming `X-Request-Id` if sane, else a new id.
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let mut values = headers.get_all(X_REQUEST_ID);
        match (values.next(), values.next()) {
            (Some(value), None) => Self::parse(value.as_bytes()).unwrap_or_else(Self::generate),
            _ => Self::generate(),
        }
    }

    /// `Some` for 1 to [`MAX_REQUEST_ID_LEN`] bytes of visible ASCII.
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        let sane = (1..=MAX_REQUEST_ID_LEN).contains(&bytes.len())
            && bytes.iter().all(u8::is_ascii_graphic);
        sane.then(|| Self(String::from_utf8_lossy(bytes).into_owned()))
    }

    pub fn generate() -> Self {
        Self(uuid::Uuid::now_v7().to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn header_value(&self) -> HeaderValue {
        // Visible ASCII only, by construction; the fallback is never taken.
        HeaderValue::from_str(&self.0).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&[u8]]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(X_REQUEST_ID, HeaderValue::from_bytes(value).unwrap());
        }
        map
    }

    #[test]
    fn a_sane_incoming_id_is_kept() {
        let kept = RequestId::from_headers(&headers(&[b"req-42_abc:7/x"]));
        assert_eq!(kept.as_str(), "req-42_abc:7/x");
        let longest = "a".repeat(MAX_REQUEST_ID_LEN);
        assert_eq!(
            RequestId::from_headers(&headers(&[longest.as_bytes()])).as_str(),
            longest
        );
    }

    #[test]
    fn anything_else_is_replaced_by_a_fresh_uuid() {
        let too_long = "a".repeat(MAX_REQUEST_ID_LEN + 1);
        let cases: [&[&[u8]]; 6] = [
            &[],
            &[b""],
            &[b"has space"],
            &[b"caf\xc3\xa9"],
            &[too_long.as_bytes()],
            &[b"one", b"two"],
        ];
        for case in cases {
            let id = RequestId::from_headers(&headers(case));
            assert!(
                uuid::Uuid::parse_str(id.as_str()).is_ok(),
                "{case:?} -> {id}"
            );
        }
        assert_ne!(RequestId::generate(), RequestId::generate());
    }
}
