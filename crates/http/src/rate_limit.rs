//! Rate limits at the HTTP edge (spec §8): which budget a request draws from, which client a
//! failed authentication is counted against, and the headers that tell a key its budget.
//!
//! The counting itself is the `RateLimiter` use case's; `auth::authenticate` calls it and
//! leaves a [`Counted`] in the request's extensions, and `middleware::rate_limit_headers`
//! turns that into headers on whatever response comes out, so that no handler can forget them.

use actix_web::HttpRequest;
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use shop_domain::rate_limit::{RateBudget, RateStatus, RequestClass};

/// `RateLimit-Policy` and `RateLimit`, from the IETF draft "RateLimit header fields for HTTP"
/// (draft-ietf-httpapi-ratelimit-headers), in its current form where each policy is named.
pub const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
pub const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");
/// The legacy form most client libraries still read.
pub const X_RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
pub const X_RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
pub const X_RATELIMIT_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

/// The budget a request draws from. GET and HEAD (and OPTIONS, which is just as safe) read;
/// every other method writes, so that a method the routes do not know yet falls under the
/// smaller budget rather than the larger one.
pub fn request_class(method: &Method) -> RequestClass {
    if *method == Method::GET || *method == Method::HEAD || *method == Method::OPTIONS {
        RequestClass::Read
    } else {
        RequestClass::Write
    }
}

/// The client a failed authentication is counted against: the IP address of the TCP peer.
///
/// `X-Forwarded-For` and `Forwarded` are deliberately NOT trusted in this version: any client
/// can send them, and trusting them would let a key guesser pick a fresh budget for every
/// attempt. Behind a reverse proxy every client therefore shares the proxy's address (one
/// budget for all), which errs on the safe side; trusting the header of a configured proxy is
/// left for when the service is deployed behind one. IPv4-mapped IPv6 addresses are folded to
/// IPv4, so that a dual-stack listener counts a client once. A request without a peer address
/// (a Unix socket, a test request) counts against one shared `unknown` client.
pub fn client_address(request: &HttpRequest) -> String {
    request.peer_addr().map_or_else(
        || String::from("unknown"),
        |peer| peer.ip().to_canonical().to_string(),
    )
}

/// What authentication counted for a request that presented a valid key: its class, the budget
/// of that class and the budget's state after this request (refused or not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    pub class: RequestClass,
    pub budget: RateBudget,
    pub status: RateStatus,
}

impl Counted {
    /// The five headers, for example for the first read of a minute:
    /// `RateLimit-Policy: "reads";q=120;w=60`, `RateLimit: "reads";r=119;t=60`,
    /// `X-RateLimit-Limit: 120`, `X-RateLimit-Remaining: 119`, `X-RateLimit-Reset: 60`.
    /// `t` and `X-RateLimit-Reset` are the whole seconds, rounded up, until the oldest counted
    /// request leaves the window and a slot frees (0 when nothing is counted).
    pub fn headers(&self) -> [(HeaderName, HeaderValue); 5] {
        let name = self.class.policy_name();
        let limit = self.budget.limit;
        let remaining = self.status.remaining;
        let reset = self.status.reset_after_seconds();
        [
            (
                RATELIMIT_POLICY,
                ascii(format!(
                    "\"{name}\";q={limit};w={}",
                    self.budget.window_seconds()
                )),
            ),
            (
                RATELIMIT,
                ascii(format!("\"{name}\";r={remaining};t={reset}")),
            ),
            (X_RATELIMIT_LIMIT, HeaderValue::from(limit)),
            (X_RATELIMIT_REMAINING, HeaderValue::from(remaining)),
            (X_RATELIMIT_RESET, HeaderValue::from(reset)),
        ]
    }
}

/// The values above are built from a policy name and integers only, so they are always valid
/// header values; the fallback keeps this total without a panic path.
fn ascii(value: String) -> HeaderValue {
    HeaderValue::try_from(value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use actix_web::test::TestRequest;

    use super::*;

    fn header_text(counted: &Counted) -> Vec<(String, String)> {
        counted
            .headers()
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
            .collect()
    }

    #[test]
    fn safe_methods_read_and_the_others_write() {
        for method in [Method::GET, Method::HEAD, Method::OPTIONS] {
            assert_eq!(request_class(&method), RequestClass::Read, "{method}");
        }
        for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            assert_eq!(request_class(&method), RequestClass::Write, "{method}");
        }
    }

    #[test]
    fn headers_follow_the_draft_and_the_legacy_form() {
        let counted = Counted {
            class: RequestClass::Write,
            budget: RateBudget::WRITES,
            status: RateStatus {
                allowed: false,
                limit: 30,
                remaining: 0,
                reset_after_millis: 12_001,
            },
        };
        let expected = [
            ("ratelimit-policy", "\"writes\";q=30;w=60"),
            ("ratelimit", "\"writes\";r=0;t=13"),
            ("x-ratelimit-limit", "30"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "13"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned()));
        assert_eq!(header_text(&counted), expected);
    }

    #[test]
    fn the_client_is_the_peer_ip_and_forwarding_headers_are_ignored() {
        let peer: SocketAddr = "203.0.113.9:4711".parse().unwrap();
        let request = TestRequest::default()
            .peer_addr(peer)
            .insert_header(("x-forwarded-for", "198.51.100.1"))
            .insert_header(("forwarded", "for=198.51.100.1"))
            .to_http_request();
        assert_eq!(client_address(&request), "203.0.113.9");
    }

    #[test]
    fn mapped_ipv4_is_one_client_and_no_peer_is_unknown() {
        let mapped: SocketAddr = "[::ffff:203.0.113.9]:4711".parse().unwrap();
        let request = TestRequest::default().peer_addr(mapped).to_http_request();
        assert_eq!(client_address(&request), "203.0.113.9");
        let v6: SocketAddr = "[2001:db8::1]:4711".parse().unwrap();
        let request = TestRequest::default().peer_addr(v6).to_http_request();
        assert_eq!(client_address(&request), "2001:db8::1");
        assert_eq!(
            client_address(&TestRequest::default().to_http_request()),
            "unknown"
        );
    }
}
