//! `warden plugin pull` and `warden plugin verify`: take an artifact into the local store
//! (where `serve` finds it offline) and say which digest it is and who signed it.

use super::registry_args::{RegistryArgs, reference, tls};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use warden::distribution::{self, OciSource};

pub async fn run(
    source: &str,
    keys: &[PathBuf],
    out: Option<&Path>,
    registry: &RegistryArgs,
) -> anyhow::Result<ExitCode> {
    tls();
    let reference = reference(source)?;
    let dist = registry.distribution(&reference, keys)?;
    let verify = !keys.is_empty();
    let fetched = distribution::fetch(
        &OciSource {
            reference: reference.clone(),
            verify,
        },
        &dist,
        &warden::manifest::cache_dir(),
    )
    .await?;
    println!("{}", reference.pinned(&fetched.digest));
    match &fetched.signer {
        Some(s) => println!("signed by key '{}' ({})", s.key, s.fingerprint),
        None => println!("signature not checked (give --key PUB to check it)"),
    }
    if let Some(out) = out {
        std::fs::write(out, &fetched.bytes)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
        println!("component written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}
