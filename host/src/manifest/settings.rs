//! `[plugin.settings]`: what the admin sets for one plugin, handed to it through
//! `wasi:config/store`. A string setting is passed as written, any other value as JSON text.
//! Settings are configuration, not privileges: the plugin reads them without a grant, so
//! they must not hold credentials (those stay in the host's grants and secrets).

use super::validate::Validator;
use std::collections::BTreeMap;
use std::sync::Arc;
use toml::Spanned;

/// A plugin's settings, key -> text as the plugin reads it.
pub type Settings = Arc<BTreeMap<String, String>>;

/// Settings are read on every instantiation's calls and kept in memory once per plugin: they
/// are configuration, not a data store.
const MAX_SETTINGS_BYTES: usize = 256 * 1024;

impl Validator<'_> {
    pub(super) fn settings(&mut self, spec: Option<Spanned<toml::Table>>) -> Settings {
        let Some(spec) = spec else {
            return Settings::default();
        };
        let span = spec.span();
        let mut settings = BTreeMap::new();
        let mut bytes = 0;
        for (key, value) in spec.into_inner() {
            let text = match value {
                toml::Value::String(s) => s,
                other => json(other).to_string(),
            };
            bytes += key.len() + text.len();
            settings.insert(key, text);
        }
        if bytes > MAX_SETTINGS_BYTES {
            self.error(
                span,
                format!(
                    "settings take {bytes} bytes; at most {MAX_SETTINGS_BYTES} are allowed: keep \
                     large data in a file the plugin is granted, and name it here"
                ),
            );
        }
        Arc::new(settings)
    }
}

/// A TOML value as JSON; a date or time becomes its RFC 3339 text.
fn json(value: toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        toml::Value::String(s) => J::String(s),
        toml::Value::Integer(i) => J::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f).map_or(J::Null, J::Number),
        toml::Value::Boolean(b) => J::Bool(b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(a.into_iter().map(json).collect()),
        toml::Value::Table(t) => J::Object(t.into_iter().map(|(k, v)| (k, json(v))).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::json;

    #[test]
    fn values_become_the_json_a_plugin_expects() {
        let table: toml::Table = toml::from_str(
            "n = 3\nf = 1.5\nd = 2026-11-27T01:02:03Z\nt = { a = [1, \"x\", true] }",
        )
        .expect("toml");
        let got = json(toml::Value::Table(table));
        assert_eq!(
            got,
            serde_json::json!({"n": 3, "f": 1.5, "d": "2026-11-27T01:02:03Z", "t": {"a": [1, "x", true]}})
        );
    }
}
