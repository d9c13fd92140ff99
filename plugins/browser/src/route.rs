//! `browse_route`: block or mock requests of the current session by URL glob.

use crate::memory;
use std::collections::BTreeMap;
use warden_sdk::browser::{self, MockResponse, Route, RouteAction};
use warden_sdk::prelude::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RouteArgs {
    /// Default list.
    #[schemars(extend("enum" = ["list", "block", "mock", "remove"]))]
    action: Option<String>,
    /// URL glob, like */api/*.
    url: Option<String>,
    /// Default 200.
    status: Option<u16>,
    /// Default: by the body.
    content_type: Option<String>,
    headers: Option<BTreeMap<String, String>>,
    body: Option<String>,
    id: Option<u32>,
}

fn route_line(r: &Route) -> String {
    match &r.action {
        RouteAction::Block => format!("[{}] block {}", r.id, r.url_glob),
        RouteAction::Mock(m) => format!(
            "[{}] mock {} → {} {} ({} bytes)",
            r.id,
            r.url_glob,
            m.status,
            m.content_type,
            m.body.len()
        ),
    }
}

fn list(session: &str) -> Result<String, ToolError> {
    let routes = browser::list_routes(Some(session))?;
    let mut out = format!("Session \"{session}\": {} route(s)\n", routes.len());
    for r in &routes {
        out.push_str(&route_line(r));
        out.push('\n');
    }
    Ok(out)
}

fn default_content_type(body: &str) -> &'static str {
    let t = body.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        "application/json"
    } else {
        "text/plain"
    }
}

fn browse_route(args: RouteArgs) -> Result<String, ToolError> {
    let session = memory::with(|st| st.current.clone());
    let action = args.action.as_deref().unwrap_or("list");
    let url = || {
        args.url.clone().ok_or_else(|| {
            ToolError::invalid_arguments(format!(
                "{action} needs url: a URL glob such as \"*/api/*\""
            ))
        })
    };
    match action {
        "list" => list(&session),
        "block" => {
            let glob = url()?;
            let id = browser::add_route(Some(&session), &glob, &RouteAction::Block)?;
            Ok(format!(
                "Route {id}: requests matching {glob} are blocked in session \"{session}\" (new tabs too).\n{}",
                list(&session)?
            ))
        }
        "mock" => {
            let glob = url()?;
            let body = args.body.clone().unwrap_or_default();
            let mock = MockResponse {
                status: args.status.unwrap_or(200),
                content_type: args
                    .content_type
                    .clone()
                    .unwrap_or_else(|| default_content_type(&body).to_string()),
                headers: args
                    .headers
                    .clone()
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                body,
            };
            let id = browser::add_route(Some(&session), &glob, &RouteAction::Mock(mock))?;
            Ok(format!(
                "Route {id}: requests matching {glob} get the mocked answer in session \"{session}\" (new tabs too; a page's own origin grant still applies).\n{}",
                list(&session)?
            ))
        }
        "remove" => {
            let id = args.id.ok_or_else(|| {
                ToolError::invalid_arguments("remove needs id: the route's number from the list")
            })?;
            browser::remove_route(Some(&session), id)?;
            Ok(format!("Removed route {id}.\n{}", list(&session)?))
        }
        other => Err(ToolError::invalid_arguments(format!(
            "action \"{other}\" is not list, block, mock or remove"
        ))),
    }
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_route", browse_route)
            .description("Block or mock requests by URL glob; first match wins."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_type_follows_the_body() {
        assert_eq!(default_content_type(" [1, 2]"), "application/json");
        assert_eq!(default_content_type("{\"a\": 1}"), "application/json");
        assert_eq!(default_content_type("hello"), "text/plain");
    }
}
