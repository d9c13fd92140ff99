//! The plugin's settings from the admin's manifest (`[plugin.settings]`), through the
//! standard `wasi:config/store` interface. Always granted; read-only. A string setting reads
//! as it is written, any other value (number, table, array) as JSON text, so [`get_json`]
//! reads both. Settings are what the admin chose for this plugin; they are not secrets
//! (credentials stay in the host's grants) and are the same for every client.
//!
//! ```toml
//! [[plugin]]
//! name = "mine"
//! source = "mine.wasm"
//!
//! [plugin.settings]
//! greeting = "Hello"
//! limits = { rows = 50 }
//! ```
//!
//! ```no_run
//! use warden_sdk::prelude::*;
//! use warden_sdk::settings;
//!
//! #[derive(Deserialize)]
//! struct Limits { rows: u32 }
//!
//! fn greet(_: NoArgs) -> Result<String, ToolError> {
//!     let hello = settings::get("greeting")?.unwrap_or_else(|| "Hi".into());
//!     let rows = settings::get_json::<Limits>("limits")?.map_or(20, |l| l.rows);
//!     Ok(format!("{hello} ({rows} rows)"))
//! }
//! # fn main() {}
//! ```

use serde::de::DeserializeOwned;

use crate::ToolError;
use crate::bindings::wasi::config::store as wit;

/// Why a setting could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsError {
    /// The host could not read its settings (`wasi:config` `upstream` or `io` error).
    Unavailable(String),
    /// The setting is not the JSON shape asked for ([`get_json`]).
    Json { key: String, message: String },
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable(m) => write!(f, "the plugin's settings cannot be read: {m}"),
            Self::Json { key, message } => write!(
                f,
                "setting \"{key}\" in the manifest's [plugin.settings] is not as this plugin \
                 expects: {message}; ask the admin to correct it"
            ),
        }
    }
}

impl std::error::Error for SettingsError {}

impl From<wit::Error> for SettingsError {
    fn from(e: wit::Error) -> Self {
        match e {
            wit::Error::Upstream(m) | wit::Error::Io(m) => Self::Unavailable(m),
        }
    }
}

impl From<SettingsError> for ToolError {
    fn from(e: SettingsError) -> Self {
        ToolError::failed(e.to_string())
    }
}

/// The setting `key` as text (a string as written, another value as JSON), or `None`.
pub fn get(key: &str) -> Result<Option<String>, SettingsError> {
    Ok(wit::get(key)?)
}

/// The setting `key` decoded from JSON into `T`, or `None`. A string setting that is not
/// JSON decodes as a JSON string, so `get_json::<String>` reads any string setting.
pub fn get_json<T: DeserializeOwned>(key: &str) -> Result<Option<T>, SettingsError> {
    let Some(text) = get(key)? else {
        return Ok(None);
    };
    let value =
        serde_json::from_str::<serde_json::Value>(&text).unwrap_or(serde_json::Value::String(text));
    serde_json::from_value(value)
        .map(Some)
        .map_err(|e| SettingsError::Json {
            key: key.to_string(),
            message: e.to_string(),
        })
}

/// Every setting as `(key, text)`, sorted by key.
pub fn all() -> Result<Vec<(String, String)>, SettingsError> {
    let mut all = wit::get_all()?;
    all.sort();
    Ok(all)
}
