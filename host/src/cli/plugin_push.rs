//! `warden plugin push FILE oci://...`: publish a component, optionally signed, and print
//! the reference to pin. With `--manifest`, the push (or the registry's refusal) is audited
//! as `plugin_push` in that manifest's audit log.

use super::registry_args::{Audit, RegistryArgs, reference, tls};
use std::path::Path;
use std::process::ExitCode;
use warden::distribution::{Access, FetchError, PrivateKey, Trust, client, push};

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
    let audit = Audit::open(registry)?;
    let dist = registry.distribution(&reference, Trust::default());
    let pushed: Result<(String, String), FetchError> = async {
        let conn = client::connect(&reference, &dist, Access::Push).await?;
        let digest = push::component(&conn, &reference, &bytes).await?;
        let pinned = reference.pinned(&digest).to_string();
        println!("pushed {pinned}");
        let signed = match &key {
            Some(key) => {
                push::signature(&conn, &reference, &digest, key).await?;
                println!("signed by {}", key.fingerprint());
                format!("pushed; signed by {}", key.fingerprint())
            }
            None => "pushed; not signed".to_string(),
        };
        Ok((pinned, signed))
    }
    .await;
    match pushed {
        Ok((pinned, detail)) => {
            audit.record("plugin_push", &reference, Ok((&pinned, &detail)), &dist);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            audit.record("plugin_push", &reference, Err(&e), &dist);
            Err(anyhow::anyhow!("{}", dist.message(&e)))
        }
    }
}
