//! `warden plugin push`: a component as a CNCF Wasm OCI artifact, and its signature in
//! cosign's layout beside it.

use super::client::Connection;
use super::keys::PrivateKey;
use super::pull::{is_not_found, registry_error};
use super::reference::OciRef;
use super::signature;
use super::store::digest_of;
use super::{FetchError, WASM_CONFIG_TYPE, WASM_LAYER_TYPES};
use oci_client::RegistryOperation;
use oci_client::manifest::{
    IMAGE_CONFIG_MEDIA_TYPE, OCI_IMAGE_MEDIA_TYPE, OciDescriptor, OciImageManifest,
};
use std::collections::BTreeMap;

/// Push `component` under `reference`'s tag; returns the manifest digest to pin.
pub async fn component(
    conn: &Connection,
    reference: &OciRef,
    component: &[u8],
) -> Result<String, FetchError> {
    let target = reference.to_client();
    authorize(conn, reference).await?;
    let layer = blob(conn, reference, component, WASM_LAYER_TYPES[0], None).await?;
    let config = serde_json::json!({
        "architecture": "wasm",
        "os": "wasip2",
        "layerDigests": [layer.digest],
    });
    let config = blob(
        conn,
        reference,
        config.to_string().as_bytes(),
        WASM_CONFIG_TYPE,
        None,
    )
    .await?;
    let manifest = OciImageManifest {
        media_type: Some(OCI_IMAGE_MEDIA_TYPE.into()),
        config,
        layers: vec![layer],
        ..Default::default()
    };
    put_manifest(conn, reference, &target, &manifest).await
}

/// Sign `digest` with `key` and add the signature to the ones already stored under its
/// `sha256-HEX.sig` tag (a second key's signature keeps the first: key rotation).
pub async fn signature(
    conn: &Connection,
    reference: &OciRef,
    digest: &str,
    key: &PrivateKey,
) -> Result<(), FetchError> {
    authorize(conn, reference).await?;
    let tag = signature::tag_for(digest);
    let sig_ref = reference.sibling(&tag);
    let mut layers = match conn
        .client
        .pull_manifest_raw(&sig_ref, &conn.auth, &[OCI_IMAGE_MEDIA_TYPE])
        .await
    {
        Ok((body, _)) => serde_json::from_slice::<OciImageManifest>(&body)
            .map(|m| m.layers)
            .unwrap_or_default(),
        Err(e) if is_not_found(&e) => Vec::new(),
        Err(e) => {
            return Err(registry_error(
                &reference.registry,
                &format!("signature {tag}"),
                e,
            ));
        }
    };
    let signed = signature::sign(key, &reference.name(), digest);
    use base64::Engine;
    let payload = base64::engine::general_purpose::STANDARD
        .decode(&signed.payload)
        .map_err(|e| FetchError::BadManifest(e.to_string()))?;
    let annotations = BTreeMap::from([(
        signature::SIGNATURE_ANNOTATION.to_string(),
        signed.signature,
    )]);
    layers.push(
        blob(
            conn,
            reference,
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
        reference,
        config.to_string().as_bytes(),
        IMAGE_CONFIG_MEDIA_TYPE,
        None,
    )
    .await?;
    let manifest = OciImageManifest {
        media_type: Some(OCI_IMAGE_MEDIA_TYPE.into()),
        config,
        layers,
        ..Default::default()
    };
    put_manifest(conn, reference, &sig_ref, &manifest)
        .await
        .map(|_| ())
}

async fn authorize(conn: &Connection, reference: &OciRef) -> Result<(), FetchError> {
    conn.client
        .auth(&reference.to_client(), &conn.auth, RegistryOperation::Push)
        .await
        .map(|_| ())
        .map_err(|e| registry_error(&reference.registry, "push access", e))
}

async fn blob(
    conn: &Connection,
    reference: &OciRef,
    bytes: &[u8],
    media_type: &str,
    annotations: Option<BTreeMap<String, String>>,
) -> Result<OciDescriptor, FetchError> {
    let digest = digest_of(bytes);
    conn.client
        .push_blob(&reference.to_client(), bytes.to_vec(), &digest)
        .await
        .map_err(|e| registry_error(&reference.registry, &format!("upload of {digest}"), e))?;
    Ok(OciDescriptor {
        media_type: media_type.into(),
        digest,
        size: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
        annotations,
        ..Default::default()
    })
}

async fn put_manifest(
    conn: &Connection,
    reference: &OciRef,
    target: &oci_client::Reference,
    manifest: &OciImageManifest,
) -> Result<String, FetchError> {
    let body = serde_json::to_vec(manifest).map_err(|e| FetchError::BadManifest(e.to_string()))?;
    let digest = digest_of(&body);
    let content_type = reqwest::header::HeaderValue::from_static(OCI_IMAGE_MEDIA_TYPE);
    conn.client
        .push_manifest_raw(target, body, content_type)
        .await
        .map_err(|e| registry_error(&reference.registry, "manifest upload", e))?;
    Ok(digest)
}
