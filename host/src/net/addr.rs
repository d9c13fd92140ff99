//! Address classification: which IP addresses are private network space (loopback, private,
//! link-local, unique-local, ...) and which are the public internet. IPv4 addresses carried in
//! IPv6 (v4-mapped, v4-compatible, NAT64) are classified by the IPv4 address they carry, so
//! `::ffff:127.0.0.1` is loopback like `127.0.0.1`.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The address space an IP address belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The public internet.
    Public,
    /// `127.0.0.0/8`, `::1`: this machine.
    Loopback,
    /// `0.0.0.0/8`, `::`: "this host" (a connect to it reaches this machine on Linux).
    Unspecified,
    /// RFC 1918 (`10/8`, `172.16/12`, `192.168/16`) and carrier-grade NAT (`100.64/10`).
    Private,
    /// `169.254/16`, `fe80::/10`: the local link (cloud metadata services live here).
    LinkLocal,
    /// `fc00::/7`: IPv6 unique-local addresses.
    UniqueLocal,
    /// Multicast, broadcast, reserved and other space that no public server uses.
    Reserved,
}

impl Class {
    pub fn is_public(self) -> bool {
        self == Self::Public
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Public => "public",
            Self::Loopback => "loopback",
            Self::Unspecified => "unspecified",
            Self::Private => "private",
            Self::LinkLocal => "link-local",
            Self::UniqueLocal => "unique-local",
            Self::Reserved => "reserved",
        })
    }
}

/// The address as IPv4 when it is an IPv4 address carried in IPv6 (mapped `::ffff:a.b.c.d`,
/// the deprecated compatible `::a.b.c.d`, or the NAT64 prefix `64:ff9b::/96`); else itself.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => embedded_v4(v6).map_or(ip, IpAddr::V4),
    }
}

fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = v6.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    // NAT64 well-known prefix: the gateway connects to the embedded IPv4 address.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(tail);
    }
    // IPv4-compatible (::a.b.c.d), but not :: and ::1 themselves.
    if s[..6] == [0; 6] && !(s[6] == 0 && s[7] <= 1) {
        return Some(tail);
    }
    None
}

/// Which space `ip` belongs to.
pub fn classify(ip: IpAddr) -> Class {
    match canonical(ip) {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Class {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Class::Loopback
    } else if a == 0 {
        Class::Unspecified
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        Class::Private
    } else if ip.is_link_local() {
        Class::LinkLocal
    } else if ip.is_multicast()
        || ip.is_broadcast()
        || a >= 240
        // IETF protocol assignments and the benchmarking range.
        || (a == 192 && b == 0 && ip.octets()[2] == 0)
        || (a == 198 && (b == 18 || b == 19))
    {
        Class::Reserved
    } else {
        Class::Public
    }
}

fn classify_v6(ip: Ipv6Addr) -> Class {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        Class::Loopback
    } else if ip.is_unspecified() {
        Class::Unspecified
    } else if first & 0xfe00 == 0xfc00 {
        Class::UniqueLocal
    } else if first & 0xffc0 == 0xfe80 {
        Class::LinkLocal
    } else if first & 0xffc0 == 0xfec0 {
        // Deprecated site-local: private space all the same.
        Class::Private
    } else if ip.is_multicast() || first & 0xe000 != 0x2000 {
        // Only 2000::/3 is allocated for global unicast.
        Class::Reserved
    } else {
        Class::Public
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> Class {
        classify(s.parse().expect("an IP address"))
    }

    #[test]
    fn ipv4_spaces() {
        assert_eq!(class("127.0.0.1"), Class::Loopback);
        assert_eq!(class("127.255.1.2"), Class::Loopback);
        assert_eq!(class("0.0.0.0"), Class::Unspecified);
        assert_eq!(class("10.1.2.3"), Class::Private);
        assert_eq!(class("172.16.0.1"), Class::Private);
        assert_eq!(class("172.31.255.255"), Class::Private);
        assert_eq!(class("172.32.0.1"), Class::Public);
        assert_eq!(class("192.168.1.1"), Class::Private);
        assert_eq!(class("100.64.0.1"), Class::Private);
        assert_eq!(class("100.128.0.1"), Class::Public);
        assert_eq!(class("169.254.169.254"), Class::LinkLocal);
        assert_eq!(class("224.0.0.1"), Class::Reserved);
        assert_eq!(class("255.255.255.255"), Class::Reserved);
        assert_eq!(class("93.184.216.34"), Class::Public);
        assert_eq!(class("8.8.8.8"), Class::Public);
    }

    #[test]
    fn ipv6_spaces() {
        assert_eq!(class("::1"), Class::Loopback);
        assert_eq!(class("::"), Class::Unspecified);
        assert_eq!(class("fe80::1"), Class::LinkLocal);
        assert_eq!(class("fd00::1"), Class::UniqueLocal);
        assert_eq!(class("fc12:3456::1"), Class::UniqueLocal);
        assert_eq!(class("fec0::1"), Class::Private);
        assert_eq!(class("ff02::1"), Class::Reserved);
        assert_eq!(class("2606:4700::1111"), Class::Public);
    }

    #[test]
    fn ipv4_inside_ipv6_is_classified_by_the_ipv4_address() {
        assert_eq!(class("::ffff:127.0.0.1"), Class::Loopback);
        assert_eq!(class("::ffff:10.0.0.1"), Class::Private);
        assert_eq!(class("::ffff:169.254.169.254"), Class::LinkLocal);
        assert_eq!(class("::ffff:8.8.8.8"), Class::Public);
        assert_eq!(class("::127.0.0.1"), Class::Loopback);
        assert_eq!(class("64:ff9b::7f00:1"), Class::Loopback);
        assert_eq!(class("64:ff9b::808:808"), Class::Public);
        assert_eq!(
            canonical("::ffff:127.0.0.1".parse().expect("ip")),
            "127.0.0.1".parse::<IpAddr>().expect("ip")
        );
    }
}
