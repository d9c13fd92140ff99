//! Taking a component from the store or its registry, checked at every step.

use super::client::{self, Connection};
use super::reference::OciRef;
use super::signature::{self, SignatureError, Signed, Signer};
use super::store::{Store, digest_of};
use super::{
    Distribution, FetchError, Fetched, MAX_COMPONENT, OciSource, Origin, WASM_LAYER_TYPES,
};
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::manifest::{
    IMAGE_MANIFEST_MEDIA_TYPE, OCI_IMAGE_MEDIA_TYPE, OciDescriptor, OciImageManifest,
};
use std::path::Path;

const MANIFEST_TYPES: [&str; 2] = [OCI_IMAGE_MEDIA_TYPE, IMAGE_MANIFEST_MEDIA_TYPE];

/// The component `source` names. A pinned digest already in the store loads without the
/// registry; signatures are verified again at every load, against today's `[trust]`.
pub async fn fetch(
    source: &OciSource,
    dist: &Distribution,
    cache_dir: &Path,
) -> Result<Fetched, FetchError> {
    let store = Store::new(cache_dir);
    let reference = &source.reference;
    if let Some(digest) = &reference.digest
        && let Some(bytes) = stored_component(&store, digest)
    {
        let signer = if source.verify {
            match signature::verify(&store.signatures(digest), digest, &dist.trust) {
                Ok(signer) => Some(signer),
                // Signed since, or the trust changed: ask the registry for its signatures.
                // Without the registry, the stored signatures' verdict is the answer.
                Err(stored) => {
                    let fresh = match open(reference, dist).await {
                        Ok(conn) => fresh_signer(&conn, reference, digest, dist, &store).await,
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
        return Ok(Fetched {
            bytes,
            digest: digest.clone(),
            signer,
            origin: Origin::Store,
        });
    }

    let pulled = match open(reference, dist).await {
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
    let layer = component_layer(&manifest)?;
    let bytes = pull_layer(&conn, reference, &layer).await?;
    let signer = if source.verify {
        Some(fresh_signer(&conn, reference, &digest, dist, &store).await?)
    } else {
        None
    };
    // The manifest is stored as received: only those bytes hash to its digest.
    store
        .put(&layer.digest, &bytes)
        .map_err(FetchError::Store)?;
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
    })
}

/// The component of a stored manifest, if both are stored intact.
fn stored_component(store: &Store, digest: &str) -> Option<Vec<u8>> {
    let manifest: OciImageManifest = serde_json::from_slice(&store.get(digest)?).ok()?;
    let layer = component_layer(&manifest).ok()?;
    store.get(&layer.digest)
}

pub(super) async fn open(
    reference: &OciRef,
    dist: &Distribution,
) -> Result<Connection, FetchError> {
    let settings = dist.registries.get(&reference.registry);
    client::admit(
        reference,
        settings.is_some(),
        settings.is_some_and(|s| s.plain_http),
    )
    .await?;
    client::connect(reference, settings)
}

/// The manifest `reference` names and its digest, checked against the pin.
pub(super) async fn pull_manifest(
    conn: &Connection,
    reference: &OciRef,
) -> Result<(OciImageManifest, String, bytes::Bytes), FetchError> {
    let (body, _) = conn
        .client
        .pull_manifest_raw(&reference.to_client(), &conn.auth, &MANIFEST_TYPES)
        .await
        .map_err(|e| match (e, &reference.digest) {
            // The client compares the body with the pin and the registry's digest header.
            (OciDistributionError::DigestError(d), Some(pinned)) => FetchError::DigestMismatch {
                expected: pinned.clone(),
                detail: d.to_string(),
            },
            (e, _) => registry_error(&reference.registry, &format!("manifest {reference}"), e),
        })?;
    let digest = digest_of(&body);
    if let Some(pinned) = &reference.digest
        && *pinned != digest
    {
        return Err(FetchError::DigestMismatch {
            expected: pinned.clone(),
            detail: format!("its bytes hash to {digest}"),
        });
    }
    let manifest =
        serde_json::from_slice(&body).map_err(|e| FetchError::BadManifest(e.to_string()))?;
    Ok((manifest, digest, body))
}

fn component_layer(manifest: &OciImageManifest) -> Result<OciDescriptor, FetchError> {
    let wasm: Vec<&OciDescriptor> = manifest
        .layers
        .iter()
        .filter(|l| WASM_LAYER_TYPES.contains(&l.media_type.as_str()))
        .collect();
    match wasm.as_slice() {
        [one] if super::reference::valid_digest(&one.digest) => Ok((*one).clone()),
        _ => Err(FetchError::MissingLayer {
            found: if manifest.layers.is_empty() {
                "none".into()
            } else {
                manifest
                    .layers
                    .iter()
                    .map(|l| l.media_type.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        }),
    }
}

async fn pull_layer(
    conn: &Connection,
    reference: &OciRef,
    layer: &OciDescriptor,
) -> Result<Vec<u8>, FetchError> {
    let size = u64::try_from(layer.size).unwrap_or(u64::MAX);
    if size > MAX_COMPONENT {
        return Err(FetchError::TooLarge {
            size,
            max: MAX_COMPONENT,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let result = conn
        .client
        .pull_blob(&reference.to_client(), layer, &mut bytes)
        .await;
    // The client checks the digest as it reads; a digest error is the layer's, not the registry's.
    match result {
        Ok(()) | Err(OciDistributionError::DigestError(_)) => {
            let got = digest_of(&bytes);
            if got != layer.digest {
                return Err(FetchError::LayerMismatch {
                    expected: layer.digest.clone(),
                    got,
                });
            }
        }
        Err(e) => {
            return Err(registry_error(
                &reference.registry,
                &format!("layer {}", layer.digest),
                e,
            ));
        }
    }
    Ok(bytes)
}

/// The registry's signatures of `digest`, verified, then stored for offline loads.
async fn fresh_signer(
    conn: &Connection,
    reference: &OciRef,
    digest: &str,
    dist: &Distribution,
    store: &Store,
) -> Result<Signer, FetchError> {
    let signatures = pull_signatures(conn, reference, digest).await?;
    let signer = signature::verify(&signatures, digest, &dist.trust)?;
    store
        .put_signatures(digest, &signatures)
        .map_err(FetchError::Store)?;
    Ok(signer)
}

/// Every signature stored under `sha256-HEX.sig` (none: `Unsigned`).
pub(super) async fn pull_signatures(
    conn: &Connection,
    reference: &OciRef,
    digest: &str,
) -> Result<Vec<Signed>, FetchError> {
    let tag = signature::tag_for(digest);
    let sig_ref = reference.sibling(&tag);
    let body = match conn
        .client
        .pull_manifest_raw(&sig_ref, &conn.auth, &MANIFEST_TYPES)
        .await
    {
        Ok((body, _)) => body,
        Err(e) if is_not_found(&e) => return Err(SignatureError::Unsigned { tag }.into()),
        Err(e) => {
            return Err(registry_error(
                &reference.registry,
                &format!("signature {tag}"),
                e,
            ));
        }
    };
    let manifest: OciImageManifest =
        serde_json::from_slice(&body).map_err(|e| FetchError::BadManifest(e.to_string()))?;
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
        // A payload is a few hundred bytes; a huge one is not a signature.
        if layer.size > 64 * 1024 {
            continue;
        }
        let mut payload = Vec::new();
        if conn
            .client
            .pull_blob(&sig_ref, layer, &mut payload)
            .await
            .is_err()
        {
            continue;
        }
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

pub(super) fn is_not_found(e: &OciDistributionError) -> bool {
    match e {
        OciDistributionError::ImageManifestNotFoundError(_) => true,
        OciDistributionError::RegistryError { envelope, .. } => envelope.errors.iter().any(|e| {
            matches!(
                e.code,
                OciErrorCode::ManifestUnknown
                    | OciErrorCode::NotFound
                    | OciErrorCode::NameUnknown
                    | OciErrorCode::BlobUnknown
            )
        }),
        OciDistributionError::ServerError { code, .. } => *code == 404,
        _ => false,
    }
}

pub(super) fn registry_error(registry: &str, what: &str, e: OciDistributionError) -> FetchError {
    if is_not_found(&e) {
        return FetchError::NotFound {
            what: what.to_string(),
        };
    }
    match e {
        OciDistributionError::DigestError(d) => FetchError::BadManifest(d.to_string()),
        OciDistributionError::AuthenticationFailure(m) => FetchError::Unauthorized {
            registry: registry.to_string(),
            message: m,
        },
        OciDistributionError::UnauthorizedError { url } => FetchError::Unauthorized {
            registry: registry.to_string(),
            message: format!("401 at {url}"),
        },
        OciDistributionError::ServerError {
            code: 401 | 403,
            url,
            ..
        } => FetchError::Unauthorized {
            registry: registry.to_string(),
            message: format!("{what}: refused at {url}"),
        },
        OciDistributionError::RegistryError { envelope, url }
            if envelope
                .errors
                .iter()
                .any(|e| matches!(e.code, OciErrorCode::Unauthorized | OciErrorCode::Denied)) =>
        {
            FetchError::Unauthorized {
                registry: registry.to_string(),
                message: format!("{what}: refused at {url}"),
            }
        }
        other => FetchError::Registry {
            registry: registry.to_string(),
            message: crate::net::chain::error_chain(&other),
        },
    }
}
