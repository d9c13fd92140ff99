//! Tabs, sessions and cookies: `browse_tabs`, `browse_session`, `browse_cookies`.

use crate::answer::DEFAULT_MAX_TOKENS;
use crate::memory::{self, Session, TabRefs};
use crate::render;
use warden_sdk::browser::{self, Cookie};
use warden_sdk::prelude::*;

/// Run an action and add a line when it opened new tabs (target=_blank, window.open).
pub fn noting_new_tabs(
    action: impl FnOnce() -> Result<String, ToolError>,
) -> Result<String, ToolError> {
    let session = memory::with(|st| st.current.clone());
    let before: Vec<String> = browser::list_tabs(Some(&session))
        .map(|t| t.into_iter().map(|t| t.id).collect())
        .unwrap_or_default();
    let mut out = action()?;
    if let Ok(after) = browser::list_tabs(Some(&session)) {
        for (i, t) in after.iter().enumerate() {
            if !before.contains(&t.id) {
                out.push_str(&format!(
                    "\nA new tab opened: [{}] {} — switch to it with browse_tabs {{\"action\": \"switch\", \"tab\": {}}}",
                    i + 1,
                    t.url,
                    i + 1
                ));
            }
        }
    }
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TabsArgs {
    /// Default list.
    #[schemars(extend("enum" = ["list", "switch", "close", "new"]))]
    action: Option<String>,
    /// Number in the list.
    tab: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    /// Default list.
    #[schemars(extend("enum" = ["list", "create", "switch", "close", "save_state", "delete_state"]))]
    action: Option<String>,
    name: Option<String>,
    /// For create: an admin-defined profile.
    profile: Option<String>,
    /// Saved cookies and storage: for save_state, delete_state, or create from it.
    state: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CookiesArgs {
    /// Default get.
    #[schemars(extend("enum" = ["get", "set", "clear"]))]
    action: Option<String>,
    name: Option<String>,
    value: Option<String>,
    /// Default: the page's host.
    domain: Option<String>,
    path: Option<String>,
}

fn list_text(session: &str, current_id: Option<&str>) -> Result<String, ToolError> {
    let tabs = browser::list_tabs(Some(session))?;
    let mut out = format!("Session \"{session}\": {} tab(s)\n", tabs.len());
    for (i, t) in tabs.iter().enumerate() {
        let mark = if Some(t.id.as_str()) == current_id {
            " (current)"
        } else {
            ""
        };
        out.push_str(&format!("[{}] \"{}\" {}{mark}\n", i + 1, t.title, t.url));
    }
    Ok(out)
}

fn browse_tabs(args: TabsArgs) -> Result<String, ToolError> {
    memory::with(|st| {
        let name = st.current.clone();
        let session = st.session()?;
        let current_id = session.current_id().map(str::to_string);
        match args.action.as_deref().unwrap_or("list") {
            "list" => list_text(&name, current_id.as_deref()),
            "new" => {
                let page = browser::open_page(Some(&name))?;
                let session: &mut Session = st.session()?;
                session.tabs.push(TabRefs::new(page));
                session.select(session.tabs.len() - 1);
                list_text(&name, session.current_id())
            }
            action @ ("switch" | "close") => {
                let n = args.tab.ok_or_else(|| {
                    ToolError::invalid_arguments(format!(
                        "{action} needs tab: the tab's number from the list"
                    ))
                })?;
                let tabs = browser::list_tabs(Some(&name))?;
                let info = n.checked_sub(1).and_then(|i| tabs.get(i)).ok_or_else(|| {
                    ToolError::not_found(format!(
                        "there is no tab {n}; the session has {} tab(s)",
                        tabs.len()
                    ))
                })?;
                let session = st.session()?;
                let index = session.hold(&name, &info.id)?;
                if action == "close" {
                    // The agent stays on its tab; closing that one moves it to the first left.
                    let next = match session.current_id() {
                        Some(id) if id != info.id => Some(id.to_string()),
                        _ => tabs.iter().find(|t| t.id != info.id).map(|t| t.id.clone()),
                    };
                    let tab = session.tabs.remove(index);
                    tab.page.close()?;
                    session.point_at(next);
                    return list_text(&name, session.current_id());
                }
                session.select(index);
                let tab = &mut session.tabs[index];
                let snap = tab.page.snapshot(false)?;
                let rendered = render::render(&snap, &mut tab.refs, render::Mode::Interactive);
                let text = render::page_text(&rendered, DEFAULT_MAX_TOKENS, 1);
                tab.last = Some(rendered);
                Ok(format!("Switched to tab {n}.\n{text}"))
            }
            other => Err(ToolError::invalid_arguments(format!(
                "action \"{other}\" is not list, switch, close or new"
            ))),
        }
    })
}

fn browse_session(args: SessionArgs) -> Result<String, ToolError> {
    memory::with(|st| match args.action.as_deref().unwrap_or("list") {
        "list" => {
            let mut names = browser::list_sessions()?;
            if !names.contains(&st.current) {
                names.push(st.current.clone());
            }
            names.sort();
            let lines: Vec<String> = names
                .iter()
                .map(|n| {
                    if *n == st.current {
                        format!("{n} (current)")
                    } else {
                        n.clone()
                    }
                })
                .collect();
            let states: Vec<String> = browser::list_states()?.iter().map(state_line).collect();
            Ok(if states.is_empty() {
                format!("Sessions: {}", lines.join(", "))
            } else {
                format!(
                    "Sessions: {}\nSaved states: {}",
                    lines.join(", "),
                    states.join("; ")
                )
            })
        }
        "save_state" => {
            let state = args.state.ok_or_else(|| {
                ToolError::invalid_arguments("save_state needs state: the name to save it under")
            })?;
            let session = args.name.unwrap_or_else(|| st.current.clone());
            let saved = browser::save_state(Some(&session), &state)?;
            Ok(format!(
                "Saved session \"{session}\" as state {}. Open a session from it with browse_session {{\"action\": \"create\", \"name\": \"...\", \"state\": \"{state}\"}}.",
                state_line(&saved)
            ))
        }
        "delete_state" => {
            let state = args
                .state
                .ok_or_else(|| ToolError::invalid_arguments("delete_state needs state"))?;
            browser::delete_state(&state)?;
            Ok(format!("Deleted saved state \"{state}\"."))
        }
        action @ ("create" | "switch") => {
            let name = args
                .name
                .ok_or_else(|| ToolError::invalid_arguments(format!("{action} needs name")))?;
            let mut from = String::new();
            match (action, &args.profile, &args.state) {
                ("create", Some(_), Some(_)) => {
                    return Err(ToolError::invalid_arguments(
                        "give profile or state, not both",
                    ));
                }
                ("create", _, Some(state)) => {
                    let saved = browser::create_session_from_state(&name, state)?;
                    from = format!(" from state {}", state_line(&saved));
                }
                ("create", profile, None) => {
                    browser::create_session(&name, profile.as_deref())?;
                }
                (_, None, None) => {}
                _ => {
                    return Err(ToolError::invalid_arguments(
                        "profile and state go with create, not switch",
                    ));
                }
            }
            st.current = name.clone();
            // A session whose browser went away keeps saying so until a navigation starts it
            // again; any other gets its tab now (a new one its first).
            if !st.session()?.is_lost() {
                st.tab()?;
            }
            Ok(format!(
                "Current session: \"{name}\"{}{from} (isolated cookies, storage and tabs). Open a page with browse_navigate.",
                args.profile
                    .map(|p| format!(" with profile \"{p}\""))
                    .unwrap_or_default()
            ))
        }
        "close" => {
            let name = args.name.unwrap_or_else(|| st.current.clone());
            browser::close_session(&name)?;
            st.forget_session(&name);
            if st.current == name {
                st.current = memory::DEFAULT_SESSION.to_string();
            }
            Ok(format!(
                "Closed session \"{name}\" with its tabs and cookies; current session: \"{}\".",
                st.current
            ))
        }
        other => Err(ToolError::invalid_arguments(format!(
            "action \"{other}\" is not list, create, switch, close, save_state or delete_state"
        ))),
    })
}

/// A saved state in a few words (its values stay in the host).
fn state_line(s: &browser::SavedState) -> String {
    let mut line = format!(
        "\"{}\" ({} cookie(s), local storage of {})",
        s.name,
        s.cookies,
        if s.origins.is_empty() {
            "no origin".to_string()
        } else {
            s.origins.join(", ")
        }
    );
    if s.left_out > 0 {
        line.push_str(&format!(
            "; {} value(s) left out: they hold a secret typed into the session",
            s.left_out
        ));
    }
    line
}

fn cookie_line(c: &Cookie) -> String {
    let mut flags = Vec::new();
    if c.http_only {
        flags.push("httpOnly");
    }
    if c.secure {
        flags.push("secure");
    }
    format!(
        "{}={} (domain {}, path {}{}{})",
        c.name,
        c.value,
        c.domain,
        c.path,
        if flags.is_empty() {
            String::new()
        } else {
            format!(", {}", flags.join(", "))
        },
        c.expires
            .map(|e| format!(", expires {e:.0}"))
            .unwrap_or_default()
    )
}

fn browse_cookies(args: CookiesArgs) -> Result<String, ToolError> {
    memory::with(|st| {
        let tab = st.existing_tab()?;
        match args.action.as_deref().unwrap_or("get") {
            "get" => {
                let cookies = tab.page.cookies()?;
                let mut out = format!("{} cookie(s) for {}\n", cookies.len(), tab.page.url()?);
                for c in &cookies {
                    out.push_str(&cookie_line(c));
                    out.push('\n');
                }
                Ok(out)
            }
            "set" => {
                let (Some(name), Some(value)) = (args.name, args.value) else {
                    return Err(ToolError::invalid_arguments("set needs name and value"));
                };
                tab.page.set_cookie(&Cookie {
                    name: name.clone(),
                    value,
                    domain: args.domain.unwrap_or_default(),
                    path: args.path.unwrap_or_else(|| "/".into()),
                    expires: None,
                    http_only: false,
                    secure: false,
                    same_site: None,
                })?;
                Ok(format!("Set cookie {name}."))
            }
            "clear" => {
                tab.page.clear_cookies()?;
                Ok("Cleared the session's cookies.".into())
            }
            other => Err(ToolError::invalid_arguments(format!(
                "action \"{other}\" is not get, set or clear"
            ))),
        }
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_tabs", browse_tabs)
            .description("List, switch, close or open tabs, popups included."),
    )
    .tool(Tool::new("browse_session", browse_session).description(
        "List, create, switch or close isolated sessions (own cookies and tabs: two \
                 users at once); save one's cookies and storage as a state to create others from.",
    ))
    .tool(
        Tool::new("browse_cookies", browse_cookies)
            .description("Get, set or clear cookies. Needs grant browser.cookies."),
    )
}
