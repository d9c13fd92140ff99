//! `warden`: serve sandboxed WebAssembly tool plugins as one MCP server.

mod cli;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "warden",
    version,
    about = "Serve sandboxed WebAssembly tool plugins as one MCP server"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve MCP over stdio (stdout carries only MCP; logs go to stderr), or over HTTP with --http.
    Serve {
        /// The manifest (warden.toml). Without it, a built-in default: the browser and http_get may
        /// reach public https sites; no terminal, files, cookies, script or private networks.
        #[arg(long, short, env = "WARDEN_MANIFEST")]
        manifest: Option<PathBuf>,
        /// Serve streamable HTTP at http://ADDR/mcp instead of stdio, e.g. 127.0.0.1:8931.
        /// Any address but loopback requires a bearer token ([server.http] or WARDEN_HTTP_TOKEN).
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Serve /metrics, /healthz and /readyz at http://ADDR (overrides [admin] listen),
        /// e.g. 127.0.0.1:9464. Never the --http address.
        #[arg(long, value_name = "ADDR")]
        admin: Option<std::net::SocketAddr>,
        /// This process's name among replicas behind a load balancer (overrides [server]
        /// replica): every session and task handle it mints starts with NAME., e.g. r1.
        #[arg(long, value_name = "NAME", env = "WARDEN_REPLICA")]
        replica: Option<String>,
    },
    /// List the tools the manifest serves: tool, plugin, annotations.
    Tools {
        #[arg(long, short, env = "WARDEN_MANIFEST")]
        manifest: Option<PathBuf>,
    },
    /// Call one tool and print its result. Exit code 1 when the tool reports an error.
    Call {
        #[arg(long, short, env = "WARDEN_MANIFEST")]
        manifest: Option<PathBuf>,
        /// Tool name, as in `warden tools`.
        tool: String,
        /// Arguments as a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
    },
    /// Validate the manifest, load every plugin, and show each plugin's imports against its grants.
    Check {
        #[arg(long, short, env = "WARDEN_MANIFEST")]
        manifest: Option<PathBuf>,
        /// Show exactly what this named client gets: its role, tools, prompts, resources and
        /// the grants its calls act with.
        #[arg(long, conflicts_with = "role")]
        client: Option<String>,
        /// Show exactly what every client of this role gets.
        #[arg(long)]
        role: Option<String>,
    },
    /// Print the audit log (the manifest's [server] audit_log), filtered; one record per line.
    /// `recordings` lists the session recordings, `play` plays a terminal recording.
    Audit(cli::audit::AuditArgs),
    /// Write plugins.
    Plugin {
        #[command(subcommand)]
        command: PluginCommand,
    },
}

#[derive(Subcommand)]
enum PluginCommand {
    /// Create a plugin project (example tools on the Warden SDK of its language) and a
    /// manifest that loads it.
    New {
        /// The plugin's name: a-z, 0-9, '-' and '_', starting with a letter.
        name: String,
        /// The language to write it in.
        #[arg(long, value_enum, default_value = "rust")]
        lang: cli::plugin_new::Lang,
        /// What it starts as: `tools` (hello and fetch_status) or `http` (create_issue, which
        /// POSTs JSON to a web API with a token the host holds).
        #[arg(long, value_enum, default_value = "tools")]
        template: cli::plugin_new::Template,
        /// Where to create it (default: ./NAME); must not exist or be empty.
        #[arg(long)]
        path: Option<PathBuf>,
        /// The SDK of that language: `sdk/`, `sdk/js/` or `sdk/python/` of a Warden checkout
        /// (default: the one this warden was built from), an unpacked package, or the packed
        /// JavaScript .tgz or Python .whl itself.
        #[arg(long)]
        sdk: Option<PathBuf>,
    },
    /// Publish a component to an OCI registry, signed with --sign, and print the pinned
    /// reference for the manifest.
    Push {
        /// The component (.wasm).
        file: PathBuf,
        /// Where: oci://REGISTRY/REPO:TAG.
        target: String,
        /// Sign it with this private key (from `warden plugin keygen`).
        #[arg(long, value_name = "KEY")]
        sign: Option<PathBuf>,
        #[command(flatten)]
        registry: cli::registry_args::RegistryArgs,
    },
    /// Pull a plugin into the local store (where `serve` finds it offline) and print its digest.
    Pull {
        /// oci://REGISTRY/REPO:TAG[@sha256:DIGEST]
        source: String,
        /// Check its signature (by a key, or a keyless identity).
        #[command(flatten)]
        trust: cli::registry_args::TrustArgs,
        /// Also write the component here.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        registry: cli::registry_args::RegistryArgs,
    },
    /// Check a plugin's signature by the given keys or keyless identity; exit code 2 when
    /// none is valid.
    Verify {
        /// oci://REGISTRY/REPO:TAG[@sha256:DIGEST]
        source: String,
        /// Whose signature to accept: --key, or --identity with --issuer and --trust-root.
        #[command(flatten)]
        trust: cli::registry_args::TrustArgs,
        #[command(flatten)]
        registry: cli::registry_args::RegistryArgs,
    },
    /// Pull a plugin, show what it imports, and print a pinned [[plugin]] block with no grants.
    Add {
        /// oci://REGISTRY/REPO:TAG[@sha256:DIGEST]
        source: String,
        /// Check its signature (by a key, or a keyless identity).
        #[command(flatten)]
        trust: cli::registry_args::TrustArgs,
        /// The plugin's name in the block (default: the repository's last part).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        registry: cli::registry_args::RegistryArgs,
    },
    /// Make a signing key pair: KEY (private, mode 0600) and KEY.pub.
    Keygen {
        /// Where to write the private key; the public key goes beside it as .pub.
        #[arg(long, default_value = "warden-signing.key")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(warden::shown::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(false)
        .init();
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async {
        match args.command {
            Command::Serve {
                manifest,
                http,
                admin,
                replica,
            } => cli::serve::run(manifest.as_deref(), http, admin, replica).await,
            Command::Tools { manifest } => cli::tools::run(manifest.as_deref()).await,
            Command::Call {
                manifest,
                tool,
                arguments,
            } => cli::call::run(manifest.as_deref(), &tool, &arguments).await,
            Command::Check {
                manifest,
                client,
                role,
            } => {
                let who = match (&client, &role) {
                    (Some(c), _) => Some(cli::check_access::Who::Client(c)),
                    (None, Some(r)) => Some(cli::check_access::Who::Role(r)),
                    (None, None) => None,
                };
                cli::check::run(manifest.as_deref(), who).await
            }
            Command::Audit(args) => cli::audit::run(args),
            Command::Plugin { command } => match command {
                PluginCommand::New {
                    name,
                    lang,
                    template,
                    path,
                    sdk,
                } => cli::plugin_new::run(&name, lang, template, path.as_deref(), sdk.as_deref()),
                PluginCommand::Push {
                    file,
                    target,
                    sign,
                    registry,
                } => cli::plugin_push::run(&file, &target, sign.as_deref(), &registry).await,
                PluginCommand::Pull {
                    source,
                    trust,
                    out,
                    registry,
                } => cli::plugin_pull::run(&source, &trust, out.as_deref(), &registry).await,
                PluginCommand::Verify {
                    source,
                    trust,
                    registry,
                } => {
                    if trust.is_empty() {
                        Err(anyhow::anyhow!(
                            "verify needs whom to trust: --key PUB, or --identity with --issuer and --trust-root"
                        ))
                    } else {
                        cli::plugin_pull::run(&source, &trust, None, &registry).await
                    }
                }
                PluginCommand::Add {
                    source,
                    trust,
                    name,
                    registry,
                } => cli::plugin_add::run(&source, &trust, name.as_deref(), &registry).await,
                PluginCommand::Keygen { out } => cli::plugin_keygen::run(&out),
            },
        }
    });
    // A blocked read of stdin (serve stopped by a signal) must not keep the process alive:
    // the shutdown that matters (browsers, sessions) has already happened.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", warden::shown::line(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}
