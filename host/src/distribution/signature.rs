//! Cosign's signature format ("simple signing"), so `cosign sign --key` and
//! `warden plugin push --sign` make signatures either tool verifies. A signature of the
//! manifest `sha256:HEX` is stored in the same repository under the tag `sha256-HEX.sig`:
//! an image manifest whose layers are JSON payloads naming the signed digest, each with its
//! base64 ECDSA signature in the layer annotation `dev.cosignproject.cosign/signature`.
//! A keyless signature also carries the signer's certificate, its chain and the
//! transparency log's bundle in annotations of the same layer ([`super::keyless`]).

use super::keyless::{self, Material};
use super::keys::PrivateKey;
use super::trust::Trust;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

pub const PAYLOAD_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
pub const CERTIFICATE_ANNOTATION: &str = "dev.sigstore.cosign/certificate";
pub const CHAIN_ANNOTATION: &str = "dev.sigstore.cosign/chain";
pub const BUNDLE_ANNOTATION: &str = "dev.sigstore.cosign/bundle";
const PAYLOAD_TYPE: &str = "cosign container image signature";

/// The tag a signature of `digest` is stored under.
pub fn tag_for(digest: &str) -> String {
    format!("{}.sig", digest.replacen(':', "-", 1))
}

/// One signature: the exact payload bytes and the signature over them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signed {
    /// Base64 of the payload (kept as given: the signature covers these bytes).
    pub payload: String,
    /// Base64 of the signature, as in the annotation.
    pub signature: String,
    /// A keyless signature's certificate (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<String>,
    /// Its intermediate certificates (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// Its transparency-log bundle (JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
}

/// Who signed, as an audit line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    /// The name `[trust.keys]` or `[trust.identities]` gives the signer.
    pub name: String,
    pub by: SignedBy,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignedBy {
    /// A key, by its fingerprint.
    Key { fingerprint: String },
    /// A certified identity, with the transparency-log entry that dates the signature.
    Identity(keyless::Proven),
}

impl std::fmt::Display for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.by {
            SignedBy::Key { fingerprint } => {
                write!(f, "signed by key '{}' ({fingerprint})", self.name)
            }
            SignedBy::Identity(p) => write!(
                f,
                "signed by identity '{}' ({}, issuer {}; log entry {} at {})",
                self.name,
                p.subject,
                p.issuer,
                p.log_index,
                humantime::format_rfc3339_seconds(
                    std::time::UNIX_EPOCH
                        + std::time::Duration::from_secs(
                            u64::try_from(p.integrated_time).unwrap_or(0)
                        )
                )
            ),
        }
    }
}

/// Why no signature of a digest was accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error(
        "has no signature (no tag {tag} in its repository); sign it with `warden plugin push --sign KEY` or `cosign sign --key KEY`, or set verify = false for this plugin"
    )]
    Unsigned { tag: String },
    #[error(
        "has {count} signature(s), none valid by what [trust] names ({trusted}){why}; if you trust the signer, add its public key under [trust.keys] or its identity under [trust.identities]"
    )]
    Untrusted {
        count: usize,
        trusted: String,
        /// Why keyless signatures were refused (empty when none was keyless).
        why: String,
    },
}

#[derive(Serialize, Deserialize)]
struct Payload {
    critical: Critical,
    optional: Option<serde_json::Value>,
}

#[derive(Serialize, Deserialize)]
struct Critical {
    identity: Identity,
    image: Image,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Serialize, Deserialize)]
struct Identity {
    #[serde(rename = "docker-reference")]
    docker_reference: String,
}

#[derive(Serialize, Deserialize)]
struct Image {
    #[serde(rename = "docker-manifest-digest")]
    digest: String,
}

/// Sign `digest` of the artifact named `name` (`REGISTRY/REPOSITORY`).
pub fn sign(key: &PrivateKey, name: &str, digest: &str) -> Signed {
    let payload = Payload {
        critical: Critical {
            identity: Identity {
                docker_reference: name.to_string(),
            },
            image: Image {
                digest: digest.to_string(),
            },
            kind: PAYLOAD_TYPE.into(),
        },
        optional: None,
    };
    let bytes = serde_json::to_vec(&payload).unwrap_or_default();
    Signed {
        signature: STANDARD.encode(key.sign(&bytes)),
        payload: STANDARD.encode(bytes),
        certificate: None,
        chain: None,
        bundle: None,
    }
}

/// The first signature valid by a trusted key or identity over a payload that names
/// `digest`. The payload is read only after its signature checks, so nothing unsigned is parsed.
pub fn verify(
    signatures: &[Signed],
    digest: &str,
    trust: &Trust,
) -> Result<Signer, SignatureError> {
    let mut why: Vec<String> = Vec::new();
    for signed in signatures {
        let (Ok(payload), Ok(signature)) = (
            STANDARD.decode(&signed.payload),
            STANDARD.decode(signed.signature.trim()),
        ) else {
            continue;
        };
        let names_digest = || {
            serde_json::from_slice::<Payload>(&payload)
                .is_ok_and(|p| p.critical.kind == PAYLOAD_TYPE && p.critical.image.digest == digest)
        };
        for key in &trust.keys {
            if key.verifies(&payload, &signature) && names_digest() {
                return Ok(Signer {
                    name: key.name.clone(),
                    by: SignedBy::Key {
                        fingerprint: key.fingerprint.clone(),
                    },
                });
            }
        }
        let Some(certificate) = &signed.certificate else {
            continue;
        };
        let material = Material {
            certificate,
            chain: signed.chain.as_deref(),
            bundle: signed.bundle.as_deref(),
        };
        for identity in &trust.identities {
            match keyless::verify(material, &payload, &signature, identity) {
                Ok(proven) if names_digest() => {
                    return Ok(Signer {
                        name: identity.name.clone(),
                        by: SignedBy::Identity(proven),
                    });
                }
                Ok(_) => push_once(&mut why, "a keyless signature names another digest".into()),
                // What the certificate and bundle say comes from the registry: cut short.
                Err(e) => push_once(
                    &mut why,
                    crate::scrub::cut(&format!("a keyless signature: {e}"), 256),
                ),
            }
        }
    }
    Err(SignatureError::Untrusted {
        count: signatures.len(),
        trusted: trust.names(),
        why: why.iter().map(|w| format!("; {w}")).collect(),
    })
}

fn push_once(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::TrustedKey;

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const E: &str = "sha256:1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn trusted(key: &PrivateKey, name: &str) -> TrustedKey {
        TrustedKey::from_pem(name, &key.public_pem().expect("a test value")).expect("a test value")
    }

    fn keys<const N: usize>(keys: [TrustedKey; N]) -> Trust {
        Trust {
            keys: keys.into(),
            identities: Vec::new(),
        }
    }

    #[test]
    fn a_signature_verifies_for_its_digest_and_key_only() {
        let key = PrivateKey::generate().expect("a test value");
        let other = PrivateKey::generate().expect("a test value");
        let signed = sign(&key, "r/x", D);
        let signer = verify(
            std::slice::from_ref(&signed),
            D,
            &keys([trusted(&other, "o"), trusted(&key, "k")]),
        )
        .expect("a test value");
        assert_eq!(signer.name, "k");
        // Another digest, another key, a changed payload: refused.
        assert!(
            verify(
                std::slice::from_ref(&signed),
                E,
                &keys([trusted(&key, "k")])
            )
            .is_err()
        );
        assert!(
            verify(
                std::slice::from_ref(&signed),
                D,
                &keys([trusted(&other, "o")])
            )
            .is_err()
        );
        let mut forged = signed.clone();
        forged.payload = STANDARD.encode(
            String::from_utf8(STANDARD.decode(&signed.payload).expect("a test value"))
                .expect("a test value")
                .replace(D, E),
        );
        assert!(verify(&[forged], E, &keys([trusted(&key, "k")])).is_err());
        assert_eq!(tag_for(D), format!("sha256-{}.sig", &D[7..]));
    }
}
