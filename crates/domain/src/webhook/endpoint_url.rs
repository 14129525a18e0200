//! Where an endpoint may point: an absolute `https` URL of at most 2,048 characters, without
//! user or password, whose host is not one of the addresses of [`super::address`].
//!
//! A name is checked here only for what no resolution can make public (`localhost` and its
//! subdomains, RFC 6761); the addresses it resolves to are checked by the outbound adapter at
//! creation and again at every attempt, on the address it then connects to. An IP literal is
//! checked here, whatever its spelling: the URL standard reads `https://2130706433/`,
//! `https://0x7f.1/` and `https://0177.0.0.1/` as 127.0.0.1, and so does every HTTP client.

use std::fmt;
use std::net::IpAddr;

use url::{Host, Url};

use super::address::{ForbiddenAddress, forbidden_reason};

pub const MAX_URL_LEN: usize = 2048;

/// The operator's choice (`WEBHOOK_ALLOW_PRIVATE_NETWORKS`): production refuses the shop's
/// own network and plain `http`; development and tests allow both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NetworkPolicy {
    #[default]
    PublicOnly,
    AllowPrivate,
}

impl NetworkPolicy {
    /// Whether an attempt may connect to `address` (the adapter's check after resolution).
    pub fn refuses(self, address: IpAddr) -> Option<ForbiddenAddress> {
        match self {
            NetworkPolicy::PublicOnly => forbidden_reason(address),
            NetworkPolicy::AllowPrivate => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointUrlError {
    #[error("must be at most {MAX_URL_LEN} characters")]
    TooLong,
    #[error("must be an absolute URL such as https://example.com/webhooks")]
    NotAbsolute,
    #[error("must use https")]
    NotHttps,
    #[error("must not carry a user name or password")]
    Credentials,
    #[error("must not carry a fragment (`#…`): it is never sent")]
    Fragment,
    #[error("must name a host")]
    NoHost,
    #[error("must not point to {0}")]
    Forbidden(ForbiddenAddress),
    #[error("must not point to localhost")]
    Localhost,
}

/// A URL that passed the rules of its [`NetworkPolicy`]; its text is the URL standard's
/// serialisation (what the API shows back, and what the adapter requests).
#[derive(Clone, PartialEq, Eq)]
pub struct EndpointUrl(Url);

impl EndpointUrl {
    pub fn parse(text: &str, policy: NetworkPolicy) -> Result<Self, EndpointUrlError> {
        if text.chars().count() > MAX_URL_LEN {
            return Err(EndpointUrlError::TooLong);
        }
        let url = Url::parse(text).map_err(|_| EndpointUrlError::NotAbsolute)?;
        match (url.scheme(), policy) {
            ("https", _) | ("http", NetworkPolicy::AllowPrivate) => {}
            _ => return Err(EndpointUrlError::NotHttps),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(EndpointUrlError::Credentials);
        }
        if url.fragment().is_some() {
            return Err(EndpointUrlError::Fragment);
        }
        if url.as_str().len() > MAX_URL_LEN {
            // Serialising may percent-encode: the stored form obeys the bound too.
            return Err(EndpointUrlError::TooLong);
        }
        if policy == NetworkPolicy::PublicOnly {
            match url.host() {
                None => return Err(EndpointUrlError::NoHost),
                Some(Host::Domain(name)) if is_localhost(name) => {
                    return Err(EndpointUrlError::Localhost);
                }
                Some(Host::Domain(_)) => {}
                Some(Host::Ipv4(v4)) => refuse(IpAddr::V4(v4))?,
                Some(Host::Ipv6(v6)) => refuse(IpAddr::V6(v6))?,
            }
        } else if url.host().is_none() {
            return Err(EndpointUrlError::NoHost);
        }
        Ok(Self(url))
    }

    /// Reads back a URL the store holds (checked when it was written).
    pub fn from_stored(text: &str) -> Option<Self> {
        Url::parse(text).ok().map(Self)
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The host as the URL names it (no brackets around an IPv6 literal).
    pub fn host(&self) -> Option<Host<&str>> {
        self.0.host()
    }

    /// The port the connection goes to (443 for https when none is written).
    pub fn port(&self) -> u16 {
        self.0.port_or_known_default().unwrap_or(443)
    }
}

fn refuse(address: IpAddr) -> Result<(), EndpointUrlError> {
    match forbidden_reason(address) {
        Some(reason) => Err(EndpointUrlError::Forbidden(reason)),
        None => Ok(()),
    }
}

fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

impl fmt::Debug for EndpointUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EndpointUrl").field(&self.as_str()).finish()
    }
}

impl fmt::Display for EndpointUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ForbiddenAddress::*;

    fn public(text: &str) -> Result<EndpointUrl, EndpointUrlError> {
        EndpointUrl::parse(text, NetworkPolicy::PublicOnly)
    }

    #[test]
    fn an_https_url_with_a_public_name_or_address_is_accepted_as_the_standard_writes_it() {
        for (given, kept) in [
            (
                "https://example.com/webhooks",
                "https://example.com/webhooks",
            ),
            (
                "https://Example.COM:8443/hook?x=1",
                "https://example.com:8443/hook?x=1",
            ),
            ("https://93.184.215.14/in", "https://93.184.215.14/in"),
            (
                "https://[2606:4700:4700::1111]/in",
                "https://[2606:4700:4700::1111]/in",
            ),
        ] {
            assert_eq!(
                public(given).map(|url| url.to_string()),
                Ok(kept.into()),
                "{given}"
            );
        }
    }

    /// The hostile URLs an integrator's typo or an attacker's form could hold: each names the
    /// rule that refuses it.
    #[test]
    fn hostile_urls_are_refused_with_their_reason() {
        for (url, expected) in [
            ("https://127.0.0.1/", EndpointUrlError::Forbidden(Loopback)),
            ("https://2130706433/", EndpointUrlError::Forbidden(Loopback)),
            ("https://0x7f000001/", EndpointUrlError::Forbidden(Loopback)),
            ("https://0177.0.0.1/", EndpointUrlError::Forbidden(Loopback)),
            ("https://127.1/", EndpointUrlError::Forbidden(Loopback)),
            ("https://[::1]/", EndpointUrlError::Forbidden(Loopback)),
            (
                "https://[::ffff:127.0.0.1]/",
                EndpointUrlError::Forbidden(Loopback),
            ),
            (
                "https://[::ffff:7f00:1]/",
                EndpointUrlError::Forbidden(Loopback),
            ),
            ("https://0.0.0.0/", EndpointUrlError::Forbidden(Unspecified)),
            ("https://0/", EndpointUrlError::Forbidden(Unspecified)),
            ("https://[::]/", EndpointUrlError::Forbidden(Unspecified)),
            ("https://10.1.2.3/", EndpointUrlError::Forbidden(Private)),
            (
                "https://172.20.0.1:8080/",
                EndpointUrlError::Forbidden(Private),
            ),
            (
                "https://192.168.0.10/",
                EndpointUrlError::Forbidden(Private),
            ),
            (
                "https://169.254.169.254/latest/meta-data/",
                EndpointUrlError::Forbidden(LinkLocal),
            ),
            ("https://[fe80::1]/", EndpointUrlError::Forbidden(LinkLocal)),
            (
                "https://100.100.100.200/",
                EndpointUrlError::Forbidden(SharedAddressSpace),
            ),
            (
                "https://224.0.0.251/",
                EndpointUrlError::Forbidden(Multicast),
            ),
            ("https://[ff02::1]/", EndpointUrlError::Forbidden(Multicast)),
            (
                "https://[fd12:3456::1]/",
                EndpointUrlError::Forbidden(UniqueLocal),
            ),
            ("https://localhost/", EndpointUrlError::Localhost),
            ("https://LOCALHOST./", EndpointUrlError::Localhost),
            ("https://api.localhost/", EndpointUrlError::Localhost),
            ("http://example.com/", EndpointUrlError::NotHttps),
            ("ftp://example.com/", EndpointUrlError::NotHttps),
            ("file:///etc/passwd", EndpointUrlError::NotHttps),
            (
                "https://user:pass@example.com/",
                EndpointUrlError::Credentials,
            ),
            ("https://user@example.com/", EndpointUrlError::Credentials),
            ("/webhooks", EndpointUrlError::NotAbsolute),
            ("example.com/webhooks", EndpointUrlError::NotAbsolute),
            ("https://example.com/#top", EndpointUrlError::Fragment),
        ] {
            assert_eq!(
                public(url).map(|url| url.to_string()),
                Err(expected),
                "{url}"
            );
        }
    }

    #[test]
    fn at_most_2048_characters() {
        let base = "https://example.com/";
        let longest = format!("{base}{}", "a".repeat(MAX_URL_LEN - base.len()));
        assert!(public(&longest).is_ok());
        let longer = format!("{longest}a");
        assert_eq!(public(&longer).map(|_| ()), Err(EndpointUrlError::TooLong));
    }

    #[test]
    fn the_operators_development_setting_allows_http_and_private_addresses_but_no_credentials() {
        let allow = |text| EndpointUrl::parse(text, NetworkPolicy::AllowPrivate).map(|_| ());
        assert_eq!(allow("http://127.0.0.1:9000/hook"), Ok(()));
        assert_eq!(allow("https://localhost/hook"), Ok(()));
        assert_eq!(allow("ftp://127.0.0.1/"), Err(EndpointUrlError::NotHttps));
        assert_eq!(
            allow("http://u:p@127.0.0.1/"),
            Err(EndpointUrlError::Credentials)
        );
        assert_eq!(
            NetworkPolicy::AllowPrivate.refuses("10.0.0.1".parse().expect("ip")),
            None
        );
        assert_eq!(
            NetworkPolicy::PublicOnly.refuses("10.0.0.1".parse().expect("ip")),
            Some(Private)
        );
    }
}
