//! Where a request comes from, as the browser tells it (OWASP's CSRF defence in depth: the
//! `Origin` header and the Fetch Metadata header `Sec-Fetch-Site`, beside the token).
//!
//! With `PUBLIC_URL`, a request is same-origin only when its `Origin` is that URL's origin,
//! and `Sec-Fetch-Site`, if sent, says `same-origin`; the `Host` a client sends proves
//! nothing (a rebound DNS name, a proxy's own `Host`). The console's pages serve
//! `Referrer-Policy: same-origin`, so the browser writes the real origin into `Origin` on
//! their forms; an `Origin: null` (a sandboxed frame, a `no-referrer` page elsewhere) is
//! then refused.
//!
//! Without it (loopback, development), a request is same-origin when `Sec-Fetch-Site` says
//! `same-origin` and `Origin`, if it names a server, names this one (its scheme's default
//! port folded, compared with the request's `Host`); or, from a browser without Fetch
//! Metadata, when `Origin` names this server. There `Origin: null` with `Sec-Fetch-Site:
//! same-origin`, which no page can set, is same-origin.
//!
//! Either way, any other `Sec-Fetch-Site` and an `Origin` of another server are cross-site,
//! and a request with neither header comes from a program, not from a page.

use actix_web::HttpRequest;
use actix_web::http::header;

use crate::public_url::PublicUrl;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provenance {
    SameOrigin,
    CrossSite,
    /// Neither `Origin` nor `Sec-Fetch-Site`: not a browser's form.
    Unstated,
}

pub fn provenance(request: &HttpRequest, public_url: Option<&PublicUrl>) -> Provenance {
    let headers = request.headers();
    let fetch_site = headers
        .get("sec-fetch-site")
        .map(|value| value.to_str().unwrap_or_default());
    if fetch_site.is_some_and(|site| site != "same-origin") {
        return Provenance::CrossSite;
    }
    let origin = headers
        .get(header::ORIGIN)
        .map(|origin| origin.to_str().unwrap_or_default());
    if let Some(public_url) = public_url {
        return match origin {
            Some(origin) if public_url.is_origin(origin) => Provenance::SameOrigin,
            None if fetch_site.is_none() => Provenance::Unstated,
            _ => Provenance::CrossSite,
        };
    }
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        });
    let same_origin_said = fetch_site == Some("same-origin");
    match origin {
        Some("null") if same_origin_said => Provenance::SameOrigin,
        Some(origin) => match host {
            Some(host) if names_host(origin, host) => Provenance::SameOrigin,
            _ => Provenance::CrossSite,
        },
        None if same_origin_said => Provenance::SameOrigin,
        None => Provenance::Unstated,
    }
}

/// Whether `origin` (`scheme://host[:port]`) is the server the request was sent to.
fn names_host(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let fold = |text: &str| {
        let text = text.to_ascii_lowercase();
        match text.strip_suffix(default_port) {
            Some(bare) => bare.to_owned(),
            None => text,
        }
    };
    !authority.is_empty() && !authority.contains('/') && fold(authority) == fold(host)
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn request(headers: &[(&str, &str)]) -> HttpRequest {
        let mut request = TestRequest::post().insert_header((header::HOST, "127.0.0.1:8080"));
        for (name, value) in headers {
            request = request.insert_header((*name, *value));
        }
        request.to_http_request()
    }

    #[test]
    fn an_origin_naming_this_server_is_same_origin() {
        for origin in ["http://127.0.0.1:8080", "HTTP://127.0.0.1:8080"] {
            let r = request(&[("origin", origin)]);
            assert_eq!(provenance(&r, None), Provenance::SameOrigin, "{origin}");
        }
        let r = request(&[("sec-fetch-site", "same-origin")]);
        assert_eq!(provenance(&r, None), Provenance::SameOrigin);
        // Chromium's form post from a `Referrer-Policy: no-referrer` page.
        let r = request(&[("origin", "null"), ("sec-fetch-site", "same-origin")]);
        assert_eq!(provenance(&r, None), Provenance::SameOrigin);
        assert!(names_host("https://shop.example", "shop.example:443"));
        assert!(names_host("http://shop.example:80", "shop.example"));
    }

    #[test]
    fn anything_else_a_browser_says_is_cross_site() {
        let cases: [&[(&str, &str)]; 8] = [
            &[("origin", "http://evil.example")],
            &[("origin", "http://127.0.0.1:8081")],
            &[("origin", "null")],
            &[("origin", "null"), ("sec-fetch-site", "same-site")],
            &[("origin", "http://127.0.0.1:8080/path")],
            &[("sec-fetch-site", "cross-site")],
            &[
                ("origin", "http://127.0.0.1:8080"),
                ("sec-fetch-site", "same-site"),
            ],
            &[
                ("origin", "http://evil.example"),
                ("sec-fetch-site", "same-origin"),
            ],
        ];
        for headers in cases {
            assert_eq!(
                provenance(&request(headers), None),
                Provenance::CrossSite,
                "{headers:?}"
            );
        }
    }

    #[test]
    fn with_a_public_url_only_its_origin_is_same_origin_whatever_the_host() {
        let public = PublicUrl::parse("https://shop.example").unwrap();
        let judged = |headers: &[(&str, &str)]| provenance(&request(headers), Some(&public));
        for same in [
            &[("origin", "https://shop.example")][..],
            &[
                ("origin", "https://shop.example"),
                ("sec-fetch-site", "same-origin"),
            ],
        ] {
            assert_eq!(judged(same), Provenance::SameOrigin, "{same:?}");
        }
        // The request's own Host is 127.0.0.1:8080 (the proxy's upstream): naming it proves
        // nothing, nor does a null origin, nor Fetch Metadata without an origin.
        for cross in [
            &[("origin", "http://127.0.0.1:8080")][..],
            &[
                ("origin", "http://127.0.0.1:8080"),
                ("sec-fetch-site", "same-origin"),
            ],
            &[("origin", "null"), ("sec-fetch-site", "same-origin")],
            &[("sec-fetch-site", "same-origin")],
            &[("origin", "http://shop.example")],
            &[
                ("origin", "https://shop.example"),
                ("sec-fetch-site", "cross-site"),
            ],
        ] {
            assert_eq!(judged(cross), Provenance::CrossSite, "{cross:?}");
        }
        assert_eq!(judged(&[]), Provenance::Unstated);
    }

    #[test]
    fn a_request_without_either_header_is_unstated() {
        assert_eq!(provenance(&request(&[]), None), Provenance::Unstated);
    }
}
