//! `warden plugin pull` and `warden plugin verify`: take an artifact into the local store
//! (where `serve` finds it offline) and say which digest it is and who signed it.

use super::registry_args::{RegistryArgs, TrustArgs, fetch, signer_line};
use std::path::Path;
use std::process::ExitCode;

pub async fn run(
    source: &str,
    trust: &TrustArgs,
    out: Option<&Path>,
    registry: &RegistryArgs,
) -> anyhow::Result<ExitCode> {
    let (reference, fetched) = fetch(source, trust, registry).await?;
    println!("{}", reference.pinned(&fetched.digest));
    println!("{}", signer_line(&fetched));
    if let Some(out) = out {
        std::fs::write(out, &fetched.bytes)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
        println!("component written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}
