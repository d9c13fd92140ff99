//! Options the registry commands share: how to reach the registry and whose signatures to
//! accept, given on the command line (they mirror `[registries]` and `[trust]`).

use std::path::PathBuf;
use std::sync::Arc;
use warden::distribution::{
    self, Distribution, Fetched, OciRef, OciSource, RegistrySettings, Trust, TrustRoot,
    TrustedIdentity, TrustedKey,
};

/// Whose signatures to accept: keys, or one keyless identity (`[trust.keys]`,
/// `[trust.identities]`). None given: the signature is not checked.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TrustArgs {
    /// A public key to trust (repeatable).
    #[arg(long, value_name = "PUB")]
    pub key: Vec<PathBuf>,
    /// A keyless signer to trust: the e-mail or URI its certificate names (exactly).
    #[arg(long, requires_all = ["issuer", "trust_root"])]
    pub identity: Option<String>,
    /// The OpenID issuer that vouched for --identity.
    #[arg(long, requires = "identity")]
    pub issuer: Option<String>,
    /// The sigstore trusted_root.json that certifies --identity.
    #[arg(long, value_name = "FILE", requires = "identity")]
    pub trust_root: Option<PathBuf>,
}

impl TrustArgs {
    pub fn is_empty(&self) -> bool {
        self.key.is_empty() && self.identity.is_none()
    }

    pub fn trust(&self) -> anyhow::Result<Trust> {
        let mut keys = Vec::new();
        for path in &self.key {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "key".into());
            let pem = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("{}: cannot be read: {e}", path.display()))?;
            keys.push(
                TrustedKey::from_pem(&name, &pem)
                    .map_err(|e| anyhow::anyhow!("{} {e}", path.display()))?,
            );
        }
        let mut identities = Vec::new();
        if let (Some(identity), Some(issuer), Some(path)) =
            (&self.identity, &self.issuer, &self.trust_root)
        {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("{}: cannot be read: {e}", path.display()))?;
            let root =
                TrustRoot::parse(&text).map_err(|e| anyhow::anyhow!("{} {e}", path.display()))?;
            identities.push(TrustedIdentity {
                name: "identity".into(),
                identity: identity.clone(),
                issuer: issuer.clone(),
                root: Arc::new(root),
            });
        }
        Ok(Trust { keys, identities })
    }
}

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
    /// The registry's token service on another host, which may receive the credentials.
    #[arg(long, value_name = "URL")]
    pub token_realm: Option<url::Url>,
}

impl RegistryArgs {
    pub fn settings(&self) -> RegistrySettings {
        RegistrySettings {
            token_env: self.token_env.clone(),
            username: self.username.clone(),
            password_env: self.password_env.clone(),
            plain_http: self.plain_http,
            token_realm: self.token_realm.clone(),
        }
    }

    /// The registry named on the command line (so it may be in private network space),
    /// with `trust` as the accepted signers.
    pub fn distribution(&self, reference: &OciRef, trust: Trust) -> Distribution {
        Distribution {
            trust,
            registries: [(reference.registry.clone(), self.settings())].into(),
        }
    }
}

/// Pull `source` into the store (where `serve` finds it offline), checking its signature
/// when `trust` names a signer.
pub async fn fetch(
    source: &str,
    trust: &TrustArgs,
    registry: &RegistryArgs,
) -> anyhow::Result<(OciRef, Fetched)> {
    tls();
    let reference = reference(source)?;
    let dist = registry.distribution(&reference, trust.trust()?);
    let verify = !trust.is_empty();
    let fetched = distribution::fetch(
        &OciSource {
            reference: reference.clone(),
            verify,
        },
        &dist,
        &warden::manifest::cache_dir(),
    )
    .await
    .map_err(|e| anyhow::anyhow!("{}", dist.message(&e)))?;
    Ok((reference, fetched))
}

/// The line that says who signed what was pulled.
pub fn signer_line(fetched: &Fetched) -> String {
    match &fetched.signer {
        Some(s) => s.to_string(),
        None => {
            "signature not checked (give --key PUB, or --identity with --issuer and --trust-root, to check it)"
                .into()
        }
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
