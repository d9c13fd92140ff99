//! A sigstore trust root: the `trusted_root.json` that sigstore's clients read (the public
//! instance's comes from its TUF repository; `cosign trusted-root create` writes one for a
//! private Fulcio and Rekor). Warden uses its certificate authorities (which certify
//! signers' identities) and its transparency logs (whose signed timestamps say when a
//! signature was made), each with the time range it was valid for.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use std::time::{SystemTime, UNIX_EPOCH};

/// The parts of a trust root that verification uses.
#[derive(Debug, Clone)]
pub struct TrustRoot {
    pub authorities: Vec<Authority>,
    pub logs: Vec<Log>,
}

/// A certificate authority: its chain (DER, the issuing certificate first, the root last).
#[derive(Debug, Clone)]
pub struct Authority {
    pub chain: Vec<Vec<u8>>,
    pub valid: Validity,
}

/// A transparency log: its key (SPKI DER) and id (the SHA-256 of that key, hex).
#[derive(Debug, Clone)]
pub struct Log {
    pub key: Vec<u8>,
    pub id: String,
    pub valid: Validity,
}

/// Unix seconds; no end: valid still.
#[derive(Debug, Clone, Copy)]
pub struct Validity {
    pub start: i64,
    pub end: Option<i64>,
}

impl Validity {
    pub fn contains(&self, t: i64) -> bool {
        self.start <= t && self.end.is_none_or(|end| t <= end)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TrustRootError {
    #[error("is not a sigstore trusted_root.json: {0}")]
    Json(String),
    #[error(
        "lists no certificate authority (certificateAuthorities), so no identity can be checked"
    )]
    NoAuthority,
    #[error(
        "lists no transparency log (tlogs), so no signature's time can be checked; keyless signatures need Rekor"
    )]
    NoLog,
    #[error("{0}")]
    Field(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    #[serde(default)]
    tlogs: Vec<TlogJson>,
    #[serde(default)]
    certificate_authorities: Vec<CaJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TlogJson {
    public_key: KeyJson,
    log_id: LogIdJson,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyJson {
    raw_bytes: String,
    valid_for: Option<RangeJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogIdJson {
    key_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CaJson {
    cert_chain: ChainJson,
    valid_for: Option<RangeJson>,
}

#[derive(Deserialize)]
struct ChainJson {
    certificates: Vec<RawJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawJson {
    raw_bytes: String,
}

#[derive(Deserialize)]
struct RangeJson {
    start: Option<String>,
    end: Option<String>,
}

impl TrustRoot {
    pub fn parse(text: &str) -> Result<Self, TrustRootError> {
        let file: File =
            serde_json::from_str(text).map_err(|e| TrustRootError::Json(e.to_string()))?;
        let mut authorities = Vec::new();
        for (i, ca) in file.certificate_authorities.into_iter().enumerate() {
            let chain = ca
                .cert_chain
                .certificates
                .iter()
                .map(|c| b64(&c.raw_bytes, &format!("certificateAuthorities[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            if chain.is_empty() {
                return Err(TrustRootError::Field(format!(
                    "certificateAuthorities[{i}] has no certificate"
                )));
            }
            authorities.push(Authority {
                chain,
                valid: validity(
                    ca.valid_for.as_ref(),
                    &format!("certificateAuthorities[{i}]"),
                )?,
            });
        }
        let mut logs = Vec::new();
        for (i, log) in file.tlogs.into_iter().enumerate() {
            let at = format!("tlogs[{i}]");
            logs.push(Log {
                key: b64(&log.public_key.raw_bytes, &at)?,
                id: hex::encode(b64(&log.log_id.key_id, &at)?),
                valid: validity(log.public_key.valid_for.as_ref(), &at)?,
            });
        }
        if authorities.is_empty() {
            return Err(TrustRootError::NoAuthority);
        }
        if logs.is_empty() {
            return Err(TrustRootError::NoLog);
        }
        Ok(Self { authorities, logs })
    }
}

fn b64(text: &str, at: &str) -> Result<Vec<u8>, TrustRootError> {
    STANDARD
        .decode(text.trim())
        .map_err(|e| TrustRootError::Field(format!("{at}: rawBytes is not base64: {e}")))
}

fn validity(range: Option<&RangeJson>, at: &str) -> Result<Validity, TrustRootError> {
    let time = |t: &Option<String>| -> Result<Option<i64>, TrustRootError> {
        t.as_deref()
            .map(|s| {
                humantime::parse_rfc3339(s)
                    .map(unix)
                    .map_err(|e| TrustRootError::Field(format!("{at}: validFor time \"{s}\": {e}")))
            })
            .transpose()
    };
    Ok(match range {
        Some(r) => Validity {
            start: time(&r.start)?.unwrap_or(i64::MIN),
            end: time(&r.end)?,
        },
        None => Validity {
            start: i64::MIN,
            end: None,
        },
    })
}

fn unix(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_instance_layout_parses() {
        let json = r#"{
          "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
          "tlogs": [{"baseUrl": "https://rekor.sigstore.dev", "hashAlgorithm": "SHA2_256",
            "publicKey": {"rawBytes": "AQID", "keyDetails": "PKIX_ECDSA_P256_SHA_256",
              "validFor": {"start": "2021-01-12T11:53:27.000Z"}},
            "logId": {"keyId": "wNI9atQGlz+VWfO6LRygH4QUfY/8W4RFwiT5i5WRgB0="}}],
          "certificateAuthorities": [{"subject": {"organization": "sigstore.dev"},
            "uri": "https://fulcio.sigstore.dev",
            "certChain": {"certificates": [{"rawBytes": "BAU="}, {"rawBytes": "Bgc="}]},
            "validFor": {"start": "2022-04-13T20:06:15.000Z", "end": "2031-10-05T13:56:58.000Z"}}],
          "ctlogs": [], "timestampAuthorities": []
        }"#;
        let root = TrustRoot::parse(json).expect("a test value");
        assert_eq!(root.authorities[0].chain, vec![vec![4, 5], vec![6, 7]]);
        assert_eq!(
            root.logs[0].id,
            "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d"
        );
        assert!(root.logs[0].valid.contains(1_700_000_000));
        assert!(!root.logs[0].valid.contains(1_600_000_000));
        assert!(!root.authorities[0].valid.contains(2_000_000_000));
    }

    #[test]
    fn a_root_without_authorities_or_logs_says_what_is_missing() {
        assert!(matches!(
            TrustRoot::parse(r#"{"tlogs": []}"#),
            Err(TrustRootError::NoAuthority)
        ));
        assert!(matches!(
            TrustRoot::parse("not json"),
            Err(TrustRootError::Json(_))
        ));
    }
}
