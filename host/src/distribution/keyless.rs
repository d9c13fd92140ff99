//! Keyless signatures, as `cosign sign` makes them without a key: the signer proved an
//! identity (an e-mail, or a CI workflow's URI) to an OpenID provider, a certificate
//! authority (Fulcio) certified a short-lived key for that identity, and a transparency log
//! (Rekor) recorded the signature and signed the time it did so (the "signed entry
//! timestamp"). The certificate, its chain and the log's bundle are stored beside the
//! signature, so verification needs no network:
//!
//! 1. the log's signature over the entry (by a log key in the trust root, valid then);
//! 2. the entry records this signature, this certificate and the payload's hash;
//! 3. the certificate chains to an authority of the trust root, for code signing, at the
//!    time the log recorded (the certificate lives minutes: the log proves it was used then);
//! 4. the certificate names the identity and the issuer the admin trusts, exactly;
//! 5. the certificate's key made the signature over the payload.

use super::spki;
use super::trust_root::TrustRoot;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rustls::pki_types::{CertificateDer, UnixTime};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use x509_cert::Certificate;
use x509_cert::der::asn1::{ObjectIdentifier, Utf8StringRef};
use x509_cert::der::{Decode, Encode};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{ExtendedKeyUsage, SubjectAltName};

/// Fulcio's extension with the OpenID issuer: v2 (a DER UTF8String) and v1 (raw text).
const ISSUER_V2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.8");
const ISSUER_V1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.1");
/// Fulcio's SAN `otherName` for a username identity.
const USERNAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.7");
/// id-kp-codeSigning (1.3.6.1.5.5.7.3.3), and its value bytes as webpki compares them.
const CODE_SIGNING: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.3");
const CODE_SIGNING_DER: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03];

/// An identity the admin trusts: `[trust.identities.NAME]`.
#[derive(Debug, Clone)]
pub struct TrustedIdentity {
    pub name: String,
    /// The certificate's subject: an e-mail or URI, compared exactly.
    pub identity: String,
    /// The OpenID issuer that vouched for it, compared exactly.
    pub issuer: String,
    pub root: Arc<TrustRoot>,
}

/// What a verified keyless signature proves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proven {
    pub subject: String,
    pub issuer: String,
    pub log_index: i64,
    /// When the log recorded the signature (Unix seconds).
    pub integrated_time: i64,
}

/// What a keyless signature carries besides the payload and signature.
#[derive(Debug, Clone, Copy)]
pub struct Material<'a> {
    /// The signer's certificate (PEM).
    pub certificate: &'a str,
    /// Intermediate certificates (PEM), untrusted: they must chain to the trust root.
    pub chain: Option<&'a str>,
    /// The transparency log's bundle (JSON).
    pub bundle: Option<&'a str>,
}

/// Why one keyless signature was not accepted; the text is shown to the admin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeylessError {
    #[error("its certificate cannot be read: {0}")]
    Certificate(String),
    #[error(
        "it has no transparency-log bundle, so when it was made cannot be proven (sign with cosign's default Rekor upload)"
    )]
    NoBundle,
    #[error("its transparency-log bundle cannot be read: {0}")]
    Bundle(String),
    #[error("it was recorded by log {0}, which the trust root does not list (or not at that time)")]
    UnknownLog(String),
    #[error("the log's signed timestamp does not verify: the bundle was altered or forged")]
    Timestamp,
    #[error("the log entry does not record this signature: {0}")]
    Entry(String),
    #[error("its certificate does not chain to the trust root at the signing time: {0}")]
    Chain(String),
    #[error("it was signed by {subject} (issuer {issuer}), not an identity the admin trusts")]
    Identity { subject: String, issuer: String },
    #[error("its signature does not verify with its certificate's key")]
    Signature,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Bundle {
    signed_entry_timestamp: String,
    payload: BundlePayload,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BundlePayload {
    body: String,
    integrated_time: i64,
    log_index: i64,
    #[serde(rename = "logID")]
    log_id: String,
}

/// A `hashedrekord` entry: the hash of what was signed, the signature and the certificate.
#[derive(Deserialize)]
struct Entry {
    kind: String,
    spec: EntrySpec,
}

#[derive(Deserialize)]
struct EntrySpec {
    data: EntryData,
    signature: EntrySignature,
}

#[derive(Deserialize)]
struct EntryData {
    hash: EntryHash,
}

#[derive(Deserialize)]
struct EntryHash {
    algorithm: String,
    value: String,
}

#[derive(Deserialize)]
struct EntrySignature {
    content: String,
    #[serde(rename = "publicKey")]
    public_key: EntryKey,
}

#[derive(Deserialize)]
struct EntryKey {
    content: String,
}

/// Verify one keyless signature (`signature` over `payload`) against one trusted identity.
pub fn verify(
    material: Material<'_>,
    payload: &[u8],
    signature: &[u8],
    trusted: &TrustedIdentity,
) -> Result<Proven, KeylessError> {
    let leaf = spki::certificates(material.certificate)
        .into_iter()
        .next()
        .ok_or_else(|| KeylessError::Certificate("no PEM certificate".into()))?;
    let cert =
        Certificate::from_der(&leaf).map_err(|e| KeylessError::Certificate(e.to_string()))?;

    let bundle: Bundle = serde_json::from_str(material.bundle.ok_or(KeylessError::NoBundle)?)
        .map_err(|e| KeylessError::Bundle(e.to_string()))?;
    let time = bundle.payload.integrated_time;
    logged_at(&bundle, &trusted.root)?;
    entry_matches(&bundle.payload.body, payload, signature, &leaf)?;
    code_signing(&cert)?;
    chains(&leaf, material.chain, time, &trusted.root)?;

    let (subject, issuer) = identity(&cert)?;
    if subject != trusted.identity || issuer != trusted.issuer {
        return Err(KeylessError::Identity {
            subject: printable(&subject),
            issuer: printable(&issuer),
        });
    }
    let key = cert
        .tbs_certificate()
        .subject_public_key_info()
        .to_der()
        .map_err(|e| KeylessError::Certificate(e.to_string()))?;
    if !spki::verifies(&key, payload, signature) {
        return Err(KeylessError::Signature);
    }
    Ok(Proven {
        subject,
        issuer,
        log_index: bundle.payload.log_index,
        integrated_time: time,
    })
}

/// The log's signature over its entry (RFC 8785 canonical JSON of the bundle's payload),
/// by a log the trust root lists as valid at the entry's time.
fn logged_at(bundle: &Bundle, root: &TrustRoot) -> Result<(), KeylessError> {
    let p = &bundle.payload;
    let log = root
        .logs
        .iter()
        .find(|l| l.id.eq_ignore_ascii_case(&p.log_id) && l.valid.contains(p.integrated_time))
        .ok_or_else(|| KeylessError::UnknownLog(printable(&p.log_id)))?;
    // The keys in sorted order, no spaces; the strings are base64 and hex, which JSON
    // writes without escapes.
    let canonical = format!(
        "{{\"body\":{},\"integratedTime\":{},\"logID\":{},\"logIndex\":{}}}",
        json_string(&p.body),
        p.integrated_time,
        json_string(&p.log_id),
        p.log_index
    );
    let set = STANDARD
        .decode(bundle.signed_entry_timestamp.trim())
        .map_err(|e| KeylessError::Bundle(format!("SignedEntryTimestamp is not base64: {e}")))?;
    if spki::verifies(&log.key, canonical.as_bytes(), &set) {
        Ok(())
    } else {
        Err(KeylessError::Timestamp)
    }
}

/// Text from a signature, fit for a message: at most 200 characters, no control characters
/// (a terminal shows the load error; the signer chose these bytes).
fn printable(s: &str) -> String {
    s.chars()
        .take(200)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The entry the log signed records this payload's hash, this signature and this certificate.
fn entry_matches(
    body: &str,
    payload: &[u8],
    signature: &[u8],
    leaf: &[u8],
) -> Result<(), KeylessError> {
    let bytes = STANDARD
        .decode(body.trim())
        .map_err(|e| KeylessError::Bundle(format!("body is not base64: {e}")))?;
    let entry: Entry = serde_json::from_slice(&bytes)
        .map_err(|e| KeylessError::Entry(format!("not a hashedrekord entry: {e}")))?;
    if entry.kind != "hashedrekord" {
        return Err(KeylessError::Entry(format!(
            "kind {}, not hashedrekord",
            printable(&entry.kind)
        )));
    }
    let hash = &entry.spec.data.hash;
    if hash.algorithm != "sha256"
        || !hash
            .value
            .eq_ignore_ascii_case(&hex::encode(Sha256::digest(payload)))
    {
        return Err(KeylessError::Entry("another payload's hash".into()));
    }
    let logged_sig = STANDARD
        .decode(entry.spec.signature.content.trim())
        .map_err(|_| KeylessError::Entry("its signature is not base64".into()))?;
    if logged_sig != signature {
        return Err(KeylessError::Entry("another signature".into()));
    }
    let logged_cert = STANDARD
        .decode(entry.spec.signature.public_key.content.trim())
        .ok()
        .and_then(|pem| String::from_utf8(pem).ok())
        .and_then(|pem| spki::certificates(&pem).into_iter().next());
    if logged_cert.as_deref() != Some(leaf) {
        return Err(KeylessError::Entry("another certificate".into()));
    }
    Ok(())
}

/// The certificate chains, for code signing, to an authority valid at `time`, and was itself
/// valid then.
fn chains(
    leaf: &[u8],
    extra: Option<&str>,
    time: i64,
    root: &TrustRoot,
) -> Result<(), KeylessError> {
    let leaf_der = CertificateDer::from(leaf);
    let end = webpki::EndEntityCert::try_from(&leaf_der)
        .map_err(|e| KeylessError::Certificate(e.to_string()))?;
    let at = UnixTime::since_unix_epoch(Duration::from_secs(u64::try_from(time).unwrap_or(0)));
    let extra = extra.map(spki::certificates).unwrap_or_default();
    let mut last = String::from("no certificate authority of the trust root was valid then");
    for authority in root.authorities.iter().filter(|a| a.valid.contains(time)) {
        let Some((top, below)) = authority.chain.split_last() else {
            continue;
        };
        let top = CertificateDer::from(top.as_slice());
        let anchor = match webpki::anchor_from_trusted_cert(&top) {
            Ok(a) => a,
            Err(e) => {
                last = format!("a trust-root certificate cannot be used: {e}");
                continue;
            }
        };
        let intermediates: Vec<CertificateDer<'_>> = below
            .iter()
            .chain(extra.iter())
            .map(|c| CertificateDer::from(c.as_slice()))
            .collect();
        match end.verify_for_usage(
            webpki::ALL_VERIFICATION_ALGS,
            &[anchor],
            &intermediates,
            at,
            // A CA's extended key usage constrains what it certifies only when present
            // (RFC 5280); the leaf's own is required separately (`code_signing`).
            webpki::KeyUsage::required_if_present(CODE_SIGNING_DER),
            None,
            None,
        ) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("{e:?}"),
        }
    }
    Err(KeylessError::Chain(last))
}

/// The certificate was issued for code signing (its extended key usage says so).
fn code_signing(cert: &Certificate) -> Result<(), KeylessError> {
    let usage = cert
        .tbs_certificate()
        .get_extension::<ExtendedKeyUsage>()
        .map_err(|e| KeylessError::Certificate(format!("its extended key usage: {e}")))?;
    match usage {
        Some((_, eku)) if eku.0.contains(&CODE_SIGNING) => Ok(()),
        _ => Err(KeylessError::Certificate(
            "it was not issued for code signing (no codeSigning extended key usage)".into(),
        )),
    }
}

/// The certificate's subject (its one e-mail, URI or username SAN) and OpenID issuer.
fn identity(cert: &Certificate) -> Result<(String, String), KeylessError> {
    let tbs = cert.tbs_certificate();
    let names = tbs
        .get_extension::<SubjectAltName>()
        .map_err(|e| KeylessError::Certificate(format!("its subjectAltName: {e}")))?
        .map(|(_, san)| san.0)
        .unwrap_or_default();
    let subject = names
        .iter()
        .find_map(|name| match name {
            GeneralName::Rfc822Name(s) | GeneralName::UniformResourceIdentifier(s) => {
                Some(s.as_str().to_string())
            }
            GeneralName::OtherName(other) if other.type_id == USERNAME => other
                .value
                .decode_as::<Utf8StringRef<'_>>()
                .ok()
                .map(|s| s.as_str().to_string()),
            _ => None,
        })
        .ok_or_else(|| {
            KeylessError::Certificate("it names no e-mail, URI or username identity".into())
        })?;
    let extensions = tbs.extensions().map(|e| e.as_slice()).unwrap_or(&[]);
    let v2 = extensions
        .iter()
        .find(|e| e.extn_id == ISSUER_V2)
        .and_then(|e| {
            Utf8StringRef::from_der(e.extn_value.as_bytes())
                .ok()
                .map(|s| s.as_str().to_string())
        });
    let v1 = || {
        extensions
            .iter()
            .find(|e| e.extn_id == ISSUER_V1)
            .and_then(|e| String::from_utf8(e.extn_value.as_bytes().to_vec()).ok())
    };
    let issuer = v2
        .or_else(v1)
        .ok_or_else(|| KeylessError::Certificate("it names no OpenID issuer".into()))?;
    Ok((subject, issuer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::trust_root::{Log, Validity};

    /// The public Rekor instance's key, and an entry it signed in 2021 (log index 783606):
    /// the canonical form Warden signs over must be the one Rekor signed.
    const REKOR_KEY: &str = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2G2Y+2tabdTV5BcGiBIx0a9fAFwrkBbmLSGtks4L3qX6yYY0zufBnhC8Ur/iy55GhWP/9A/bY2LhC30M9+RYtw==";
    const REKOR_ID: &str = "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d";
    const BUNDLE: &str = r#"{"SignedEntryTimestamp":"MEUCIDx9M+yRpD0O47/Mzm8NAPCbtqy4uiTkLWWexW0bo4jZAiEA1wwueIW8XzJWNkut5y9snYj7UOfbMmUXp7fH3CzJmWg=","Payload":{"body":"eyJhcGlWZXJzaW9uIjoiMC4wLjEiLCJraW5kIjoicmVrb3JkIiwic3BlYyI6eyJkYXRhIjp7Imhhc2giOnsiYWxnb3JpdGhtIjoic2hhMjU2IiwidmFsdWUiOiIzYWY0NDE0ZDIwYzllMWNiNzZjY2M3MmFhZThiMjQyMTY2ZGFiZTZhZjUzMWE0YTc5MGRiOGUyZjBlNWVlN2M5In19LCJzaWduYXR1cmUiOnsiY29udGVudCI6Ik1FWUNJUURXV3hQUWEzWEZVc1BieVRZK24rYlp1LzZQd2hnNVd3eVlEUXRFZlFobzl3SWhBUGtLVzdldWI4YjdCWCtZYmJSYWM4VHd3SXJLNUt4dmR0UTZOdW9EK2l2VyIsImZvcm1hdCI6Ing1MDkiLCJwdWJsaWNLZXkiOnsiY29udGVudCI6IkxTMHRMUzFDUlVkSlRpQlFWVUpNU1VNZ1MwVlpMUzB0TFMwS1RVWnJkMFYzV1VoTGIxcEplbW93UTBGUldVbExiMXBKZW1vd1JFRlJZMFJSWjBGRlRFdG9SRGRHTlU5TGVUYzNXalU0TWxrMmFEQjFNVW96UjA1Qkt3cHJkbFZ6YURSbFMzQmtNV3gzYTBSQmVtWkdSSE0zZVZoRlJYaHpSV3RRVUhWcFVVcENaV3hFVkRZNGJqZFFSRWxYUWk5UlJWazNiWEpCUFQwS0xTMHRMUzFGVGtRZ1VGVkNURWxESUV0RldTMHRMUzB0Q2c9PSJ9fX19","integratedTime":1634714179,"logIndex":783606,"logID":"c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d"}}"#;

    fn public_rekor(valid: Validity) -> TrustRoot {
        TrustRoot {
            authorities: Vec::new(),
            logs: vec![Log {
                key: STANDARD.decode(REKOR_KEY).expect("a test value"),
                id: REKOR_ID.into(),
                valid,
            }],
        }
    }

    #[test]
    fn a_signed_entry_timestamp_of_the_public_rekor_verifies_and_a_changed_one_does_not() {
        let always = Validity {
            start: 0,
            end: None,
        };
        let bundle: Bundle = serde_json::from_str(BUNDLE).expect("a test value");
        assert_eq!(logged_at(&bundle, &public_rekor(always)), Ok(()));

        let mut moved: Bundle = serde_json::from_str(BUNDLE).expect("a test value");
        moved.payload.integrated_time += 1;
        assert_eq!(
            logged_at(&moved, &public_rekor(always)),
            Err(KeylessError::Timestamp)
        );
        // The log was not trusted yet at that time.
        let later = Validity {
            start: 1_700_000_000,
            end: None,
        };
        assert!(matches!(
            logged_at(&bundle, &public_rekor(later)),
            Err(KeylessError::UnknownLog(_))
        ));
    }

    #[test]
    fn text_a_signer_chose_is_shown_without_control_characters() {
        assert_eq!(printable("a\u{1b}[31mb\n"), "a?[31mb?");
        assert_eq!(printable(&"x".repeat(500)).len(), 200);
    }
}
