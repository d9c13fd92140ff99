//! `browse_storage`: the current page's localStorage and sessionStorage.

use crate::memory;
use warden_sdk::browser::StorageArea;
use warden_sdk::prelude::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StorageArgs {
    /// list (default), get, set, remove, clear.
    action: Option<String>,
    /// local (default) or session.
    area: Option<String>,
    key: Option<String>,
    value: Option<String>,
}

fn browse_storage(args: StorageArgs) -> Result<String, ToolError> {
    let (area, name) = match args.area.as_deref().unwrap_or("local") {
        "local" => (StorageArea::Local, "localStorage"),
        "session" => (StorageArea::Session, "sessionStorage"),
        other => {
            return Err(ToolError::invalid_arguments(format!(
                "area \"{other}\" is not local or session"
            )));
        }
    };
    let action = args.action.as_deref().unwrap_or("list");
    let key = || {
        args.key
            .clone()
            .ok_or_else(|| ToolError::invalid_arguments(format!("{action} needs key")))
    };
    memory::with(|st| {
        let tab = st.existing_tab()?;
        match action {
            "list" => {
                let items = tab.page.storage(area)?;
                let mut out = format!(
                    "{name} of {}: {} item(s)\n",
                    tab.page.url().unwrap_or_default(),
                    items.len()
                );
                for (k, v) in &items {
                    out.push_str(&format!("{k} = {v}\n"));
                }
                Ok(out)
            }
            "get" => {
                let key = key()?;
                let items = tab.page.storage(area)?;
                Ok(match items.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => format!("{key} = {v}"),
                    None => format!("{name} has no item \"{key}\""),
                })
            }
            "set" => {
                let key = key()?;
                let value = args
                    .value
                    .clone()
                    .ok_or_else(|| ToolError::invalid_arguments("set needs value"))?;
                tab.page.set_storage(area, &key, Some(&value))?;
                Ok(format!("Set {name} item \"{key}\"."))
            }
            "remove" => {
                let key = key()?;
                tab.page.set_storage(area, &key, None)?;
                Ok(format!("Removed {name} item \"{key}\"."))
            }
            "clear" => {
                tab.page.clear_storage(area)?;
                Ok(format!("Cleared the page's {name}."))
            }
            other => Err(ToolError::invalid_arguments(format!(
                "action \"{other}\" is not list, get, set, remove or clear"
            ))),
        }
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(Tool::new("browse_storage", browse_storage).description(
        "Read or change the page's localStorage or sessionStorage. Needs grant \
                 browser.cookies.",
    ))
}
