//! Pulled artifacts on disk, by digest, under the cache directory (`oci/`). Every read is
//! hashed again, so a file changed on disk is never loaded: it is dropped and pulled anew.
//! Writes go to a temporary file renamed into place, so a crash leaves no half file.

use super::config::MAX_COMPONENT;
use super::signature::Signed;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

/// What the store holds under a digest.
#[derive(Debug, PartialEq, Eq)]
pub enum Stored {
    Intact(Vec<u8>),
    Missing,
    /// A file was there, changed since it was stored (now removed): tampering, or damage.
    Changed,
}

/// `sha256:` and the hex digest of `bytes`.
pub fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

impl Store {
    pub fn new(cache_dir: &Path) -> Self {
        Self {
            dir: cache_dir.join("oci"),
        }
    }

    /// The bytes stored under `digest` (a manifest or a blob), if they still hash to it.
    pub fn get(&self, digest: &str) -> Option<Vec<u8>> {
        match self.lookup(digest) {
            Stored::Intact(bytes) => Some(bytes),
            Stored::Missing | Stored::Changed => None,
        }
    }

    /// What is stored under `digest`. A file that no longer hashes to it (or is larger than
    /// anything Warden stores) is removed and reported as [`Stored::Changed`].
    pub fn lookup(&self, digest: &str) -> Stored {
        let Some(path) = self.blob_path(digest) else {
            return Stored::Missing;
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            return Stored::Missing;
        };
        let intact = if meta.len() > MAX_COMPONENT {
            None
        } else {
            std::fs::read(&path)
                .ok()
                .filter(|bytes| digest_of(bytes) == digest)
        };
        match intact {
            Some(bytes) => Stored::Intact(bytes),
            None => {
                tracing::warn!(path = %path.display(), "a stored artifact no longer matches its digest; it is removed and will be pulled again");
                let _ = std::fs::remove_file(&path);
                Stored::Changed
            }
        }
    }

    /// A new file in the store, for a blob to stream into before it is checked; it is
    /// removed unless [`Store::persist`] keeps it.
    pub fn incoming(&self) -> std::io::Result<tempfile::NamedTempFile> {
        let dir = self.dir.join("sha256");
        std::fs::create_dir_all(&dir)?;
        tempfile::NamedTempFile::new_in(dir)
    }

    /// Keep `file`, whose bytes were checked to hash to `digest`, under it.
    pub fn persist(&self, file: tempfile::NamedTempFile, digest: &str) -> std::io::Result<()> {
        let Some(path) = self.blob_path(digest) else {
            return Err(std::io::Error::other(format!(
                "\"{digest}\" is not a sha256 digest"
            )));
        };
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    }

    pub fn put(&self, digest: &str, bytes: &[u8]) -> std::io::Result<()> {
        let Some(path) = self.blob_path(digest) else {
            return Err(std::io::Error::other(format!(
                "\"{digest}\" is not a sha256 digest"
            )));
        };
        write_atomic(&path, bytes)
    }

    /// Signatures last seen for `digest` (verified again at every load).
    pub fn signatures(&self, digest: &str) -> Vec<Signed> {
        self.signature_path(digest)
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    pub fn put_signatures(&self, digest: &str, signatures: &[Signed]) -> std::io::Result<()> {
        let Some(path) = self.signature_path(digest) else {
            return Err(std::io::Error::other(format!(
                "\"{digest}\" is not a sha256 digest"
            )));
        };
        write_atomic(&path, &serde_json::to_vec(signatures).unwrap_or_default())
    }

    /// The digest `reference` (an unpinned `oci://...:TAG`) resolved to last time.
    pub fn last_resolved(&self, reference: &str) -> Option<String> {
        std::fs::read_to_string(self.tag_path(reference)).ok()
    }

    pub fn put_resolved(&self, reference: &str, digest: &str) -> std::io::Result<()> {
        write_atomic(&self.tag_path(reference), digest.as_bytes())
    }

    fn blob_path(&self, digest: &str) -> Option<PathBuf> {
        super::reference::valid_digest(digest).then(|| self.dir.join("sha256").join(&digest[7..]))
    }

    fn signature_path(&self, digest: &str) -> Option<PathBuf> {
        super::reference::valid_digest(digest).then(|| {
            self.dir
                .join("signatures")
                .join(format!("{}.json", &digest[7..]))
        })
    }

    fn tag_path(&self, reference: &str) -> PathBuf {
        self.dir
            .join("tags")
            .join(hex::encode(Sha256::digest(reference.as_bytes())))
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("a stored file has no directory"))?;
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_is_not_served() {
        let dir = tempfile::tempdir().expect("a test value");
        let store = Store::new(dir.path());
        let digest = digest_of(b"component");
        store.put(&digest, b"component").expect("a test value");
        assert_eq!(store.get(&digest).as_deref(), Some(&b"component"[..]));
        std::fs::write(
            dir.path().join("oci/sha256").join(&digest[7..]),
            b"tampered",
        )
        .expect("a test value");
        assert_eq!(store.lookup(&digest), Stored::Changed);
        assert_eq!(store.lookup(&digest), Stored::Missing);
        assert!(store.put("sha256:../../x", b"").is_err());
    }
}
