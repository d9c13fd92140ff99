//! `oci://REGISTRY/REPOSITORY[:TAG][@sha256:DIGEST]`: where a plugin lives in a registry.
//! The registry is always written out (no implicit Docker Hub), so a manifest reads the
//! same on every machine.

use std::fmt;

/// A parsed `oci://` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciRef {
    /// `host[:port]`, e.g. `ghcr.io` or `127.0.0.1:5000`.
    pub registry: String,
    /// `team/plugin`.
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:` and 64 lowercase hex digits: the manifest's digest.
    pub digest: Option<String>,
}

/// Why a reference does not parse; the message says how to write it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "\"{text}\" is not an OCI reference: {reason}; write it like oci://ghcr.io/team/plugin:1.0@sha256:<64 hex digits>"
)]
pub struct RefError {
    pub text: String,
    pub reason: &'static str,
}

impl OciRef {
    pub fn parse(text: &str) -> Result<Self, RefError> {
        let fail = |reason| RefError {
            text: text.to_string(),
            reason,
        };
        let rest = text
            .strip_prefix("oci://")
            .ok_or_else(|| fail("it must start with oci://"))?;
        let (registry, rest) = rest
            .split_once('/')
            .ok_or_else(|| fail("it names no repository after the registry"))?;
        if !valid_registry(registry) {
            return Err(fail(
                "the registry must be a host name or address, with an optional :port",
            ));
        }
        let (rest, digest) = match rest.split_once('@') {
            Some((rest, digest)) => {
                if !valid_digest(digest) {
                    return Err(fail(
                        "the digest must be sha256: and 64 lowercase hex digits",
                    ));
                }
                (rest, Some(digest.to_string()))
            }
            None => (rest, None),
        };
        // A ':' after the last '/' starts the tag.
        let (repository, tag) = match rest.rfind(':').filter(|&i| !rest[i..].contains('/')) {
            Some(i) => (&rest[..i], Some(rest[i + 1..].to_string())),
            None => (rest, None),
        };
        if !repository.split('/').all(valid_component) {
            return Err(fail(
                "repository parts may use a-z, 0-9 and single . _ - between them",
            ));
        }
        if let Some(tag) = &tag
            && !valid_tag(tag)
        {
            return Err(fail(
                "a tag is 1-128 of A-Z a-z 0-9 _ . - and starts with no . or -",
            ));
        }
        if tag.is_none() && digest.is_none() {
            return Err(fail("it names neither a tag nor a digest"));
        }
        Ok(Self {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag,
            digest,
        })
    }

    /// The same artifact, pinned to `digest`.
    pub fn pinned(&self, digest: &str) -> Self {
        Self {
            digest: Some(digest.to_string()),
            ..self.clone()
        }
    }

    /// The registry host without its port, for address checks.
    pub fn host(&self) -> &str {
        host_of(&self.registry)
    }

    /// The port the registry listens on (443 unless written).
    pub fn port(&self, plain_http: bool) -> u16 {
        port_of(&self.registry).unwrap_or(if plain_http { 80 } else { 443 })
    }

    /// `REGISTRY/REPOSITORY`: what a cosign payload names as its docker-reference.
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }
}

impl fmt::Display for OciRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oci://{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

/// `host` of `host[:port]` (an IPv6 address in brackets keeps them off).
pub fn host_of(registry: &str) -> &str {
    if let Some(inner) = registry.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    registry.split(':').next().unwrap_or(registry)
}

/// `port` of `host:port`, if written.
pub fn port_of(registry: &str) -> Option<u16> {
    let after = match registry.rfind(']') {
        Some(i) => &registry[i + 1..],
        None => registry,
    };
    after.rsplit_once(':').and_then(|(_, p)| p.parse().ok())
}

fn valid_registry(registry: &str) -> bool {
    let host = host_of(registry);
    !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
        && (registry.starts_with('[') || registry.matches(':').count() <= 1)
        && (!registry.contains(':') || port_of(registry).is_some())
}

pub fn valid_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

fn valid_component(part: &str) -> bool {
    let bytes = part.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !bytes.is_empty()
        && bytes.first().is_some_and(alnum)
        && bytes.last().is_some_and(alnum)
        && bytes
            .iter()
            .all(|b| alnum(b) || matches!(b, b'.' | b'_' | b'-'))
        && !part.contains("..")
}

fn valid_tag(tag: &str) -> bool {
    (1..=128).contains(&tag.len())
        && !tag.starts_with(['.', '-'])
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn parses_tag_digest_and_port() {
        let r = OciRef::parse(&format!("oci://127.0.0.1:5000/team/echo:1.0@{D}"))
            .expect("a test value");
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.repository, "team/echo");
        assert_eq!(r.tag.as_deref(), Some("1.0"));
        assert_eq!(r.digest.as_deref(), Some(D));
        assert_eq!(r.host(), "127.0.0.1");
        assert_eq!(r.port(true), 5000);
        assert_eq!(
            r.to_string(),
            format!("oci://127.0.0.1:5000/team/echo:1.0@{D}")
        );
        let bare = OciRef::parse(&format!("oci://ghcr.io/echo@{D}")).expect("a test value");
        assert_eq!(bare.tag, None);
        assert_eq!(bare.port(false), 443);
    }

    #[test]
    fn refuses_what_is_not_a_reference() {
        for bad in [
            "ghcr.io/team/echo:1.0",
            "oci://ghcr.io",
            "oci://ghcr.io/team/echo",
            "oci://ghcr.io/Team/echo:1",
            "oci://ghcr.io/team/echo:1@sha256:abc",
            "oci://ghcr.io/team/echo:-x",
            "oci://gh cr.io/team/echo:1",
            "oci://ghcr.io:x/team/echo:1",
            "oci://ghcr.io/team//echo:1",
        ] {
            assert!(OciRef::parse(bad).is_err(), "{bad} parsed");
        }
    }
}
