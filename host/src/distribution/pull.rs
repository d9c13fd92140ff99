//! Taking a component from the store or its registry, checked at every step.

use super::config::{Distribution, MAX_COMPONENT, OciSource, WASM_LAYER_TYPES};
use super::connection::{self, Access, Connection};
use super::error::FetchError;
use super::image::{Descriptor, ImageManifest};
use super::reference::OciRef;
use super::signature::{self, SignatureError, Signed, Signer};
use super::store::{Store, Stored, digest_of};
use std::path::Path;

/// A signature payload is a few hundred bytes; a larger layer is not read as one.
const MAX_PAYLOAD: u64 = 64 * 1024;
/// The most signatures of one artifact that are read (a key rotation adds one).
const MAX_SIGNATURES: usize = 32;

/// Where the loaded bytes came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Pulled from the registry now.
    Registry,
    /// Read from the store, pulled earlier (the registry was not asked for the component).
    Store,
}

/// A pulled, checked component.
#[derive(Debug)]
pub struct Fetched {
    pub bytes: Vec<u8>,
    /// The manifest digest the bytes belong to.
    pub digest: String,
    /// Who signed it; `None` when `verify = false`.
    pub signer: Option<Signer>,
    pub origin: Origin,
    /// The stored copy had been changed on disk and was pulled again.
    pub repaired: bool,
}

/// The component `source` names. A pinned digest already in the store loads without the
/// registry; signatures are verified again at every load, against today's `[trust]`.
pub async fn fetch(
    source: &OciSource,
    dist: &Distribution,
    cache_dir: &Path,
) -> Result<Fetched, FetchError> {
    let store = Store::new(cache_dir);
    let reference = &source.reference;
    let mut changed = None;
    if let Some(digest) = &reference.digest {
        match stored_component(&store, digest) {
            Stored::Intact(bytes) => return from_store(source, dist, &store, digest, bytes).await,
            Stored::Changed => changed = Some(digest.clone()),
            Stored::Missing => {}
        }
    }
    match pull(source, dist, &store).await {
        Ok(fetched) => Ok(Fetched {
            repaired: changed.is_some(),
            ..fetched
        }),
        // What was changed on disk is the news, not the registry's answer that followed.
        Err(then) => Err(match changed {
            Some(digest) => FetchError::StoreChanged {
                digest,
                then: Box::new(then),
            },
            None => then,
        }),
    }
}

async fn from_store(
    source: &OciSource,
    dist: &Distribution,
    store: &Store,
    digest: &str,
    bytes: Vec<u8>,
) -> Result<Fetched, FetchError> {
    let reference = &source.reference;
    let signer = if source.verify {
        match signature::verify(&store.signatures(digest), digest, &dist.trust) {
            Ok(signer) => Some(signer),
            // Signed since, or the trust changed: ask the registry for its signatures.
            // Without the registry, the stored signatures' verdict is the answer.
            Err(stored) => {
                let fresh = match connection::connect(reference, dist, Access::Pull).await {
                    Ok(conn) => fresh_signer(&conn, digest, dist, store).await,
                    Err(e) => Err(e),
                };
                match fresh {
                    Ok(signer) => Some(signer),
                    Err(FetchError::Registry { .. }) => return Err(stored.into()),
                    Err(e) => return Err(e),
                }
            }
        }
    } else {
        None
    };
    Ok(Fetched {
        bytes,
        digest: digest.to_string(),
        signer,
        origin: Origin::Store,
        repaired: false,
    })
}

/// Pull from the registry: the manifest, the component layer (streamed to the store while
/// hashed), the signatures.
async fn pull(
    source: &OciSource,
    dist: &Distribution,
    store: &Store,
) -> Result<Fetched, FetchError> {
    let reference = &source.reference;
    let pulled = match connection::connect(reference, dist, Access::Pull).await {
        Ok(conn) => pull_manifest(&conn, reference).await.map(|m| (conn, m)),
        Err(e) => Err(e),
    };
    let (conn, (manifest, digest, body)) = match pulled {
        Err(FetchError::Registry { registry, message }) if reference.digest.is_none() => {
            // An unpinned tag cannot start from the store; say which digest it named last.
            return Err(match store.last_resolved(&reference.to_string()) {
                Some(last) => FetchError::UnpinnedOffline {
                    registry,
                    message,
                    pinned: reference.pinned(&last).to_string(),
                },
                None => FetchError::Registry { registry, message },
            });
        }
        other => other?,
    };
    let layer = component_layer(&manifest).map_err(|found| FetchError::MissingLayer {
        found: conn.said(&found),
    })?;
    if layer.size > MAX_COMPONENT {
        return Err(FetchError::TooLarge {
            size: layer.size,
            max: MAX_COMPONENT,
        });
    }
    let incoming = store.incoming().map_err(FetchError::Store)?;
    let mut file =
        tokio::fs::File::from_std(incoming.as_file().try_clone().map_err(FetchError::Store)?);
    conn.blob_into(&layer, &format!("layer {}", layer.digest), &mut file)
        .await?;
    drop(file);
    let signer = if source.verify {
        Some(fresh_signer(&conn, &digest, dist, store).await?)
    } else {
        None
    };
    let bytes = std::fs::read(incoming.path()).map_err(FetchError::Store)?;
    store
        .persist(incoming, &layer.digest)
        .map_err(FetchError::Store)?;
    // The manifest is stored as received: only those bytes hash to its digest.
    store.put(&digest, &body).map_err(FetchError::Store)?;
    if reference.digest.is_none() {
        store
            .put_resolved(&reference.to_string(), &digest)
            .map_err(FetchError::Store)?;
    }
    Ok(Fetched {
        bytes,
        digest,
        signer,
        origin: Origin::Registry,
        repaired: false,
    })
}

/// The component of a stored manifest, if both are stored intact; `Changed` when either
/// file was changed on disk.
fn stored_component(store: &Store, digest: &str) -> Stored {
    let manifest = match store.lookup(digest) {
        Stored::Intact(bytes) => bytes,
        other => return other,
    };
    let Some(layer) = serde_json::from_slice::<ImageManifest>(&manifest)
        .ok()
        .and_then(|m| component_layer(&m).ok())
    else {
        return Stored::Missing;
    };
    store.lookup(&layer.digest)
}

/// The manifest `reference` names and its digest, checked against the pin.
pub(super) async fn pull_manifest(
    conn: &Connection,
    reference: &OciRef,
) -> Result<(ImageManifest, String, bytes::Bytes), FetchError> {
    let at = reference.digest.as_deref().or(reference.tag.as_deref());
    let body = conn
        .manifest(at.unwrap_or_default(), &format!("manifest {reference}"))
        .await?;
    let digest = digest_of(&body);
    if let Some(pinned) = &reference.digest
        && *pinned != digest
    {
        return Err(FetchError::DigestMismatch {
            expected: pinned.clone(),
            detail: format!("its bytes hash to {digest}"),
        });
    }
    let manifest = serde_json::from_slice(&body)
        .map_err(|e| FetchError::BadManifest(conn.said(&e.to_string())))?;
    Ok((manifest, digest, body))
}

/// The one Wasm layer of `manifest`, or the media types it has instead.
fn component_layer(manifest: &ImageManifest) -> Result<Descriptor, String> {
    let wasm: Vec<&Descriptor> = manifest
        .layers
        .iter()
        .filter(|l| WASM_LAYER_TYPES.contains(&l.media_type.as_str()))
        .collect();
    match wasm.as_slice() {
        [one] if super::reference::valid_digest(&one.digest) => Ok((*one).clone()),
        _ if manifest.layers.is_empty() => Err("none".into()),
        _ => Err(manifest
            .layers
            .iter()
            .map(|l| l.media_type.as_str())
            .collect::<Vec<_>>()
            .join(", ")),
    }
}

/// The registry's signatures of `digest`, verified, then stored for offline loads.
async fn fresh_signer(
    conn: &Connection,
    digest: &str,
    dist: &Distribution,
    store: &Store,
) -> Result<Signer, FetchError> {
    let signatures = pull_signatures(conn, digest).await?;
    let signer = signature::verify(&signatures, digest, &dist.trust)?;
    store
        .put_signatures(digest, &signatures)
        .map_err(FetchError::Store)?;
    Ok(signer)
}

/// Every signature stored under `sha256-HEX.sig` (none: `Unsigned`).
pub(super) async fn pull_signatures(
    conn: &Connection,
    digest: &str,
) -> Result<Vec<Signed>, FetchError> {
    let tag = signature::tag_for(digest);
    let body = match conn.manifest(&tag, &format!("signature {tag}")).await {
        Ok(body) => body,
        Err(FetchError::NotFound { .. }) => return Err(SignatureError::Unsigned { tag }.into()),
        Err(e) => return Err(e),
    };
    let manifest: ImageManifest = serde_json::from_slice(&body)
        .map_err(|e| FetchError::BadManifest(conn.said(&e.to_string())))?;
    let mut out = Vec::new();
    for layer in manifest
        .layers
        .iter()
        .filter(|l| l.media_type == signature::PAYLOAD_MEDIA_TYPE)
    {
        let Some(annotations) = layer.annotations.as_ref() else {
            continue;
        };
        let Some(sig) = annotations.get(signature::SIGNATURE_ANNOTATION) else {
            continue;
        };
        if layer.size > MAX_PAYLOAD || out.len() >= MAX_SIGNATURES {
            continue;
        }
        // A payload that is not the size or the digest its manifest declares is the
        // registry's lie, refused as such; one it lost is skipped.
        let payload = match conn
            .blob(layer, &format!("signature payload {}", layer.digest))
            .await
        {
            Ok(payload) => payload,
            Err(FetchError::NotFound { .. }) => continue,
            Err(e) => return Err(e),
        };
        use base64::Engine;
        out.push(Signed {
            payload: base64::engine::general_purpose::STANDARD.encode(&payload),
            signature: sig.clone(),
            certificate: annotations.get(signature::CERTIFICATE_ANNOTATION).cloned(),
            chain: annotations.get(signature::CHAIN_ANNOTATION).cloned(),
            bundle: annotations.get(signature::BUNDLE_ANNOTATION).cloned(),
        });
    }
    Ok(out)
}
