//! The OCI image manifest, as much of it as a plugin artifact and a cosign signature use:
//! a config descriptor and layer descriptors, each naming its bytes by digest and size.
//! Serialized in the field order of the image spec, so a pushed manifest reads like any other.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `application/vnd.oci.image.manifest.v1+json`
pub const OCI_IMAGE_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// Docker's schema 2 manifest, which registries still serve for older pushes.
pub const DOCKER_MANIFEST_MEDIA_TYPE: &str = "application/vnd.docker.distribution.manifest.v2+json";
/// The config media type of a container image (what cosign writes for a signature).
pub const IMAGE_CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.image.config.v1+json";

/// The manifest types Warden asks a registry for.
pub const MANIFEST_TYPES: [&str; 2] = [OCI_IMAGE_MEDIA_TYPE, DOCKER_MANIFEST_MEDIA_TYPE];

/// An image manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageManifest {
    /// Always 2.
    pub schema_version: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
}

impl ImageManifest {
    /// An OCI image manifest of `config` and `layers`.
    pub fn new(config: Descriptor, layers: Vec<Descriptor>) -> Self {
        Self {
            schema_version: 2,
            media_type: Some(OCI_IMAGE_MEDIA_TYPE.into()),
            config,
            layers,
            annotations: None,
        }
    }
}

/// Bytes a manifest names: their type, digest and size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    pub media_type: String,
    pub digest: String,
    /// The exact length of the bytes; a registry that sends more or fewer is refused.
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_in_the_spec_order_and_refuses_a_negative_size() {
        let d = |t: &str| Descriptor {
            media_type: t.into(),
            digest: "sha256:00".into(),
            size: 3,
            annotations: None,
        };
        let m = ImageManifest::new(d("c"), vec![d("l")]);
        assert_eq!(
            serde_json::to_string(&m).expect("json"),
            r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"c","digest":"sha256:00","size":3},"layers":[{"mediaType":"l","digest":"sha256:00","size":3}]}"#
        );
        let negative =
            r#"{"schemaVersion":2,"config":{"mediaType":"c","digest":"d","size":-1},"layers":[]}"#;
        assert!(serde_json::from_str::<ImageManifest>(negative).is_err());
    }
}
