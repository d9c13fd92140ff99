//! No UDP leaves a browser Warden launches. No grant names UDP, so none may go out: the
//! network guard is an HTTP proxy, and everything it does not carry must not leave at all.
//! Measured on Chromium 156 (tests/e2e/test_browser_udp.py), three ways UDP left a guarded
//! context, each closed by a layer of its own:
//!
//! - WebRTC: host candidates and STUN/TURN to any address. The command-line switch
//!   `--force-webrtc-ip-handling-policy` reaches only content_shell and the old headless,
//!   not Chrome's contexts (the default one or those the guard creates). Chrome reads the
//!   policy from the profile's preferences, which every context (an off-the-record profile
//!   of it) inherits: [`pin_webrtc`] pins `disable_non_proxied_udp` there before launch.
//! - Name lookups: a remote ICE candidate with a host name makes the browser resolve it
//!   itself (DNS to the system's resolver: a channel out to any domain's name server).
//!   [`resolver_rules`] makes every lookup in the browser fail; pages never need one, as
//!   the guard resolves the names of what it carries.
//! - mDNS: a remote `.local` candidate is resolved by multicast on the local link, past
//!   both rules above. Only the kernel stops that: [`filter`] is a seccomp filter the
//!   browser starts under (inherited by every process it forks), which refuses to create
//!   an Internet socket that is not TCP, and any packet socket.

use serde_json::{Map, Value, json};

/// The WebRTC policy: no UDP but through the proxy (an HTTP proxy carries none), no host
/// candidates, no STUN.
const POLICY: &str = "disable_non_proxied_udp";

/// Pin the WebRTC policy in a profile's preferences (`preferences.rs` writes them before
/// the browser starts).
pub fn pin_webrtc(prefs: &mut Map<String, Value>) {
    let webrtc = prefs
        .entry("webrtc")
        .or_insert_with(|| Value::Object(Map::new()));
    if !webrtc.is_object() {
        *webrtc = Value::Object(Map::new());
    }
    if let Some(webrtc) = webrtc.as_object_mut() {
        webrtc.insert("ip_handling_policy".into(), json!(POLICY));
        webrtc.insert("multiple_routes_enabled".into(), json!(false));
        webrtc.insert("nonproxied_udp_enabled".into(), json!(false));
    }
}

/// `--host-resolver-rules`: every name the browser would look up itself fails, except
/// `guard_host` (the guard's own address, a literal the rules would otherwise catch too).
pub fn resolver_rules(guard_host: &str) -> String {
    format!("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {guard_host}")
}

/// The kernel filter: `socket(AF_INET | AF_INET6, type)` fails with `EACCES` unless `type`
/// is `SOCK_STREAM`, `socket(AF_PACKET, ..)` too, and `io_uring_setup` (which can create
/// sockets without the `socket` call) with `ENOSYS`. Everything else is allowed. Built for
/// the machines it was measured on (Linux on x86_64 and aarch64); elsewhere the two layers
/// above are all there is.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
pub mod filter {
    use libc::{
        BPF_ABS, BPF_ALU, BPF_AND, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W,
        SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, sock_filter,
    };

    #[cfg(target_arch = "x86_64")]
    const ARCH: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
    #[cfg(target_arch = "aarch64")]
    const ARCH: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64
    /// x32 system calls come in with this bit set, under the x86_64 arch value.
    #[cfg(target_arch = "x86_64")]
    const X32_BIT: u32 = 0x4000_0000;

    // Offsets into `struct seccomp_data`: nr, arch, then the arguments (low words first
    // on these little-endian machines).
    const NR: u32 = 0;
    const ARCH_AT: u32 = 4;
    const ARG0: u32 = 16;
    const ARG1: u32 = 24;
    /// `SOCK_TYPE_MASK`: the type without `SOCK_NONBLOCK` and `SOCK_CLOEXEC`.
    const TYPE_MASK: u32 = 0xf;

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Label {
        Allow,
        Deny,
        NoSys,
        Type,
    }

    #[derive(Clone, Copy)]
    enum Go {
        Next,
        To(Label),
    }

    enum Step {
        Load(u32),
        And(u32),
        Jeq(u32, Go, Go),
        #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
        Jge(u32, Go, Go),
        Ret(u32),
        Here(Label),
    }

    fn u32_of(n: i64) -> u32 {
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    fn steps() -> Vec<Step> {
        use Go::{Next, To};
        use Label::{Allow, Deny, NoSys, Type};
        let mut s = vec![
            Step::Load(ARCH_AT),
            // Another arch's system calls (int 0x80 on x86_64): Chromium makes none.
            Step::Jeq(ARCH, Next, To(Deny)),
            Step::Load(NR),
        ];
        #[cfg(target_arch = "x86_64")]
        s.push(Step::Jge(X32_BIT, To(Deny), Next));
        s.extend([
            Step::Jeq(u32_of(libc::SYS_io_uring_setup), To(NoSys), Next),
            Step::Jeq(u32_of(libc::SYS_socket), Next, To(Allow)),
            Step::Load(ARG0),
            Step::Jeq(u32_of(libc::AF_INET.into()), To(Type), Next),
            Step::Jeq(u32_of(libc::AF_INET6.into()), To(Type), Next),
            Step::Jeq(u32_of(libc::AF_PACKET.into()), To(Deny), To(Allow)),
            Step::Here(Type),
            Step::Load(ARG1),
            Step::And(TYPE_MASK),
            Step::Jeq(u32_of(libc::SOCK_STREAM.into()), To(Allow), To(Deny)),
            Step::Here(Allow),
            Step::Ret(SECCOMP_RET_ALLOW),
            Step::Here(Deny),
            Step::Ret(SECCOMP_RET_ERRNO | u32_of(libc::EACCES.into())),
            Step::Here(NoSys),
            Step::Ret(SECCOMP_RET_ERRNO | u32_of(libc::ENOSYS.into())),
        ]);
        s
    }

    /// The filter program, its jumps resolved.
    pub fn program() -> Vec<sock_filter> {
        let steps = steps();
        let mut at: Vec<(Label, usize)> = Vec::new();
        let mut n = 0;
        for step in &steps {
            match step {
                Step::Here(label) => at.push((*label, n)),
                _ => n += 1,
            }
        }
        let target = |label: Label| at.iter().find(|(l, _)| *l == label).map_or(0, |(_, i)| *i);
        let mut out = Vec::with_capacity(n);
        for step in &steps {
            let me = out.len();
            let offset = |go: Go| -> u8 {
                match go {
                    Go::Next => 0,
                    Go::To(label) => u8::try_from(target(label) - me - 1).unwrap_or(u8::MAX),
                }
            };
            let insn = |code: u32, jt: u8, jf: u8, k: u32| sock_filter {
                code: u16::try_from(code).unwrap_or(u16::MAX),
                jt,
                jf,
                k,
            };
            out.push(match *step {
                Step::Load(off) => insn(BPF_LD | BPF_W | BPF_ABS, 0, 0, off),
                Step::And(k) => insn(BPF_ALU | BPF_AND | BPF_K, 0, 0, k),
                Step::Jeq(k, t, f) => insn(BPF_JMP | BPF_JEQ | BPF_K, offset(t), offset(f), k),
                Step::Jge(k, t, f) => insn(BPF_JMP | BPF_JGE | BPF_K, offset(t), offset(f), k),
                Step::Ret(k) => insn(BPF_RET | BPF_K, 0, 0, k),
                Step::Here(_) => continue,
            });
        }
        out
    }

    /// Install `program` on the calling thread (and what it forks and runs). For the child
    /// between fork and exec: two `prctl` calls, no allocation.
    #[allow(unsafe_code)]
    pub fn install(program: &[sock_filter]) -> std::io::Result<()> {
        let fprog = libc::sock_fprog {
            len: u16::try_from(program.len()).unwrap_or(u16::MAX),
            filter: program.as_ptr().cast_mut(),
        };
        // SAFETY: `fprog` points at `program`, which outlives both calls; the kernel copies
        // the filter. PR_SET_NO_NEW_PRIVS lets an unprivileged process install a filter.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &fprog as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Run the filter on one system call, as the kernel would.
        fn run(program: &[sock_filter], arch: u32, nr: i64, args: [u64; 2]) -> u32 {
            let data = |off: u32| -> u32 {
                match off {
                    NR => u32_of(nr),
                    ARCH_AT => arch,
                    ARG0 => args[0] as u32,
                    ARG1 => args[1] as u32,
                    _ => 0,
                }
            };
            let (mut pc, mut acc) = (0usize, 0u32);
            loop {
                let i = program[pc];
                let code = u32::from(i.code);
                pc += 1;
                match code {
                    c if c == BPF_LD | BPF_W | BPF_ABS => acc = data(i.k),
                    c if c == BPF_ALU | BPF_AND | BPF_K => acc &= i.k,
                    c if c == BPF_JMP | BPF_JEQ | BPF_K => {
                        pc += usize::from(if acc == i.k { i.jt } else { i.jf })
                    }
                    c if c == BPF_JMP | BPF_JGE | BPF_K => {
                        pc += usize::from(if acc >= i.k { i.jt } else { i.jf })
                    }
                    c if c == BPF_RET | BPF_K => return i.k,
                    other => panic!("unknown instruction {other:#x}"),
                }
            }
        }

        #[test]
        fn only_tcp_internet_sockets_are_made() {
            let p = program();
            let socket =
                |domain: i32, ty: i32| run(&p, ARCH, libc::SYS_socket, [domain as u64, ty as u64]);
            let denied = SECCOMP_RET_ERRNO | libc::EACCES as u32;
            assert_eq!(socket(libc::AF_INET, libc::SOCK_STREAM), SECCOMP_RET_ALLOW);
            assert_eq!(
                socket(
                    libc::AF_INET6,
                    libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC
                ),
                SECCOMP_RET_ALLOW
            );
            assert_eq!(socket(libc::AF_INET, libc::SOCK_DGRAM), denied);
            assert_eq!(
                socket(libc::AF_INET6, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC),
                denied
            );
            assert_eq!(socket(libc::AF_INET, libc::SOCK_RAW), denied);
            assert_eq!(socket(libc::AF_PACKET, libc::SOCK_RAW), denied);
            // Local sockets the browser's processes talk over stay.
            assert_eq!(
                socket(libc::AF_UNIX, libc::SOCK_SEQPACKET),
                SECCOMP_RET_ALLOW
            );
            assert_eq!(socket(libc::AF_UNIX, libc::SOCK_DGRAM), SECCOMP_RET_ALLOW);
            assert_eq!(socket(libc::AF_NETLINK, libc::SOCK_RAW), SECCOMP_RET_ALLOW);
            assert_eq!(run(&p, ARCH, libc::SYS_read, [0, 0]), SECCOMP_RET_ALLOW);
            assert_eq!(
                run(&p, ARCH, libc::SYS_io_uring_setup, [0, 0]),
                SECCOMP_RET_ERRNO | libc::ENOSYS as u32
            );
            assert_eq!(run(&p, 0x4000_0003, 102, [2, 2]), denied);
        }
    }
}
