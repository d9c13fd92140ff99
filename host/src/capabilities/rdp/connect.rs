//! One RDP connection: TCP, the X.224 negotiation, the TLS upgrade with the pinned
//! certificate (`tls.rs`), CredSSP (NLA) with the manifest's credentials, and the rest of the
//! connection sequence up to the active stage. Errors name the alias and what to fix, never
//! the address's credentials.

use super::tls::{self, PinnedCert};
use crate::manifest::RdpHostConfig;
use ironrdp_connector::{
    BitmapConfig, ClientConnector, ConnectionResult, Credentials, DesktopSize,
};
use ironrdp_displaycontrol::client::DisplayControlClient;
use ironrdp_dvc::DrdynvcClient;
use ironrdp_pdu::gcc::{ConnectionType, KeyboardType};
use ironrdp_pdu::rdp::capability_sets::{MajorPlatformType, RailSupportLevel};
use ironrdp_pdu::rdp::client_info::{PerformanceFlags, TimezoneInfo};
use ironrdp_tokio::{NetworkClient, TokioFramed};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// Longest the whole connection sequence may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// The stream the active stage runs on.
pub type Framed = TokioFramed<TlsStream<TcpStream>>;

/// Why a connection failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(
        "rdp host '{alias}' presented a TLS certificate with SHA-256 fingerprint {seen}, which is not the one pinned for it; if the server's certificate really changed, set cert_sha256 = \"{seen}\" under [rdp.hosts.{alias}] in the manifest (check the fingerprint on the server first)"
    )]
    CertChanged { alias: String, seen: String },
    #[error(
        "rdp host '{alias}' presented a TLS certificate with SHA-256 fingerprint {seen}, and none is pinned for it; after checking it on the server, set cert_sha256 = \"{seen}\" under [rdp.hosts.{alias}] in the manifest"
    )]
    CertUnknown { alias: String, seen: String },
    #[error(
        "rdp host '{alias}' refused the logon (network level authentication failed or the server hung up during it): check user, domain and password of [rdp.hosts.{alias}] in the manifest"
    )]
    LogonRefused { alias: String },
    #[error("rdp host '{alias}': {reason}")]
    Failed { alias: String, reason: String },
    #[error("rdp host '{alias}' did not finish connecting within {}s", CONNECT_TIMEOUT.as_secs())]
    Timeout { alias: String },
}

/// An established connection, ready for the active stage.
pub struct Connected {
    pub result: ConnectionResult,
    pub framed: Framed,
}

/// Kerberos needs the client to reach a KDC; Warden offers NTLM only, so this refuses.
struct NoNetwork;

impl NetworkClient for NoNetwork {
    async fn send(
        &mut self,
        _: &ironrdp_connector::sspi::generator::NetworkRequest,
    ) -> ironrdp_connector::ConnectorResult<Vec<u8>> {
        Err(ironrdp_connector::general_err!(
            "Kerberos is not supported; the server must accept NTLM"
        ))
    }
}

/// Connect to `alias` and log on asking for a `size` desktop, within [`CONNECT_TIMEOUT`].
pub async fn connect(
    alias: &str,
    host: &RdpHostConfig,
    size: DesktopSize,
) -> Result<Connected, ConnectError> {
    match tokio::time::timeout(CONNECT_TIMEOUT, connect_inner(alias, host, size)).await {
        Ok(r) => r,
        Err(_) => Err(ConnectError::Timeout {
            alias: alias.to_string(),
        }),
    }
}

async fn connect_inner(
    alias: &str,
    host: &RdpHostConfig,
    size: DesktopSize,
) -> Result<Connected, ConnectError> {
    let failed = |reason: String| ConnectError::Failed {
        alias: alias.to_string(),
        reason,
    };
    let password = host.password.resolve().map_err(&failed)?;
    let tcp = TcpStream::connect(&host.address)
        .await
        .map_err(|e| failed(format!("cannot connect: {e}")))?;
    let _ = tcp.set_nodelay(true);
    let client_addr = tcp
        .local_addr()
        .map_err(|e| failed(format!("cannot connect: {e}")))?;
    // The dynamic channel carrier with Display Control in it, so a resize can be asked for
    // without reconnecting when the server offers that channel (MS-RDPEDISP).
    let dynamic = DrdynvcClient::new()
        .with_dynamic_channel(DisplayControlClient::new(|_capabilities| Ok(Vec::new())));
    let mut connector = ClientConnector::new(config(host, password.clone(), size), client_addr)
        .with_static_channel(dynamic);
    let mut framed = TokioFramed::new(tcp);
    let should_upgrade = ironrdp_tokio::connect_begin(&mut framed, &mut connector)
        .await
        .map_err(|e| failed(format!("negotiation failed ({})", redact(&e, &password))))?;

    let tcp = framed.into_inner_no_leftover();
    let pin = PinnedCert::new(host.cert_sha256.clone());
    let tls_config = pin
        .client_config()
        .map_err(|e| failed(format!("TLS setup: {e}")))?;
    let server_name = rustls::pki_types::ServerName::try_from(server_host(&host.address))
        .map_err(|e| failed(format!("address: {e}")))?;
    let tls = match tokio_rustls::TlsConnector::from(Arc::new(tls_config))
        .connect(server_name, tcp)
        .await
    {
        Ok(tls) => tls,
        Err(e) => {
            return Err(match (pin.seen(), &host.cert_sha256) {
                (Some(seen), Some(pinned)) if &seen != pinned => ConnectError::CertChanged {
                    alias: alias.to_string(),
                    seen: tls::shown(&seen),
                },
                (Some(seen), None) => ConnectError::CertUnknown {
                    alias: alias.to_string(),
                    seen: tls::shown(&seen),
                },
                _ => failed(format!("TLS handshake failed: {e}")),
            });
        }
    };
    let cert = tls
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|c| c.first())
        .ok_or_else(|| failed("the server sent no TLS certificate".into()))?;
    let server_public_key = public_key(cert).map_err(&failed)?;

    let upgraded = ironrdp_tokio::mark_as_upgraded(should_upgrade, &mut connector);
    let mut framed = TokioFramed::new(tls);
    let outcome = ironrdp_tokio::connect_finalize(
        upgraded,
        connector,
        &mut framed,
        &mut NoNetwork,
        server_host(&host.address).into(),
        server_public_key,
        None,
    )
    .await
    .map_err(|e| classify(alias, &e, &password))?;
    let result = outcome.into_connected().map_err(|_| {
        failed(
            "the server redirected the connection to another host, which Warden does not follow"
                .into(),
        )
    })?;
    Ok(Connected { result, framed })
}

/// The host part of `host:port` (brackets of an IPv6 address removed).
fn server_host(address: &str) -> String {
    let host = address.rsplit_once(':').map_or(address, |(h, _)| h);
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_string()
}

/// The subjectPublicKey bits of a DER certificate: what CredSSP binds the logon to.
fn public_key(cert: &[u8]) -> Result<Vec<u8>, String> {
    use x509_cert::der::Decode as _;
    let cert = x509_cert::Certificate::from_der(cert)
        .map_err(|e| format!("cannot read the server's certificate: {e}"))?;
    cert.tbs_certificate()
        .subject_public_key_info()
        .subject_public_key
        .as_bytes()
        .map(<[u8]>::to_vec)
        .ok_or_else(|| "the server's certificate has an unaligned public key".to_string())
}

/// A connector error as a message. A failed NLA exchange is a refused logon, and so is the
/// server hanging up during the sequence that starts with it: that is how servers (FreeRDP's,
/// Windows without early user authorization) answer a wrong password. Anything else keeps
/// its reason, with the password cut out should a library ever echo it.
fn classify(alias: &str, e: &ironrdp_connector::ConnectorError, password: &str) -> ConnectError {
    use ironrdp_connector::ConnectorErrorKind;
    let hung_up = {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
        let mut found = false;
        while let Some(err) = source {
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                found |= matches!(
                    io.kind(),
                    std::io::ErrorKind::UnexpectedEof
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::BrokenPipe
                );
            }
            source = err.source();
        }
        found
    };
    match e.kind() {
        ConnectorErrorKind::Credssp(_) | ConnectorErrorKind::AccessDenied => {
            ConnectError::LogonRefused {
                alias: alias.to_string(),
            }
        }
        _ if hung_up => ConnectError::LogonRefused {
            alias: alias.to_string(),
        },
        _ => ConnectError::Failed {
            alias: alias.to_string(),
            reason: format!("connection failed ({})", redact(e, password)),
        },
    }
}

fn redact(e: &dyn std::fmt::Display, password: &str) -> String {
    let text = e.to_string();
    if password.is_empty() {
        text
    } else {
        text.replace(password, "[password]")
    }
}

/// What the client asks for: NLA only (no legacy TLS logon screen), a `size` desktop, 32-bit
/// colour, RemoteFX unless the host turns it off (then the server sends bitmap updates), no
/// audio, no redirections.
fn config(host: &RdpHostConfig, password: String, size: DesktopSize) -> ironrdp_connector::Config {
    // Offering a codec also turns on surface commands; without one, the connector advertises
    // the plain bitmap capabilities only.
    let bitmap = host.remotefx.then(|| BitmapConfig {
        lossy_compression: false,
        color_depth: 32,
        codecs: ironrdp_pdu::rdp::capability_sets::client_codecs_capabilities(&["remotefx:on"])
            .unwrap_or_default(),
    });
    ironrdp_connector::Config {
        desktop_size: size,
        monitor_layout: None,
        desktop_scale_factor: 0,
        desktop_physical_size: None,
        desktop_orientation: None,
        device_scale_factor: None,
        monitor_extended_layout: None,
        relative_mouse_input: false,
        enable_tls: false,
        enable_credssp: true,
        enable_standard_rdp_security: false,
        credentials: Credentials::UsernamePassword {
            username: host.user.clone(),
            password,
        },
        domain: host.domain.clone(),
        client_build: 0,
        client_name: "warden".to_string(),
        keyboard_type: KeyboardType::IBM_ENHANCED,
        keyboard_subtype: 0,
        keyboard_functional_keys_count: 12,
        keyboard_layout: 0,
        connection_type: ConnectionType::Lan,
        ime_file_name: String::new(),
        bitmap,
        dig_product_id: String::new(),
        client_dir: "C:\\Windows\\System32\\mstscax.dll".to_string(),
        alternate_shell: String::new(),
        work_dir: String::new(),
        remote_application_mode: false,
        rail_support_level: RailSupportLevel::empty(),
        platform: MajorPlatformType::UNIX,
        hardware_id: None,
        request_data: None,
        autologon: false,
        enable_audio_playback: false,
        enable_audio_capture: false,
        performance_flags: PerformanceFlags::default(),
        license_cache: None,
        timezone_info: TimezoneInfo::default(),
        compression_type: None,
        enable_server_pointer: false,
        pointer_software_rendering: true,
        multitransport_flags: None,
        support_dyn_vc_gfx_protocol: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_host_drops_the_port() {
        assert_eq!(server_host("127.0.0.1:3389"), "127.0.0.1");
        assert_eq!(server_host("[::1]:3389"), "::1");
        assert_eq!(server_host("win1.corp:3390"), "win1.corp");
    }
}
