//! Frames, and scripts in them: Warden's `page.js` in an isolated world of each frame (the
//! page's own scripts cannot see or change it), and evaluation in the page's own world.

use super::{Tab, exception_text, gone, split_handle};
use crate::capabilities::browser::error::{BrowserError, Result};
use serde_json::{Value, json};

const PAGE_JS: &str = include_str!("../page.js");
/// The isolated world Warden's script runs in (shared by all calls, so node numbers stay).
pub(super) const WORLD: &str = "__warden__";

pub use crate::capabilities::browser::model::snapshot::Frame;

impl Tab {
    /// The tab's frames, parents first.
    pub async fn frames(&self) -> Result<Vec<Frame>> {
        let tree = self.call("Page.getFrameTree", json!({})).await?;
        let mut out = Vec::new();
        let mut stack = vec![(tree["frameTree"].clone(), None)];
        while let Some((node, parent)) = stack.pop() {
            let frame = &node["frame"];
            let id = frame["id"].as_str().unwrap_or_default().to_string();
            let index = out.len();
            out.push(Frame {
                id,
                parent,
                url: frame["url"].as_str().unwrap_or_default().to_string(),
                name: frame["name"].as_str().unwrap_or_default().to_string(),
            });
            if let Some(children) = node["childFrames"].as_array() {
                for child in children.iter().rev() {
                    stack.push((child.clone(), Some(index)));
                }
            }
        }
        Ok(out)
    }

    /// The execution context of Warden's isolated world in `frame` (the same world on every
    /// call, so what `page.js` keeps there stays).
    pub(crate) async fn world_context(&self, frame: &str) -> Result<Value> {
        let world = self
            .call(
                "Page.createIsolatedWorld",
                json!({ "frameId": frame, "worldName": WORLD, "grantUniveralAccess": false }),
            )
            .await?;
        Ok(world["executionContextId"].clone())
    }

    /// Call `__warden.<call>` in Warden's isolated world of `frame`; with `expect`, only in
    /// that document (else the answer is `{gone: true}`). Returns the document number.
    pub(crate) async fn world(
        &self,
        frame: &str,
        call: &str,
        expect: Option<u32>,
    ) -> Result<(u32, Value)> {
        self.world_numbered(frame, call, expect, None).await
    }

    /// [`Tab::world`]; with `number`, a document that has no world yet gets that number
    /// (one the host reserved for it, see `static_view.rs`).
    pub(crate) async fn world_numbered(
        &self,
        frame: &str,
        call: &str,
        expect: Option<u32>,
        number: Option<u32>,
    ) -> Result<(u32, Value)> {
        let context = self.world_context(frame).await?;
        let candidate = match number {
            Some(n) => n,
            None => self.state(|t| {
                t.next_doc = t.next_doc.wrapping_add(1);
                t.next_doc
            })?,
        };
        let check = match expect {
            Some(doc) => {
                format!("if (w.doc !== {doc}) return {{ doc: w.doc, value: {{ gone: true }} }};")
            }
            None => String::new(),
        };
        let expression = format!(
            "(() => {{ const w = (globalThis.__warden ??= ({PAGE_JS})({candidate})); {check} return {{ doc: w.doc, value: w.{call} }}; }})()"
        );
        let result = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "contextId": context, "returnByValue": true }),
            )
            .await?;
        if let Some(ex) = result.get("exceptionDetails") {
            let text = exception_text(ex);
            return Err(BrowserError::Io(format!("the page script failed: {text}")));
        }
        let answer = &result["result"]["value"];
        let doc = answer["doc"]
            .as_u64()
            .and_then(|d| u32::try_from(d).ok())
            .ok_or_else(|| BrowserError::Io("the page script gave no document number".into()))?;
        self.state(|t| {
            t.docs.insert(doc, frame.to_string());
        })?;
        Ok((doc, answer["value"].clone()))
    }

    /// Call `__warden.<call>` for the node of `handle`, mapping "gone"/"error" answers.
    pub(crate) async fn on_node(
        &self,
        handle: u64,
        call: impl FnOnce(u64) -> String,
    ) -> Result<(String, Value)> {
        let (doc, node) = split_handle(handle);
        let frame = self
            .state(|t| t.docs.get(&doc).cloned())?
            .ok_or_else(|| gone(handle))?;
        let (_, answer) = self.world(&frame, &call(node), Some(doc)).await?;
        if answer.get("gone").is_some() {
            return Err(gone(handle));
        }
        if let Some(e) = answer.get("error").and_then(Value::as_str) {
            return Err(BrowserError::Invalid(format!(
                "cannot act on that element: {e}"
            )));
        }
        Ok((frame, answer))
    }

    /// Where `frame`'s viewport sits in the main frame's viewport.
    pub(crate) async fn frame_offset(&self, frame: &str) -> Result<(f64, f64)> {
        if frame == self.target {
            return Ok((0.0, 0.0));
        }
        let owner = self
            .call("DOM.getFrameOwner", json!({ "frameId": frame }))
            .await?;
        let model = self
            .call(
                "DOM.getBoxModel",
                json!({ "backendNodeId": owner["backendNodeId"] }),
            )
            .await?;
        let content = &model["model"]["content"];
        Ok((
            content[0].as_f64().unwrap_or(0.0),
            content[1].as_f64().unwrap_or(0.0),
        ))
    }

    /// Evaluate an expression in the page's own world; the result as JSON text.
    pub async fn evaluate(&self, expression: &str) -> Result<String> {
        self.no_dialog()?;
        let result = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true, "userGesture": true }),
            )
            .await?;
        if let Some(ex) = result.get("exceptionDetails") {
            let text = exception_text(ex);
            return Err(BrowserError::Invalid(format!(
                "the script threw: {}",
                self.scrub(text)
            )));
        }
        let r = &result["result"];
        let text = match (
            r.get("value"),
            r["unserializableValue"].as_str(),
            r["type"].as_str(),
        ) {
            (Some(v), _, _) => v.to_string(),
            (None, Some(u), _) => u.to_string(),
            (None, None, Some("undefined")) => "undefined".to_string(),
            _ => r["description"].as_str().unwrap_or("null").to_string(),
        };
        Ok(self.scrub(&text))
    }
}
