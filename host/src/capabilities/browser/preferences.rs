//! The profile preferences Warden pins before it launches a browser: settings Chromium reads
//! only from the profile (every context Warden creates is an off-the-record profile of it and
//! inherits them), never from its command line.
//!
//! - WebRTC's policy: no UDP but through the proxy (`udp.rs`).
//! - No speculative loading: Chromium's "preload pages" setting is off
//!   (`net.network_prediction_options` = 2, never), so a page's speculation rules and
//!   `<link rel=prerender>` neither prefetch nor prerender. A document fetched ahead of its
//!   navigation is answered to that navigation without a request the origin guard pauses;
//!   no command-line switch of Chromium 156 turns it off (measured: `--disable-features=
//!   Prerender2,SpeculationRules` and `--disable-blink-features=SpeculationRules` left both
//!   on). What remains, in a remote browser or a profile that ignores the setting, is held
//!   by the network guard (a document needs the navigation grant) and the commit rule
//!   (`events/commits.rs`).

use super::hostile_fs::{self, Owner};
use serde_json::{Map, Value, json};
use std::path::Path;

/// The largest preferences file read back (Chromium's are some kilobytes).
const MAX_PREFERENCES: u64 = 16 << 20;

/// Chromium's `NetworkPredictionOptions::kDisabled`: never preload.
const NO_PREDICTION: u64 = 2;

/// Write Warden's pinned preferences into the profile in `dir` (Chromium's
/// `Default/Preferences`, kept as it was otherwise), before the browser starts on it. The
/// profile is the browser's (`owner`), so it is read and written as `hostile_fs` says: no
/// symlink there is followed, and the file written is a new one, given to the browser.
pub fn pin(dir: &Path, owner: Owner) -> Result<(), String> {
    let shown = dir.join("Default").join("Preferences");
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", shown.display());
    let profile = dir
        .canonicalize()
        .and_then(|d| hostile_fs::open_dir(&d))
        .map_err(fail)?;
    let default = match hostile_fs::open_dir_in(&profile, "Default") {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let path = hostile_fs::inside(&profile, "Default").map_err(fail)?;
            hostile_fs::make_dir(&path, 0o700, Some(owner)).map_err(fail)?;
            hostile_fs::open_dir(&path).map_err(fail)?
        }
        Err(e) => return Err(fail(e)),
    };
    let path = hostile_fs::inside(&default, "Preferences").map_err(fail)?;
    let mut prefs: Value = match hostile_fs::read_written(&path, owner.uid, MAX_PREFERENCES) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "cannot read the browser profile's preferences {} ({e}); Warden pins its network settings there: fix or remove the file",
                shown.display()
            )
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            // Not a plain file of the browser's (a symlink, a fifo): never read, replaced.
            tracing::warn!("replacing the browser profile's preferences: {e}");
            json!({})
        }
        Err(e) => return Err(format!("cannot read {}: {e}", shown.display())),
    };
    let root = prefs.as_object_mut().ok_or_else(|| {
        format!(
            "the browser profile's preferences {} are not a JSON object; fix or remove the file",
            shown.display()
        )
    })?;
    pin_all(root);
    // Written whole, then renamed: a browser never reads half a file.
    let text = serde_json::to_vec(&prefs).map_err(|e| e.to_string())?;
    hostile_fs::replace_in(&default, "Preferences", &text, Some(owner)).map_err(fail)
}

/// Every pinned setting, over what the profile says.
fn pin_all(prefs: &mut Map<String, Value>) {
    super::udp::pin_webrtc(prefs);
    let net = prefs
        .entry("net")
        .or_insert_with(|| Value::Object(Map::new()));
    if !net.is_object() {
        *net = Value::Object(Map::new());
    }
    if let Some(net) = net.as_object_mut() {
        net.insert("network_prediction_options".into(), json!(NO_PREDICTION));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pins_override_what_the_profile_says_and_keep_the_rest() {
        let mut prefs = json!({
            "net": { "network_prediction_options": 0, "other": 1 },
            "webrtc": "not an object",
            "session": { "restore_on_startup": 1 },
        });
        let root = prefs.as_object_mut().expect("an object");
        pin_all(root);
        assert_eq!(prefs["net"]["network_prediction_options"], json!(2));
        assert_eq!(prefs["net"]["other"], json!(1));
        assert_eq!(
            prefs["webrtc"]["ip_handling_policy"],
            json!("disable_non_proxied_udp")
        );
        assert_eq!(prefs["session"]["restore_on_startup"], json!(1));
        let mut bare = Map::new();
        pin_all(&mut bare);
        assert_eq!(bare["net"]["network_prediction_options"], json!(2));
    }
}
