//! The device cookie (`shop_domain::owner_device`), the HTTP side: read at sign-in, and
//! handed out at each successful one. `HttpOnly`, `SameSite=Strict` and `Path=/console` like
//! the session cookie, `Secure` when it is, and kept for a year, across browser sessions and
//! sign-outs: it is what lets the owner's browser sign in while strangers are locked out of
//! the owner's e-mail. It opens nothing by itself (the password is still asked for).

use actix_web::HttpRequest;
use actix_web::cookie::time::Duration;
use actix_web::cookie::{Cookie, SameSite};
use shop_domain::owner_device::DeviceCookie;

use crate::routes::PREFIX;

pub const DEVICE_COOKIE: &str = "shop_console_device";

/// How long a browser keeps its device cookie.
const LIFETIME: Duration = Duration::days(365);

/// The device cookie the request presents, if it has the shape of one (its signature is the
/// use case's to check).
pub fn presented(request: &HttpRequest) -> Option<DeviceCookie> {
    request
        .cookie(DEVICE_COOKIE)
        .and_then(|cookie| DeviceCookie::presented(cookie.value()))
}

/// The cookie that hands `device` to the browser that just signed in.
pub fn issued(device: &DeviceCookie, secure: bool) -> Cookie<'static> {
    Cookie::build(DEVICE_COOKIE, device.expose().to_owned())
        .path(PREFIX)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .max_age(LIFETIME)
        .finish()
}

#[cfg(test)]
mod tests {
    use shop_domain::owner::OwnerEmail;
    use shop_domain::owner_device::DeviceSecret;

    use super::*;

    #[test]
    fn the_device_cookie_is_http_only_strict_scoped_to_the_console_and_kept_a_year() {
        let device = DeviceCookie::issue(
            &DeviceSecret::from_random_bytes([1; 32]),
            &OwnerEmail::parse("ana@boutique.fr").unwrap(),
            [2; 32],
        );
        let text = issued(&device, true).to_string();
        for part in [
            "HttpOnly",
            "SameSite=Strict",
            "Path=/console",
            "Secure",
            "Max-Age=31536000",
        ] {
            assert!(text.contains(part), "{text}");
        }
        assert!(!issued(&device, false).to_string().contains("Secure"));
    }
}
