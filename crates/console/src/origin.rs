//! Where a request comes from, as the browser tells it (OWASP's CSRF defence in depth: the
//! `Origin` header and the Fetch Metadata header `Sec-Fetch-Site`, beside the token).
//!
//! A request is same-origin when `Sec-Fetch-Site` says `same-origin` and `Origin`, if it
//! names a server, names this one (its scheme's default port folded, compared with the
//! request's `Host`); or, from a browser without Fetch Metadata, when `Origin` names this
//! server. Any other `Sec-Fetch-Site`, an `Origin` of another server, and `Origin: null`
//! without `Sec-Fetch-Site: same-origin` are cross-site. (Chromium sends `Origin: null` with
//! the forms of a page whose `Referrer-Policy` is `no-referrer`, as the console's are: there
//! `Sec-Fetch-Site`, which no page can set, decides.) A request with neither header comes from
//! a program, not from a page.

use actix_web::HttpRequest;
use actix_web::http::header;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provenance {
    SameOrigin,
    CrossSite,
    /// Neither `Origin` nor `Sec-Fetch-Site`: not a browser's form.
    Unstated,
}

pub fn provenance(request: &HttpRequest) -> Provenance {
    let headers = request.headers();
    let fetch_site = headers
        .get("sec-fetch-site")
        .map(|value| value.to_str().unwrap_or_default());
    if fetch_site.is_some_and(|site| site != "same-origin") {
        return Provenance::CrossSite;
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
    match headers
        .get(header::ORIGIN)
        .map(|origin| origin.to_str().unwrap_or_default())
    {
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
            assert_eq!(provenance(&r), Provenance::SameOrigin, "{origin}");
        }
        let r = request(&[("sec-fetch-site", "same-origin")]);
        assert_eq!(provenance(&r), Provenance::SameOrigin);
        // Chromium's form post from a `Referrer-Policy: no-referrer` page.
        let r = request(&[("origin", "null"), ("sec-fetch-site", "same-origin")]);
        assert_eq!(provenance(&r), Provenance::SameOrigin);
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
                provenance(&request(headers)),
                Provenance::CrossSite,
                "{headers:?}"
            );
        }
    }

    #[test]
    fn a_request_without_either_header_is_unstated() {
        assert_eq!(provenance(&request(&[])), Provenance::Unstated);
    }
}
