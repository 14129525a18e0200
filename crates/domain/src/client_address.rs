//! Who a request comes from, for the budgets of failed authentications and sign-ins.
//!
//! A budget counts per client, so a client must be hard to multiply: an IPv4 address is one
//! client, and an IPv6 one is its /64 (a subscriber gets a whole /64 and can use any of its
//! 2^64 addresses). Forwarding headers (`Forwarded`, `X-Forwarded-For`) can be written by
//! anyone, so they are believed only from the proxies an operator names (`TRUSTED_PROXIES`),
//! and only back to the first hop that is not one of them.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::str::FromStr;

use ipnet::IpNet;

/// The client a budget counts against: `203.0.113.7`, or `2001:db8:1:2::/64`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddress(String);

impl ClientAddress {
    /// IPv4-mapped IPv6 addresses are folded to IPv4, so that a dual-stack listener counts a
    /// client once; other IPv6 addresses are cut to their /64.
    pub fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V4(v4) => Self(v4.to_string()),
            IpAddr::V6(v6) => {
                let [a, b, c, d, ..] = v6.segments();
                Self(format!("{}/64", Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0)))
            }
        }
    }

    /// A request without a peer address (a Unix socket, an in-process test): one shared
    /// client.
    pub fn unknown() -> Self {
        Self(String::from("unknown"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClientAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The proxies whose forwarding headers are believed; none by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an IP address or a CIDR block such as 10.0.0.0/8 or fd00::/8")]
pub struct InvalidProxy(pub String);

impl TrustedProxies {
    /// A comma-separated list of CIDR blocks or single addresses; blanks are ignored.
    pub fn parse(list: &str) -> Result<Self, InvalidProxy> {
        list.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                IpNet::from_str(item)
                    .or_else(|_| IpAddr::from_str(item).map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| InvalidProxy(item.to_owned()))
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The client of a request received from `peer` with these forwarding header values:
    /// the peer itself, unless it is a trusted proxy (see `Self::client`).
    pub fn client_address(
        &self,
        peer: Option<IpAddr>,
        forwarded: &[&str],
        x_forwarded_for: &[&str],
    ) -> ClientAddress {
        match peer {
            None => ClientAddress::unknown(),
            Some(peer) if !self.trusts(peer) => ClientAddress::of(peer),
            Some(peer) => {
                ClientAddress::of(self.client(peer, &forwarded_chain(forwarded, x_forwarded_for)))
            }
        }
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client of a request received from `peer` whose forwarding headers list `chain`
    /// (client first, each proxy after; `None` for a hop that is not an address): walking back
    /// from the peer while the hop is a trusted proxy, the first address that is not one. A
    /// hop that cannot be read stops the walk at the proxy that reported it.
    fn client(&self, peer: IpAddr, chain: &[Option<IpAddr>]) -> IpAddr {
        let mut client = peer;
        for hop in chain.iter().rev() {
            if !self.trusts(client) {
                break;
            }
            match hop {
                Some(ip) => client = *ip,
                None => break,
            }
        }
        client
    }
}

/// The addresses a request went through, client first: the `for=` parameters of its
/// `Forwarded` headers (RFC 7239) or the elements of its `X-Forwarded-For` headers. A hop that
/// is not an address (`unknown`, an obfuscated name) is `None`.
///
/// A request with both headers has no chain: a proxy writes one of them and passes the other
/// on as the client sent it, and nothing here says which is which. Believing either would let
/// a client behind a proxy that appends to `X-Forwarded-For` name itself anew in a
/// `Forwarded` header of its own on every request (a fresh budget each time), so such a
/// request counts against the trusted proxy itself.
fn forwarded_chain(forwarded: &[&str], x_forwarded_for: &[&str]) -> Vec<Option<IpAddr>> {
    if !forwarded.is_empty() && !x_forwarded_for.is_empty() {
        return vec![None];
    }
    if forwarded.is_empty() {
        return x_forwarded_for
            .iter()
            .flat_map(|value| value.split(','))
            .map(|hop| node_address(hop.trim()))
            .collect();
    }
    forwarded
        .iter()
        .flat_map(|value| value.split(','))
        .map(|element| {
            let node = element.split(';').find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case("for")
                    .then_some(value.trim())
            });
            node.and_then(|node| node_address(node.trim_matches('"')))
        })
        .collect()
}

/// `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:4711`.
fn node_address(node: &str) -> Option<IpAddr> {
    IpAddr::from_str(node)
        .ok()
        .or_else(|| SocketAddr::from_str(node).ok().map(|socket| socket.ip()))
        .or_else(|| {
            let inner = node.strip_prefix('[')?.split(']').next()?;
            IpAddr::from_str(inner).ok()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64() {
        assert_eq!(
            ClientAddress::of(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).as_str(),
            "2001:db8:1:2::/64"
        );
        assert_eq!(
            ClientAddress::of(ip("2001:db8:1:2::9")),
            ClientAddress::of(ip("2001:db8:1:2:ffff::1"))
        );
        assert_ne!(
            ClientAddress::of(ip("2001:db8:1:2::9")),
            ClientAddress::of(ip("2001:db8:1:3::9"))
        );
        assert_eq!(
            ClientAddress::of(ip("::ffff:203.0.113.7")).as_str(),
            "203.0.113.7"
        );
        assert_eq!(ClientAddress::of(ip("203.0.113.7")).as_str(), "203.0.113.7");
    }

    #[test]
    fn proxies_are_blocks_or_addresses_and_junk_is_refused() {
        let proxies = TrustedProxies::parse(" 10.0.0.0/8, 192.0.2.1 ,fd00::/8,").unwrap();
        assert!(proxies.trusts(ip("10.1.2.3")) && proxies.trusts(ip("192.0.2.1")));
        assert!(proxies.trusts(ip("fd00::5")) && !proxies.trusts(ip("192.0.2.2")));
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        assert_eq!(
            TrustedProxies::parse("10.0.0.0/8,proxy.internal"),
            Err(InvalidProxy("proxy.internal".into()))
        );
    }

    #[test]
    fn without_trusted_proxies_the_headers_are_ignored() {
        let chain = forwarded_chain(&[], &["198.51.100.9"]);
        assert_eq!(
            TrustedProxies::default().client(ip("10.0.0.1"), &chain),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn the_client_is_the_first_untrusted_hop_from_the_peer_back() {
        let proxies = TrustedProxies::parse("10.0.0.0/8").unwrap();
        // A client forged the first element; the real client is the one the proxy saw.
        let chain = forwarded_chain(&[], &["6.6.6.6, 198.51.100.9", "10.0.0.2"]);
        assert_eq!(proxies.client(ip("10.0.0.1"), &chain), ip("198.51.100.9"));
        // A peer that is not a proxy is the client, whatever it says.
        assert_eq!(proxies.client(ip("203.0.113.5"), &chain), ip("203.0.113.5"));
        // A hop that is not an address stops the walk at the proxy that reported it.
        let chain = forwarded_chain(&[], &["198.51.100.9, unknown, 10.0.0.2"]);
        assert_eq!(proxies.client(ip("10.0.0.1"), &chain), ip("10.0.0.2"));
    }

    #[test]
    fn forwarded_names_its_hops_by_their_for_parameter() {
        let chain = forwarded_chain(
            &[r#"for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711""#],
            &[],
        );
        assert_eq!(
            chain,
            [Some(ip("192.0.2.60")), Some(ip("2001:db8:cafe::17"))]
        );
        let chain = forwarded_chain(&[r#"for="192.0.2.43:47011", for=_hidden"#], &[]);
        assert_eq!(chain, [Some(ip("192.0.2.43")), None]);
    }

    #[test]
    fn a_request_with_both_headers_counts_against_the_proxy() {
        let proxies = TrustedProxies::parse("10.0.0.0/8").unwrap();
        // The proxy appended the real client to X-Forwarded-For and passed on the Forwarded
        // header the client wrote itself: neither can be told apart from the other.
        let address =
            proxies.client_address(Some(ip("10.0.0.1")), &["for=6.6.6.6"], &["198.51.100.9"]);
        assert_eq!(address, ClientAddress::of(ip("10.0.0.1")));
        // Each alone is believed.
        let address = proxies.client_address(Some(ip("10.0.0.1")), &[], &["198.51.100.9"]);
        assert_eq!(address, ClientAddress::of(ip("198.51.100.9")));
        let address = proxies.client_address(Some(ip("10.0.0.1")), &["for=192.0.2.7"], &[]);
        assert_eq!(address, ClientAddress::of(ip("192.0.2.7")));
    }
}
