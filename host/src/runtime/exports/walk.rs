//! Which exported functions of a component are tools, and what they are called. A function
//! exported at world level (`export fetch: func(...)`) or by an exported interface
//! (`export my:pkg/weather`) is one tool; `wasi:` interfaces a component exports (a
//! command's `wasi:cli/run`, an HTTP handler) serve their host, not an agent, and are
//! skipped, as are a toolchain's own build-time exports (componentize-py's `init`). Names are
//! the function's in snake_case, qualified by the interface only when
//! two functions would share one.

use super::docs::Docs;
use super::schema::{self, Unsupported};
use crate::runtime::bindings::{Annotations, TaskSupport, ToolInfo};
use serde_json::json;
use std::collections::HashMap;
use wasmtime::Engine;
use wasmtime::component::types::{ComponentFunc, ComponentItem};
use wasmtime::component::{Component, ComponentExportIndex, Type};

/// MCP's limit on a tool name.
const MAX_NAME: usize = 64;

/// One exported function served as a tool.
pub struct Function {
    pub info: ToolInfo,
    /// The function it calls, as WIT: `my:pkg/web@1.0.0#fetch(url: string) -> string`.
    pub signature: String,
    pub index: ComponentExportIndex,
    pub params: Vec<(String, Type)>,
    pub result: Option<Type>,
}

/// Why a component's exports cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error(
        "exports function `{export}`, whose {place} is {why}; export functions of plain values (strings, numbers, records, lists, variants, options, results) and keep resources inside the component"
    )]
    Unsupported {
        export: String,
        place: String,
        why: Unsupported,
    },
    #[error(
        "exports function `{0}` as an async function, which this host does not call; export it as a plain (synchronous) function"
    )]
    Async(String),
    #[error(
        "exports both `{0}` and `{1}`, whose tool names are the same after snake_case; rename one of them"
    )]
    Collision(String, String),
}

/// A function found among the exports, before it is named.
struct Found {
    /// The interface's export name (`my:pkg/weather@1.0.0`), None at world level.
    interface: Option<String>,
    name: String,
    index: ComponentExportIndex,
    ty: ComponentFunc,
}

impl Found {
    fn export(&self) -> String {
        match &self.interface {
            Some(i) => format!("{i}#{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Is `func` of interface `interface` a toolchain's own export, called when the component is
/// built and never by a host? componentize-py leaves `exports#init(app-name, symbols,
/// stub-wasi)` in every component it makes (its pre-initialization entry, with a schema of
/// several KiB); an agent can do nothing with it.
fn toolchain_internal(interface: &str, func: &str, ty: &ComponentFunc) -> bool {
    let params: Vec<&str> = ty.params().map(|(name, _)| name).collect();
    interface == "exports" && func == "init" && params == ["app-name", "symbols", "stub-wasi"]
}

/// Every exported function of `component` as a tool, or why one of them cannot be.
pub fn functions(
    component: &Component,
    engine: &Engine,
    docs: &Docs,
) -> Result<Vec<Function>, WalkError> {
    let ty = component.component_type();
    let mut found = Vec::new();
    for (name, item) in ty.exports(engine) {
        match item.ty {
            ComponentItem::ComponentFunc(f) => {
                if let Some(index) = component.get_export_index(None, name) {
                    found.push(Found {
                        interface: None,
                        name: name.to_string(),
                        index,
                        ty: f,
                    });
                }
            }
            ComponentItem::ComponentInstance(instance) if !name.starts_with("wasi:") => {
                let Some(parent) = component.get_export_index(None, name) else {
                    continue;
                };
                for (func, item) in instance.exports(engine) {
                    if let ComponentItem::ComponentFunc(f) = item.ty
                        && !toolchain_internal(name, func, &f)
                        && let Some(index) = component.get_export_index(Some(&parent), func)
                    {
                        found.push(Found {
                            interface: Some(name.to_string()),
                            name: func.to_string(),
                            index,
                            ty: f,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let names = tool_names(&found)?;
    found
        .into_iter()
        .zip(names)
        .map(|(f, name)| function(f, name, docs))
        .collect()
}

fn function(found: Found, name: String, docs: &Docs) -> Result<Function, WalkError> {
    let export = found.export();
    if found.ty.async_() {
        return Err(WalkError::Async(export));
    }
    let unsupported = |place: String, why| WalkError::Unsupported {
        export: export.clone(),
        place,
        why,
    };
    let params: Vec<(String, Type)> = found.ty.params().map(|(n, t)| (n.to_string(), t)).collect();
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for (param, ty) in &params {
        let schema =
            schema::of(ty).map_err(|why| unsupported(format!("parameter `{param}`"), why))?;
        properties.insert(param.clone(), schema);
        if !matches!(ty, Type::Option(_)) {
            required.push(param.clone());
        }
    }
    let input = json!({
        "type": "object", "properties": properties, "required": required,
        "additionalProperties": false
    });
    let result = found.ty.results().next();
    let output = match &result {
        Some(ty) => {
            // A `result` return is the tool's success or error: only its `ok` side is output.
            let shown = match ty {
                Type::Result(r) => r.ok(),
                other => Some(other.clone()),
            };
            let result_schema = match &shown {
                Some(t) => schema::of_result(t),
                None => Ok(json!({"type": "null"})),
            }
            .map_err(|why| unsupported("result".into(), why))?;
            if let Type::Result(r) = ty
                && let Some(err) = r.err()
            {
                schema::of_result(&err).map_err(|why| unsupported("error type".into(), why))?;
            }
            Some(json!({
                "type": "object", "properties": {"result": result_schema}, "required": ["result"]
            }))
        }
        None => None,
    };
    let short = found.interface.as_deref().map(short_interface);
    let signature = signature(&found, &params, result.as_ref());
    let description = docs
        .of(short, &found.name)
        .map(str::to_string)
        .unwrap_or_else(|| match &found.interface {
            Some(i) => {
                format!("Calls `{signature}`, exported by interface `{i}` of this component.")
            }
            None => format!("Calls `{signature}`, exported by this component."),
        });
    Ok(Function {
        signature: match &found.interface {
            Some(i) => format!("{i}#{signature}"),
            None => signature,
        },
        info: ToolInfo {
            name,
            title: None,
            description,
            input_schema: input.to_string(),
            output_schema: output.map(|o| o.to_string()),
            // Nothing is known of what the function does: MCP's cautious defaults.
            annotations: Annotations {
                read_only: false,
                destructive: true,
                idempotent: false,
                open_world: true,
            },
            task: TaskSupport::Never,
        },
        index: found.index,
        params,
        result,
    })
}

/// `fetch(url: string) -> result<string, string>`.
fn signature(found: &Found, params: &[(String, Type)], result: Option<&Type>) -> String {
    format!(
        "{}({}){}",
        found.name,
        params
            .iter()
            .map(|(n, t)| format!("{n}: {}", schema::wit(t)))
            .collect::<Vec<_>>()
            .join(", "),
        result
            .map(|t| format!(" -> {}", schema::wit(t)))
            .unwrap_or_default()
    )
}

/// `weather` of `my:pkg/weather@1.0.0`; a plain name stays as it is.
fn short_interface(name: &str) -> &str {
    let name = name.split('@').next().unwrap_or(name);
    name.rsplit('/').next().unwrap_or(name)
}

/// A WIT name as a tool name: kebab-case to snake_case, a resource's `[static]r.f` as `r_f`.
fn snake(name: &str) -> String {
    let name = name
        .strip_prefix("[static]")
        .or_else(|| name.strip_prefix("[method]"))
        .or_else(|| name.strip_prefix("[constructor]"))
        .unwrap_or(name);
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// One name per function: the function's own, else qualified by its interface, else by the
/// whole interface name; within MCP's 64 characters (a longer one keeps its head and a
/// hash of the whole, so it stays unique).
fn tool_names(found: &[Found]) -> Result<Vec<String>, WalkError> {
    let plain: Vec<String> = found.iter().map(|f| snake(&f.name)).collect();
    let qualified: Vec<String> = found
        .iter()
        .zip(&plain)
        .map(|(f, p)| match &f.interface {
            Some(i) => format!("{}_{p}", snake(short_interface(i))),
            None => p.clone(),
        })
        .collect();
    let full: Vec<String> = found
        .iter()
        .zip(&plain)
        .map(|(f, p)| match &f.interface {
            Some(i) => format!("{}_{p}", snake(i.split('@').next().unwrap_or(i))),
            None => p.clone(),
        })
        .collect();
    let unique = |names: &[String], n: &str| names.iter().filter(|x| *x == n).count() == 1;
    let names: Vec<String> = (0..found.len())
        .map(|i| {
            let name = if unique(&plain, &plain[i]) {
                &plain[i]
            } else if unique(&qualified, &qualified[i]) {
                &qualified[i]
            } else {
                &full[i]
            };
            shorten(name.clone())
        })
        .collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, name) in names.iter().enumerate() {
        if let Some(&first) = seen.get(name.as_str()) {
            let export = |k: usize| found.get(k).map(Found::export).unwrap_or_default();
            return Err(WalkError::Collision(export(first), export(i)));
        }
        seen.insert(name, i);
    }
    Ok(names)
}

fn shorten(name: String) -> String {
    if name.len() <= MAX_NAME {
        return name;
    }
    // FNV-1a: stable across builds, enough to tell a few long names apart.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let head: String = name.chars().take(MAX_NAME - 9).collect();
    format!("{head}_{:08x}", hash & 0xffff_ffff)
}

#[cfg(test)]
mod tests {
    use super::{short_interface, shorten, snake};

    #[test]
    fn names_are_snake_case_and_fit_mcp() {
        assert_eq!(snake("get-forecast"), "get_forecast");
        assert_eq!(snake("[static]counter.make"), "counter_make");
        assert_eq!(short_interface("my:pkg/weather@1.0.0"), "weather");
        assert_eq!(short_interface("weather"), "weather");
        let long = "x".repeat(80);
        let short = shorten(long.clone());
        assert_eq!(short.len(), 64);
        assert_ne!(short, shorten(format!("{long}y")));
    }
}
