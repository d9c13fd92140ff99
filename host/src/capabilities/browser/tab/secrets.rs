//! Secrets typed into pages: where one may go, how it is set, and what is scrubbed after.
//!
//! The guarantee rests on *where* a secret goes, not on scrubbing: the host types a secret
//! only into a password field whose frame the browser reports (CDP `Page.getFrameTree` for the
//! URL, the document's `self.origin` read in Warden's isolated world for the security origin,
//! which CDP reports unsandboxed; never page script) as a real http(s) origin bound to the
//! secret, inside frames that are all
//! real http(s) documents, in a session that never had a mocked route. Everything else
//! (`data:`, `blob:`, `about:srcdoc`, `file:`, sandboxed frames) is content the plugin may
//! have written, and a plugin that could write the page could read the field. The value is
//! set from Warden's isolated world of that very document, so no keystroke can be moved
//! to another frame by a focus change.
//!
//! A page of a bound origin runs its own script, which the admin trusted by binding the
//! secret to it: it can show the value, copy it, log it, store it. From the moment the value
//! is typed the page holds it (`model/hold.rs`), and what the plugin can read of it is refused
//! or withheld by that rule. Scrubbing masks the value in what the plugin reads back
//! (snapshot names, URLs, storage, dialogs) in the encodings a page can apply in one call
//! (URL, base64, JSON, hex, reversed: `crate::scrub`); it is the second layer, not the rule.

use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::tab::{Tab, split_handle};
use crate::manifest::grants::SecretFrame;
use crate::scrub::variants;
use serde_json::{Value, json};
use std::collections::HashMap;

impl Tab {
    /// The frame of the field `handle` and its parents up to the top frame, as the browser
    /// reports them, and whether the tab's session has (or had) a mocked route.
    pub async fn secret_target(&self, handle: u64) -> Result<(Vec<SecretFrame>, bool)> {
        let (doc, _) = split_handle(handle);
        let (frame, context) = self.state(|t| (t.docs.get(&doc).cloned(), t.context.clone()))?;
        let frame = frame.ok_or_else(|| {
            BrowserError::Stale(format!(
                "element {handle} is gone from the page (the page changed); take a new snapshot"
            ))
        })?;
        let mocked = self
            .live
            .lock()
            .extras
            .get(&context)
            .is_some_and(|x| x.mocked);
        // Across processes: a frame of another site is read from its own renderer's session.
        let tree = self.frame_tree().await?;
        let mut chain = Vec::new();
        for (id, mut f) in frame_chain(&tree, &frame) {
            // CDP's `securityOrigin` is the URL's origin even in a sandboxed frame; the
            // document's own (`self.origin` in Warden's isolated world) says "null" there. A
            // frame that cannot be asked counts as opaque.
            f.security_origin = match self.world(&id, "selfOrigin()", None).await {
                Ok((_, Value::String(own))) => own,
                _ => "null".to_string(),
            };
            chain.push(f);
        }
        Ok((chain, mocked))
    }

    /// Set secret `value` into the password field `handle`, from Warden's isolated world of
    /// the field's document, which must still be of `origin` (the one the grant check saw).
    pub async fn type_secret(&self, handle: u64, value: &str, origin: &str) -> Result<()> {
        self.no_dialog()?;
        let before = self.mark()?;
        // The document holds the secret before the page can see it (`model/hold.rs`), and the
        // session remembers what to scrub; no later document of another origin in the tab
        // (or a tab that can script it) reads what the page leaves in `window.name`.
        let variants = variants(value);
        let guards = self
            .live
            .lock()
            .hold_secret(&self.target, origin, &variants);
        for (session, guard) in guards {
            self.live
                .cdp
                .call_raw(
                    Some(&session),
                    "Page.addScriptToEvaluateOnNewDocument",
                    guard,
                )
                .await?;
        }
        self.state(|t| {
            for v in variants {
                if !t.secrets.contains(&v) {
                    t.secrets.push(v);
                }
            }
            // Longest first, so a variant that contains another is masked whole.
            t.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        })?;
        self.on_node(handle, |n| format!("focus({n}, true, true)"))
            .await?;
        let (value, origin) = (json!(value), json!(origin));
        self.on_node(handle, |n| format!("setSecret({n}, {value}, {origin})"))
            .await?;
        self.on_node(handle, |n| format!("changed({n}, true)"))
            .await?;
        self.settle(before).await
    }
}

/// `frame` and its parents (from a `Page.getFrameTree` tree) with their ids, the frame first.
/// Empty when the frame is not in the tree (gone).
fn frame_chain(tree: &Value, frame: &str) -> Vec<(String, SecretFrame)> {
    let mut frames: HashMap<String, (Option<String>, SecretFrame)> = HashMap::new();
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        let f = &node["frame"];
        let text = |k: &str| f[k].as_str().unwrap_or_default().to_string();
        frames.insert(
            text("id"),
            (
                f["parentId"].as_str().map(str::to_string),
                SecretFrame {
                    url: text("url"),
                    security_origin: text("securityOrigin"),
                },
            ),
        );
        stack.extend(node["childFrames"].as_array().into_iter().flatten());
    }
    let mut chain = Vec::new();
    let mut next = Some(frame.to_string());
    while let Some(id) = next.take() {
        let Some((parent, f)) = frames.remove(&id) else {
            break;
        };
        chain.push((id, f));
        next = parent;
    }
    chain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_runs_from_the_field_to_the_top() {
        let tree = json!({
            "frame": { "id": "top", "url": "http://a.test/", "securityOrigin": "http://a.test" },
            "childFrames": [{
                "frame": { "id": "mid", "parentId": "top", "url": "data:text/html,x", "securityOrigin": "://" },
                "childFrames": [{
                    "frame": { "id": "leaf", "parentId": "mid", "url": "http://b.test/login", "securityOrigin": "http://b.test" }
                }]
            }]
        });
        let chain = frame_chain(&tree, "leaf");
        let urls: Vec<&str> = chain.iter().map(|(_, f)| f.url.as_str()).collect();
        assert_eq!(
            urls,
            ["http://b.test/login", "data:text/html,x", "http://a.test/"]
        );
        assert!(frame_chain(&tree, "gone").is_empty());
    }
}
