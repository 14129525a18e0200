//! `Authorization: Bearer <key>` (spec §5) and the rate limits (spec §8), the first step of
//! every handler.
//!
//! Only the token is extracted here; whether it is a key, whose, and what it may do is the
//! `Authenticator` use case's decision, and what a budget allows is the `RateLimiter`'s. Every
//! authentication failure is the same 401 as an unknown key, so that a client cannot tell
//! which check refused it. Neither the header nor the token is ever logged.
//!
//! Order of checks (see [`authenticate`]): 429 for a client whose failure budgets are spent
//! (or when too many verifications are under way), 401, 429 for a key over its budget, then
//! the 403s; the handler goes on with 400 and 404.
//! The key's budget is counted before the 403s because every request that presents a valid
//! key counts, whatever its outcome: a key over budget therefore gets 429 even for an
//! operation it may not perform, and a 429 itself consumes nothing.

use actix_web::http::header::{self, HeaderMap};
use actix_web::{HttpMessage as _, HttpRequest};
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::ShopId;
use shop_domain::scope::Operation;
use shop_ports::usecase::{AuthError, DigestedKey, Principal, Recall, Rejection, Throttle};

use crate::ApiState;
use crate::error::ApiError;
use crate::rate_limit::{Counted, client_address, request_class};

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

/// Authenticates the request's key, counts the request against its budget, and authorises
/// `operation`. Handlers call it first, before looking at parameters.
///
/// 1. A key this instance verified moments ago is the caller, for one cache lookup.
/// 2. Otherwise the authenticator decides, within the failure budgets: a missing or malformed
///    key, an unknown prefix, a revoked or expired key count against the client address; a
///    first verification of a key's secret reserves a slot of the client's budget for that
///    key and of the key's own, given back if the secret is right. A spent budget is 429
///    before any verification; any other failure is 401.
/// 3. The key's read or write budget is consumed; over budget is 429. Either way what was
///    counted is left in the request's extensions for the headers middleware.
/// 4. The shop's plan, its subscription and the key's scope: 403.
pub async fn authenticate(
    request: &HttpRequest,
    state: &ApiState,
    operation: Operation,
) -> Result<Principal, ApiError> {
    let principal = match presented_key(request.headers()) {
        Ok(presented) => identify(request, state, &presented).await?,
        Err(failure) => {
            let client = client_address(request, state);
            if let Err(throttle) = state.authenticator.count_unverified_failure(&client).await {
                return Err(throttled(request, throttle));
            }
            return Err(refuse(request, failure));
        }
    };
    request.extensions_mut().insert(Caller {
        key_prefix: principal.key_prefix.clone(),
        shop_id: principal.shop.id.clone(),
    });
    count(request, state, &principal).await?;
    principal.authorize(operation)?;
    Ok(principal)
}

/// The key of the `Authorization` header, parsed and digested once for the whole request.
fn presented_key(headers: &HeaderMap) -> Result<DigestedKey, AuthFailure> {
    let token = bearer_token(headers).ok_or_else(|| AuthFailure::header(headers))?;
    DigestedKey::parse(token).map_err(AuthFailure::Key)
}

/// Steps 1 and 2 for a well-formed key. A key verified moments ago costs one cache lookup;
/// only a key this instance has never verified meets the failure budgets.
async fn identify(
    request: &HttpRequest,
    state: &ApiState,
    presented: &DigestedKey,
) -> Result<Principal, ApiError> {
    let authenticator = &state.authenticator;
    let identified = match authenticator.recall(presented).await {
        Ok(Recall::Fresh(principal)) => Ok(principal),
        Ok(Recall::Stale | Recall::Unknown) => {
            authenticator
                .identify_key(presented, &client_address(request, state))
                .await
        }
        Err(error) => Err(error),
    };
    match identified {
        Ok(principal) => Ok(principal),
        Err(AuthError::Unauthorized(rejection)) => {
            Err(refuse(request, AuthFailure::Key(rejection)))
        }
        Err(AuthError::Throttled(throttle)) => Err(throttled(request, throttle)),
        // An unreachable key store or a failing hasher is not the client's failure.
        Err(other) => Err(other.into()),
    }
}

/// Who made a request whose key authenticated; left in the request's extensions for its log
/// line. The prefix is public (it is in the key listing); the secret is never kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub key_prefix: KeyPrefix,
    pub shop_id: ShopId,
}

/// Why a request was answered 401; left in the request's extensions for its log line and the
/// metrics. The response is the same whatever the cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AuthFailure {
    /// No `Authorization` header.
    MissingHeader,
    /// An `Authorization` header that is not one `Bearer <token>`.
    MalformedHeader,
    /// A bearer token that is not a usable key.
    Key(Rejection),
}

impl AuthFailure {
    fn header(headers: &HeaderMap) -> Self {
        if headers.contains_key(header::AUTHORIZATION) {
            Self::MalformedHeader
        } else {
            Self::MissingHeader
        }
    }

    /// A stable snake_case name, for log fields and metric labels.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::MissingHeader => "missing_header",
            Self::MalformedHeader => "malformed_header",
            Self::Key(rejection) => rejection.as_str(),
        }
    }
}

/// Step 2's 401, its cause remembered for the log line and the metrics.
fn refuse(request: &HttpRequest, failure: AuthFailure) -> ApiError {
    request.extensions_mut().insert(failure);
    ApiError::Unauthorized
}

/// A 429 of the failure budgets or of the verification gate, with the budget that refused
/// it for the metrics.
pub(crate) fn throttled(request: &HttpRequest, throttle: Throttle) -> ApiError {
    request.extensions_mut().insert(throttle.by);
    ApiError::rate_limited(&throttle.status)
}

/// Step 3: GET and HEAD draw on the read budget, the other methods on the write budget.
async fn count(
    request: &HttpRequest,
    state: &ApiState,
    principal: &Principal,
) -> Result<(), ApiError> {
    let class = request_class(request.method());
    let status = state
        .rate_limiter
        .consume(&principal.key_prefix, class)
        .await;
    request.extensions_mut().insert(Counted {
        class,
        budget: state.rate_limiter.budget(class),
        status,
    });
    if status.allowed {
        Ok(())
    } else {
        Err(ApiError::rate_limited(&status))
    }
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
