//! The launched browser's network namespace: Chromium runs in a network of its own, which
//! holds only a loopback interface and, on it, the listeners of its network guards. The
//! guards' listening sockets are made inside it (by a short-lived thread that joins it), and
//! what they connect to they connect from the host's own network, so the guard is the
//! browser's only way out: a browser process that escaped Chromium's sandbox reaches no
//! loopback port of the host, not Warden's MCP or admin port, and no other network, whatever
//! it sends. The namespace lives as long as its descriptor (held here) or a process in it.
//!
//! Making and joining a network namespace needs `CAP_SYS_ADMIN`: Warden running as root
//! (which is also when the browser runs as a user of its own). `Netns::wanted` says whether
//! this process can.

use std::net::SocketAddr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// A network namespace with loopback up, kept alive by its descriptor.
#[derive(Debug)]
pub struct Netns {
    fd: OwnedFd,
}

impl Netns {
    /// Whether launched browsers get a network namespace: when Warden may make one (root).
    #[allow(unsafe_code)]
    pub fn wanted() -> bool {
        // SAFETY: geteuid takes nothing and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    /// A new network namespace with only loopback, up.
    pub fn create() -> Result<Self, String> {
        let made = std::thread::Builder::new()
            .name("warden-netns".into())
            .spawn(|| -> std::io::Result<OwnedFd> {
                unshare_net()?;
                loopback_up()?;
                let ns = std::fs::File::open("/proc/thread-self/ns/net")?;
                Ok(OwnedFd::from(ns))
            })
            .map_err(|e| format!("cannot start a thread to make the browser's network: {e}"))?
            .join()
            .map_err(|_| "the thread making the browser's network panicked".to_string())?;
        made.map(|fd| Self { fd }).map_err(|e| {
            format!("cannot give the browser a network namespace of its own ({e}); Warden needs CAP_SYS_ADMIN for it (run it as root, as a service)")
        })
    }

    /// A TCP listener on `addr` inside this namespace.
    pub fn bind(&self, addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
        let ns = self.fd.try_clone()?;
        std::thread::Builder::new()
            .name("warden-netns-bind".into())
            .spawn(move || {
                join(&ns)?;
                std::net::TcpListener::bind(addr)
            })?
            .join()
            .map_err(|_| {
                std::io::Error::other("the thread binding in the browser's network panicked")
            })?
    }

    /// The namespace's descriptor, for the browser's child to join before exec.
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[allow(unsafe_code)]
fn unshare_net() -> std::io::Result<()> {
    // SAFETY: unshare takes flags only; CLONE_NEWNET moves this thread alone (a thread of
    // its own, which ends right after) into a new network namespace.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[allow(unsafe_code)]
fn join(ns: &OwnedFd) -> std::io::Result<()> {
    // SAFETY: setns takes a descriptor this function borrows and a flag; it moves only the
    // calling thread, one of our own that ends after its bind.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `ip link set lo up`, by the interface-flags ioctl on a socket of this namespace.
#[allow(unsafe_code)]
fn loopback_up() -> std::io::Result<()> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0")?;
    // SAFETY: `ifreq` is plain data; zeroed is a valid value of it.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (to, from) in req.ifr_name.iter_mut().zip(b"lo\0") {
        *to = *from as libc::c_char;
    }
    // SAFETY: both ioctls take a pointer to the `ifreq` above, which outlives them; the
    // flags field is the union member SIOCGIFFLAGS fills and SIOCSIFFLAGS reads.
    unsafe {
        if libc::ioctl(socket.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        if libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS, &req) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
