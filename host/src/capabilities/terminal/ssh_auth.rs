//! Logging in to an SSH host as the manifest says: its identity file (decrypted with its
//! `identity_passphrase`, presented with its user certificate when it has one) and the SSH
//! agent's keys and certificates, each checked before it is offered so a refusal says why.
//! The passphrase and the key's text stay here; errors name the key by its fingerprint.

use super::ssh_error::SshError;
use crate::manifest::SshHostConfig;
use russh::client::{self, Handle};
use russh::keys::PrivateKeyWithHashAlg;
use std::sync::Arc;

/// Log in to `alias` as its configured user: the identity file (with its certificate, if
/// any), then the agent's identities when `agent = true`.
pub(super) async fn authenticate<H: client::Handler>(
    alias: &str,
    config: &SshHostConfig,
    handle: &mut Handle<H>,
) -> Result<(), SshError> {
    let failed = |detail: &str| SshError::AuthFailed {
        alias: alias.to_string(),
        detail: detail.to_string(),
    };
    let rsa_hash = handle
        .best_supported_rsa_hash()
        .await
        .ok()
        .flatten()
        .flatten();
    if let Some(path) = &config.identity_file {
        let key = load_identity(alias, path, config.identity_passphrase.as_ref())?;
        let result = match &config.certificate {
            Some(cert) => {
                let cert = load_certificate(alias, cert, &key, std::time::SystemTime::now())?;
                handle
                    .authenticate_openssh_cert(config.user.clone(), Arc::new(key), cert)
                    .await
            }
            None => {
                handle
                    .authenticate_publickey(
                        config.user.clone(),
                        PrivateKeyWithHashAlg::new(Arc::new(key), rsa_hash),
                    )
                    .await
            }
        }
        .map_err(|e| {
            tracing::warn!(alias, "public key authentication error: {e}");
            failed("public key authentication broke off")
        })?;
        if result.success() {
            return Ok(());
        }
        if !config.agent {
            return Err(failed("the identity file's key was not accepted"));
        }
    }
    if config.agent {
        return authenticate_with_agent(alias, config, handle, rsa_hash).await;
    }
    Err(failed("no credentials are configured"))
}

/// Offer the agent's identities in its order: a certificate as a certificate (after checking
/// it is valid now), a plain key as a key. A refusal says why expired certificates were
/// passed over, so an admin whose agent holds only a stale one knows to renew it.
async fn authenticate_with_agent<H: client::Handler>(
    alias: &str,
    config: &SshHostConfig,
    handle: &mut Handle<H>,
    rsa_hash: Option<russh::keys::HashAlg>,
) -> Result<(), SshError> {
    use russh::keys::agent::AgentIdentity;
    let mut agent = russh::keys::agent::client::AgentClient::connect_env()
        .await
        .map_err(|e| {
            tracing::error!(alias, "cannot reach the ssh agent: {e}");
            SshError::Credentials(alias.to_string())
        })?;
    let identities = agent.request_identities().await.map_err(|e| {
        tracing::error!(alias, "ssh agent did not list its keys: {e}");
        SshError::Credentials(alias.to_string())
    })?;
    let now = std::time::SystemTime::now();
    let mut passed_over = Vec::new();
    for identity in identities {
        let rsa = |key: &russh::keys::ssh_key::public::KeyData| {
            matches!(key.algorithm(), russh::keys::Algorithm::Rsa { .. })
                .then_some(rsa_hash)
                .flatten()
        };
        let accepted = match identity {
            AgentIdentity::Certificate { certificate, .. } => {
                if let Err(why) = certificate_current(&certificate, now) {
                    tracing::info!(
                        alias,
                        key_id = certificate.key_id(),
                        "agent certificate passed over: {why}"
                    );
                    passed_over.push(format!("its certificate '{}' {why}", certificate.key_id()));
                    continue;
                }
                let hash = rsa(certificate.public_key());
                handle
                    .authenticate_certificate_with(
                        config.user.clone(),
                        certificate,
                        hash,
                        &mut agent,
                    )
                    .await
            }
            AgentIdentity::PublicKey { key, .. } => {
                let hash = rsa(key.key_data());
                handle
                    .authenticate_publickey_with(config.user.clone(), key, hash, &mut agent)
                    .await
            }
        };
        match accepted {
            Ok(r) if r.success() => return Ok(()),
            Ok(_) => {}
            Err(e) => tracing::warn!(alias, "ssh agent could not sign: {e}"),
        }
    }
    let detail = if passed_over.is_empty() {
        "no key of the ssh agent was accepted".to_string()
    } else {
        format!(
            "no key of the ssh agent was accepted; {}",
            passed_over.join(", ")
        )
    };
    Err(SshError::AuthFailed {
        alias: alias.to_string(),
        detail,
    })
}

/// Load a host's user certificate and check it can be used at `now` with `key`: before
/// connecting, so an expired one is named as such instead of a bare authentication failure.
fn load_certificate(
    alias: &str,
    path: &std::path::Path,
    key: &russh::keys::PrivateKey,
    now: std::time::SystemTime,
) -> Result<russh::keys::Certificate, SshError> {
    let refuse = |why: String| SshError::Certificate {
        alias: alias.to_string(),
        why,
    };
    let cert = russh::keys::load_openssh_certificate(path).map_err(|e| {
        tracing::error!(alias, file = %path.display(), "cannot load the user certificate: {e}");
        refuse("cannot be read as an OpenSSH certificate (the host log has the details)".into())
    })?;
    certificate_usable(&cert, key, now).map_err(refuse)?;
    Ok(cert)
}

/// Why `cert` cannot be presented with `key` at `now`, if it cannot.
fn certificate_usable(
    cert: &russh::keys::Certificate,
    key: &russh::keys::PrivateKey,
    now: std::time::SystemTime,
) -> Result<(), String> {
    if cert.public_key() != key.public_key().key_data() {
        return Err("certifies another key than its identity_file".into());
    }
    certificate_current(cert, now)
}

/// Why `cert` is not valid at `now` (expired, or not yet valid), if it is not.
fn certificate_current(
    cert: &russh::keys::Certificate,
    now: std::time::SystemTime,
) -> Result<(), String> {
    let shown = |t: Option<std::time::SystemTime>| {
        t.map_or_else(
            || "an unrepresentable time".to_string(),
            |t| humantime::format_rfc3339_seconds(t).to_string(),
        )
    };
    if cert.valid_before_time().is_some_and(|end| now >= end) {
        return Err(format!("expired at {}", shown(cert.valid_before_time())));
    }
    if cert.valid_after_time().is_some_and(|start| now < start) {
        return Err(format!(
            "is not valid before {}",
            shown(cert.valid_after_time())
        ));
    }
    Ok(())
}

/// Load (and decrypt, with the manifest's passphrase) a host's identity file. Errors name the
/// alias and the key's public fingerprint; the passphrase and the key's text stay here.
fn load_identity(
    alias: &str,
    path: &std::path::Path,
    passphrase: Option<&crate::manifest::SecretSource>,
) -> Result<russh::keys::PrivateKey, SshError> {
    let unreadable = |e: &dyn std::fmt::Display| {
        // The error names the problem (format, encryption), never the key's bytes.
        tracing::error!(alias, file = %path.display(), "cannot load identity file: {e}");
        SshError::Credentials(alias.to_string())
    };
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(&e))?;
    let pass_error = |detail: String| SshError::Passphrase {
        alias: alias.to_string(),
        key: public_fingerprint(&text),
        detail,
    };
    let passphrase = match passphrase.map(|p| p.resolve()) {
        None => None,
        Some(Ok(p)) => Some(p),
        Some(Err(why)) => {
            return Err(pass_error(format!(
                "its identity_passphrase is not available ({why})"
            )));
        }
    };
    match russh::keys::decode_secret_key(&text, passphrase.as_deref()) {
        Ok(key) => Ok(key),
        Err(russh::keys::Error::KeyIsEncrypted) => Err(pass_error(format!(
            "the key is encrypted; set identity_passphrase = {{ env = \"VAR\" }} in [ssh.hosts.{alias}]"
        ))),
        Err(e) if passphrase.is_some() && is_encrypted(&text) => {
            tracing::warn!(alias, file = %path.display(), "cannot decrypt identity file: {e}");
            Err(pass_error(format!(
                "the passphrase from identity_passphrase in [ssh.hosts.{alias}] is wrong"
            )))
        }
        Err(e) => Err(unreadable(&e)),
    }
}

/// An OpenSSH private key that carries a cipher.
fn is_encrypted(text: &str) -> bool {
    russh::keys::ssh_key::PrivateKey::from_openssh(text).is_ok_and(|k| k.is_encrypted())
}

/// The SHA-256 fingerprint of the public half of an OpenSSH private key (stored unencrypted
/// in the file), to name the key in errors.
fn public_fingerprint(text: &str) -> String {
    russh::keys::ssh_key::PrivateKey::from_openssh(text).map_or_else(
        |_| "of unknown type".to_string(),
        |k| {
            k.public_key()
                .fingerprint(russh::keys::HashAlg::Sha256)
                .to_string()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::SecretSource;

    /// `ssh-keygen -t ed25519 -N hunter2-pass`, made for this test only.
    fn encrypted_key(dir: &std::path::Path) -> Option<std::path::PathBuf> {
        let path = dir.join("id");
        let made = std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "hunter2-pass", "-C", "t", "-f"])
            .arg(&path)
            .status()
            .ok()?;
        made.success().then_some(path)
    }

    #[test]
    fn an_encrypted_identity_needs_its_passphrase() {
        let dir = std::env::temp_dir().join(format!("warden-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let Some(path) = encrypted_key(&dir) else {
            panic!("ssh-keygen is needed for this test");
        };
        let good = SecretSource::Literal("hunter2-pass".into());
        assert!(load_identity("web1", &path, Some(&good)).is_ok());

        let missing = load_identity("web1", &path, None).expect_err("no passphrase");
        let text = missing.to_string();
        assert!(
            text.contains("'web1'") && text.contains("SHA256:"),
            "{text}"
        );
        assert!(text.contains("identity_passphrase"), "{text}");

        let wrong = SecretSource::Literal("nope".into());
        let text = load_identity("web1", &path, Some(&wrong))
            .expect_err("wrong passphrase")
            .to_string();
        assert!(
            text.contains("is wrong") && text.contains("'web1'"),
            "{text}"
        );
        assert!(
            !text.contains("nope") && !text.contains("hunter2"),
            "{text}"
        );

        let unset = SecretSource::Env("WARDEN_TEST_UNSET_PASSPHRASE_VAR".into());
        let text = load_identity("web1", &path, Some(&unset))
            .expect_err("unset variable")
            .to_string();
        assert!(text.contains("WARDEN_TEST_UNSET_PASSPHRASE_VAR"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
