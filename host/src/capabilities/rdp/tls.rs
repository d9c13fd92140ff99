//! The RDP server's TLS certificate, pinned by its SHA-256 fingerprint: the RDP equivalent of
//! known_hosts. RDP servers present self-signed certificates, so a CA chain proves nothing;
//! the admin writes the fingerprint into `[rdp.hosts.NAME] cert_sha256`, and any other
//! certificate (or none pinned) fails the handshake with the fingerprint the server showed.
//! The handshake signature is still checked against the pinned certificate, so a peer that
//! replays the certificate without its key is refused too.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex};

/// SHA-256 of a DER certificate, lowercase hex.
pub fn fingerprint(cert: &[u8]) -> String {
    hex::encode(Sha256::digest(cert))
}

/// `ab:cd:...` for messages, the way certificate tools print it.
pub fn shown(fingerprint: &str) -> String {
    fingerprint
        .as_bytes()
        .chunks(2)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(":")
}

/// Accepts exactly the pinned certificate; remembers what the server presented so a refusal
/// can show it.
#[derive(Debug)]
pub struct PinnedCert {
    pin: Option<String>,
    seen: Mutex<Option<String>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl PinnedCert {
    pub fn new(pin: Option<String>) -> Arc<Self> {
        Arc::new(Self {
            pin,
            seen: Mutex::new(None),
            algorithms: rustls::crypto::ring::default_provider().signature_verification_algorithms,
        })
    }

    /// The fingerprint the server presented, once the handshake got that far.
    pub fn seen(&self) -> Option<String> {
        self.seen.lock().ok().and_then(|s| s.clone())
    }

    /// A rustls client configuration with this verifier (ring, TLS 1.2 and 1.3, no resumption:
    /// CredSSP does not support it).
    pub fn client_config(self: &Arc<Self>) -> Result<rustls::ClientConfig, rustls::Error> {
        let provider: Arc<CryptoProvider> = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .dangerous()
            .with_custom_certificate_verifier(self.clone())
            .with_no_client_auth();
        config.resumption = rustls::client::Resumption::disabled();
        Ok(config)
    }
}

impl ServerCertVerifier for PinnedCert {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let seen = fingerprint(end_entity);
        let matches = self.pin.as_deref() == Some(seen.as_str());
        if let Ok(mut slot) = self.seen.lock() {
            *slot = Some(seen);
        }
        if matches {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_shown_with_colons() {
        let f = fingerprint(b"cert");
        assert_eq!(f.len(), 64);
        assert_eq!(shown("abcd12"), "ab:cd:12");
    }
}
