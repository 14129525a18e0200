//! The session cookie: the session id and nothing else, `HttpOnly` (no script reads it) and
//! `SameSite=Strict` (no other site's page sends it). No `Max-Age`: it is a browser-session
//! cookie, and the server ends the session anyway after 30 idle minutes or 12 hours.
//!
//! Over `https` (`PUBLIC_URL`) it is `__Host-shop_console_session`: the browser then accepts
//! it only `Secure`, from an `https` page of this very host, with `Path=/` and no `Domain`,
//! so neither a plain-HTTP response nor a sibling subdomain can plant one that would be read
//! first. Without TLS (loopback, `--insecure-console`) it is `shop_console_session` on
//! `Path=/console`, which a browser sends over plain HTTP.

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, CookieBuilder, SameSite};
use shop_domain::owner_session::SessionToken;

use crate::urls::PREFIX;

/// One of the console's cookies, named, scoped and secured by one rule: over `https`
/// `__Host-`-prefixed, `Secure`, `Path=/`; otherwise plain, on `Path=/console`; `HttpOnly` and
/// `SameSite=Strict` always.
#[derive(Clone, Copy)]
pub struct ConsoleCookie {
    plain: &'static str,
    host_only: &'static str,
}

impl ConsoleCookie {
    pub const SESSION: Self = Self {
        plain: "shop_console_session",
        host_only: "__Host-shop_console_session",
    };
    /// The device cookie of `device_cookie.rs`.
    pub const DEVICE: Self = Self {
        plain: "shop_console_device",
        host_only: "__Host-shop_console_device",
    };

    /// Its name where owners reach the console over TLS (`https`) or not.
    pub fn name(self, https: bool) -> &'static str {
        if https { self.host_only } else { self.plain }
    }

    /// Its value in `request`, if the request presents it.
    pub fn value(self, request: &HttpRequest, https: bool) -> Option<String> {
        request
            .cookie(self.name(https))
            .map(|cookie| cookie.value().to_owned())
    }

    /// The cookie holding `value`, with every attribute the rule gives it.
    pub fn holding(self, value: String, https: bool) -> CookieBuilder<'static> {
        Cookie::build(self.name(https), value)
            .path(if https { "/" } else { PREFIX })
            .http_only(true)
            .same_site(SameSite::Strict)
            .secure(https)
    }
}

/// The session token the request presents, if its cookie holds one.
pub fn session_token(request: &HttpRequest, https: bool) -> Option<SessionToken> {
    ConsoleCookie::SESSION
        .value(request, https)
        .and_then(|value| SessionToken::parse(&value))
}

/// The cookie that hands `token` to the browser, once, at sign-in.
pub fn session(token: &SessionToken, https: bool) -> Cookie<'static> {
    ConsoleCookie::SESSION
        .holding(token.expose().to_owned(), https)
        .finish()
}

/// The cookie that makes the browser forget its session id.
pub fn removal(https: bool) -> Cookie<'static> {
    let mut cookie = ConsoleCookie::SESSION
        .holding(String::new(), https)
        .finish();
    cookie.make_removal();
    cookie
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    #[test]
    fn over_tls_the_session_cookie_is_host_only_secure_http_only_and_strict() {
        let token = SessionToken::from_random_bytes([1; 32]);
        let text = session(&token, true).to_string();
        assert!(text.starts_with("__Host-shop_console_session="), "{text}");
        let attributes: Vec<&str> = text.split("; ").collect();
        for part in ["HttpOnly", "SameSite=Strict", "Path=/", "Secure"] {
            assert!(attributes.contains(&part), "{text}");
        }
        assert!(
            !text.contains("Domain") && !text.contains("Max-Age"),
            "{text}"
        );
    }

    #[test]
    fn without_tls_the_session_cookie_is_scoped_to_the_console_and_not_secure() {
        let token = SessionToken::from_random_bytes([1; 32]);
        let text = session(&token, false).to_string();
        assert!(text.starts_with("shop_console_session="), "{text}");
        assert!(
            text.contains("Path=/console") && !text.contains("Secure"),
            "{text}"
        );
    }

    #[test]
    fn removal_expires_the_cookie_on_the_same_path() {
        let text = removal(false).to_string();
        assert!(
            text.contains("Max-Age=0") && text.contains("Path=/console"),
            "{text}"
        );
        let text = removal(true).to_string();
        assert!(
            text.contains("Max-Age=0") && text.split("; ").any(|part| part == "Path=/"),
            "{text}"
        );
    }

    #[test]
    fn over_tls_a_cookie_without_the_prefix_is_no_session() {
        let token = SessionToken::from_random_bytes([2; 32]);
        let planted = TestRequest::get()
            .cookie(Cookie::new(
                ConsoleCookie::SESSION.name(false),
                token.expose().to_owned(),
            ))
            .to_http_request();
        assert!(session_token(&planted, true).is_none());
        assert!(session_token(&planted, false).is_some());
    }
}
