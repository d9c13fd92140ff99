//! A connection to one repository of one registry ([`Connection`], opened by [`connect`]):
//! its checked destination, its credentials read from the environment, its deadlines. The
//! requests it makes are `client.rs`; the token realm's part is `auth.rs`.

use super::config::{Deadlines, Distribution, RegistrySettings};
use super::destination::{self, Hop, Named, Origin};
use super::error::FetchError;
use super::reference::OciRef;
use super::said::Said;
use crate::scrub::Secrets;
use reqwest::header::HeaderValue;
use std::sync::Mutex;
use url::Url;

/// What the connection will do: the token scope it asks a realm for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Pull,
    Push,
}

/// The credentials of one registry, as configured.
pub(super) enum Credentials {
    Anonymous,
    Basic { user: String, password: String },
    Bearer(String),
}

/// A connection to one repository of one registry.
pub struct Connection {
    /// `HOST[:PORT]` as the reference writes it.
    pub(super) registry: String,
    pub(super) repository: String,
    pub(super) access: Access,
    /// `scheme://HOST:PORT/`.
    pub(super) base: Url,
    pub(super) origin: Origin,
    pub(super) credentials: Credentials,
    pub(super) token_realm: Option<Url>,
    pub(super) named: Named,
    /// Pinned to the registry's checked addresses.
    pub(super) client: reqwest::Client,
    pub(super) deadlines: Deadlines,
    /// What is presented to the registry, once a challenge said which (or a static token).
    pub(super) presented: Mutex<Option<HeaderValue>>,
    /// Every credential of this connection, tokens the realm issued included.
    pub(super) scrubber: Mutex<Secrets>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Connection({}/{})", self.registry, self.repository)
    }
}

/// A connection to `reference`'s repository, with the settings `dist` names for its registry.
/// A registry not named there is reached over HTTPS, anonymously, at public addresses only.
pub async fn connect(
    reference: &OciRef,
    dist: &Distribution,
    access: Access,
) -> Result<Connection, FetchError> {
    let settings = dist.registries.get(&reference.registry);
    let plain = settings.is_some_and(|s| s.plain_http);
    let registry = reference.registry.clone();
    let base = Url::parse(&format!(
        "{}://{registry}/",
        if plain { "http" } else { "https" }
    ))
    .ok()
    .and_then(|u| Origin::of(&u).map(|o| (u, o)));
    let Some((base, origin)) = base else {
        return Err(FetchError::Registry {
            registry,
            message: Said::ours("not a host name or address"),
        });
    };
    let credentials = credentials(&registry, settings)?;
    let mut scrubber = Secrets::default();
    match &credentials {
        Credentials::Anonymous => {}
        Credentials::Basic { user, password } => {
            scrubber.add(password);
            scrubber.add(&format!("{user}:{password}"));
        }
        Credentials::Bearer(token) => scrubber.add(token),
    }
    let token_realm = settings.and_then(|s| s.token_realm.clone());
    let named = Named::new(
        dist.registries
            .iter()
            .map(|(key, s)| (key.as_str(), s.plain_http)),
        token_realm.as_ref(),
    );
    let client = destination::connect(&registry, &origin, Hop::Registry, &named, &scrubber).await?;
    let presented = match &credentials {
        // A static token is the registry's own credential: presented from the first request.
        Credentials::Bearer(token) => HeaderValue::from_str(&format!("Bearer {token}")).ok(),
        _ => None,
    };
    Ok(Connection {
        registry,
        repository: reference.repository.clone(),
        access,
        base,
        origin,
        credentials,
        token_realm,
        named,
        client,
        deadlines: dist.deadlines,
        presented: Mutex::new(presented),
        scrubber: Mutex::new(scrubber),
    })
}

pub(super) fn credentials(
    registry: &str,
    settings: Option<&RegistrySettings>,
) -> Result<Credentials, FetchError> {
    let Some(s) = settings else {
        return Ok(Credentials::Anonymous);
    };
    let read = |var: &str| {
        std::env::var(var).map_err(|_| FetchError::Credentials {
            registry: registry.to_string(),
            var: var.to_string(),
        })
    };
    Ok(match (&s.token_env, &s.username, &s.password_env) {
        (Some(var), _, _) => Credentials::Bearer(read(var)?),
        (None, Some(user), Some(var)) => Credentials::Basic {
            user: user.clone(),
            password: read(var)?,
        },
        _ => Credentials::Anonymous,
    })
}
