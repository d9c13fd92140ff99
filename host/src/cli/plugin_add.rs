//! `warden plugin add oci://...`: pull a plugin, show what it imports (as `warden check`
//! does, with nothing granted), and print the `[[plugin]]` block to paste, pinned to the
//! digest. It grants nothing: that is the admin's decision.

use super::registry_args::{RegistryArgs, TrustArgs, fetch, signer_line};
use std::process::ExitCode;
use warden::app::App;
use warden::distribution::SignedBy;

pub async fn run(
    source: &str,
    trust: &TrustArgs,
    name: Option<&str>,
    registry: &RegistryArgs,
) -> anyhow::Result<ExitCode> {
    let (reference, fetched) = fetch(source, trust, registry).await?;
    let pinned = reference.pinned(&fetched.digest);
    let name = match name {
        Some(n) => n.to_string(),
        None => default_name(&reference.repository),
    };

    // Load it as `warden check` would, from a scratch manifest that grants nothing.
    let scratch = tempfile::tempdir()?;
    let component = scratch.path().join("component.wasm");
    std::fs::write(&component, &fetched.bytes)?;
    let manifest = scratch.path().join("warden.toml");
    std::fs::write(
        &manifest,
        format!(
            "[server]\naudit_log = {:?}\n\n[[plugin]]\nname = {name:?}\nsource = \"component.wasm\"\n",
            scratch.path().join("audit.jsonl").display().to_string()
        ),
    )?;
    let app = match App::load(Some(&manifest)).await {
        Ok(app) => app,
        Err(e) => {
            println!("{pinned} does not load:\n{e:#}");
            return Ok(ExitCode::from(1));
        }
    };
    println!("{pinned}");
    println!("{}", signer_line(&fetched));
    super::check::show(&app);

    println!("\n# Add to warden.toml, then grant what the imports above need:");
    match fetched.signer.as_ref().map(|s| (&s.name, &s.by)) {
        Some((name, SignedBy::Key { .. })) => {
            let path = trust
                .key
                .iter()
                .find(|k| k.file_stem().is_some_and(|f| f.to_string_lossy() == **name));
            println!(
                "[trust.keys]\n{name} = {:?}\n",
                path.map(|p| p.display().to_string()).unwrap_or_default()
            );
        }
        Some((_, SignedBy::Identity(proven))) => {
            let root = trust
                .trust_root
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            println!(
                "[trust.identities.signer]\nidentity = {:?}\nissuer = {:?}\ntrust_root = {root:?}\n",
                proven.subject, proven.issuer
            );
        }
        None => {}
    }
    let settings = registry.settings();
    if settings.plain_http
        || settings.token_env.is_some()
        || settings.username.is_some()
        || settings.token_realm.is_some()
    {
        println!("[registries.{:?}]", reference.registry);
        if settings.plain_http {
            println!("plain_http = true");
        }
        if let Some(var) = &settings.token_env {
            println!("token_env = {var:?}");
        }
        if let (Some(user), Some(var)) = (&settings.username, &settings.password_env) {
            println!("username = {user:?}\npassword_env = {var:?}");
        }
        if let Some(realm) = &settings.token_realm {
            println!("token_realm = {:?}", realm.as_str());
        }
        println!();
    }
    println!("[[plugin]]\nname = {name:?}\nsource = \"{pinned}\"");
    if fetched.signer.is_none() {
        println!(
            "verify = false  # or name the signer under [trust.keys] or [trust.identities] and drop this line"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The repository's last part as a plugin name (`[a-z0-9_-]{1,32}`).
fn default_name(repository: &str) -> String {
    let last = repository.rsplit('/').next().unwrap_or(repository);
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(32)
        .collect();
    if name.is_empty() {
        "plugin".into()
    } else {
        name
    }
}
