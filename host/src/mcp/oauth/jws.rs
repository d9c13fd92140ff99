//! Signed JWTs (JWS compact serialization, RFC 7515) and the public keys of a JWKS
//! (RFC 7517), verified with `ring`, the crypto library Warden's TLS already uses.
//!
//! The algorithm comes from the key, never from the token: each JWK is given exactly one
//! algorithm when the JWKS is read (its `alg`, or the one its type and curve imply), and a
//! token whose header names another is refused. So `none`, HMAC with a public key as the
//! secret, and RSA/EC confusion cannot verify. Symmetric (`oct`) and encryption keys in a
//! JWKS are skipped. Header parameters that point at keys (`jku`, `x5u`, `jwk`) are ignored:
//! keys come only from the configured JWKS.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde::Deserialize;

/// Largest token accepted: real access tokens are a few KiB.
const MAX_TOKEN: usize = 16 * 1024;

/// The signature algorithms Warden accepts (RFC 7518 §3; EdDSA per RFC 8037).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alg {
    Rs256,
    Rs384,
    Rs512,
    Ps256,
    Ps384,
    Ps512,
    Es256,
    Es384,
    EdDsa,
}

impl Alg {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "RS256" => Self::Rs256,
            "RS384" => Self::Rs384,
            "RS512" => Self::Rs512,
            "PS256" => Self::Ps256,
            "PS384" => Self::Ps384,
            "PS512" => Self::Ps512,
            "ES256" => Self::Es256,
            "ES384" => Self::Es384,
            "EdDSA" => Self::EdDsa,
            _ => return None,
        })
    }
}

/// A public key with its one algorithm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jwk {
    pub kid: Option<String>,
    alg: Alg,
    key: PublicKey,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PublicKey {
    /// Big-endian modulus and exponent, without leading zeros.
    Rsa {
        n: Vec<u8>,
        e: Vec<u8>,
    },
    /// Uncompressed SEC1 point `04 || x || y`.
    Ec(Vec<u8>),
    Ed25519(Vec<u8>),
}

/// One key of a JWKS document, as published.
#[derive(Deserialize)]
struct RawJwk {
    kty: String,
    kid: Option<String>,
    alg: Option<String>,
    #[serde(rename = "use")]
    use_: Option<String>,
    crv: Option<String>,
    n: Option<String>,
    e: Option<String>,
    x: Option<String>,
    y: Option<String>,
}

#[derive(Deserialize)]
struct RawJwks {
    keys: Vec<serde_json::Value>,
}

/// The JWKS document could not be read.
#[derive(Debug, thiserror::Error)]
#[error("not a JWKS document (a JSON object with a \"keys\" array): {}", described(.0))]
pub struct JwksError(serde_json::Error);

/// What is wrong with the document, without quoting it: serde's own messages quote the
/// offending value, which is the server's text, of any length, on its way to the log.
fn described(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Syntax => "not valid JSON",
        Category::Eof => "cut short",
        Category::Data => "a value of the wrong type",
        Category::Io => "unreadable",
    };
    format!("{what} at line {} column {}", e.line(), e.column())
}

fn b64(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

fn strip_zeros(bytes: Vec<u8>) -> Vec<u8> {
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
    bytes[first..].to_vec()
}

impl RawJwk {
    /// The key with its algorithm, or `None` for a key Warden does not verify with.
    fn usable(self) -> Option<Jwk> {
        if self.use_.as_deref().is_some_and(|u| u != "sig") {
            return None;
        }
        let declared = match self.alg.as_deref() {
            Some(name) => Some(Alg::parse(name)?),
            None => None,
        };
        let (alg, key) = match (self.kty.as_str(), self.crv.as_deref()) {
            ("RSA", _) => {
                let alg = declared.unwrap_or(Alg::Rs256);
                if !matches!(
                    alg,
                    Alg::Rs256 | Alg::Rs384 | Alg::Rs512 | Alg::Ps256 | Alg::Ps384 | Alg::Ps512
                ) {
                    return None;
                }
                let n = strip_zeros(b64(self.n.as_deref()?)?);
                let e = strip_zeros(b64(self.e.as_deref()?)?);
                (alg, PublicKey::Rsa { n, e })
            }
            ("EC", Some(crv @ ("P-256" | "P-384"))) => {
                let (alg, len) = if crv == "P-256" {
                    (Alg::Es256, 32)
                } else {
                    (Alg::Es384, 48)
                };
                if declared.is_some_and(|d| d != alg) {
                    return None;
                }
                let x = b64(self.x.as_deref()?)?;
                let y = b64(self.y.as_deref()?)?;
                if x.len() != len || y.len() != len {
                    return None;
                }
                let mut point = vec![4];
                point.extend(x);
                point.extend(y);
                (alg, PublicKey::Ec(point))
            }
            ("OKP", Some("Ed25519")) => {
                if declared.is_some_and(|d| d != Alg::EdDsa) {
                    return None;
                }
                let x = b64(self.x.as_deref()?)?;
                if x.len() != 32 {
                    return None;
                }
                (Alg::EdDsa, PublicKey::Ed25519(x))
            }
            // `oct` (a shared secret has no place in a public key set) and anything else.
            _ => return None,
        };
        Some(Jwk {
            kid: self.kid,
            alg,
            key,
        })
    }
}

/// The signing keys of a JWKS document; keys Warden cannot or must not use are skipped.
pub fn parse_jwks(body: &[u8]) -> Result<Vec<Jwk>, JwksError> {
    let raw: RawJwks = serde_json::from_slice(body).map_err(JwksError)?;
    Ok(raw
        .keys
        .into_iter()
        .filter_map(|k| serde_json::from_value::<RawJwk>(k).ok()?.usable())
        .collect())
}

/// Why a token is not a validly signed JWT. The texts go into `error_description` and the
/// audit log: they describe the token, never quote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum JwsError {
    #[error("the token is not a signed JWT")]
    Malformed,
    #[error("the token's algorithm is not accepted")]
    Algorithm,
    #[error("the token has critical header parameters Warden does not understand")]
    Critical,
    #[error("the token's signature does not verify")]
    Signature,
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    kid: Option<String>,
    crit: Option<serde_json::Value>,
}

/// A parsed, not yet verified, compact JWS.
#[derive(Debug)]
pub struct Jws<'t> {
    alg: String,
    pub kid: Option<String>,
    signing_input: &'t str,
    payload: Vec<u8>,
    signature: Vec<u8>,
}

impl<'t> Jws<'t> {
    pub fn parse(token: &'t str) -> Result<Self, JwsError> {
        if token.len() > MAX_TOKEN {
            return Err(JwsError::Malformed);
        }
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            // Five parts would be an encrypted JWT (JWE): not accepted either.
            return Err(JwsError::Malformed);
        };
        let signed_len = header.len() + 1 + payload.len();
        let header_json = b64(header).ok_or(JwsError::Malformed)?;
        let header: Header =
            serde_json::from_slice(&header_json).map_err(|_| JwsError::Malformed)?;
        if header.crit.is_some() {
            return Err(JwsError::Critical);
        }
        let payload_bytes = b64(payload).ok_or(JwsError::Malformed)?;
        let signature = b64(signature).ok_or(JwsError::Malformed)?;
        Ok(Self {
            alg: header.alg,
            kid: header.kid,
            signing_input: &token[..signed_len],
            payload: payload_bytes,
            signature,
        })
    }

    /// The payload, once the signature verifies with `key` under `key`'s own algorithm.
    pub fn verify(self, key: &Jwk) -> Result<Vec<u8>, JwsError> {
        if Alg::parse(&self.alg) != Some(key.alg) {
            return Err(JwsError::Algorithm);
        }
        let message = self.signing_input.as_bytes();
        let sig = self.signature.as_slice();
        let ok = match &key.key {
            PublicKey::Rsa { n, e } => {
                let params = match key.alg {
                    Alg::Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Alg::Rs384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Alg::Rs512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Alg::Ps256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Alg::Ps384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Alg::Ps512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return Err(JwsError::Algorithm),
                };
                RsaPublicKeyComponents { n, e }
                    .verify(params, message, sig)
                    .is_ok()
            }
            PublicKey::Ec(point) => {
                let params = match key.alg {
                    Alg::Es256 => &signature::ECDSA_P256_SHA256_FIXED,
                    Alg::Es384 => &signature::ECDSA_P384_SHA384_FIXED,
                    _ => return Err(JwsError::Algorithm),
                };
                UnparsedPublicKey::new(params, point)
                    .verify(message, sig)
                    .is_ok()
            }
            PublicKey::Ed25519(x) => UnparsedPublicKey::new(&signature::ED25519, x)
                .verify(message, sig)
                .is_ok(),
        };
        if ok {
            Ok(self.payload)
        } else {
            Err(JwsError::Signature)
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use ring::rand::SystemRandom;
    use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair};

    pub(crate) fn b64e(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// A P-256 key pair and its JWK.
    pub(crate) fn es256(kid: &str) -> (EcdsaKeyPair, serde_json::Value) {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).expect("keygen");
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).expect("key");
        let public = pair.public_key().as_ref();
        let jwk = serde_json::json!({
            "kty": "EC", "crv": "P-256", "kid": kid, "use": "sig",
            "x": b64e(&public[1..33]), "y": b64e(&public[33..65]),
        });
        (pair, jwk)
    }

    pub(crate) fn sign_es256(
        pair: &EcdsaKeyPair,
        header: &serde_json::Value,
        claims: &serde_json::Value,
    ) -> String {
        let input = format!(
            "{}.{}",
            b64e(header.to_string().as_bytes()),
            b64e(claims.to_string().as_bytes())
        );
        let sig = pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .expect("sign");
        format!("{input}.{}", b64e(sig.as_ref()))
    }

    fn keys(jwk: &serde_json::Value) -> Vec<Jwk> {
        parse_jwks(serde_json::json!({ "keys": [jwk] }).to_string().as_bytes()).expect("jwks")
    }

    #[test]
    fn an_es256_token_verifies_and_a_tampered_one_does_not() {
        let (pair, jwk) = es256("k1");
        let keys = keys(&jwk);
        let header = serde_json::json!({"alg": "ES256", "kid": "k1"});
        let token = sign_es256(&pair, &header, &serde_json::json!({"sub": "a"}));
        let jws = Jws::parse(&token).expect("parse");
        assert_eq!(jws.kid.as_deref(), Some("k1"));
        assert_eq!(jws.verify(&keys[0]).expect("verify"), br#"{"sub":"a"}"#);

        // Same signature, other claims.
        let (head, rest) = token.split_once('.').expect("dots");
        let sig = rest.rsplit_once('.').expect("dot").1;
        let forged = format!("{head}.{}.{sig}", b64e(br#"{"sub":"admin"}"#));
        let jws = Jws::parse(&forged).expect("parse");
        assert_eq!(jws.verify(&keys[0]), Err(JwsError::Signature));
    }

    #[test]
    fn the_algorithm_is_the_keys_not_the_tokens() {
        let (pair, jwk) = es256("k1");
        let keys = keys(&jwk);
        for alg in ["none", "HS256", "RS256", "ES384", "EdDSA"] {
            let token = sign_es256(
                &pair,
                &serde_json::json!({"alg": alg, "kid": "k1"}),
                &serde_json::json!({}),
            );
            let jws = Jws::parse(&token).expect("parse");
            assert_eq!(jws.verify(&keys[0]), Err(JwsError::Algorithm), "{alg}");
        }
        // An unsigned token: empty signature.
        let none = format!(
            "{}.{}.",
            b64e(br#"{"alg":"none"}"#),
            b64e(br#"{"sub":"a"}"#)
        );
        let jws = Jws::parse(&none).expect("parse");
        assert_eq!(jws.verify(&keys[0]), Err(JwsError::Algorithm));
    }

    #[test]
    fn an_ed25519_token_verifies() {
        let rng = SystemRandom::new();
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).expect("keygen");
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("key");
        let jwk = serde_json::json!({
            "kty": "OKP", "crv": "Ed25519", "kid": "ed",
            "x": b64e(pair.public_key().as_ref()),
        });
        let keys = keys(&jwk);
        let input = format!(
            "{}.{}",
            b64e(br#"{"alg":"EdDSA","kid":"ed"}"#),
            b64e(br#"{"sub":"b"}"#)
        );
        let token = format!("{input}.{}", b64e(pair.sign(input.as_bytes()).as_ref()));
        let payload = Jws::parse(&token)
            .expect("parse")
            .verify(&keys[0])
            .expect("verify");
        assert_eq!(payload, br#"{"sub":"b"}"#);
    }

    #[test]
    fn symmetric_encryption_and_mismatched_keys_are_skipped() {
        let (_, ec) = es256("ok");
        let mut enc = ec.clone();
        enc["use"] = "enc".into();
        let mut wrong_alg = ec.clone();
        wrong_alg["alg"] = "RS256".into();
        let jwks = serde_json::json!({"keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac", "alg": "HS256"},
            {"kty": "RSA", "kid": "rsa-hs", "alg": "HS256", "n": "AQAB", "e": "AQAB"},
            enc, wrong_alg, ec, "not an object",
        ]});
        let keys = parse_jwks(jwks.to_string().as_bytes()).expect("jwks");
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].kid.as_deref(), Some("ok"));
    }

    #[test]
    fn a_bad_jwks_is_described_never_quoted() {
        let said = format!(
            "{{\"keys\": \"{}\"}}",
            "s3cret-said-by-the-idp ".repeat(40_000)
        );
        for body in [said.as_str(), "{\"keys\": [", "<html>s3cret</html>"] {
            let e = parse_jwks(body.as_bytes())
                .expect_err("not a JWKS")
                .to_string();
            assert!(!e.contains("s3cret") && e.len() < 200, "{e:.300}");
        }
    }

    #[test]
    fn malformed_tokens_are_refused_before_any_key_is_looked_up() {
        for token in [
            "",
            "abc",
            "a.b",
            "a.b.c.d.e",
            "!!.e30.",
            "e30.e30.",
            &format!("{}.e30.", b64e(br#"{"alg":"ES256","crit":["exp"]}"#)),
            &"a".repeat(MAX_TOKEN + 1),
        ] {
            assert!(Jws::parse(token).is_err(), "{token:.40}");
        }
    }
}
