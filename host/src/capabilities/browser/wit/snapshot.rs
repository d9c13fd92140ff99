//! The element snapshot of every frame as WIT records: element handles made of the document
//! and node numbers, states as flags, bounds in the main frame's viewport, everything scrubbed
//! of the tab's secrets.

use super::super::bindings::warden::browser::browser::{
    Element, ElementStates, FrameInfo, Overlay, PageMeta, Rect, Snapshot,
};
use super::super::model::hold as holding;
use super::super::tab::{FrameSnapshot, Tab};

pub(super) fn to_wit_snapshot(tab: &Tab, frames: &[FrameSnapshot], include_text: bool) -> Snapshot {
    records(&|s: &str| tab.scrub(s), frames, include_text)
}

/// What a snapshot of a page that holds a secret keeps (`model/hold.rs`): every element and its
/// name, but no field's value (the page may have moved the secret into any of them), no URL
/// query, no title and no description (the page's own text); `url` and `title` are the
/// tab's as shown. Text blocks were not asked for.
pub(crate) fn neutralise(snapshot: &mut Snapshot, url: String, title: String) {
    for e in &mut snapshot.elements {
        if let Some(v) = &mut e.value
            && !v.is_empty()
        {
            *v = MASK.to_string();
        }
    }
    for f in &mut snapshot.frames {
        f.url = holding::without_query(&f.url);
    }
    snapshot.meta.url = url;
    snapshot.meta.title = title;
    snapshot.meta.description = None;
}

/// The mask of a field's value while its page holds a secret.
const MASK: &str = "••••";

/// The records of `frames` as `page.js` reported them, each text passed through `scrub`.
/// Page-script JSON is the page's to shape: a missing or mistyped field reads as empty.
pub(crate) fn records(
    scrub: &dyn Fn(&str) -> String,
    frames: &[FrameSnapshot],
    include_text: bool,
) -> Snapshot {
    let mut elements = Vec::new();
    let mut overlays = Vec::new();
    let mut frame_infos = Vec::new();
    let mut meta = PageMeta {
        url: String::new(),
        title: String::new(),
        page_type: None,
        has_login_form: false,
        has_captcha: false,
        form_count: 0,
        description: None,
    };
    for (index, f) in frames.iter().enumerate() {
        let Ok(frame_index) = u32::try_from(index) else {
            break;
        };
        // A frame's name is its `window.name`: the page's to write, like its text.
        frame_infos.push(FrameInfo {
            url: scrub(&f.frame.url),
            name: scrub(&f.frame.name),
            parent: f.frame.parent.and_then(|p| u32::try_from(p).ok()),
            opaque: f.data.is_none(),
        });
        let Some((doc, data)) = &f.data else { continue };
        let m = &data["meta"];
        if index == 0 {
            meta.url = scrub(m["url"].as_str().unwrap_or_default());
            meta.title = scrub(m["title"].as_str().unwrap_or_default());
            meta.page_type = m["pageType"].as_str().map(str::to_string);
            meta.description = m["description"].as_str().map(scrub);
        }
        meta.has_login_form |= m["hasLoginForm"].as_bool().unwrap_or(false);
        meta.has_captcha |= m["hasCaptcha"].as_bool().unwrap_or(false);
        meta.form_count += u32::try_from(m["formCount"].as_u64().unwrap_or(0)).unwrap_or(0);
        if meta.page_type.is_none() && meta.has_login_form {
            meta.page_type = Some("login".into());
        }
        let overlay_base = u32::try_from(overlays.len()).unwrap_or(0);
        for o in data["overlays"].as_array().into_iter().flatten() {
            overlays.push(Overlay {
                kind: o["kind"].as_str().unwrap_or("overlay").to_string(),
                label: scrub(o["label"].as_str().unwrap_or_default()),
            });
        }
        for e in data["elements"].as_array().into_iter().flatten() {
            let Some(node) = e["handle"].as_u64() else {
                continue;
            };
            let mut states = ElementStates::empty();
            for st in e["states"].as_array().into_iter().flatten() {
                states |= match st.as_str().unwrap_or_default() {
                    "disabled" => ElementStates::DISABLED,
                    "checked" => ElementStates::CHECKED,
                    "mixed" => ElementStates::MIXED,
                    "selected" => ElementStates::SELECTED,
                    "expanded" => ElementStates::EXPANDED,
                    "focused" => ElementStates::FOCUSED,
                    "required" => ElementStates::REQUIRED,
                    "readonly" => ElementStates::READONLY,
                    "offscreen" => ElementStates::OFFSCREEN,
                    _ => ElementStates::empty(),
                };
            }
            let b = &e["bounds"];
            let num = |i: usize| b[i].as_f64().unwrap_or(0.0);
            elements.push(Element {
                handle: (u64::from(*doc) << 32) | (node & 0xffff_ffff),
                frame: frame_index,
                role: e["role"].as_str().unwrap_or("generic").to_string(),
                name: scrub(e["name"].as_str().unwrap_or_default()),
                value: e["value"].as_str().map(scrub),
                attributes: e["attributes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|kv| Some((kv[0].as_str()?.to_string(), scrub(kv[1].as_str()?))))
                    .collect(),
                states,
                bounds: b.is_array().then(|| Rect {
                    x: num(0) + f.offset.0,
                    y: num(1) + f.offset.1,
                    width: num(2),
                    height: num(3),
                }),
                interactive: e["interactive"].as_bool().unwrap_or(false),
                level: u8::try_from(e["level"].as_u64().unwrap_or(0)).unwrap_or(0),
                overlay: e["overlay"]
                    .as_u64()
                    .and_then(|o| u32::try_from(o).ok())
                    .map(|o| o + overlay_base),
            });
        }
    }
    Snapshot {
        meta,
        elements,
        overlays,
        frames: frame_infos,
        text_included: include_text,
    }
}
