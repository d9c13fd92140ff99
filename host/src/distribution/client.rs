//! Talking to one registry: its settings from `[registries."HOST:PORT"]`, credentials read
//! from the environment when used (never from the manifest), and the address rule: a
//! registry whose name resolves into private network space is reached only when the admin
//! named it.

use super::FetchError;
use super::reference::OciRef;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::secrets::RegistryAuth;
use std::time::Duration;

/// One `[registries."HOST:PORT"]` entry.
#[derive(Debug, Clone, Default)]
pub struct RegistrySettings {
    /// A bearer token is read from this environment variable.
    pub token_env: Option<String>,
    /// Basic authentication: the user, with the password read from `password_env`.
    pub username: Option<String>,
    pub password_env: Option<String>,
    /// Speak plain HTTP (a registry on this machine or a lab network).
    pub plain_http: bool,
}

/// A client for one registry, with the credentials to present.
pub struct Connection {
    pub client: oci_client::Client,
    pub auth: RegistryAuth,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Connection")
    }
}

/// The client for `reference`'s registry. `settings` is its `[registries]` entry, if named.
pub fn connect(
    reference: &OciRef,
    settings: Option<&RegistrySettings>,
) -> Result<Connection, FetchError> {
    let plain = settings.is_some_and(|s| s.plain_http);
    let config = ClientConfig {
        protocol: if plain {
            ClientProtocol::Http
        } else {
            ClientProtocol::Https
        },
        connect_timeout: Some(Duration::from_secs(10)),
        read_timeout: Some(Duration::from_secs(60)),
        user_agent: concat!("warden/", env!("CARGO_PKG_VERSION")),
        ..Default::default()
    };
    Ok(Connection {
        client: oci_client::Client::new(config),
        auth: credentials(&reference.registry, settings)?,
    })
}

fn credentials(
    registry: &str,
    settings: Option<&RegistrySettings>,
) -> Result<RegistryAuth, FetchError> {
    let Some(s) = settings else {
        return Ok(RegistryAuth::Anonymous);
    };
    let read = |var: &str| {
        std::env::var(var).map_err(|_| FetchError::Credentials {
            registry: registry.to_string(),
            var: var.to_string(),
        })
    };
    Ok(match (&s.token_env, &s.username, &s.password_env) {
        (Some(var), _, _) => RegistryAuth::Bearer(read(var)?),
        (None, Some(user), Some(var)) => RegistryAuth::Basic(user.clone(), read(var)?),
        _ => RegistryAuth::Anonymous,
    })
}

/// Refuse a registry that resolves into private network space unless `named`.
pub async fn admit(reference: &OciRef, named: bool, plain_http: bool) -> Result<(), FetchError> {
    if named {
        return Ok(());
    }
    let addrs = crate::net::resolve(reference.host(), reference.port(plain_http))
        .await
        .map_err(|e| FetchError::Registry {
            registry: reference.registry.clone(),
            message: e.to_string(),
        })?;
    match addrs
        .iter()
        .find(|a| !crate::net::addr::classify(a.ip()).is_public())
    {
        Some(addr) => Err(FetchError::PrivateRegistry {
            registry: reference.registry.clone(),
            addr: addr.ip().to_string(),
            class: crate::net::addr::classify(addr.ip()).to_string(),
        }),
        None => Ok(()),
    }
}
