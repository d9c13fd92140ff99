//! Values as grants write and match them: byte sizes as text, `host:port` of a URL.

use url::Url;

/// A byte count as the manifest writes one: `"8MiB"`, `"64KiB"`, or plain bytes.
pub fn size_text(bytes: u64) -> String {
    const KIB: u64 = 1024;
    match bytes {
        0 => "0".to_string(),
        b if b % (KIB * KIB * KIB) == 0 => format!("{}GiB", b / (KIB * KIB * KIB)),
        b if b % (KIB * KIB) == 0 => format!("{}MiB", b / (KIB * KIB)),
        b if b % KIB == 0 => format!("{}KiB", b / KIB),
        b => b.to_string(),
    }
}

/// `host:port` of a URL as grants match it (lowercase host, explicit port).
pub fn host_port(url: &Url) -> Option<String> {
    let host = match url.host()? {
        url::Host::Domain(d) => d.to_ascii_lowercase(),
        url::Host::Ipv4(ip) => ip.to_string(),
        url::Host::Ipv6(ip) => format!("[{ip}]"),
    };
    Some(format!("{host}:{}", url.port_or_known_default()?))
}
