//! Function descriptions from the component's own WIT docs: the `package-docs` custom
//! section that wit-component writes beside a WIT package (version byte, then JSON; the
//! shape is wit-parser's `PackageMetadata`). Toolchains that keep it (in the component or in
//! the `component-type` section a guest's bindings embed) give their doc comments to the
//! agent; for the rest the description is generated from the signature.

use serde_json::Value;
use std::collections::HashMap;
use wasmparser::{Parser, Payload};

const SECTION: &str = "package-docs";

/// Bytes of docs read at most, whatever the component says: descriptions are short.
const MAX_SECTION: usize = 256 * 1024;

/// Doc comments by function: `(interface or None for the world, function) -> text`.
#[derive(Debug, Default)]
pub struct Docs {
    by_function: HashMap<(Option<String>, String), String>,
}

impl Docs {
    /// Every `package-docs` section of `bytes`, nested ones included; unreadable sections
    /// are skipped (docs are a courtesy, never a reason to refuse a component).
    pub fn read(bytes: &[u8]) -> Self {
        let mut docs = Self::default();
        docs.scan(bytes, 0);
        docs
    }

    fn scan(&mut self, bytes: &[u8], depth: usize) {
        for payload in Parser::new(0).parse_all(bytes).map_while(Result::ok) {
            let Payload::CustomSection(section) = payload else {
                continue;
            };
            let data = section.data();
            if section.name() == SECTION && data.len() <= MAX_SECTION {
                if let Some(json) = data
                    .split_first()
                    .filter(|(version, _)| **version <= 1)
                    .and_then(|(_, json)| serde_json::from_slice::<Value>(json).ok())
                {
                    self.add(&json);
                }
            } else if section.name().starts_with("component-type") && depth < 2 {
                // A guest's embedded WIT: itself a component with its own package-docs.
                self.scan(data, depth + 1);
            }
        }
    }

    fn add(&mut self, package: &Value) {
        let funcs = |v: &Value, key: &str| -> Vec<(String, String)> {
            v.get(key)
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .filter_map(|(name, meta)| {
                            let text = meta
                                .as_str()
                                .or_else(|| meta.get("docs").and_then(Value::as_str))?;
                            Some((name.clone(), text.to_string()))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let objects = |v: &Value, key: &str| -> Vec<(String, Value)> {
            v.get(key)
                .and_then(Value::as_object)
                .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default()
        };
        for (iface, meta) in objects(package, "interfaces") {
            for (func, text) in funcs(&meta, "funcs") {
                self.by_function
                    .entry((Some(iface.clone()), func))
                    .or_insert(text);
            }
        }
        for (_, world) in objects(package, "worlds") {
            for key in ["funcs", "func_exports"] {
                for (func, text) in funcs(&world, key) {
                    self.by_function.entry((None, func)).or_insert(text);
                }
            }
            for key in ["interfaces", "interface_exports"] {
                for (iface, meta) in objects(&world, key) {
                    for (func, text) in funcs(&meta, "funcs") {
                        self.by_function
                            .entry((Some(iface.clone()), func))
                            .or_insert(text);
                    }
                }
            }
        }
    }

    /// The doc comment of `function`, exported at world level (`interface` None) or by the
    /// interface whose short name (`weather` of `my:pkg/weather@1.0.0`) is given.
    pub fn of(&self, interface: Option<&str>, function: &str) -> Option<&str> {
        self.by_function
            .get(&(interface.map(str::to_string), function.to_string()))
            .map(String::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }
}
