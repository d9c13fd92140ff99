//! `warden plugin push FILE oci://...`: publish a component, optionally signed, and print
//! the reference to pin.

use super::registry_args::{RegistryArgs, reference, tls};
use std::path::Path;
use std::process::ExitCode;
use warden::distribution::{Access, PrivateKey, Trust, client, push};

pub async fn run(
    file: &Path,
    target: &str,
    sign: Option<&Path>,
    registry: &RegistryArgs,
) -> anyhow::Result<ExitCode> {
    tls();
    let reference = reference(target)?;
    if reference.tag.is_none() || reference.digest.is_some() {
        anyhow::bail!(
            "push to a tag without a digest, like oci://{}/{}:1.0; the digest is printed after the push",
            reference.registry,
            reference.repository
        );
    }
    let key = match sign {
        Some(path) => {
            let pem = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("{}: cannot be read: {e}", path.display()))?;
            Some(
                PrivateKey::from_pem(&pem)
                    .map_err(|e| anyhow::anyhow!("{} {e}", path.display()))?,
            )
        }
        None => None,
    };
    let bytes = std::fs::read(file)
        .map_err(|e| anyhow::anyhow!("{}: cannot be read: {e}", file.display()))?;
    if !wasmparser::Parser::is_component(&bytes) {
        anyhow::bail!(
            "{} is not a WebAssembly component; build the plugin for wasm32-wasip2 first",
            file.display()
        );
    }
    let dist = registry.distribution(&reference, Trust::default());
    let shown = |e: warden::distribution::FetchError| anyhow::anyhow!("{}", dist.message(&e));
    let conn = client::connect(&reference, &dist, Access::Push)
        .await
        .map_err(shown)?;
    let digest = push::component(&conn, &reference, &bytes)
        .await
        .map_err(shown)?;
    let pinned = reference.pinned(&digest);
    println!("pushed {pinned}");
    if let Some(key) = key {
        push::signature(&conn, &reference, &digest, &key)
            .await
            .map_err(shown)?;
        println!("signed by {}", key.fingerprint());
    }
    Ok(ExitCode::SUCCESS)
}
