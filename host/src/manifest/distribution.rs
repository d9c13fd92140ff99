//! `[trust]`, `[registries]` and `oci://` sources: checked when the manifest loads, so a
//! missing key file, an unpinned tag or a registry typo is an error with its line, before
//! anything is pulled.

use super::owned::Reach;
use super::schema::{IdentitySpec, PluginEntry, RegistrySpec, TrustSection};
use super::source::PluginSource;
use super::validate::{Validator, valid_name};
use crate::distribution::{
    Distribution, OciRef, OciSource, RegistrySettings, Trust, TrustRoot, TrustedIdentity,
    TrustedKey,
};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use toml::Spanned;

impl Validator<'_> {
    pub(super) fn distribution(
        &mut self,
        trust: TrustSection,
        registries: BTreeMap<String, Spanned<RegistrySpec>>,
    ) -> Distribution {
        let mut keys = Vec::new();
        for (name, path) in trust.keys {
            if !valid_name(&name) {
                self.error(
                    path.span(),
                    format!("trust.keys: name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"),
                );
                continue;
            }
            let file = self.resolve_owned(
                path.get_ref(),
                &format!("trust.keys.{name}"),
                Reach::Integrity,
            );
            let loaded = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot be read: {e}"))
                .and_then(|pem| TrustedKey::from_pem(&name, &pem).map_err(|e| e.to_string()));
            match loaded {
                Ok(key) => keys.push(key),
                Err(why) => self.error(
                    path.span(),
                    format!("trust.keys.{name}: {} {why}", file.display()),
                ),
            }
        }
        let identities = self.identities(trust.identities);
        let mut settings = BTreeMap::new();
        for (registry, spec) in registries {
            let span = spec.span();
            let spec = spec.into_inner();
            if OciRef::parse(&format!("oci://{registry}/r:t")).is_err() {
                self.error(
                    span.clone(),
                    format!("registries: \"{registry}\" is not HOST or HOST:PORT; write it like [registries.\"registry.internal:5000\"]"),
                );
            }
            match (&spec.token_env, &spec.username, &spec.password_env) {
                (Some(_), None, None) | (None, None, None) | (None, Some(_), Some(_)) => {}
                (Some(_), _, _) => self.error(
                    span.clone(),
                    format!("registries.\"{registry}\": set token_env or username and password_env, not both"),
                ),
                _ => self.error(
                    span.clone(),
                    format!("registries.\"{registry}\": username and password_env go together (the password is read from that environment variable)"),
                ),
            }
            let token_realm = match spec.token_realm.as_deref().map(url::Url::parse) {
                None => None,
                Some(Ok(url))
                    if matches!(url.scheme(), "https" | "http") && url.host().is_some() =>
                {
                    Some(url)
                }
                Some(_) => {
                    self.error(
                        span.clone(),
                        format!("registries.\"{registry}\": token_realm must be an http(s) URL, like \"https://auth.example.com/token\""),
                    );
                    None
                }
            };
            settings.insert(
                registry,
                RegistrySettings {
                    token_env: spec.token_env,
                    username: spec.username,
                    password_env: spec.password_env,
                    plain_http: spec.plain_http,
                    token_realm,
                },
            );
        }
        Distribution {
            trust: Trust { keys, identities },
            registries: settings,
            ..Distribution::default()
        }
    }

    /// `[trust.identities]`, each trust root read once however many identities name it.
    fn identities(
        &mut self,
        specs: BTreeMap<String, Spanned<IdentitySpec>>,
    ) -> Vec<TrustedIdentity> {
        let mut roots: BTreeMap<PathBuf, Option<Arc<TrustRoot>>> = BTreeMap::new();
        let mut out = Vec::new();
        for (name, spec) in specs {
            let span = spec.span();
            let spec = spec.into_inner();
            if !valid_name(&name) {
                self.error(
                    span,
                    format!("trust.identities: name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"),
                );
                continue;
            }
            if spec.identity.trim().is_empty() || spec.issuer.trim().is_empty() {
                self.error(
                    span,
                    format!("trust.identities.{name}: identity and issuer must not be empty (they are matched exactly)"),
                );
                continue;
            }
            let file = self.resolve_owned(
                &spec.trust_root,
                "a registry's trust root",
                Reach::Integrity,
            );
            let root = match roots.get(&file) {
                Some(loaded) => loaded.clone(),
                None => {
                    let loaded = std::fs::read_to_string(&file)
                        .map_err(|e| format!("cannot be read: {e}"))
                        .and_then(|text| TrustRoot::parse(&text).map_err(|e| e.to_string()));
                    let loaded = match loaded {
                        Ok(root) => Some(Arc::new(root)),
                        Err(why) => {
                            self.error(
                                span.clone(),
                                format!(
                                    "trust.identities.{name}: trust_root {} {why}",
                                    file.display()
                                ),
                            );
                            None
                        }
                    };
                    roots.insert(file, loaded.clone());
                    loaded
                }
            };
            if let Some(root) = root {
                out.push(TrustedIdentity {
                    name,
                    identity: spec.identity,
                    issuer: spec.issuer,
                    root,
                });
            }
        }
        out
    }

    /// An `oci://` source with its `verify` and `allow_unpinned` rules checked.
    pub(super) fn oci_source(
        &mut self,
        entry: &PluginEntry,
        distribution: &Distribution,
    ) -> PluginSource {
        let raw = entry.source.get_ref();
        let reference = match OciRef::parse(raw) {
            Ok(r) => r,
            Err(e) => {
                self.error(entry.source.span(), e.to_string());
                // Never loaded: the error above makes the manifest invalid.
                return PluginSource::Native(String::new());
            }
        };
        let verify = entry.verify.as_ref().is_none_or(|v| *v.get_ref());
        let unpinned_ok = entry.allow_unpinned.as_ref().is_some_and(|v| *v.get_ref());
        if reference.digest.is_none() && !unpinned_ok {
            self.error(
                entry.source.span(),
                format!("{raw} names no digest, so what runs could change under you: pin it as {raw}@sha256:<digest> (`warden plugin pull {raw}` prints it), or set allow_unpinned = true"),
            );
        }
        if verify && distribution.trust.is_empty() {
            self.error(
                entry.source.span(),
                format!("plugin '{}' is verified (verify defaults to true for oci:// sources) but [trust] names no key or identity; add the signer's public key under [trust.keys] or its identity under [trust.identities], or set verify = false", entry.name.get_ref()),
            );
        }
        PluginSource::Oci(OciSource { reference, verify })
    }

    /// `verify` and `allow_unpinned` mean something only for `oci://` sources.
    pub(super) fn oci_only(&mut self, entry: &PluginEntry) {
        for (key, value) in [
            ("verify", &entry.verify),
            ("allow_unpinned", &entry.allow_unpinned),
        ] {
            if let Some(v) = value {
                self.error(
                    v.span(),
                    format!(
                        "{key} applies to oci:// sources only; remove it from plugin '{}'",
                        entry.name.get_ref()
                    ),
                );
            }
        }
    }
}
