//! `browse_fill`: one field, or a whole form in one call. Every field of a batch is checked
//! (its ref, a value or a secret, that the element takes it, the secret's grant and origin)
//! before the first is filled, so a bad field changes nothing on the page.

use crate::answer::after_action;
use crate::element_errors::named_error;
use crate::memory::{self, TabRefs};
use crate::refs::RefArg;
use std::collections::HashSet;
use warden_sdk::prelude::*;

/// A form larger than this is filled in several calls.
const MAX_FIELDS: usize = 100;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FillArgs {
    /// N of @eN.
    #[serde(rename = "ref")]
    element: Option<RefArg>,
    value: Option<String>,
    /// Name of an admin-kept secret (passwords), instead of value.
    secret: Option<String>,
    /// Many fields at once, instead of ref: [{ref, value or secret}].
    fields: Option<Vec<Field>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Field {
    #[serde(rename = "ref")]
    element: RefArg,
    value: Option<String>,
    secret: Option<String>,
}

/// What one field gets.
enum Text<'a> {
    Value(&'a str),
    Secret(&'a str),
}

/// A field that passed its checks: the handle, `@eN`, and what goes in.
struct Planned<'a> {
    handle: u64,
    name: String,
    text: Text<'a>,
}

pub(crate) fn browse_fill(args: FillArgs) -> Result<String, ToolError> {
    let fields = match (args.fields, args.element) {
        (Some(fields), None) if args.value.is_none() && args.secret.is_none() => fields,
        (None, Some(element)) => vec![Field {
            element,
            value: args.value,
            secret: args.secret,
        }],
        (None, None) => {
            return Err(ToolError::invalid_arguments(
                "give ref with value or secret, or fields: [{ref, value or secret}, ...]",
            ));
        }
        _ => {
            return Err(ToolError::invalid_arguments(
                "give either ref (with value or secret) or fields, not both",
            ));
        }
    };
    if fields.is_empty() || fields.len() > MAX_FIELDS {
        return Err(ToolError::invalid_arguments(format!(
            "fields takes 1 to {MAX_FIELDS} fields, not {}",
            fields.len()
        )));
    }
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let plan = check(tab, &fields)?;
        let mut filled: Vec<String> = Vec::with_capacity(plan.len());
        for p in &plan {
            let done = match p.text {
                Text::Value(v) => tab.page.fill(p.handle, v),
                Text::Secret(s) => tab.page.fill_secret(p.handle, s),
            };
            done.map_err(|e| partly(named_error(e, &p.name), &filled))?;
            filled.push(match p.text {
                Text::Value(_) => p.name.clone(),
                Text::Secret(s) => format!("{} (secret {s})", p.name),
            });
        }
        after_action(tab, &format!("Filled {}.", filled.join(", ")))
    })
}

/// Check every field before any is filled.
fn check<'a>(tab: &TabRefs, fields: &'a [Field]) -> Result<Vec<Planned<'a>>, ToolError> {
    let mut seen = HashSet::new();
    let mut plan = Vec::with_capacity(fields.len());
    for f in fields {
        let n = f.element.number()?;
        let name = format!("@e{n}");
        if !seen.insert(n) {
            return Err(ToolError::invalid_arguments(format!(
                "{name} is given twice; fill each field once"
            )));
        }
        let handle = tab.refs.handle(n)?;
        let text = match (&f.value, &f.secret) {
            (Some(v), None) => Text::Value(v),
            (None, Some(s)) => Text::Secret(s),
            _ => {
                return Err(ToolError::invalid_arguments(format!(
                    "{name}: give exactly one of value or secret"
                )));
            }
        };
        let secret = match text {
            Text::Secret(s) => Some(s),
            Text::Value(_) => None,
        };
        tab.page
            .check_fill(handle, secret)
            .map_err(|e| named_error(e, &name))?;
        plan.push(Planned { handle, name, text });
    }
    Ok(plan)
}

/// A fill that failed after others were made (the page changed under the batch): say which
/// fields hold their new text, so nothing is left unknown.
fn partly(e: ToolError, filled: &[String]) -> ToolError {
    if filled.is_empty() {
        return e;
    }
    let message = format!(
        "{} (already filled: {}; nothing after it)",
        e.message(),
        filled.join(", ")
    );
    e.with_message(message)
}
