//! The security headers of every console response, its error pages and redirects included.
//!
//! The policy allows only the console's own stylesheet and script (no inline script or
//! style, so an injected tag cannot run), forms that post back to the console only, no
//! framing (clickjacking), no MIME sniffing and no `Referer` leaving the console (its URL may
//! hold a search or a cursor): `same-origin` rather than `no-referrer`, because under
//! `no-referrer` a browser sends `Origin: null` with the console's own forms, and the
//! origin check (`origin.rs`) wants the real one. Pages are `no-store`: they show a shop's
//! keys and stock, and the page that shows a new key must never come back from a cache or
//! the back button. The stylesheet and script set their own caching.
//!
//! Over `https` (`PUBLIC_URL`), every response also carries HSTS for a year, so that a
//! browser that has seen the console once never asks for it over plain HTTP again (where a
//! network attacker could strip TLS). Not `includeSubDomains`: the console cannot know that
//! every sibling of its host speaks TLS.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;

pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; \
     frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

pub const STRICT_TRANSPORT_SECURITY: &str = "max-age=31536000";

/// The headers above; HSTS too when `https`.
pub async fn secure(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    https: bool,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let mut response = next.call(request).await?;
    let headers = response.headers_mut();
    let fixed: [(HeaderName, &'static str); 5] = [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if https {
        headers.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(STRICT_TRANSPORT_SECURITY),
        );
    }
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    Ok(response)
}
