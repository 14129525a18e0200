//! The device cookie (`shop_domain::owner_device`), the HTTP side: read at sign-in, and
//! handed out at each successful one. Named, scoped and secured like the session cookie
//! (`cookies.rs`): `__Host-shop_console_device`, `Secure`, `Path=/` over `https`
//! (`PUBLIC_URL`), else `shop_console_device` on `Path=/console`; `HttpOnly` and
//! `SameSite=Strict` always; and kept for a year, across browser sessions and sign-outs: it is
//! what lets the owner's browser sign in while strangers are locked out of the owner's e-mail.
//! It opens nothing by itself (the password is still asked for).

use actix_web::HttpRequest;
use actix_web::cookie::Cookie;
use actix_web::cookie::time::Duration;
use shop_domain::owner_device::DeviceCookie;

use crate::cookies::ConsoleCookie;

/// How long a browser keeps its device cookie.
const LIFETIME: Duration = Duration::days(365);

/// The device cookie the request presents, if it has the shape of one (its signature is the
/// use case's to check).
pub fn presented(request: &HttpRequest, https: bool) -> Option<DeviceCookie> {
    ConsoleCookie::DEVICE
        .value(request, https)
        .and_then(|value| DeviceCookie::presented(&value))
}

/// The cookie that hands `device` to the browser that just signed in.
pub fn issued(device: &DeviceCookie, https: bool) -> Cookie<'static> {
    ConsoleCookie::DEVICE
        .holding(device.expose().to_owned(), https)
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
        let text = issued(&device, false).to_string();
        for part in [
            "HttpOnly",
            "SameSite=Strict",
            "Path=/console",
            "Max-Age=31536000",
        ] {
            assert!(text.contains(part), "{text}");
        }
        assert!(text.starts_with("shop_console_device=") && !text.contains("Secure"));
        let text = issued(&device, true).to_string();
        assert!(text.starts_with("__Host-shop_console_device="), "{text}");
        let attributes: Vec<&str> = text.split("; ").collect();
        for part in [
            "HttpOnly",
            "SameSite=Strict",
            "Path=/",
            "Secure",
            "Max-Age=31536000",
        ] {
            assert!(attributes.contains(&part), "{text}");
        }
    }
}
