//! Scripted flows: `script_run` runs browser steps (navigate, fill, click, wait, extract...)
//! in one call and stops at the first that fails, with the page as it is then; `script_load`
//! keeps a named flow for the agent's later calls, `script_list` lists them.
//!
//! The admin may ship named flows in the manifest (`[plugin.settings.flows.NAME]`, read
//! through `wasi:config/store`); they run like kept ones, with the same tools and checks, and
//! an agent cannot replace them. A flow's string arguments may hold `${param}` placeholders,
//! filled from `script_run`'s `params`.
//!
//! A step is a `browse_*` tool call: `{"do": "click", "ref": 5}` is `browse_click {"ref": 5}`.
//! It may name its element instead of giving a ref (`{"do": "click", "name": "Sign in",
//! "role": "button"}`): the flow was written before the page existed. Each step runs through
//! the tool itself, so its checks, the host's guards and the audit are those of the tool.

use crate::memory;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use warden_sdk::context;
use warden_sdk::prelude::*;
use warden_sdk::settings;
use warden_sdk::state as kept;

/// A flow longer than this is split into several.
const MAX_STEPS: usize = 50;
/// At most this many flows are kept per agent.
const MAX_FLOWS: usize = 32;
/// Where flows are kept (`flow/NAME`), beside the tabs' state.
const PREFIX: &str = "flow/";
/// The answer's text after each step is cut to this many characters; the last step's is whole.
const STEP_ECHO: usize = 160;

/// Tools a step may call: every `browse_*` tool whose answer is text, and that acts on the
/// current tab (no screenshots, no flows within flows).
const STEP_TOOLS: &[&str] = &[
    "navigate",
    "back",
    "forward",
    "reload",
    "snapshot",
    "find",
    "wait_for",
    "click",
    "hover",
    "type",
    "press_key",
    "select",
    "fill",
    "scroll",
    "extract",
    "dialog",
    "eval_js",
    "search",
];

/// One step of a flow.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Step {
    /// The browse_* tool without its prefix: navigate, click, fill, select, type, press_key,
    /// wait_for, extract, snapshot, find, hover, scroll, back, reload, dialog, eval_js, search.
    #[serde(rename = "do")]
    action: String,
    /// Instead of ref: the element's exact name as the snapshot shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// With name: its role (button, link, textbox...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    role: Option<String>,
    /// The tool's own arguments (url, ref, value, secret, key, text, values, format...).
    #[serde(flatten)]
    args: Map<String, Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    /// Steps to run, in order; or give name.
    steps: Option<Vec<Step>>,
    /// A flow kept with script_load or shipped by the admin (see script_list).
    name: Option<String>,
    /// Values for the flow's `${param}` placeholders.
    #[serde(default)]
    params: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LoadArgs {
    /// Letters, digits, - and _.
    name: String,
    steps: Vec<Step>,
    /// What the flow does.
    description: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Flow {
    description: Option<String>,
    steps: Vec<Step>,
}

/// The setting that holds the admin's flows: name -> `{description, steps}`.
const ADMIN_FLOWS: &str = "flows";

/// The flows the admin ships in the manifest.
fn admin_flows() -> Result<BTreeMap<String, Flow>, ToolError> {
    Ok(settings::get_json::<BTreeMap<String, Flow>>(ADMIN_FLOWS)?.unwrap_or_default())
}

/// Fill `${param}` placeholders in the steps' string arguments (names, values, URLs...). A
/// placeholder with no value is an error naming every missing one, before any step runs.
fn fill_params(steps: &[Step], params: &BTreeMap<String, String>) -> Result<Vec<Step>, ToolError> {
    fn fill(text: &str, params: &BTreeMap<String, String>, missing: &mut Vec<String>) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return out;
            };
            let name = &after[..end];
            match params.get(name) {
                Some(v) => out.push_str(v),
                None => {
                    if !missing.iter().any(|m| m == name) {
                        missing.push(name.to_string());
                    }
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }
    fn fill_value(
        v: &Value,
        params: &BTreeMap<String, String>,
        missing: &mut Vec<String>,
    ) -> Value {
        match v {
            Value::String(t) => Value::String(fill(t, params, missing)),
            Value::Array(a) => {
                Value::Array(a.iter().map(|v| fill_value(v, params, missing)).collect())
            }
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), fill_value(v, params, missing)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let mut missing = Vec::new();
    let filled = steps
        .iter()
        .map(|step| Step {
            action: step.action.clone(),
            name: step.name.as_deref().map(|n| fill(n, params, &mut missing)),
            role: step.role.clone(),
            args: step
                .args
                .iter()
                .map(|(k, v)| (k.clone(), fill_value(v, params, &mut missing)))
                .collect(),
        })
        .collect();
    if missing.is_empty() {
        Ok(filled)
    } else {
        Err(ToolError::invalid_arguments(format!(
            "the flow needs params {}; give them as {{\"params\": {{{}}}}}",
            missing.join(", "),
            missing
                .iter()
                .map(|m| format!("\"{m}\": \"...\""))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

fn check_steps(steps: &[Step]) -> Result<(), ToolError> {
    if steps.is_empty() {
        return Err(ToolError::invalid_arguments(
            "a flow needs at least one step",
        ));
    }
    if steps.len() > MAX_STEPS {
        return Err(ToolError::invalid_arguments(format!(
            "a flow has at most {MAX_STEPS} steps ({} given); split it into several",
            steps.len()
        )));
    }
    for (i, step) in steps.iter().enumerate() {
        if !STEP_TOOLS.contains(&step.action.as_str()) {
            return Err(ToolError::invalid_arguments(format!(
                "step {} does \"{}\", which is not a step; use one of: {}",
                i + 1,
                step.action,
                STEP_TOOLS.join(", ")
            )));
        }
        if step.name.is_some() && step.args.contains_key("ref") {
            return Err(ToolError::invalid_arguments(format!(
                "step {} gives both name and ref; give one",
                i + 1
            )));
        }
        if step.role.is_some() && step.name.is_none() {
            return Err(ToolError::invalid_arguments(format!(
                "step {} gives a role without a name",
                i + 1
            )));
        }
    }
    Ok(())
}

fn check_name(name: &str) -> Result<(), ToolError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(ToolError::invalid_arguments(format!(
            "flow name \"{name}\" must be 1-64 letters, digits, - or _"
        )))
    }
}

/// The ref of the current page's element called `name` (and of `role`, if given): an exact
/// match first, then one that differs only in case and spacing.
fn resolve(name: &str, role: Option<&str>) -> Result<u32, ToolError> {
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let snap = tab.page.snapshot(false)?;
        let fits = |e: &&warden_sdk::browser::Element| {
            e.interactive && role.is_none_or(|r| e.role.eq_ignore_ascii_case(r))
        };
        let loose = |s: &str| {
            s.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let found = snap
            .elements
            .iter()
            .filter(fits)
            .find(|e| e.name == name)
            .or_else(|| {
                let want = loose(name);
                snap.elements
                    .iter()
                    .filter(fits)
                    .find(|e| loose(&e.name) == want)
            });
        match found {
            Some(e) => Ok(tab.refs.ref_of(e.handle)),
            None => Err(ToolError::not_found(format!(
                "no {} named \"{name}\" on the page",
                role.unwrap_or("element")
            ))),
        }
    })
}

fn text_of(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a step does, for the answer's lines: `click "Sign in"`, `navigate https://...`.
fn describe(step: &Step) -> String {
    let mut s = step.action.clone();
    if let Some(name) = &step.name {
        s.push_str(&format!(" {}", crate::text::quoted(name)));
    }
    for key in ["url", "ref", "key", "text"] {
        if let Some(v) = step.args.get(key) {
            match v {
                Value::String(t) => s.push_str(&format!(" {}", crate::text::quoted(t))),
                other => s.push_str(&format!(" {key}={other}")),
            }
        }
    }
    if step.args.contains_key("secret") {
        s.push_str(" (secret)");
    }
    s
}

fn cut(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or_default();
    if first.chars().count() > max {
        format!("{}…", first.chars().take(max - 1).collect::<String>())
    } else {
        first.to_string()
    }
}

/// The plugin whose tools a script's steps call: the whole plugin, handed in by `lib.rs`.
type Catalog = fn() -> Plugin;

fn run_steps(steps: &[Step], catalog: Catalog) -> Result<String, ToolError> {
    check_steps(steps)?;
    let plugin = catalog();
    let total = steps.len();
    let mut lines = Vec::with_capacity(total + 1);
    let mut last = String::new();
    for (i, step) in steps.iter().enumerate() {
        if context::cancelled() {
            return Err(ToolError::failed(format!(
                "cancelled before step {} of {total}; steps 1-{i} ran:\n{}",
                i + 1,
                lines.join("\n")
            )));
        }
        let what = describe(step);
        let outcome = (|| {
            let mut args = step.args.clone();
            if let Some(name) = &step.name {
                let r = resolve(name, step.role.as_deref())?;
                args.insert("ref".into(), Value::from(r));
            }
            let output = plugin.call(
                &format!("browse_{}", step.action),
                &Value::Object(args).to_string(),
            )?;
            Ok::<_, ToolError>(text_of(&output))
        })();
        match outcome {
            Ok(text) => {
                lines.push(format!("{}. {what}: {}", i + 1, cut(&text, STEP_ECHO)));
                last = text;
            }
            Err(e) => {
                // The page as it is now, so the agent can go on by hand from here.
                let page = plugin
                    .call("browse_snapshot", "{}")
                    .map(|o| text_of(&o))
                    .unwrap_or_else(|e| format!("(no snapshot: {e})"));
                let ran = if lines.is_empty() {
                    String::new()
                } else {
                    format!("\nSteps that ran:\n{}", lines.join("\n"))
                };
                let message = format!(
                    "stopped at step {} of {total} ({what}): {}{ran}\n\n{page}",
                    i + 1,
                    e.message()
                );
                // A flow stopped by a refused grant is refused too.
                return Err(e.with_message(message));
            }
        }
    }
    Ok(format!(
        "Ran {total} step(s).\n{}\n\n{last}",
        lines.join("\n")
    ))
}

fn script_run(args: RunArgs, catalog: Catalog) -> Result<String, ToolError> {
    let steps = match (args.steps, args.name) {
        (Some(steps), None) => steps,
        (None, Some(name)) => {
            check_name(&name)?;
            if let Some(flow) = admin_flows()?.remove(&name) {
                check_steps(&flow.steps).map_err(|e| {
                    ToolError::failed(format!(
                        "the admin's flow \"{name}\" ([plugin.settings.flows.{name}] in the \
                         manifest) is not valid: {}; ask the admin to correct it",
                        e.message()
                    ))
                })?;
                flow.steps
            } else {
                kept::get(&format!("{PREFIX}{name}"))
                    .and_then(|bytes| serde_json::from_slice::<Flow>(&bytes).ok())
                    .ok_or_else(|| {
                        ToolError::not_found(format!(
                            "no flow named \"{name}\"; list them with script_list or keep one with script_load"
                        ))
                    })?
                    .steps
            }
        }
        _ => {
            return Err(ToolError::invalid_arguments(
                "give steps or the name of a flow (see script_list), not both",
            ));
        }
    };
    run_steps(&fill_params(&steps, &args.params)?, catalog)
}

fn script_load(args: LoadArgs) -> Result<String, ToolError> {
    check_name(&args.name)?;
    check_steps(&args.steps)?;
    if admin_flows()?.contains_key(&args.name) {
        return Err(ToolError::invalid_arguments(format!(
            "\"{}\" is a flow the admin ships; keep yours under another name",
            args.name
        )));
    }
    let key = format!("{PREFIX}{}", args.name);
    let existing = kept::keys(PREFIX);
    if !existing.contains(&key) && existing.len() >= MAX_FLOWS {
        return Err(ToolError::invalid_arguments(format!(
            "at most {MAX_FLOWS} flows are kept; run one by its steps instead"
        )));
    }
    let flow = Flow {
        description: args.description,
        steps: args.steps,
    };
    let bytes = serde_json::to_vec(&flow).map_err(|e| ToolError::failed(e.to_string()))?;
    kept::set(&key, &bytes).map_err(|e| {
        ToolError::failed(format!(
            "the flow was not kept: {e}; make it shorter or drop another"
        ))
    })?;
    Ok(format!(
        "Kept flow \"{}\" ({} step(s)); run it with script_run {{\"name\": \"{}\"}}.",
        args.name,
        flow.steps.len(),
        args.name
    ))
}

/// The `${param}` names a flow's steps use, in order of first use.
fn placeholders(steps: &[Step]) -> Vec<String> {
    let text = serde_json::to_string(steps).unwrap_or_default();
    let mut names: Vec<String> = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        rest = &after[end + 1..];
    }
    names
}

/// A flow's line in script_list: name, size, description, steps and the params it needs.
fn listed(name: &str, flow: &Flow, origin: &str) -> String {
    let steps: Vec<String> = flow.steps.iter().map(describe).collect();
    let params = placeholders(&flow.steps);
    format!(
        "{name} ({} step(s){origin}){}{}: {}",
        flow.steps.len(),
        if params.is_empty() {
            String::new()
        } else {
            format!(" params: {}", params.join(", "))
        },
        flow.description
            .as_ref()
            .map(|d| format!(" — {d}"))
            .unwrap_or_default(),
        steps.join("; ")
    )
}

fn script_list(_: NoArgs) -> Result<String, ToolError> {
    let mut out = Vec::new();
    for (name, flow) in admin_flows()? {
        out.push(listed(&name, &flow, ", from the admin"));
    }
    for key in kept::keys(PREFIX) {
        let Some(flow) = kept::get(&key).and_then(|b| serde_json::from_slice::<Flow>(&b).ok())
        else {
            continue;
        };
        out.push(listed(&key[PREFIX.len()..], &flow, ""));
    }
    if out.is_empty() {
        return Ok("No flows kept; keep one with script_load.".into());
    }
    Ok(out.join("\n"))
}

pub fn register(p: Plugin, catalog: Catalog) -> Plugin {
    p.tool(
        Tool::new("script_run", move |a: RunArgs| script_run(a, catalog))
            .description(
                "Run browser steps in one call, stopping at the first failure with the page as \
                 it is then. A step is a browse_* tool: {\"do\": \"click\", \"ref\": 5}; name \
                 an element instead of a ref: {\"do\": \"fill\", \"name\": \"Email\", \"value\": \"a@b.c\"}.",
            )
            .open_world(),
    )
    .tool(
        Tool::new("script_load", script_load)
            .description("Keep a named flow of steps (as script_run takes) for later calls."),
    )
    .tool(
        Tool::new("script_list", script_list)
            .description("The flows the admin ships and those kept with script_load.")
            .read_only(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(json: &str) -> Vec<Step> {
        serde_json::from_str(json).expect("steps")
    }

    #[test]
    fn params_fill_placeholders_once_and_missing_ones_are_named() {
        let flow = steps(
            r#"[{"do": "navigate", "url": "https://x.test/${page}?q=${q}"},
                {"do": "fill", "name": "${field}", "value": "${q}", "values": ["${q}", 3]}]"#,
        );
        assert_eq!(placeholders(&flow), ["page", "q", "field"]);
        let params: BTreeMap<String, String> =
            [("page", "find"), ("q", "${page}"), ("field", "Search")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let filled = fill_params(&flow, &params).expect("filled");
        // A value is put in as given: `${page}` inside it is not read again.
        assert_eq!(filled[0].args["url"], "https://x.test/find?q=${page}");
        assert_eq!(filled[1].name.as_deref(), Some("Search"));
        assert_eq!(filled[1].args["values"], serde_json::json!(["${page}", 3]));
        let missing = fill_params(&flow, &BTreeMap::new()).expect_err("missing");
        assert!(
            missing.message().contains("needs params page, q, field"),
            "{}",
            missing.message()
        );
        // An unclosed `${` is text.
        let text = steps(r#"[{"do": "type", "text": "cost: ${5"}]"#);
        assert_eq!(
            fill_params(&text, &params).expect("kept")[0].args["text"],
            "cost: ${5"
        );
    }
}
