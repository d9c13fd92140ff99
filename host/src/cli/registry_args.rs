//! Options the registry commands share: how to reach the registry and whose signatures to
//! accept, given on the command line (they mirror `[registries]` and `[trust.keys]`).

use std::path::PathBuf;
use warden::distribution::{
    self, Distribution, Fetched, OciRef, OciSource, RegistrySettings, TrustedKey,
};

#[derive(clap::Args, Debug, Clone)]
pub struct RegistryArgs {
    /// Speak plain HTTP to the registry (one on this machine or a lab network).
    #[arg(long)]
    pub plain_http: bool,
    /// Environment variable holding a bearer token for the registry.
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// User for basic authentication; the password is read from --password-env.
    #[arg(long, requires = "password_env")]
    pub username: Option<String>,
    /// Environment variable holding the basic-authentication password.
    #[arg(long, value_name = "VAR")]
    pub password_env: Option<String>,
}

impl RegistryArgs {
    pub fn settings(&self) -> RegistrySettings {
        RegistrySettings {
            token_env: self.token_env.clone(),
            username: self.username.clone(),
            password_env: self.password_env.clone(),
            plain_http: self.plain_http,
        }
    }

    /// The registry named on the command line (so it may be in private network space),
    /// with `keys` as the trusted signers.
    pub fn distribution(
        &self,
        reference: &OciRef,
        keys: &[PathBuf],
    ) -> anyhow::Result<Distribution> {
        let mut trust = Vec::new();
        for path in keys {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "key".into());
            let pem = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("{}: cannot be read: {e}", path.display()))?;
            trust.push(
                TrustedKey::from_pem(&name, &pem)
                    .map_err(|e| anyhow::anyhow!("{} {e}", path.display()))?,
            );
        }
        Ok(Distribution {
            trust,
            registries: [(reference.registry.clone(), self.settings())].into(),
        })
    }
}

/// Pull `source` into the store (where `serve` finds it offline), checking its signature
/// when `keys` are given.
pub async fn fetch(
    source: &str,
    keys: &[PathBuf],
    registry: &RegistryArgs,
) -> anyhow::Result<(OciRef, Fetched)> {
    tls();
    let reference = reference(source)?;
    let dist = registry.distribution(&reference, keys)?;
    let verify = !keys.is_empty();
    let fetched = distribution::fetch(
        &OciSource {
            reference: reference.clone(),
            verify,
        },
        &dist,
        &warden::manifest::cache_dir(),
    )
    .await?;
    Ok((reference, fetched))
}

/// The line that says who signed what was pulled.
pub fn signer_line(fetched: &Fetched) -> String {
    match &fetched.signer {
        Some(s) => format!("signed by key '{}' ({})", s.key, s.fingerprint),
        None => "signature not checked (give --key PUB to check it)".into(),
    }
}

/// `text` as an `oci://` reference, or an error that shows the form.
pub fn reference(text: &str) -> anyhow::Result<OciRef> {
    OciRef::parse(text).map_err(|e| anyhow::anyhow!("{e}"))
}

/// The process-wide TLS provider, as `serve` installs it.
pub fn tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
