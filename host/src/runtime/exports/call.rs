//! One call of an exported function: the JSON arguments checked and converted (within a
//! memory budget, `json.rs`), the
//! function called through wasmtime's dynamic (`Val`) interface, and its return value made a
//! tool result: `{"result": ...}` as structured content and as text, a `result::err` a tool
//! error whose message is the error's payload.

use super::walk::Function;
use super::{json, output};
use crate::runtime::bindings::{ContentBlock, ToolError, ToolOutput};
use crate::runtime::store_data::PluginState;
use serde_json::{Value, json};
use wasmtime::Store;
use wasmtime::component::{Instance, Type, Val};

/// Call `function` of `instance` with `arguments` (JSON text). The outer error is a trap.
pub async fn call(
    instance: &Instance,
    store: &mut Store<PluginState>,
    function: &Function,
    arguments: &str,
) -> wasmtime::Result<Result<ToolOutput, ToolError>> {
    // Straight from the text to the values, within the call's memory budget.
    let params = match json::params(arguments, &function.params) {
        Ok(p) => p,
        Err(refused) => return Ok(Err(ToolError::InvalidArguments(refused.to_string()))),
    };
    let func = instance
        .get_func(&mut *store, function.index)
        .ok_or_else(|| {
            wasmtime::Error::msg("the exported function is missing from its instance")
        })?;
    let mut results = vec![Val::Bool(false); usize::from(function.result.is_some())];
    func.call_async(&mut *store, &params, &mut results).await?;
    Ok(outcome(results.first(), function.result.as_ref()))
}

/// A string as itself, anything else as JSON text.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn outcome(returned: Option<&Val>, ty: Option<&Type>) -> Result<ToolOutput, ToolError> {
    let (Some(returned), Some(ty)) = (returned, ty) else {
        return Ok(ToolOutput {
            content: vec![ContentBlock::Text("done".into())],
            structured: None,
        });
    };
    let value = match (returned, ty) {
        (Val::Result(Err(payload)), Type::Result(r)) => {
            let message = payload
                .as_deref()
                .zip(r.err())
                .map(|(v, t)| text(&output::json(v, &t)))
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "the function returned an error without a message".into());
            return Err(ToolError::Failed(message));
        }
        (Val::Result(Ok(payload)), Type::Result(r)) => payload
            .as_deref()
            .zip(r.ok())
            .map_or(Value::Null, |(v, t)| output::json(v, &t)),
        (other, ty) => output::json(other, ty),
    };
    Ok(ToolOutput {
        content: vec![ContentBlock::Text(text(&value))],
        structured: Some(json!({ "result": value }).to_string()),
    })
}
