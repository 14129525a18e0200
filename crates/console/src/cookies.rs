//! The session cookie: the session id and nothing else, `HttpOnly` (no script reads it),
//! `SameSite=Strict` (no other site's page sends it), `Path=/console` (the API never sees it)
//! and `Secure` unless the console is served on loopback only. No `Max-Age`: it is a
//! browser-session cookie, and the server ends the session anyway after 30 idle minutes or
//! 12 hours.

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite};
use shop_domain::owner_session::SessionToken;

use crate::routes::PREFIX;

pub const SESSION_COOKIE: &str = "shop_console_session";

/// The session token the request presents, if its cookie holds one.
pub fn session_token(request: &HttpRequest) -> Option<SessionToken> {
    request
        .cookie(SESSION_COOKIE)
        .and_then(|cookie| SessionToken::parse(cookie.value()))
}

/// The cookie that hands `token` to the browser, once, at sign-in.
pub fn session(token: &SessionToken, secure: bool) -> Cookie<'static> {
    cookie(token.expose().to_owned(), secure)
}

/// The cookie that makes the browser forget its session id.
pub fn removal(secure: bool) -> Cookie<'static> {
    let mut cookie = cookie(String::new(), secure);
    cookie.make_removal();
    cookie
}

/// The session cookie holding `value`, with every attribute it always has.
fn cookie(value: String, secure: bool) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, value)
        .path(PREFIX)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_http_only_strict_and_scoped_to_the_console() {
        let token = SessionToken::from_random_bytes([1; 32]);
        let text = session(&token, true).to_string();
        for part in ["HttpOnly", "SameSite=Strict", "Path=/console", "Secure"] {
            assert!(text.contains(part), "{text}");
        }
        assert!(!text.contains("Max-Age"), "{text}");
        assert!(!session(&token, false).to_string().contains("Secure"));
    }

    #[test]
    fn removal_expires_the_cookie_on_the_same_path() {
        let text = removal(false).to_string();
        assert!(
            text.contains("Max-Age=0") && text.contains("Path=/console"),
            "{text}"
        );
    }
}
