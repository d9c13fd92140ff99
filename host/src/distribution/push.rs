//! `warden plugin push`: a component as a CNCF Wasm OCI artifact, and its signature in
//! cosign's layout beside it.

use super::config::{WASM_CONFIG_TYPE, WASM_LAYER_TYPES};
use super::connection::Connection;
use super::error::FetchError;
use super::image::{Descriptor, IMAGE_CONFIG_MEDIA_TYPE, ImageManifest, OCI_IMAGE_MEDIA_TYPE};
use super::keys::PrivateKey;
use super::reference::OciRef;
use super::signature;
use super::store::digest_of;
use std::collections::BTreeMap;

/// Push `component` under `reference`'s tag; returns the manifest digest to pin.
pub async fn component(
    conn: &Connection,
    reference: &OciRef,
    component: &[u8],
) -> Result<String, FetchError> {
    let layer = blob(conn, component, WASM_LAYER_TYPES[0], None).await?;
    let config = serde_json::json!({
        "architecture": "wasm",
        "os": "wasip2",
        "layerDigests": [layer.digest],
    });
    let config = blob(conn, config.to_string().as_bytes(), WASM_CONFIG_TYPE, None).await?;
    let tag = reference.tag.clone().unwrap_or_default();
    put_manifest(conn, &tag, &ImageManifest::new(config, vec![layer])).await
}

/// Sign `digest` with `key` and add the signature to the ones already stored under its
/// `sha256-HEX.sig` tag (a second key's signature keeps the first: key rotation).
pub async fn signature(
    conn: &Connection,
    reference: &OciRef,
    digest: &str,
    key: &PrivateKey,
) -> Result<(), FetchError> {
    let tag = signature::tag_for(digest);
    let mut layers = match conn.manifest(&tag, &format!("signature {tag}")).await {
        Ok(body) => serde_json::from_slice::<ImageManifest>(&body)
            .map(|m| m.layers)
            .unwrap_or_default(),
        Err(FetchError::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(e),
    };
    let signed = signature::sign(key, &reference.name(), digest);
    use base64::Engine;
    let payload = base64::engine::general_purpose::STANDARD
        .decode(&signed.payload)
        .map_err(|e| FetchError::BadManifest(conn.said(&e.to_string())))?;
    let annotations = BTreeMap::from([(
        signature::SIGNATURE_ANNOTATION.to_string(),
        signed.signature,
    )]);
    layers.push(
        blob(
            conn,
            &payload,
            signature::PAYLOAD_MEDIA_TYPE,
            Some(annotations),
        )
        .await?,
    );
    let config = serde_json::json!({
        "architecture": "",
        "os": "",
        "config": {},
        "rootfs": {"type": "layers", "diff_ids": layers.iter().map(|l| l.digest.clone()).collect::<Vec<_>>()},
    });
    let config = blob(
        conn,
        config.to_string().as_bytes(),
        IMAGE_CONFIG_MEDIA_TYPE,
        None,
    )
    .await?;
    put_manifest(conn, &tag, &ImageManifest::new(config, layers))
        .await
        .map(|_| ())
}

async fn blob(
    conn: &Connection,
    bytes: &[u8],
    media_type: &str,
    annotations: Option<BTreeMap<String, String>>,
) -> Result<Descriptor, FetchError> {
    let digest = digest_of(bytes);
    conn.push_blob(bytes::Bytes::copy_from_slice(bytes), &digest)
        .await?;
    Ok(Descriptor {
        media_type: media_type.into(),
        digest,
        size: bytes.len() as u64,
        annotations,
    })
}

/// Store `manifest` under `tag`; its digest.
async fn put_manifest(
    conn: &Connection,
    tag: &str,
    manifest: &ImageManifest,
) -> Result<String, FetchError> {
    let body = serde_json::to_vec(manifest)
        .map_err(|e| FetchError::BadManifest(conn.said(&e.to_string())))?;
    let digest = digest_of(&body);
    conn.put_manifest(tag, body, OCI_IMAGE_MEDIA_TYPE).await?;
    Ok(digest)
}
