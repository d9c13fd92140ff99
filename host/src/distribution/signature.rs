//! Cosign's signature format ("simple signing"), so `cosign sign --key` and
//! `warden plugin push --sign` make signatures either tool verifies. A signature of the
//! manifest `sha256:HEX` is stored in the same repository under the tag `sha256-HEX.sig`:
//! an image manifest whose layers are JSON payloads naming the signed digest, each with its
//! base64 ECDSA signature in the layer annotation `dev.cosignproject.cosign/signature`.

use super::keys::{PrivateKey, TrustedKey};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

pub const PAYLOAD_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
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
}

/// Who signed, as an audit line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    pub key: String,
    pub fingerprint: String,
}

/// Why no signature of a digest was accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error(
        "has no signature (no tag {tag} in its repository); sign it with `warden plugin push --sign KEY` or `cosign sign --key KEY`, or set verify = false for this plugin"
    )]
    Unsigned { tag: String },
    #[error(
        "has {count} signature(s), none valid by a key in [trust.keys] ({keys}); if you trust the signer, add its public key there"
    )]
    Untrusted { count: usize, keys: String },
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
    }
}

/// The first trusted key with a valid signature over a payload that names `digest`.
/// The payload is read only after its signature checks, so nothing unsigned is parsed.
pub fn verify(
    signatures: &[Signed],
    digest: &str,
    trust: &[TrustedKey],
) -> Result<Signer, SignatureError> {
    for signed in signatures {
        let (Ok(payload), Ok(signature)) = (
            STANDARD.decode(&signed.payload),
            STANDARD.decode(signed.signature.trim()),
        ) else {
            continue;
        };
        for key in trust {
            if !key.verifies(&payload, &signature) {
                continue;
            }
            let names_digest = serde_json::from_slice::<Payload>(&payload).is_ok_and(|p| {
                p.critical.kind == PAYLOAD_TYPE && p.critical.image.digest == digest
            });
            if names_digest {
                return Ok(Signer {
                    key: key.name.clone(),
                    fingerprint: key.fingerprint.clone(),
                });
            }
        }
    }
    Err(SignatureError::Untrusted {
        count: signatures.len(),
        keys: trust
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const E: &str = "sha256:1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn trusted(key: &PrivateKey, name: &str) -> TrustedKey {
        TrustedKey::from_pem(name, &key.public_pem().expect("a test value")).expect("a test value")
    }

    #[test]
    fn a_signature_verifies_for_its_digest_and_key_only() {
        let key = PrivateKey::generate().expect("a test value");
        let other = PrivateKey::generate().expect("a test value");
        let signed = sign(&key, "r/x", D);
        let signer = verify(
            std::slice::from_ref(&signed),
            D,
            &[trusted(&other, "o"), trusted(&key, "k")],
        )
        .expect("a test value");
        assert_eq!(signer.key, "k");
        // Another digest, another key, a changed payload: refused.
        assert!(verify(std::slice::from_ref(&signed), E, &[trusted(&key, "k")]).is_err());
        assert!(verify(std::slice::from_ref(&signed), D, &[trusted(&other, "o")]).is_err());
        let mut forged = signed.clone();
        forged.payload = STANDARD.encode(
            String::from_utf8(STANDARD.decode(&signed.payload).expect("a test value"))
                .expect("a test value")
                .replace(D, E),
        );
        assert!(verify(&[forged], E, &[trusted(&key, "k")]).is_err());
        assert_eq!(tag_for(D), format!("sha256-{}.sig", &D[7..]));
    }
}
