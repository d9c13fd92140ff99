//! Root confinement (grant `sftp.roots`). Paths are resolved by the server, so `..`,
//! symlinks and absolute paths are judged by where they really lead: an existing path by
//! its realpath, a new one by its parent's realpath plus a plain final name.

use super::client::Remote;
use russh_sftp::client::error::Error as SftpError;

/// Why a path was refused or could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Outside(String),
    #[error(transparent)]
    Sftp(#[from] SftpError),
}

/// Is `path` (canonical) `root` or below it?
pub fn is_under(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    root.is_empty() || path == root || path.strip_prefix(root).is_some_and(|r| r.starts_with('/'))
}

/// Split `path` into its parent and final name; the name must be a plain file name.
pub fn split_name(path: &str) -> Result<(&str, &str), PathError> {
    let trimmed = path.trim_end_matches('/');
    let (parent, name) = match trimmed.rsplit_once('/') {
        Some(("", name)) => ("/", name),
        Some((parent, name)) => (parent, name),
        None => (".", trimmed),
    };
    if name.is_empty() || name == "." || name == ".." {
        return Err(PathError::Invalid(format!(
            "\"{path}\" does not end in a file name; name the file or directory itself"
        )));
    }
    Ok((parent, name))
}

/// `path` made absolute: relative paths start at the first root.
pub(crate) fn absolute(path: &str, first_root: &str) -> Result<String, PathError> {
    if path.is_empty() || path.contains('\0') {
        return Err(PathError::Invalid(
            "the path is empty or contains NUL".into(),
        ));
    }
    Ok(if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", first_root.trim_end_matches('/'))
    })
}

/// The roots as the server resolves them (cached per connection).
async fn canonical_roots(remote: &Remote, roots: &[String]) -> Result<Vec<String>, PathError> {
    let mut cache = remote.roots.lock().await;
    let mut out = Vec::new();
    for root in roots {
        if !cache.contains_key(root) {
            let canon = remote.sftp.canonicalize(root.clone()).await.ok();
            cache.insert(root.clone(), canon);
        }
        if let Some(Some(c)) = cache.get(root) {
            out.push(c.clone());
        }
    }
    if out.is_empty() {
        return Err(PathError::Outside(format!(
            "none of the sftp.roots {roots:?} exists on the server; the admin should create one or fix grants.sftp.roots"
        )));
    }
    Ok(out)
}

pub(crate) fn check(
    path: &str,
    resolved: &str,
    roots: &[String],
    granted: &[String],
) -> Result<(), PathError> {
    if roots.iter().any(|r| is_under(resolved, r)) {
        Ok(())
    } else {
        Err(PathError::Outside(format!(
            "\"{path}\" resolves to {resolved}, outside the granted sftp.roots {granted:?}; use a path under one of them"
        )))
    }
}

/// Resolve an existing `path` (symlinks followed) and check it stays under a root.
pub async fn existing(
    remote: &Remote,
    granted: &[String],
    path: &str,
) -> Result<String, PathError> {
    let roots = canonical_roots(remote, granted).await?;
    let abs = absolute(path, &roots[0])?;
    let resolved = remote.sftp.canonicalize(abs).await?;
    check(path, &resolved, &roots, granted)?;
    Ok(resolved)
}

/// Resolve a path that may not exist yet: its parent's realpath plus its name. With
/// `follow`, an existing symlink there must also lead under a root (a write would follow it);
/// without, the link itself is the object (remove, rename).
pub async fn entry(
    remote: &Remote,
    granted: &[String],
    path: &str,
    follow: bool,
) -> Result<String, PathError> {
    let roots = canonical_roots(remote, granted).await?;
    let abs = absolute(path, &roots[0])?;
    let (parent, name) = split_name(&abs)?;
    let parent_resolved = remote.sftp.canonicalize(parent.to_string()).await?;
    let resolved = format!("{}/{name}", parent_resolved.trim_end_matches('/'));
    check(path, &resolved, &roots, granted)?;
    if roots.iter().any(|r| r == &resolved) {
        return Err(PathError::Outside(format!(
            "\"{path}\" is a granted root itself; work inside it instead"
        )));
    }
    if follow
        && let Ok(meta) = remote.sftp.symlink_metadata(resolved.clone()).await
        && meta.is_symlink()
    {
        // A dangling link cannot be resolved and is refused: it could point anywhere.
        let target = remote
            .sftp
            .canonicalize(resolved.clone())
            .await
            .map_err(|_| {
                PathError::Outside(format!(
                    "\"{path}\" is a symlink whose target cannot be resolved; refused"
                ))
            })?;
        check(path, &target, &roots, granted)?;
        return Ok(target);
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_root_is_by_component() {
        assert!(is_under("/srv/app", "/srv/app"));
        assert!(is_under("/srv/app/x/y", "/srv/app"));
        assert!(is_under("/srv/app/x", "/srv/app/"));
        assert!(!is_under("/srv/application", "/srv/app"));
        assert!(!is_under("/srv", "/srv/app"));
        assert!(is_under("/anything", "/"));
    }

    #[test]
    fn names_must_be_plain() {
        assert_eq!(split_name("/a/b").expect("ok"), ("/a", "b"));
        assert_eq!(split_name("/a/b/").expect("ok"), ("/a", "b"));
        assert_eq!(split_name("/b").expect("ok"), ("/", "b"));
        assert!(split_name("/a/..").is_err());
        assert!(split_name("/a/.").is_err());
        assert!(split_name("/").is_err());
        assert_eq!(absolute("x/y", "/srv/").expect("ok"), "/srv/x/y");
        assert_eq!(absolute("/etc", "/srv").expect("ok"), "/etc");
        assert!(absolute("", "/srv").is_err());
    }
}
