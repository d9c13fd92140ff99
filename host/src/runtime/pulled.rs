//! An `oci://` plugin's component: pulled (or read from the store) and checked by
//! [`crate::distribution`], with one audit line per load saying which digest runs and who
//! signed it, or why it was refused. The refusal's text is bounded and scrubbed of every
//! registry credential before it reaches the audit line, the log or the load error.

use crate::audit::{self, AuditLog, Outcome, Record};
use crate::distribution::{self, Distribution, Fetched, OciSource, Origin};
use std::path::Path;

/// The component bytes of `source`, for plugin `plugin`; the error is the load error's text.
pub async fn component(
    plugin: &str,
    source: &OciSource,
    distribution: &Distribution,
    cache_dir: &Path,
    audit: &AuditLog,
) -> Result<Vec<u8>, String> {
    match distribution::fetch(source, distribution, cache_dir).await {
        Ok(fetched) => {
            let pinned = source.reference.pinned(&fetched.digest).to_string();
            let detail = describe(&fetched);
            if source.reference.digest.is_none() {
                tracing::warn!(plugin, source = %source.reference, digest = %fetched.digest, "unpinned plugin source resolved; pin it as {pinned}");
            }
            tracing::info!(plugin, source = %pinned, "{detail}");
            audit.write(&Record {
                ts: audit::now(),
                event: "plugin_load",
                plugin,
                decision: "allowed",
                capability: Some("oci"),
                target: Some(&pinned),
                detail: Some(&detail),
                bytes: Some(fetched.bytes.len() as u64),
                ..Default::default()
            });
            Ok(fetched.bytes)
        }
        Err(e) => {
            let message = distribution.message(&e);
            let target = source.reference.to_string();
            audit.write(&Record {
                ts: audit::now(),
                event: "plugin_load",
                plugin,
                decision: "denied",
                outcome: Outcome::Denied,
                capability: Some("oci"),
                target: Some(&target),
                reason: Some(&message),
                error: Some(e.kind()),
                ..Default::default()
            });
            Err(message)
        }
    }
}

fn describe(fetched: &Fetched) -> String {
    let who = match &fetched.signer {
        Some(s) => s.to_string(),
        None => "not verified (verify = false)".into(),
    };
    let from = match fetched.origin {
        Origin::Registry => "pulled from the registry",
        Origin::Store => "from the local store",
    };
    if fetched.repaired {
        format!("{who}; {from}; the stored copy had been changed on disk and was replaced")
    } else {
        format!("{who}; {from}")
    }
}
