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
//! is typed the page holds it (`holding.rs`), and what the plugin can read of it is refused
//! or withheld by that rule. Scrubbing masks the value in what the plugin reads back
//! (snapshot names, URLs, storage, dialogs) in the encodings a page can apply in one call
//! (URL, base64, JSON, hex, reversed); it is the second layer, not the rule.

use super::error::{BrowserError, Result};
use super::tab::{Tab, split_handle};
use crate::manifest::grants::SecretFrame;
use base64::Engine as _;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Variants shorter than this (and every variant of a shorter secret) are not scrubbed: they
/// would mask ordinary text.
const MIN_VARIANT: usize = 4;

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
        let tree = self.call("Page.getFrameTree", json!({})).await?;
        let mut chain = Vec::new();
        for (id, mut f) in frame_chain(&tree["frameTree"], &frame) {
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
        // The document holds the secret before the page can see it (`holding.rs`), and the
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
/// Empty when the frame is not in the tree (gone, or in a process of its own that the tree omits).
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

/// The secret and the forms a page can turn it into with one built-in call: URL-encoded
/// (`encodeURIComponent`, form encoding, RFC 3986), base64 (standard and URL-safe, at every
/// byte alignment, so it is found inside a longer encoded text), JSON-escaped, hex, reversed.
pub fn variants(secret: &str) -> Vec<String> {
    let mut out = vec![secret.to_string()];
    if secret.chars().count() < MIN_VARIANT {
        // Its encodings would be as short, and mask ordinary text.
        return out;
    }
    let mut add = |v: String| {
        if v.len() >= MIN_VARIANT && !out.contains(&v) {
            out.push(v);
        }
    };
    add(secret.chars().rev().collect());
    add(percent(secret, b"-_.!~*'()", false));
    add(lower_hex(&percent(secret, b"-_.!~*'()", false)));
    add(percent(secret, b"*-._", true));
    add(percent(secret, b"-._~", false));
    let json = serde_json::to_string(secret).unwrap_or_default();
    add(json.trim_matches('"').to_string());
    add(ascii_json(secret));
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    add(hex.to_ascii_uppercase());
    add(hex);
    for offset in 0..3 {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret.as_bytes());
        let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes);
        // Characters that carry filler bits at the start, or padding bits at the end, depend
        // on the neighbouring bytes: keep only those made of the secret's bits alone.
        let skip = (offset * 8).div_ceil(6);
        let keep_end = if (bytes.len() * 8) % 6 == 0 {
            encoded.len()
        } else {
            encoded.len().saturating_sub(1)
        };
        if let Some(core) = encoded.get(skip..keep_end) {
            add(core.to_string());
            add(core.replace('+', "-").replace('/', "_"));
        }
    }
    out
}

/// Percent-encode `s`, keeping ASCII letters, digits and `keep`; `plus` writes a space as `+`.
fn percent(s: &str, keep: &[u8], plus: bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(char::from(b));
        } else if plus && b == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// JSON string content with every character outside printable ASCII as `\uXXXX`.
fn ascii_json(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out
}

/// `%2F` as `%2f`: some encoders write lowercase hex digits.
fn lower_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let end = (at + 3).min(rest.len());
        out.push_str(&rest.get(at..end).unwrap_or_default().to_ascii_lowercase());
        rest = rest.get(end..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// Replace every variant in `secrets` (longest first) with `mask`.
pub fn scrub(text: &str, secrets: &[String], mask: &str) -> String {
    let mut out = text.to_string();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), mask);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr3t pässword/+&\"x";

    fn masked(text: &str) -> String {
        let mut v = variants(SECRET);
        v.sort_by_key(|s| std::cmp::Reverse(s.len()));
        scrub(text, &v, "••••")
    }

    #[test]
    fn encodings_a_page_applies_are_masked() {
        let b64 = base64::engine::general_purpose::STANDARD;
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let reversed: String = SECRET.chars().rev().collect();
        let json = serde_json::to_string(SECRET).expect("json");
        let mut form = String::new();
        for b in SECRET.bytes() {
            match b {
                b' ' => form.push('+'),
                b if b.is_ascii_alphanumeric() || b"*-._".contains(&b) => form.push(char::from(b)),
                b => form.push_str(&format!("%{b:02X}")),
            }
        }
        let texts = [
            format!("typed {SECRET}"),
            format!("<h1>{reversed}</h1>"),
            format!("GET /steal?p={}", percent(SECRET, b"-_.!~*'()", false)),
            format!("POST body={form}"),
            format!("{{\"p\":{json}}}"),
            format!("b64:{}", b64.encode(SECRET)),
            format!("b64:{}", b64.encode(format!("user=alice&p={SECRET}"))),
            format!("b64:{}", b64.encode(format!("u={SECRET}&x=1"))),
            format!("b64:{}", b64.encode(format!("ab{SECRET}"))),
            format!("b64url:{}", url_safe.encode(format!("k:{SECRET}"))),
            format!(
                "hex:{}",
                SECRET
                    .bytes()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            ),
        ];
        for text in texts {
            let out = masked(&text);
            assert!(out.contains("••••"), "not masked: {text} -> {out}");
            assert!(!out.contains(SECRET), "{out}");
        }
        assert_eq!(masked("nothing to see"), "nothing to see");
    }

    #[test]
    fn short_variants_are_not_scrubbed() {
        // A 2-character secret masks itself, not every 2-character base64 fragment.
        let v = variants("ab");
        assert_eq!(v, vec!["ab".to_string()]);
    }

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
