//! `PUBLIC_URL`: the address owners type to reach the console, usually a TLS proxy's
//! (`https://shop.example`), and what follows from it.
//!
//! The server cannot see the scheme a proxy on the same host answered with, nor trust the
//! `Host` a client sends, so the operator says it once:
//! - over `https`, the session cookie is `__Host-`-prefixed and `Secure` (no plain-HTTP page
//!   and no sibling subdomain can plant or read it) and every console page sends HSTS;
//! - a console form is same-origin only when its `Origin` is this URL's origin, whatever the
//!   request's `Host` says (`origin.rs`).
//!
//! Serving the console beyond loopback without it is refused at startup
//! ([`ConsoleExposure::check`]), unless the operator says `--insecure-console`.

use std::fmt;
use std::net::IpAddr;

use url::Url;

/// An absolute `http` or `https` URL with nothing after its authority.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// `scheme://host[:port]`, lower-cased, the scheme's default port left out: what a
    /// browser writes in `Origin`.
    origin: String,
    https: bool,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PublicUrlError {
    #[error("PUBLIC_URL must be an absolute http or https URL, such as https://shop.example")]
    NotAnHttpUrl,
    #[error("PUBLIC_URL must not hold a user name or password")]
    Credentials,
    #[error(
        "PUBLIC_URL must be the console's origin only (scheme, host and port), without a path, \
         query or fragment: the console is served under /console of that origin"
    )]
    NotAnOrigin,
}

impl PublicUrl {
    pub fn parse(text: &str) -> Result<Self, PublicUrlError> {
        let url = Url::parse(text.trim()).map_err(|_| PublicUrlError::NotAnHttpUrl)?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            _ => return Err(PublicUrlError::NotAnHttpUrl),
        };
        if url.host().is_none() {
            return Err(PublicUrlError::NotAnHttpUrl);
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(PublicUrlError::Credentials);
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(PublicUrlError::NotAnOrigin);
        }
        Ok(Self {
            origin: url.origin().ascii_serialization(),
            https,
        })
    }

    /// Whether owners reach the console over TLS.
    pub fn is_https(&self) -> bool {
        self.https
    }

    /// Whether a browser's `Origin` header names this URL's origin. Browsers write it as
    /// `Url`'s origin does; the comparison still ignores case and a written default port.
    pub fn is_origin(&self, origin: &str) -> bool {
        Url::parse(origin)
            .ok()
            .filter(|url| {
                url.path() == "/"
                    && url.query().is_none()
                    && url.fragment().is_none()
                    && url.username().is_empty()
            })
            .is_some_and(|url| url.origin().ascii_serialization() == self.origin)
    }
}

impl fmt::Display for PublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin)
    }
}

impl fmt::Debug for PublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicUrl({})", self.origin)
    }
}

/// How the console is exposed: the operator's `PUBLIC_URL` and `--insecure-console`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsoleExposure {
    pub public_url: Option<PublicUrl>,
    /// Development only: serve the console over plain HTTP beyond loopback.
    pub insecure: bool,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExposureError {
    #[error(
        "refusing to serve the owners' console on {bind} without PUBLIC_URL: its session cookie \
         would travel over plain HTTP and its forms would be checked against whatever Host a \
         client sends. Put a TLS proxy in front and set PUBLIC_URL=https://<the address owners \
         use> (README, \"Deployment\"), or pass --insecure-console for development on a \
         trusted network"
    )]
    NoPublicUrl { bind: IpAddr },
    #[error(
        "refusing to serve the owners' console on {bind} over plain HTTP (PUBLIC_URL is \
         {public_url}): its session cookie would travel unencrypted. Use an https PUBLIC_URL \
         behind a TLS proxy, or pass --insecure-console for development on a trusted network"
    )]
    PlainHttp { bind: IpAddr, public_url: String },
}

impl ConsoleExposure {
    /// Whether a server listening on `bind` may serve the console so exposed. On loopback
    /// anything goes: only this host reaches it (a local TLS proxy, or a developer).
    pub fn check(&self, bind: IpAddr) -> Result<(), ExposureError> {
        if bind.is_loopback() || self.insecure {
            return Ok(());
        }
        match &self.public_url {
            None => Err(ExposureError::NoPublicUrl { bind }),
            Some(url) if !url.is_https() => Err(ExposureError::PlainHttp {
                bind,
                public_url: url.to_string(),
            }),
            Some(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_kept_as_a_browser_writes_it() {
        let url = PublicUrl::parse("HTTPS://Shop.Example:443/").unwrap();
        assert_eq!(url.to_string(), "https://shop.example");
        assert!(url.is_https());
        let local = PublicUrl::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!(local.to_string(), "http://127.0.0.1:8080");
        assert!(!local.is_https());
    }

    #[test]
    fn anything_but_an_http_origin_is_refused() {
        for (text, error) in [
            ("shop.example", PublicUrlError::NotAnHttpUrl),
            ("ftp://shop.example", PublicUrlError::NotAnHttpUrl),
            ("https://", PublicUrlError::NotAnHttpUrl),
            ("https://me:pw@shop.example", PublicUrlError::Credentials),
            ("https://shop.example/console", PublicUrlError::NotAnOrigin),
            ("https://shop.example/?a=1", PublicUrlError::NotAnOrigin),
            ("https://shop.example/#top", PublicUrlError::NotAnOrigin),
        ] {
            assert_eq!(PublicUrl::parse(text), Err(error), "{text}");
        }
    }

    #[test]
    fn only_the_public_origin_is_the_origin() {
        let url = PublicUrl::parse("https://shop.example").unwrap();
        for same in [
            "https://shop.example",
            "https://SHOP.example",
            "https://shop.example:443",
        ] {
            assert!(url.is_origin(same), "{same}");
        }
        for other in [
            "http://shop.example",
            "https://shop.example:8443",
            "https://evil.example",
            "https://shop.example.evil.example",
            "https://shop.example/console",
            "null",
            "",
        ] {
            assert!(!url.is_origin(other), "{other}");
        }
    }

    #[test]
    fn beyond_loopback_the_console_needs_an_https_public_url_or_the_insecure_flag() {
        let public = |text| ConsoleExposure {
            public_url: Some(PublicUrl::parse(text).unwrap()),
            insecure: false,
        };
        let anywhere: IpAddr = "0.0.0.0".parse().unwrap();
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(ConsoleExposure::default().check(loopback).is_ok());
        assert!(
            ConsoleExposure::default()
                .check("::1".parse().unwrap())
                .is_ok()
        );
        assert_eq!(
            ConsoleExposure::default().check(anywhere),
            Err(ExposureError::NoPublicUrl { bind: anywhere })
        );
        assert!(matches!(
            public("http://shop.example").check(anywhere),
            Err(ExposureError::PlainHttp { .. })
        ));
        assert!(public("https://shop.example").check(anywhere).is_ok());
        let insecure = ConsoleExposure {
            public_url: None,
            insecure: true,
        };
        assert!(insecure.check(anywhere).is_ok());
    }
}
