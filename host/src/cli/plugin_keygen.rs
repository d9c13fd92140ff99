//! `warden plugin keygen`: a signing key pair for `warden plugin push --sign`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use warden::distribution::PrivateKey;

pub fn run(out: &Path) -> anyhow::Result<ExitCode> {
    let public = out.with_extension("pub");
    for path in [out, public.as_path()] {
        if path.exists() {
            anyhow::bail!(
                "{} exists; choose another --out, or remove it first",
                path.display()
            );
        }
    }
    let key = PrivateKey::generate()?;
    let private = key.private_pem()?;
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
    file.open(out)
        .and_then(|mut f| f.write_all(private.as_bytes()))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
    std::fs::write(&public, key.public_pem()?)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", public.display()))?;
    println!(
        "private key: {} (keep it secret; sign with `warden plugin push --sign {}`)",
        out.display(),
        out.display()
    );
    println!(
        "public key:  {} ({}); admins trust it under [trust.keys]",
        public.display(),
        key.fingerprint()
    );
    Ok(ExitCode::SUCCESS)
}
