//! `warden check`: validate the manifest, load every plugin, and show what each imports
//! against what it was granted. Exit code 1 when the manifest or a plugin is invalid.

use std::path::Path;
use std::process::ExitCode;
use warden::app::App;
use warden::manifest::grants::{Grants, size_text};
use warden::runtime::registry::{Backend, ToolEntry};
use warden::shown;

pub async fn run(
    manifest: Option<&Path>,
    who: Option<super::check_access::Who<'_>>,
) -> anyhow::Result<ExitCode> {
    let app = match App::load(manifest).await {
        Ok(app) => app,
        Err(e) => {
            println!("invalid:\n{}", shown::line(&format!("{e:#}")));
            return Ok(ExitCode::from(1));
        }
    };
    println!(
        "{}: valid; audit log {}",
        app.manifest.file_name,
        app.manifest.audit_log.display()
    );
    println!("{}", http_clients(&app.manifest.http));
    for line in warden::capabilities::browser::sandbox_report(&app.manifest.browser).await {
        println!("{}", shown::line(&line));
    }
    if let Some(who) = who {
        return Ok(super::check_access::show(&app, who));
    }
    show(&app);
    let roles = app.registry.roles().report(&app.manifest.http);
    if !roles.is_empty() {
        println!();
    }
    for line in roles {
        println!("{}", shown::line(&line));
    }
    Ok(ExitCode::SUCCESS)
}

/// Who `serve --http` tells apart: with no token and no OAuth, every request is the one local
/// client, whose calls share everything kept per client.
fn http_clients(http: &warden::manifest::HttpConfig) -> String {
    match (http.clients.len(), &http.oauth) {
        (0, None) => {
            "http clients: none named (no [server.http.clients], no OAuth): `serve --http` \
             serves loopback only, and every request is the one local client: callers share \
             plugin state, kept values and browser sessions, and one caller's calls can wait \
             behind another's. Give each agent a token ([server.http.clients.NAME]) to keep them \
             apart"
                .to_string()
        }
        (n, oauth) => format!(
            "http clients: {n} named by token{}; each one's sessions, state and share of each \
             plugin's calls are its own",
            if oauth.is_some() {
                ", more by OAuth"
            } else {
                ""
            }
        ),
    }
}

/// Each plugin's limits, grants, tools and imports against its grants.
pub(super) fn show(app: &App) {
    for plugin in app.registry.plugins() {
        let c = &plugin.config;
        println!(
            "\nplugin '{}' ({})",
            shown::line(&c.name),
            shown::line(&c.source.to_string())
        );
        println!(
            "  limits: memory {}, call_timeout {}, output {}",
            bytesize::ByteSize::b(c.limits.memory).display().iec(),
            humantime::format_duration(c.limits.call_timeout),
            bytesize::ByteSize::b(c.limits.output).display().iec()
        );
        let grants = c.grants.summary_parts();
        if grants.is_empty() {
            println!("  grants: none (only the sandbox and context services)");
        } else {
            println!("  grants:");
            for grant in grants {
                println!("    {}", shown::line(&grant));
            }
        }
        let tools: Vec<&ToolEntry> = app
            .registry
            .tools()
            .iter()
            .filter(|t| t.plugin == c.name)
            .collect();
        let (plain, served_as) = match &plugin.backend {
            Backend::Wasm(w) => (w.plain_functions(), w.served_as()),
            Backend::Native => (None, None),
        };
        if let (None, Some(kind)) = (&plain, served_as) {
            println!("  served as: {kind}");
        }
        match plain {
            // A component written for another host: where each tool comes from.
            Some(functions) => {
                println!("  tools (plain exported functions, one tool each):");
                for tool in &tools {
                    let calls = functions
                        .iter()
                        .find(|(name, _)| *name == tool.info.name)
                        .map_or("", |(_, signature)| signature.as_str());
                    println!(
                        "    {:<24} {}",
                        shown::line(&tool.public_name),
                        shown::line(calls)
                    );
                }
            }
            None => {
                let names: Vec<&str> = tools
                    .iter()
                    .filter(|t| t.offered.is_none())
                    .map(|t| t.public_name.as_str())
                    .collect();
                if names.is_empty() {
                    println!("  tools: none listed (see its groups below)");
                } else {
                    println!("  tools: {}", shown::line(&names.join(", ")));
                }
            }
        }
        // Groups listed, offered, and not listed with what would list them.
        if let Some(groups) = app.registry.groups().iter().find(|g| g.plugin == c.name) {
            for line in groups.describe() {
                println!("  {}", shown::line(&line));
            }
        }
        match &plugin.backend {
            Backend::Native => println!("  imports: none (implemented in the host)"),
            Backend::Wasm(w) => {
                println!("  imports:");
                for import in &w.imports {
                    println!(
                        "    {:<40} {}",
                        shown::line(import),
                        verdict(import, &c.grants, c.limits.state)
                    );
                }
            }
        }
    }
}

/// What the manifest lets a plugin do with one import.
fn verdict(import: &str, g: &Grants, state_limit: u64) -> String {
    let iface = import.split('@').next().unwrap_or(import);
    match iface {
        "warden:plugin/context" => "always available (progress, log, cancelled)".into(),
        "warden:plugin/state" => format!(
            "always available: values kept between calls, per conversation, up to {} each (limits.state)",
            bytesize::ByteSize::b(state_limit).display().iec()
        ),
        "warden:capture/http" => match &g.capture {
            Some(c) if !c.http_hosts.patterns().is_empty() => format!("granted: http_hosts = {:?}", c.http_hosts.patterns()),
            _ => "NOT GRANTED: every call is denied; add grants.capture.http_hosts".into(),
        },
        "warden:capture/page" => match &g.capture {
            Some(c) if !c.origins.patterns().is_empty() => format!(
                "granted: origins = {:?}, cookies = {}",
                c.origins.patterns(),
                c.cookies
            ),
            _ => "NOT GRANTED: every call is denied; add grants.capture.origins".into(),
        },
        "wasi:config/store" | "wasi:config/runtime" => "always available: this plugin's own [plugin.settings] from the manifest".into(),
        "warden:types/errors" => "types only (the error kinds every capability returns)".into(),
        "warden:browser/browser" => match &g.browser {
            Some(b) if !b.origins.patterns().is_empty() => format!("granted: origins = {:?}", b.origins.patterns()),
            _ => "NOT GRANTED: every call is denied; add grants.browser.origins".into(),
        },
        "warden:terminal/terminal" => match &g.terminal {
            Some(t) if t.local || !t.ssh_hosts.is_empty() => format!("granted: local = {}, ssh_hosts = {:?}", t.local, t.ssh_hosts),
            _ => "NOT GRANTED: every call is denied; add grants.terminal.local or grants.terminal.ssh_hosts".into(),
        },
        "warden:sftp/sftp" => match &g.sftp {
            Some(s) if !s.hosts.is_empty() => format!("granted: hosts = {:?}, roots = {:?}, write = {}", s.hosts, s.roots, s.write),
            _ => "NOT GRANTED: every call is denied; add grants.sftp.hosts".into(),
        },
        "warden:rdp/desktop" => match &g.rdp {
            Some(r) if !r.hosts.is_empty() => format!("granted: hosts = {:?}, read_only = {}", r.hosts, r.read_only),
            _ => "NOT GRANTED: every call is denied; add grants.rdp.hosts".into(),
        },
        i if i.starts_with("warden:") && i.ends_with("/types") => "types only".into(),
        "wasi:filesystem/preopens" | "wasi:filesystem/types" => {
            if g.files.is_empty() {
                "sandboxed: no directory is granted; add grants.files = [{ host = \"DIR\", guest = \"/PATH\" }] if it needs one".into()
            } else {
                let dirs: Vec<String> = g
                    .files
                    .iter()
                    .map(|f| {
                        if f.write {
                            format!("{} (read-write, quota {})", f.guest, size_text(f.quota))
                        } else {
                            format!("{} (read-only)", f.guest)
                        }
                    })
                    .collect();
                format!("granted: {}", dirs.join(", "))
            }
        }
        "wasi:http/outgoing-handler" => match &g.http {
            Some(h) if !h.origins.patterns().is_empty() => format!(
                "granted: origins = {:?}, methods = {:?}{}",
                h.origins.patterns(),
                h.methods,
                if h.credentials.is_empty() {
                    String::new()
                } else {
                    let names: Vec<&str> = h.credentials.iter().map(|c| c.name.as_str()).collect();
                    format!(", credentials = {names:?} (added by the host)")
                }
            ),
            _ => "NOT GRANTED: every request is denied; add grants.http.origins".into(),
        },
        "wasi:http/types" => "types only (requests are sent through wasi:http/outgoing-handler)".into(),
        "wasi:sockets/tcp" | "wasi:sockets/udp" | "wasi:sockets/network" | "wasi:sockets/instance-network"
        | "wasi:sockets/tcp-create-socket" | "wasi:sockets/udp-create-socket" | "wasi:sockets/ip-name-lookup" => {
            "sandboxed: every address is refused and audited".into()
        }
        "wasi:cli/environment" => {
            if g.env.is_empty() {
                "sandboxed: empty environment and arguments; add grants.env if it reads a variable".into()
            } else {
                let names: Vec<&str> = g.env.iter().map(|(n, _)| n.as_str()).collect();
                format!("granted: {} (values not shown); no arguments", names.join(", "))
            }
        }
        i if i.starts_with("wasi:") => "sandboxed WASI".into(),
        _ => "unknown to this host".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::verdict;
    use warden::manifest::grants::Grants;

    /// Every interface in `wit/` gets a verdict: a plugin that imports a new capability must
    /// not be shown as "unknown to this host" by `warden check`.
    #[test]
    fn every_wit_interface_is_known() {
        let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit");
        let mut files = vec![wit.join("plugin.wit")];
        for dep in std::fs::read_dir(wit.join("deps")).expect("wit/deps") {
            for file in std::fs::read_dir(dep.expect("entry").path()).expect("a package") {
                files.push(file.expect("entry").path());
            }
        }
        let mut seen = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).expect("wit text");
            let package = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("package "))
                .and_then(|p| p.split('@').next())
                .expect("a package line");
            for line in text.lines() {
                if let Some(rest) = line.strip_prefix("interface ") {
                    let name = rest.trim_end_matches(" {").trim();
                    let import = format!("{package}/{name}@0.1.0");
                    // What a plugin exports, never imports.
                    if package == "warden:plugin"
                        && ["tools", "resources", "prompts", "completions", "groups"]
                            .contains(&name)
                    {
                        continue;
                    }
                    let said = verdict(&import, &Grants::default(), 1024);
                    assert!(!said.contains("unknown"), "{import}: {said}");
                    seen += 1;
                }
            }
        }
        assert!(seen >= 14, "found only {seen} interfaces");
    }
}
