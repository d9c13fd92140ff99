//! Address classification: which IP addresses are private network space (loopback, private,
//! link-local, unique-local, ...) and which are the public internet. An IPv4 address carried
//! in IPv6 is classified by the IPv4 address it carries: the forms that *are* that address
//! (v4-mapped, v4-compatible, v4-translated, NAT64) are read as it, so `::ffff:127.0.0.1` is
//! loopback like `127.0.0.1`; the tunnel forms that lead to it (6to4, Teredo's server and
//! client, ISATAP, NAT64 local-use) are as private as any IPv4 address they carry, so
//! `2002:7f00:1::` is loopback too, whatever the IPv6 prefix alone would say.

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

/// How an IPv6 address carries an IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    /// `::ffff:a.b.c.d` (RFC 4291): the IPv4 address itself, on a dual-stack socket.
    Mapped,
    /// `::a.b.c.d`, deprecated (RFC 4291).
    Compatible,
    /// `::ffff:0:a.b.c.d` (SIIT, RFC 2765): translated to the IPv4 address.
    Translated,
    /// `64:ff9b::/96` (RFC 6052): a NAT64 gateway connects to the IPv4 address.
    Nat64,
    /// `64:ff9b:1::/48` (RFC 8215): a local NAT64; the IPv4 address sits where RFC 6052
    /// puts it for the prefix length the operator chose.
    Nat64Local,
    /// `2002:AABB:CCDD::/48` (RFC 3056): a 6to4 site behind IPv4 address `A.B.C.D`.
    SixToFour,
    /// `2001:0:SSSS:SSSS::` (RFC 4380): the Teredo server.
    TeredoServer,
    /// The Teredo client's IPv4 address, stored inverted in the last 32 bits.
    TeredoClient,
    /// An ISATAP interface id `[0|200]:5efe:a.b.c.d` (RFC 5214), under any prefix.
    Isatap,
}

impl Carrier {
    /// Is the IPv6 address this same IPv4 address (not a tunnel towards it)?
    fn is_same_address(self) -> bool {
        matches!(
            self,
            Self::Mapped | Self::Compatible | Self::Translated | Self::Nat64
        )
    }
}

impl fmt::Display for Carrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Mapped => "IPv4-mapped",
            Self::Compatible => "IPv4-compatible",
            Self::Translated => "IPv4-translated",
            Self::Nat64 => "NAT64",
            Self::Nat64Local => "local-use NAT64",
            Self::SixToFour => "6to4",
            Self::TeredoServer => "Teredo server",
            Self::TeredoClient => "Teredo client",
            Self::Isatap => "ISATAP",
        })
    }
}

fn v4(bits: u32) -> Ipv4Addr {
    Ipv4Addr::from(bits)
}

/// Every IPv4 address `v6` carries, with how (an address can carry two: Teredo).
pub fn carried(v6: Ipv6Addr) -> Vec<(Carrier, Ipv4Addr)> {
    let s = v6.segments();
    let bits = u128::from(v6);
    let low32 = bits as u32;
    let mut found = Vec::new();
    if let Some(mapped) = v6.to_ipv4_mapped() {
        found.push((Carrier::Mapped, mapped));
    }
    if s[..6] == [0; 6] && !(s[6] == 0 && s[7] <= 1) {
        // Not `::` and `::1` themselves.
        found.push((Carrier::Compatible, v4(low32)));
    }
    if s[..6] == [0, 0, 0, 0, 0xffff, 0] {
        found.push((Carrier::Translated, v4(low32)));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        found.push((Carrier::Nat64, v4(low32)));
    }
    if s[..3] == [0x64, 0xff9b, 1] {
        found.extend(
            nat64_local(bits)
                .into_iter()
                .map(|a| (Carrier::Nat64Local, a)),
        );
    }
    if s[0] == 0x2002 {
        found.push((Carrier::SixToFour, v4((bits >> 80) as u32)));
    }
    if s[..2] == [0x2001, 0] {
        found.push((Carrier::TeredoServer, v4((bits >> 64) as u32)));
        found.push((Carrier::TeredoClient, v4(!low32)));
    }
    // The u/l (0x02) and group (0x01) bits of the interface id's first octet may be set.
    if s[4] & 0xfcff == 0 && s[5] == 0x5efe {
        found.push((Carrier::Isatap, v4(low32)));
    }
    found
}

/// The IPv4 addresses a `64:ff9b:1::/48` address can carry: one per RFC 6052 layout whose
/// prefix fits in the local-use /48 (/48, /56, /64, /96), shortest prefix first. Those
/// layouts leave the octet at bits 64..72 and the suffix after the IPv4 address zero, which
/// rules most readings out; an all-zero tail is a shorter layout's suffix, not 0.0.0.0.
fn nat64_local(bits: u128) -> Vec<Ipv4Addr> {
    let field =
        |from: u32, len: u32| -> u128 { (bits >> (128 - from - len)) & ((1u128 << len) - 1) };
    let mut found = Vec::new();
    if field(64, 8) == 0 {
        // (prefix length, bits of the IPv4 address before the zero octet, after it)
        for (prefix, before, after) in [(48u32, 16u32, 16u32), (56, 8, 24), (64, 0, 32)] {
            if field(72 + after, 128 - 72 - after) != 0 {
                continue;
            }
            let high = if before > 0 { field(prefix, before) } else { 0 };
            found.push(v4(((high << after) | field(72, after)) as u32));
        }
    }
    found.push(v4(bits as u32));
    let zero = Ipv4Addr::UNSPECIFIED;
    if found.iter().any(|a| *a != zero) {
        found.retain(|a| *a != zero);
    }
    found
}

/// The address as IPv4 when it is that IPv4 address in IPv6 form (mapped `::ffff:a.b.c.d`,
/// translated `::ffff:0:a.b.c.d`, the deprecated compatible `::a.b.c.d`, or the NAT64 prefix
/// `64:ff9b::/96`); else itself. Tunnel forms stay as they are: they name another host.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => carried(v6)
            .into_iter()
            .find(|(c, _)| c.is_same_address())
            .map_or(ip, |(_, a)| IpAddr::V4(a)),
    }
}

/// Which space `ip` belongs to.
pub fn classify(ip: IpAddr) -> Class {
    classified(ip).0
}

/// Which space `ip` belongs to, and the IPv4 address (and its carrier) that decided it when
/// that was a carried one: for a message such as "2002:7f00:1:: (6to4 of 127.0.0.1)".
pub fn classified(ip: IpAddr) -> (Class, Option<(Carrier, Ipv4Addr)>) {
    let v6 = match ip {
        IpAddr::V4(v4) => return (classify_v4(v4), None),
        IpAddr::V6(v6) => v6,
    };
    let carried = carried(v6);
    if let Some(&(carrier, a)) = carried.iter().find(|(c, _)| c.is_same_address()) {
        return (classify_v4(a), Some((carrier, a)));
    }
    // A tunnel leads to every IPv4 address it carries: as private as the most private one.
    if let Some(&(carrier, a)) = carried.iter().find(|(_, a)| !classify_v4(*a).is_public()) {
        return (classify_v4(a), Some((carrier, a)));
    }
    if carried.iter().any(|(c, _)| *c == Carrier::Nat64Local) {
        // Local-use NAT64 space is not routed on the internet; what it reaches is the
        // (public) IPv4 address it carries.
        return (Class::Public, carried.first().copied());
    }
    (classify_v6(v6), None)
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

    /// Each transition form, carrying a loopback, a private, a link-local and a public
    /// IPv4 address: the first three are as private as what they carry.
    #[test]
    fn transition_forms_are_classified_by_the_ipv4_address_they_carry() {
        let cases: &[(&str, [&str; 4])] = &[
            // IPv4-translated (SIIT): ::ffff:0:a.b.c.d
            (
                "translated",
                [
                    "::ffff:0:7f00:1",
                    "::ffff:0:a00:1",
                    "::ffff:0:a9fe:a9fe",
                    "::ffff:0:808:808",
                ],
            ),
            // 6to4: 2002:AABB:CCDD::/48
            (
                "6to4",
                [
                    "2002:7f00:1::1",
                    "2002:c0a8:101::",
                    "2002:a9fe:a9fe:1::5",
                    "2002:808:808::1",
                ],
            ),
            // Teredo server field (2001:0:SSSS:SSSS::), public client 8.8.4.4 (inverted).
            (
                "teredo server",
                [
                    "2001:0:7f00:1:0:0:f7f7:fbfb",
                    "2001:0:a00:1:0:0:f7f7:fbfb",
                    "2001:0:a9fe:a9fe:0:0:f7f7:fbfb",
                    "2001:0:808:808:0:0:f7f7:fbfb",
                ],
            ),
            // Teredo client field, XOR-obfuscated (127.0.0.1 -> 80ff:fffe), public server.
            (
                "teredo client",
                [
                    "2001:0:808:808:8000:ffff:80ff:fffe",
                    "2001:0:808:808:8000:ffff:f5ff:fffe",
                    "2001:0:808:808:8000:ffff:5601:5601",
                    "2001:0:808:808:8000:ffff:f7f7:f7f7",
                ],
            ),
            // ISATAP interface ids under a global prefix, with and without the u/l bit.
            (
                "isatap",
                [
                    "2001:db8:1:2:0:5efe:7f00:1",
                    "2001:db8:1:2:200:5efe:c0a8:1",
                    "2001:db8:1:2:200:5efe:a9fe:a9fe",
                    "2001:db8:1:2:200:5efe:808:808",
                ],
            ),
            // NAT64 local-use, /96 layout.
            (
                "nat64 local /96",
                [
                    "64:ff9b:1::7f00:1",
                    "64:ff9b:1::ac10:1",
                    "64:ff9b:1::a9fe:a9fe",
                    "64:ff9b:1::808:808",
                ],
            ),
            // NAT64 local-use, /48 layout: 16 bits, the zero u octet, 16 bits.
            (
                "nat64 local /48",
                [
                    "64:ff9b:1:7f00:0:100::",
                    "64:ff9b:1:a00:0:100::",
                    "64:ff9b:1:a9fe:a9:fe00::",
                    "64:ff9b:1:808:8:800::",
                ],
            ),
        ];
        let expected = [
            Class::Loopback,
            Class::Private,
            Class::LinkLocal,
            Class::Public,
        ];
        for (form, addrs) in cases {
            for (addr, want) in addrs.iter().zip(expected) {
                assert_eq!(class(addr), want, "{form} {addr}");
            }
        }
        // The same-address forms name that address; the tunnel forms stay themselves.
        let ip = |s: &str| s.parse::<IpAddr>().expect("ip");
        assert_eq!(canonical(ip("::ffff:0:7f00:1")), ip("127.0.0.1"));
        assert_eq!(canonical(ip("2002:7f00:1::1")), ip("2002:7f00:1::1"));
        // A link-local prefix stays link-local whatever its ISATAP id carries.
        assert_eq!(class("fe80::200:5efe:808:808"), Class::LinkLocal);
        // The message can say what decided it.
        assert_eq!(
            classified(ip("2002:7f00:1::1")),
            (
                Class::Loopback,
                Some((Carrier::SixToFour, Ipv4Addr::LOCALHOST))
            )
        );
        assert_eq!(
            classified(ip("2001:0:808:808:8000:ffff:80ff:fffe")).1,
            Some((Carrier::TeredoClient, Ipv4Addr::LOCALHOST))
        );
    }
}
