//! `warden check --client NAME` and `--role NAME`: exactly what one client (or every client
//! of one role) gets: its role, and per plugin the tools, prompts and resources it may use
//! and the grants its calls act with (the role's narrower ones where it narrows them).

use std::process::ExitCode;
use warden::app::App;
use warden::manifest::{Access, Roles};
use warden::runtime::registry::Backend;
use warden::shown;

/// Whose access to show.
pub enum Who<'a> {
    Client(&'a str),
    Role(&'a str),
}

pub fn show(app: &App, who: Who<'_>) -> ExitCode {
    let roles: &Roles = app.registry.roles();
    let access = match who {
        Who::Client(name) => {
            let known = app.manifest.http.clients.iter().any(|(n, _)| n == name)
                || app
                    .manifest
                    .http
                    .oauth
                    .as_ref()
                    .is_some_and(|o| o.clients.iter().any(|c| c.name == name));
            if !known {
                println!(
                    "no client \"{}\": the named clients are [server.http.clients.NAME] and [server.http.oauth.clients.NAME]",
                    shown::line(name)
                );
                return ExitCode::from(1);
            }
            let access = roles.access(Some(name));
            println!("\nclient '{}': {}", shown::line(name), describe(&access));
            access
        }
        Who::Role(name) => {
            let Some(role) = roles.roles.get(name) else {
                println!(
                    "no role \"{}\"; defined roles: {}",
                    shown::line(name),
                    shown::line(&roles.roles.keys().cloned().collect::<Vec<_>>().join(", "))
                );
                return ExitCode::from(1);
            };
            let access = Access::Role(role.clone());
            println!("\nrole '{}': {}", shown::line(name), describe(&access));
            access
        }
    };
    let registry = &app.registry;
    for plugin in registry.plugins() {
        let name = plugin.name();
        let tools: Vec<&str> = registry
            .tools()
            .iter()
            .filter(|t| t.plugin == name && registry.tool_visible(t, &access))
            .map(|t| t.public_name.as_str())
            .collect();
        let prompts: Vec<&str> = registry
            .prompts()
            .iter()
            .filter(|p| p.plugin == name && registry.prompt_visible(p, &access))
            .map(|p| p.public_name.as_str())
            .collect();
        let resources = match &plugin.backend {
            Backend::Wasm(w) if access.resources_of(name, "").is_ok() => {
                w.resources.len() + w.templates.len()
            }
            _ => 0,
        };
        if tools.is_empty() && prompts.is_empty() && resources == 0 {
            continue;
        }
        println!("\n  plugin '{}'", shown::line(name));
        println!("    tools: {}", shown::line(&tools.join(", ")));
        if !prompts.is_empty() {
            println!("    prompts: {}", shown::line(&prompts.join(", ")));
        }
        if resources > 0 {
            println!("    resources and templates: {resources}");
        }
        let (grants, narrowed) = match access.narrowed(name) {
            Some(g) => (g.clone(), true),
            None => (plugin.config.grants.clone(), false),
        };
        println!(
            "    grants{}:",
            if narrowed {
                " (narrowed by the role)"
            } else {
                ""
            }
        );
        for part in grants.summary_parts() {
            println!("      {}", shown::line(&part));
        }
    }
    ExitCode::SUCCESS
}

fn describe(access: &Access) -> String {
    match access {
        Access::All => "no role applies: everything every plugin serves, with its grants".into(),
        Access::NoRole(_) => {
            "no role, and roles are defined: nothing (give it one with role = \"NAME\")".into()
        }
        Access::Role(role) => format!(
            "role '{}' (line {}): plugins {:?}, groups {:?}, tools {:?}, prompts {:?}, approval for {:?}",
            role.name,
            role.line,
            role.plugins,
            role.groups
                .iter()
                .map(|(p, g)| format!("{p}/{g}"))
                .collect::<Vec<_>>(),
            role.tools.patterns(),
            role.prompts.patterns(),
            role.require_approval.patterns()
        ),
    }
}
