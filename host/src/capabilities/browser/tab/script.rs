//! Frames, and scripts in them: Warden's `page.js` in an isolated world of each frame (the
//! page's own scripts cannot see or change it), and evaluation in the page's own world.

use super::{Tab, exception_text, gone, split_handle};
use crate::capabilities::browser::error::{BrowserError, Result};
use futures::future::join_all;
use serde_json::{Value, json};
use std::collections::HashMap;

const PAGE_JS: &str = include_str!("../page.js");
/// The isolated world Warden's script runs in (shared by all calls, so node numbers stay).
pub(super) const WORLD: &str = "__warden__";

pub use crate::capabilities::browser::model::snapshot::Frame;

/// Frames nested deeper than this are not followed across processes.
const MAX_NESTING: usize = 32;

/// The object group of the frame elements resolved to order frames, released after.
const ORDER_GROUP: &str = "warden-frame-order";
/// A frame element's place among its document's frame elements (page.js lists them so).
const INDEX_OF_FRAME: &str = "function () { return Array.prototype.indexOf.call(this.ownerDocument.querySelectorAll('iframe, frame'), this); }";

/// The node of frame `id` in a `Page.getFrameTree` tree.
fn find_mut<'a>(node: &'a mut Value, id: &str) -> Option<&'a mut Value> {
    if node["frame"]["id"].as_str() == Some(id) {
        return Some(node);
    }
    node.get_mut("childFrames")?
        .as_array_mut()?
        .iter_mut()
        .find_map(|child| find_mut(child, id))
}

/// A node's child frames, made a list when it has none.
fn children_mut(node: &mut Value) -> Option<&mut Vec<Value>> {
    let object = node.as_object_mut()?;
    object
        .entry("childFrames")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
}

/// Note the session of every frame of `node`'s tree not read through the tab's own
/// (`own`): an out-of-process frame's (`roots`), inherited by the frames in its process.
fn assign_sessions(
    node: &Value,
    own: &str,
    session: &str,
    roots: &HashMap<String, String>,
    sessions: &mut HashMap<String, String>,
) {
    let id = node["frame"]["id"].as_str().unwrap_or_default();
    let session = roots.get(id).map_or(session, String::as_str);
    if session != own {
        sessions.insert(id.to_string(), session.to_string());
    }
    for child in node["childFrames"].as_array().into_iter().flatten() {
        assign_sessions(child, own, session, roots, sessions);
    }
}

impl Tab {
    /// The tab's frames, parents first; an out-of-process frame stands where its parent
    /// lists it, with its own document's URL and frames.
    pub async fn frames(&self) -> Result<Vec<Frame>> {
        let tree = self.frame_tree().await?;
        let mut out = Vec::new();
        let mut stack = vec![(&tree, None)];
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
                    stack.push((child, Some(index)));
                }
            }
        }
        Ok(out)
    }

    /// The tab's frame tree (`Page.getFrameTree`) across processes: a renderer lists only
    /// the frames it holds, so each out-of-process frame's own tree (from its session) is
    /// put under its parent frame, among its siblings in the order of their `<iframe>`
    /// elements. Records which session reads each frame.
    pub(crate) async fn frame_tree(&self) -> Result<Value> {
        let (own, oopifs) = self.state(|t| {
            let oopifs: Vec<(String, String)> = t
                .oopifs
                .iter()
                .map(|(frame, o)| (frame.clone(), o.session.clone()))
                .collect();
            (t.session.clone(), oopifs)
        })?;
        let mut tree = self.call("Page.getFrameTree", json!({})).await?["frameTree"].take();
        if oopifs.is_empty() {
            self.state(|t| t.frame_sessions.clear())?;
            return Ok(tree);
        }
        let reads = oopifs.iter().map(|(_, session)| {
            self.live
                .cdp
                .call_raw(Some(session), "Page.getFrameTree", json!({}))
        });
        let answers = join_all(reads).await;
        let mut subtrees: Vec<(String, String, Value)> = Vec::new();
        for ((frame, session), read) in oopifs.iter().zip(answers) {
            // A frame that went away meanwhile is not listed.
            if let Ok(mut answer) = read {
                subtrees.push((frame.clone(), session.clone(), answer["frameTree"].take()));
            }
        }
        // Outer frames first: a frame's parent may itself be out of process.
        let mut roots = HashMap::new();
        let mut parents = Vec::new();
        while !subtrees.is_empty() {
            let before = subtrees.len();
            let mut waiting = Vec::new();
            for (frame, session, sub) in subtrees {
                let parent = sub["frame"]["parentId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                match find_mut(&mut tree, &parent).and_then(|n| children_mut(n)) {
                    Some(children) => {
                        children.retain(|c| c["frame"]["id"].as_str() != Some(frame.as_str()));
                        children.push(sub);
                        roots.insert(frame, session);
                        if !parents.contains(&parent) {
                            parents.push(parent);
                        }
                    }
                    None => waiting.push((frame, session, sub)),
                }
            }
            if waiting.len() == before {
                break;
            }
            subtrees = waiting;
        }
        let mut sessions = HashMap::new();
        assign_sessions(&tree, &own, &own, &roots, &mut sessions);
        self.state(|t| t.frame_sessions = sessions)?;
        for parent in parents {
            if let Some(node) = find_mut(&mut tree, &parent) {
                let ids: Vec<String> = node["childFrames"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["frame"]["id"].as_str().map(str::to_string))
                    .collect();
                let order = self.owner_order(&parent, &ids).await;
                if let Some(children) = children_mut(node) {
                    children.sort_by_key(|c| {
                        c["frame"]["id"]
                            .as_str()
                            .and_then(|id| order.get(id).copied())
                            .unwrap_or(usize::MAX)
                    });
                }
            }
        }
        Ok(tree)
    }

    /// Where each of `children`'s `<iframe>` (or `<frame>`) element stands among those of
    /// `parent`'s document, asked in Warden's isolated world (the page's own prototypes
    /// cannot change the answer). A frame that cannot be placed is left out.
    async fn owner_order(&self, parent: &str, children: &[String]) -> HashMap<String, usize> {
        let mut order = HashMap::new();
        let (Ok(session), Ok(context)) =
            (self.frame_session(parent), self.world_context(parent).await)
        else {
            return order;
        };
        for child in children {
            let place = async {
                let owner = self
                    .call_on(&session, "DOM.getFrameOwner", json!({ "frameId": child }))
                    .await?;
                let object = self
                    .call_on(
                        &session,
                        "DOM.resolveNode",
                        json!({ "backendNodeId": owner["backendNodeId"], "executionContextId": context, "objectGroup": ORDER_GROUP }),
                    )
                    .await?;
                self.call_on(
                    &session,
                    "Runtime.callFunctionOn",
                    json!({ "functionDeclaration": INDEX_OF_FRAME, "objectId": object["object"]["objectId"], "returnByValue": true }),
                )
                .await
            };
            if let Ok(answer) = place.await
                && let Some(index) = answer["result"]["value"].as_u64()
            {
                order.insert(child.clone(), usize::try_from(index).unwrap_or(usize::MAX));
            }
        }
        let _ = self
            .call_on(
                &session,
                "Runtime.releaseObjectGroup",
                json!({ "objectGroup": ORDER_GROUP }),
            )
            .await;
        order
    }

    /// The execution context of Warden's isolated world in `frame` (the same world on every
    /// call, so what `page.js` keeps there stays).
    pub(crate) async fn world_context(&self, frame: &str) -> Result<Value> {
        let world = self
            .call_in(
                frame,
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
            .call_in(
                frame,
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

    /// Where `frame`'s viewport sits in the main frame's viewport: its `<iframe>` element's
    /// box, which a renderer gives in the viewport of its own top frame, plus where that
    /// frame sits when it is an out-of-process frame.
    pub(crate) async fn frame_offset(&self, frame: &str) -> Result<(f64, f64)> {
        let mut total = (0.0, 0.0);
        let mut current = frame.to_string();
        for _ in 0..MAX_NESTING {
            if current == self.target {
                break;
            }
            let oopif = self.state(|t| t.oopifs.get(&current).map(|o| o.parent.clone()))?;
            let session = match oopif {
                Some(parent) => parent,
                None => self.frame_session(&current)?,
            };
            let owner = self
                .call_on(&session, "DOM.getFrameOwner", json!({ "frameId": current }))
                .await?;
            let model = self
                .call_on(
                    &session,
                    "DOM.getBoxModel",
                    json!({ "backendNodeId": owner["backendNodeId"] }),
                )
                .await?;
            let content = &model["model"]["content"];
            total.0 += content[0].as_f64().unwrap_or(0.0);
            total.1 += content[1].as_f64().unwrap_or(0.0);
            // The renderer of `session` draws from the out-of-process frame it serves, if any.
            let root = self.state(|t| {
                t.oopifs
                    .iter()
                    .find(|(_, o)| o.session == session)
                    .map(|(id, _)| id.clone())
            })?;
            match root {
                Some(root) => current = root,
                None => break,
            }
        }
        Ok(total)
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
