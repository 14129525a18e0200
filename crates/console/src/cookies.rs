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
use actix_web::cookie::{Cookie, SameSite};
use shop_domain::owner_session::SessionToken;

use crate::routes::PREFIX;

const SESSION_COOKIE: &str = "shop_console_session";
const HOST_ONLY_SESSION_COOKIE: &str = "__Host-shop_console_session";

/// The session cookie's name where owners reach the console over TLS (`https`) or not.
pub fn session_cookie_name(https: bool) -> &'static str {
    if https {
        HOST_ONLY_SESSION_COOKIE
    } else {
        SESSION_COOKIE
    }
}

/// The session token the request presents, if its cookie holds one.
pub fn session_token(request: &HttpRequest, https: bool) -> Option<SessionToken> {
    request
        .cookie(session_cookie_name(https))
        .and_then(|cookie| SessionToken::parse(cookie.value()))
}

/// The cookie that hands `token` to the browser, once, at sign-in.
pub fn session(token: &SessionToken, https: bool) -> Cookie<'static> {
    cookie(token.expose().to_owned(), https)
}

/// The cookie that makes the browser forget its session id.
pub fn removal(https: bool) -> Cookie<'static> {
    let mut cookie = cookie(String::new(), https);
    cookie.make_removal();
    cookie
}

/// The session cookie holding `value`, with every attribute it always has.
fn cookie(value: String, https: bool) -> Cookie<'static> {
    Cookie::build(session_cookie_name(https), value)
        .path(if https { "/" } else { PREFIX })
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(https)
        .finish()
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
            .cookie(Cookie::new(SESSION_COOKIE, token.expose().to_owned()))
            .to_http_request();
        assert!(session_token(&planted, true).is_none());
        assert!(session_token(&planted, false).is_some());
    }
}
