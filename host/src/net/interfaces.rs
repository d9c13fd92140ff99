//! This machine's own addresses, from its network interfaces (`getifaddrs`): a service bound to
//! every address (`0.0.0.0`, `::`) answers on each of them, not only on loopback.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Every address of every interface of this machine now (none when they cannot be read).
pub fn addresses() -> Vec<IpAddr> {
    let mut found = Vec::new();
    read(&mut found);
    found
}

#[allow(unsafe_code)]
fn read(found: &mut Vec<IpAddr>) {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: `getifaddrs` writes a list to `list` only on success; it is read while alive and
    // freed once with `freeifaddrs`. Each non-null `ifa_addr` points at a sockaddr of the
    // family its `sa_family` names (the kernel's sockaddr_in / sockaddr_in6).
    unsafe {
        if libc::getifaddrs(&mut list) != 0 {
            return;
        }
        let mut at = list;
        while !at.is_null() {
            let entry = &*at;
            if !entry.ifa_addr.is_null() {
                match i32::from((*entry.ifa_addr).sa_family) {
                    libc::AF_INET => {
                        let a = &*(entry.ifa_addr as *const libc::sockaddr_in);
                        found.push(IpAddr::V4(Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr))));
                    }
                    libc::AF_INET6 => {
                        let a = &*(entry.ifa_addr as *const libc::sockaddr_in6);
                        found.push(IpAddr::V6(Ipv6Addr::from(a.sin6_addr.s6_addr)));
                    }
                    _ => {}
                }
            }
            at = entry.ifa_next;
        }
        libc::freeifaddrs(list);
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    #[test]
    fn loopback_is_among_this_machines_addresses() {
        let found = super::addresses();
        assert!(found.iter().any(IpAddr::is_loopback), "{found:?}");
    }
}
