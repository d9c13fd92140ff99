//! Signing keys: ECDSA P-256, the kind `cosign generate-key-pair` makes, in PEM.
//! Public keys are SPKI (`-----BEGIN PUBLIC KEY-----`), exactly cosign's `.pub` files;
//! private keys are unencrypted PKCS#8 (`-----BEGIN PRIVATE KEY-----`, what
//! `warden plugin keygen` and `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`
//! write). Cosign's own encrypted private keys are for `cosign sign`; Warden verifies what
//! either signs.

use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{DerSignature, Signature, SigningKey, VerifyingKey};
use p256::pkcs8::{
    DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey, LineEnding,
};
use sha2::{Digest, Sha256};

/// Why a key file cannot be used; the message says what to give instead.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error(
        "is not an ECDSA P-256 public key in PEM (-----BEGIN PUBLIC KEY-----, as cosign.pub): {0}"
    )]
    Public(String),
    #[error(
        "is cosign's encrypted key; sign with `cosign sign --key` instead, or make a Warden key with `warden plugin keygen`"
    )]
    CosignEncrypted,
    #[error(
        "is not an unencrypted ECDSA P-256 private key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----): {0}; `warden plugin keygen` makes one"
    )]
    Private(String),
    #[error("cannot make a key: {0}")]
    Generate(String),
}

/// A public key the admin trusts, by the name `[trust.keys]` gives it.
#[derive(Clone)]
pub struct TrustedKey {
    pub name: String,
    /// `sha256:` and the first 16 hex digits of the SPKI's digest: names the key in audit lines.
    pub fingerprint: String,
    key: VerifyingKey,
}

impl std::fmt::Debug for TrustedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TrustedKey({} {})", self.name, self.fingerprint)
    }
}

impl TrustedKey {
    pub fn from_pem(name: &str, pem: &str) -> Result<Self, KeyError> {
        let key = VerifyingKey::from_public_key_pem(pem.trim())
            .map_err(|e| KeyError::Public(e.to_string()))?;
        Ok(Self {
            name: name.to_string(),
            fingerprint: fingerprint(&key),
            key,
        })
    }

    /// True when `signature` (ASN.1 DER, as cosign writes it, or the 64-byte fixed form) is
    /// this key's signature over `message`.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        let parsed = Signature::from_der(signature).or_else(|_| Signature::from_slice(signature));
        parsed.is_ok_and(|sig| self.key.verify(message, &sig).is_ok())
    }
}

/// A private key that signs plugins (`warden plugin push --sign KEY`).
pub struct PrivateKey(SigningKey);

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrivateKey({})", fingerprint(self.0.verifying_key()))
    }
}

impl PrivateKey {
    pub fn from_pem(pem: &str) -> Result<Self, KeyError> {
        if pem.contains("ENCRYPTED SIGSTORE PRIVATE KEY")
            || pem.contains("ENCRYPTED COSIGN PRIVATE KEY")
        {
            return Err(KeyError::CosignEncrypted);
        }
        SigningKey::from_pkcs8_pem(pem.trim())
            .map(Self)
            .map_err(|e| KeyError::Private(e.to_string()))
    }

    /// A fresh key from the operating system's randomness.
    pub fn generate() -> Result<Self, KeyError> {
        let rng = ring::rand::SystemRandom::new();
        // A random 32-byte string is a valid scalar but with odds of about 2^-32.
        for _ in 0..8 {
            let mut bytes = [0u8; 32];
            ring::rand::SecureRandom::fill(&rng, &mut bytes)
                .map_err(|_| KeyError::Generate("the system has no randomness to give".into()))?;
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                return Ok(Self(key));
            }
        }
        Err(KeyError::Generate("no valid scalar drawn".into()))
    }

    /// ASN.1 DER ECDSA-SHA256 signature over `message`.
    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        let signature: Signature = self.0.sign(message);
        let der: DerSignature = signature.to_der();
        der.as_bytes().to_vec()
    }

    pub fn private_pem(&self) -> Result<String, KeyError> {
        self.0
            .to_pkcs8_pem(LineEnding::LF)
            .map(|pem| pem.to_string())
            .map_err(|e| KeyError::Generate(e.to_string()))
    }

    pub fn public_pem(&self) -> Result<String, KeyError> {
        self.0
            .verifying_key()
            .to_public_key_pem(LineEnding::LF)
            .map_err(|e| KeyError::Generate(e.to_string()))
    }

    pub fn fingerprint(&self) -> String {
        fingerprint(self.0.verifying_key())
    }
}

fn fingerprint(key: &VerifyingKey) -> String {
    let der = key
        .to_public_key_der()
        .map(|d| d.as_bytes().to_vec())
        .unwrap_or_default();
    format!("sha256:{}", &hex::encode(Sha256::digest(der))[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_signs_what_its_public_half_verifies() {
        let key = PrivateKey::generate().expect("a test value");
        let again =
            PrivateKey::from_pem(&key.private_pem().expect("a test value")).expect("a test value");
        let trusted = TrustedKey::from_pem("release", &key.public_pem().expect("a test value"))
            .expect("a test value");
        assert_eq!(trusted.fingerprint, key.fingerprint());
        let sig = again.sign(b"payload");
        assert!(trusted.verifies(b"payload", &sig));
        assert!(!trusted.verifies(b"payload!", &sig));
        let other = TrustedKey::from_pem(
            "other",
            &PrivateKey::generate()
                .expect("a test value")
                .public_pem()
                .expect("a test value"),
        )
        .expect("a test value");
        assert!(!other.verifies(b"payload", &sig));
    }

    #[test]
    fn refuses_keys_it_cannot_use() {
        assert!(matches!(
            TrustedKey::from_pem("k", "not a key"),
            Err(KeyError::Public(_))
        ));
        assert!(matches!(
            PrivateKey::from_pem(
                "-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\nxx\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----"
            ),
            Err(KeyError::CosignEncrypted)
        ));
    }
}
