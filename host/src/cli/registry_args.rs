//! Options the registry commands share: how to reach the registry and whose signatures to
//! accept, given on the command line (they mirror `[registries]` and `[trust]`).

use std::path::PathBuf;
use std::sync::Arc;
use warden::audit::{self, AuditLog, Outcome, Record};
use warden::distribution::{
    self, Distribution, FetchError, Fetched, OciRef, OciSource, RegistrySettings, Trust, TrustRoot,
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
    /// Write one audit line for the command to this manifest's [server] audit_log: what was
    /// pushed or pulled, or why the registry's answer was refused.
    #[arg(long, short, env = "WARDEN_MANIFEST", value_name = "MANIFEST")]
    pub manifest: Option<PathBuf>,
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
            ..Distribution::default()
        }
    }
}

/// The audit log a registry command writes its line to: the `--manifest`'s, or none.
pub struct Audit(Option<AuditLog>);

impl Audit {
    pub fn open(registry: &RegistryArgs) -> anyhow::Result<Self> {
        let Some(manifest) = &registry.manifest else {
            return Ok(Self(None));
        };
        let path =
            warden::manifest::Manifest::load(Some(manifest), &warden::builtin::names())?.audit_log;
        Ok(Self(Some(AuditLog::open(&path)?)))
    }

    /// `event` (`plugin_push`, `plugin_pull`) of `reference` ended: `Ok(pinned reference,
    /// what was done)`, or refused for `Err(e)`, whose text is the one the terminal shows
    /// (bounded and scrubbed of the registry's credentials by `dist`).
    pub fn record(
        &self,
        event: &'static str,
        reference: &OciRef,
        result: Result<(&str, &str), &FetchError>,
        dist: &Distribution,
    ) {
        let Some(log) = &self.0 else { return };
        let shown = reference.to_string();
        let message;
        let record = match result {
            Ok((pinned, detail)) => Record {
                decision: "allowed",
                target: Some(pinned),
                detail: Some(detail),
                ..Record::default()
            },
            Err(e) => {
                message = dist.message(e);
                Record {
                    decision: "denied",
                    outcome: Outcome::Denied,
                    target: Some(&shown),
                    reason: Some(&message),
                    error: Some(e.kind()),
                    ..Record::default()
                }
            }
        };
        log.write(&Record {
            ts: audit::now(),
            event,
            plugin: &reference.repository,
            capability: Some("oci"),
            ..record
        });
    }
}

/// Pull `source` into the store (where `serve` finds it offline), checking its signature
/// when `trust` names a signer; audited as `plugin_pull` when `--manifest` is given.
pub async fn fetch(
    source: &str,
    trust: &TrustArgs,
    registry: &RegistryArgs,
) -> anyhow::Result<(OciRef, Fetched)> {
    tls();
    let reference = reference(source)?;
    let audit = Audit::open(registry)?;
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
    .await;
    match fetched {
        Ok(fetched) => {
            let pinned = reference.pinned(&fetched.digest).to_string();
            audit.record(
                "plugin_pull",
                &reference,
                Ok((&pinned, &signer_line(&fetched))),
                &dist,
            );
            Ok((reference, fetched))
        }
        Err(e) => {
            audit.record("plugin_pull", &reference, Err(&e), &dist);
            Err(anyhow::anyhow!("{}", dist.message(&e)))
        }
    }
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
