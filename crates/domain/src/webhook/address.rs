//! Which addresses a webhook may never reach: the shop's own network and the host's. A URL's
//! IP literal and every address its name resolves to (checked by the outbound adapter before
//! it connects, at each attempt) go through [`forbidden_reason`].
//!
//! Beyond the ranges an integrator expects (loopback, private, link-local with the cloud
//! metadata services, CGNAT, unspecified, multicast, unique-local), the ranges that no public
//! server holds are refused too: broadcast and reserved, documentation and benchmarking
//! networks. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are
//! judged by that address, so `[::ffff:127.0.0.1]` is loopback.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is refused, named in the 400 and in a failed attempt's `error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForbiddenAddress {
    Unspecified,
    Loopback,
    Private,
    LinkLocal,
    SharedAddressSpace,
    Multicast,
    UniqueLocal,
    Reserved,
}

impl ForbiddenAddress {
    pub const fn describe(self) -> &'static str {
        match self {
            ForbiddenAddress::Unspecified => "an unspecified address",
            ForbiddenAddress::Loopback => "a loopback address",
            ForbiddenAddress::Private => "a private network address",
            ForbiddenAddress::LinkLocal => "a link-local address (cloud metadata included)",
            ForbiddenAddress::SharedAddressSpace => "a carrier-grade NAT address",
            ForbiddenAddress::Multicast => "a multicast or broadcast address",
            ForbiddenAddress::UniqueLocal => "a unique-local IPv6 address",
            ForbiddenAddress::Reserved => "a reserved or documentation address",
        }
    }
}

impl fmt::Display for ForbiddenAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// `None` when a webhook may connect to `address`.
pub fn forbidden_reason(address: IpAddr) -> Option<ForbiddenAddress> {
    match address {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn in_v4(address: Ipv4Addr, network: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(address) & mask == u32::from(Ipv4Addr::from(network)) & mask
}

fn forbidden_v4(address: Ipv4Addr) -> Option<ForbiddenAddress> {
    use ForbiddenAddress::*;
    const RANGES: [([u8; 4], u32, ForbiddenAddress); 15] = [
        ([0, 0, 0, 0], 8, Unspecified),
        ([10, 0, 0, 0], 8, Private),
        ([100, 64, 0, 0], 10, SharedAddressSpace),
        ([127, 0, 0, 0], 8, Loopback),
        ([169, 254, 0, 0], 16, LinkLocal),
        ([172, 16, 0, 0], 12, Private),
        ([192, 0, 0, 0], 24, Reserved),
        ([192, 0, 2, 0], 24, Reserved),
        ([192, 88, 99, 0], 24, Reserved),
        ([192, 168, 0, 0], 16, Private),
        ([198, 18, 0, 0], 15, Reserved),
        ([198, 51, 100, 0], 24, Reserved),
        ([203, 0, 113, 0], 24, Reserved),
        ([224, 0, 0, 0], 4, Multicast),
        ([240, 0, 0, 0], 4, Reserved),
    ];
    if address == Ipv4Addr::BROADCAST {
        return Some(Multicast);
    }
    RANGES
        .iter()
        .find(|(network, prefix, _)| in_v4(address, *network, *prefix))
        .map(|(_, _, reason)| *reason)
}

fn in_v6(address: Ipv6Addr, network: u128, prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(address) & mask == network & mask
}

/// The IPv4 address an IPv6 one stands for, for the forms that embed one.
fn embedded_v4(address: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(address);
    let low32 = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    if in_v6(address, 0xffff << 32, 96) // ::ffff:a.b.c.d, mapped
        || in_v6(address, 0, 96) // ::a.b.c.d, compatible (deprecated)
        || in_v6(address, 0x0064_ff9b << 96, 96)
    // 64:ff9b::a.b.c.d, NAT64
    {
        return Some(low32);
    }
    if in_v6(address, 0x2002 << 112, 16) {
        // 2002:AABB:CCDD::/48, 6to4
        return Some(Ipv4Addr::from(((bits >> 80) & 0xffff_ffff) as u32));
    }
    None
}

fn forbidden_v6(address: Ipv6Addr) -> Option<ForbiddenAddress> {
    use ForbiddenAddress::*;
    if address == Ipv6Addr::UNSPECIFIED {
        return Some(Unspecified);
    }
    if address == Ipv6Addr::LOCALHOST {
        return Some(Loopback);
    }
    if let Some(v4) = embedded_v4(address) {
        return forbidden_v4(v4);
    }
    const RANGES: [(u128, u32, ForbiddenAddress); 7] = [
        (0xfe80 << 112, 10, LinkLocal),
        (0xfec0 << 112, 10, Private), // site-local, deprecated but still routed inside sites
        (0xfc00 << 112, 7, UniqueLocal),
        (0xff00 << 112, 8, Multicast),
        (0x0100 << 112, 64, Reserved),     // discard-only
        (0x2001_0db8 << 96, 32, Reserved), // documentation
        (0x2001_0000 << 96, 23, Reserved), // IETF protocol assignments (Teredo included)
    ];
    RANGES
        .iter()
        .find(|(network, prefix, _)| in_v6(address, *network, *prefix))
        .map(|(_, _, reason)| *reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ForbiddenAddress::*;

    fn reason(text: &str) -> Option<ForbiddenAddress> {
        forbidden_reason(text.parse().expect("an IP address"))
    }

    #[test]
    fn the_shops_and_hosts_networks_are_refused() {
        for (address, expected) in [
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("10.0.0.1", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("192.168.1.1", Private),
            ("169.254.169.254", LinkLocal),
            ("100.64.0.1", SharedAddressSpace),
            ("100.127.255.255", SharedAddressSpace),
            ("224.0.0.1", Multicast),
            ("239.255.255.250", Multicast),
            ("255.255.255.255", Multicast),
            ("240.0.0.1", Reserved),
            ("192.0.2.1", Reserved),
            ("198.18.0.1", Reserved),
            ("::", Unspecified),
            ("::1", Loopback),
            ("fe80::1", LinkLocal),
            ("fd00::1", UniqueLocal),
            ("fc12:3456::1", UniqueLocal),
            ("ff02::1", Multicast),
            ("2001:db8::1", Reserved),
        ] {
            assert_eq!(reason(address), Some(expected), "{address}");
        }
    }

    #[test]
    fn ipv6_forms_that_carry_an_ipv4_address_are_judged_by_it() {
        assert_eq!(reason("::ffff:127.0.0.1"), Some(Loopback));
        assert_eq!(reason("::ffff:169.254.169.254"), Some(LinkLocal));
        assert_eq!(reason("::ffff:10.1.2.3"), Some(Private));
        assert_eq!(reason("::127.0.0.1"), Some(Loopback));
        assert_eq!(reason("64:ff9b::192.168.0.1"), Some(Private));
        assert_eq!(reason("2002:7f00:1::"), Some(Loopback));
        assert_eq!(reason("::ffff:93.184.215.14"), None);
        assert_eq!(reason("2002:5db8:d70e::"), None);
    }

    #[test]
    fn public_addresses_pass() {
        for address in [
            "93.184.215.14",
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4007:80e::200e",
        ] {
            assert_eq!(reason(address), None, "{address}");
        }
    }

    #[test]
    fn the_range_edges_fall_on_the_right_side() {
        assert_eq!(reason("172.15.255.255"), None);
        assert_eq!(reason("172.32.0.0"), None);
        assert_eq!(reason("100.63.255.255"), None);
        assert_eq!(reason("223.255.255.255"), None);
        assert_eq!(reason("febf:ffff::1"), Some(LinkLocal));
        assert_eq!(reason("fbff::1"), None);
    }
}
