//! Rate limits at the HTTP edge (spec §8): which budget a request draws from, which client a
//! failed authentication is counted against, and the headers that tell a key its budget.
//!
//! The counting itself is the `RateLimiter` use case's; `auth::authenticate` calls it and
//! leaves a [`Counted`] in the request's extensions, and `middleware::rate_limit_headers`
//! turns that into headers on whatever response comes out, so that no handler can forget them.

use actix_web::HttpRequest;
use actix_web::http::Method;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use shop_domain::client_address::ClientAddress;
use shop_domain::rate_limit::{RateBudget, RateStatus, RequestClass};

use crate::ApiState;

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

/// The client a failed authentication is counted against: the TCP peer, or, when the peer is
/// one of `TRUSTED_PROXIES`, the client its `Forwarded` or `X-Forwarded-For` names (anyone can
/// write those headers: believed from anyone else, they would give a guesser a fresh budget
/// per attempt). An IPv6 client is its /64. A request without a peer address (a test request)
/// counts against one shared `unknown` client.
pub fn client_address(request: &HttpRequest, state: &ApiState) -> ClientAddress {
    let peer = request.peer_addr().map(|peer| peer.ip());
    let proxies = &state.trusted_proxies;
    if proxies.is_empty() {
        return peer.map_or_else(ClientAddress::unknown, ClientAddress::of);
    }
    let headers = request.headers();
    let values = |name| {
        headers
            .get_all(name)
            .filter_map(|value| value.to_str().ok())
            .collect::<Vec<_>>()
    };
    proxies.client_address(
        peer,
        &values(header::FORWARDED),
        &values(header::X_FORWARDED_FOR),
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

    use shop_domain::client_address::TrustedProxies;

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

    fn state(proxies: &str) -> ApiState {
        ApiState {
            trusted_proxies: TrustedProxies::parse(proxies).unwrap(),
            ..crate::tests::TestApi::new().state()
        }
    }

    fn client(request: TestRequest, proxies: &str) -> String {
        client_address(&request.to_http_request(), &state(proxies)).to_string()
    }

    #[test]
    fn without_trusted_proxies_the_client_is_the_peer_whatever_the_headers() {
        let peer: SocketAddr = "203.0.113.9:4711".parse().unwrap();
        let request = || {
            TestRequest::default()
                .peer_addr(peer)
                .insert_header(("x-forwarded-for", "198.51.100.1"))
                .insert_header(("forwarded", "for=198.51.100.1"))
        };
        assert_eq!(client(request(), ""), "203.0.113.9");
        // A peer that is not a trusted proxy is the client too.
        assert_eq!(client(request(), "10.0.0.0/8"), "203.0.113.9");
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        let proxy: SocketAddr = "10.0.0.5:4711".parse().unwrap();
        let forwarded = TestRequest::default()
            .peer_addr(proxy)
            .insert_header(("forwarded", "for=198.51.100.1"));
        assert_eq!(client(forwarded, "10.0.0.0/8"), "198.51.100.1");
        // With both headers, one of them came from the client unchecked: the proxy it is.
        let both = TestRequest::default()
            .peer_addr(proxy)
            .insert_header(("forwarded", "for=198.51.100.1"))
            .insert_header(("x-forwarded-for", "192.0.2.77"));
        assert_eq!(client(both, "10.0.0.0/8"), "10.0.0.5");
        let forged = TestRequest::default()
            .peer_addr(proxy)
            .insert_header(("x-forwarded-for", "6.6.6.6, 192.0.2.77"));
        assert_eq!(client(forged, "10.0.0.0/8"), "192.0.2.77");
    }

    #[test]
    fn mapped_ipv4_is_one_client_ipv6_is_its_64_and_no_peer_is_unknown() {
        let mapped: SocketAddr = "[::ffff:203.0.113.9]:4711".parse().unwrap();
        assert_eq!(
            client(TestRequest::default().peer_addr(mapped), ""),
            "203.0.113.9"
        );
        let v6: SocketAddr = "[2001:db8:0:1:2:3:4:5]:4711".parse().unwrap();
        assert_eq!(
            client(TestRequest::default().peer_addr(v6), ""),
            "2001:db8:0:1::/64"
        );
        assert_eq!(client(TestRequest::default(), ""), "unknown");
    }
}
