//! `Authorization: Bearer <key>` (spec §5).
//!
//! Only the token is extracted here; whether it is a key, whose, and what it may do is the
//! `Authenticator` use case's decision. Every failure at this stage is the same 401 as an
//! unknown key, so that a client cannot tell which check refused it. Neither the header nor
//! the token is ever logged.

use actix_web::HttpRequest;
use actix_web::http::header::{self, HeaderMap};
use shop_domain::scope::Operation;
use shop_ports::usecase::Principal;

use crate::ApiState;
use crate::error::ApiError;

/// The token of a single `Authorization` header of the form `Bearer <token>`: the scheme is
/// matched case-insensitively (RFC 9110 §11.1), then exactly one space and one non-empty token
/// without whitespace. Anything else, including a repeated header or bytes that are not
/// visible ASCII, is `None`.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let mut values = headers.get_all(header::AUTHORIZATION);
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    let (scheme, token) = value.to_str().ok()?.split_once(' ')?;
    let well_formed = scheme.eq_ignore_ascii_case("bearer")
        && !token.is_empty()
        && !token.contains(char::is_whitespace);
    well_formed.then_some(token)
}

/// Authenticates the request's key for `operation`: 401, then the 403s, in the contract's
/// order. Handlers call it first, before looking at parameters.
pub async fn authenticate(
    request: &HttpRequest,
    state: &ApiState,
    operation: Operation,
) -> Result<Principal, ApiError> {
    let token = bearer_token(request.headers()).ok_or(ApiError::Unauthorized)?;
    Ok(state.authenticator.authenticate(token, operation).await?)
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    fn headers(values: &[&[u8]]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            if let Ok(value) = HeaderValue::from_bytes(value) {
                map.append(header::AUTHORIZATION, value);
            }
        }
        map
    }

    #[test]
    fn accepts_the_bearer_scheme_in_any_case() {
        for value in [&b"Bearer abc"[..], b"bearer abc", b"BEARER abc"] {
            assert_eq!(bearer_token(&headers(&[value])), Some("abc"));
        }
    }

    #[test]
    fn refuses_everything_else() {
        let cases: [&[&[u8]]; 9] = [
            &[],
            &[b"Basic abc"],
            &[b"Bearer"],
            &[b"Bearer "],
            &[b"Bearer  abc"],
            &[b"Bearer abc def"],
            &[b"Bearerabc"],
            &[b"Bearer \xffabc"],
            &[b"Bearer abc", b"Bearer abc"],
        ];
        for case in cases {
            assert_eq!(bearer_token(&headers(case)), None, "{case:?}");
        }
    }
}
