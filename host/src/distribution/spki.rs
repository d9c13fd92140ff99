//! Public keys as X.509 SubjectPublicKeyInfo DER (what a certificate carries, and what a
//! sigstore trust root lists for its logs), and the PEM blocks certificates travel in.
//! The signatures sigstore makes are ECDSA P-256 or P-384 (DER) or Ed25519.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::signature::{
    ECDSA_P256_SHA256_ASN1, ECDSA_P384_SHA384_ASN1, ED25519, UnparsedPublicKey,
    VerificationAlgorithm,
};
use x509_cert::der::Decode;
use x509_cert::der::asn1::ObjectIdentifier;
use x509_cert::spki::SubjectPublicKeyInfoOwned;

const EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
const P256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.3.1.7");
const P384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.132.0.34");
const ED25519_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.101.112");

/// True when `signature` over `message` verifies with the key in `spki` (DER). ECDSA keys
/// hash with their curve's own size (P-256 with SHA-256, P-384 with SHA-384), as sigstore does.
pub fn verifies(spki: &[u8], message: &[u8], signature: &[u8]) -> bool {
    let Ok(info) = SubjectPublicKeyInfoOwned::from_der(spki) else {
        return false;
    };
    let Some(point) = info.subject_public_key.as_bytes() else {
        return false;
    };
    let algorithm: &'static dyn VerificationAlgorithm = if info.algorithm.oid == ED25519_KEY {
        &ED25519
    } else if info.algorithm.oid == EC_PUBLIC_KEY {
        let curve = info
            .algorithm
            .parameters
            .as_ref()
            .and_then(|p| p.decode_as::<ObjectIdentifier>().ok());
        match curve {
            Some(c) if c == P256 => &ECDSA_P256_SHA256_ASN1,
            Some(c) if c == P384 => &ECDSA_P384_SHA384_ASN1,
            _ => return false,
        }
    } else {
        return false;
    };
    UnparsedPublicKey::new(algorithm, point)
        .verify(message, signature)
        .is_ok()
}

/// The DER contents of every `-----BEGIN CERTIFICATE-----` block in `pem`, in order.
pub fn certificates(pem: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut body: Option<String> = None;
    for line in pem.lines().map(str::trim) {
        if line == "-----BEGIN CERTIFICATE-----" {
            body = Some(String::new());
        } else if line == "-----END CERTIFICATE-----" {
            if let Some(b64) = body.take()
                && let Ok(der) = STANDARD.decode(b64)
            {
                out.push(der);
            }
        } else if let Some(b) = body.as_mut() {
            b.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;
    use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair};

    /// SPKI DER of a P-256 point: the fixed prefix of `id-ecPublicKey` + `prime256v1`.
    fn p256_spki(point: &[u8]) -> Vec<u8> {
        let mut der = vec![
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06,
            0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ];
        der.extend_from_slice(point);
        der
    }

    #[test]
    fn an_ecdsa_signature_verifies_for_its_key_and_message_only() {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
            .expect("a test value");
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
            .expect("a test value");
        let spki = p256_spki(pair.public_key().as_ref());
        let sig = pair.sign(&rng, b"payload").expect("a test value");
        assert!(verifies(&spki, b"payload", sig.as_ref()));
        assert!(!verifies(&spki, b"payload2", sig.as_ref()));
        assert!(!verifies(&spki[1..], b"payload", sig.as_ref()));
        assert!(!verifies(b"", b"payload", sig.as_ref()));
    }

    #[test]
    fn pem_blocks_are_read_in_order_and_junk_is_skipped() {
        let pem = "junk\n-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n\
                   -----BEGIN CERTIFICATE-----\nBAUG\n-----END CERTIFICATE-----\n";
        assert_eq!(certificates(pem), vec![vec![1, 2, 3], vec![4, 5, 6]]);
        assert!(certificates("no pem here").is_empty());
    }
}
