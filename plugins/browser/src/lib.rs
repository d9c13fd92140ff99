//! Warden's built-in `browser` plugin: the `browse_*` tools.
//!
//! The host drives a real Chromium and guards every navigation with the manifest's
//! `grants.browser.origins`; this plugin turns the host's element snapshots into compact
//! `@eN` text, keeps refs stable per DOM node, and answers actions with a diff of the page.

mod actions;
mod emulate;
mod extract;
mod find;
mod gestures;
mod marks;
mod observe;
mod refs;
mod render;
mod route;
mod state;
mod storage;
mod tabs;

use refs::RefArg;
use render::{Mode, Rendered};
use state::TabRefs;
use std::time::Duration;
use warden_sdk::browser::{Area, WaitCondition, WaitUntil};
use warden_sdk::prelude::*;

/// Default snapshot budget: a page costs at most this many tokens unless asked otherwise.
const DEFAULT_MAX_TOKENS: usize = 2000;
const DEFAULT_TIMEOUT_MS: u64 = 30_000;

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum WaitArg {
    /// The load event (default).
    #[default]
    Load,
    /// DOMContentLoaded: the HTML is parsed.
    Domcontentloaded,
    /// No network activity for a moment.
    Networkidle,
}

impl From<WaitArg> for WaitUntil {
    fn from(w: WaitArg) -> Self {
        match w {
            WaitArg::Load => Self::Load,
            WaitArg::Domcontentloaded => Self::DomContentLoaded,
            WaitArg::Networkidle => Self::NetworkIdle,
        }
    }
}

fn timeout(ms: Option<u64>) -> Duration {
    Duration::from_millis(ms.unwrap_or(DEFAULT_TIMEOUT_MS).clamp(1, 600_000))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NavigateArgs {
    /// Absolute URL to open, like https://example.com/login. Its origin must be granted.
    url: String,
    /// When the navigation counts as done: load (default), domcontentloaded or networkidle.
    wait_until: Option<WaitArg>,
    /// Give up after this many milliseconds (default 30000).
    timeout_ms: Option<u64>,
    /// Snapshot budget in tokens for the answer (default 2000).
    max_tokens: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HistoryArgs {
    wait_until: Option<WaitArg>,
    timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SnapshotArgs {
    /// "interactive" (default): controls only; "full": also headings and text, in page order.
    mode: Option<ModeArg>,
    /// Budget in tokens (default 2000); longer pages are split into pages.
    max_tokens: Option<usize>,
    /// Which page of a long snapshot (1-based, default 1).
    page: Option<usize>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum ModeArg {
    Interactive,
    Full,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FindArgs {
    /// Text to look for in element names, values, placeholders and (in text) headings and
    /// paragraphs; case-insensitive.
    query: String,
    /// Only elements of this role, like "button", "link" or "textbox".
    role: Option<String>,
    /// At most this many matches (default 20).
    limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitArgs {
    /// Wait until this text appears.
    text: Option<String>,
    /// Wait until this text is gone.
    text_gone: Option<String>,
    /// Wait until a CSS selector matches.
    selector: Option<String>,
    /// Wait until the URL matches this glob (`*` matches anything), like "*/dashboard*".
    url: Option<String>,
    /// Give up after this many milliseconds (default 30000).
    timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ScreenshotArgs {
    /// Only this element (the N of @eN).
    #[serde(rename = "ref")]
    element: Option<RefArg>,
    /// The whole page, not just the viewport.
    full_page: Option<bool>,
    /// "png" (default) or "jpeg" (smaller).
    format: Option<String>,
    /// Draw each interactive element's @eN ref on the image (set-of-mark).
    marks: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EvalArgs {
    /// A JavaScript expression evaluated in the page; promises are awaited. The result comes
    /// back as JSON.
    expression: String,
}

fn wait_until(w: Option<WaitArg>) -> WaitUntil {
    w.unwrap_or_default().into()
}

/// Take a snapshot of the current tab and render it in full.
fn snapshot_of(
    tab: &mut TabRefs,
    mode: Mode,
    max_tokens: usize,
    page: usize,
) -> Result<String, ToolError> {
    let snap = tab.page.snapshot(mode == Mode::Full)?;
    let rendered = render::render(&snap, &mut tab.refs, mode);
    let text = render::page_text(&rendered, max_tokens, page);
    if mode == Mode::Interactive {
        tab.last = Some(rendered);
    }
    Ok(text)
}

/// What an action answers: a dialog if one opened, else a diff against the last snapshot
/// when little changed, else the new snapshot.
pub(crate) fn after_action(tab: &mut TabRefs, done: &str) -> Result<String, ToolError> {
    if let Some(d) = tab.page.dialog()? {
        return Ok(format!(
            "{done}\n⚠ DIALOG [{}] \"{}\"{} — answer it with browse_dialog {{\"accept\": true}} or {{\"accept\": false}}",
            d.kind,
            d.message,
            if d.kind == "prompt" {
                format!(" (default: \"{}\")", d.default_prompt)
            } else {
                String::new()
            }
        ));
    }
    let snap = tab.page.snapshot(false)?;
    let rendered: Rendered = render::render(&snap, &mut tab.refs, Mode::Interactive);
    let body = match tab
        .last
        .as_ref()
        .and_then(|old| render::diff(old, &rendered))
    {
        Some(diff) => diff,
        None => render::page_text(&rendered, DEFAULT_MAX_TOKENS, 1),
    };
    tab.last = Some(rendered);
    Ok(format!("{done}\n{body}"))
}

fn browse_navigate(args: NavigateArgs) -> Result<String, ToolError> {
    state::with(|st| {
        let navigate = |tab: &mut TabRefs| {
            tab.page.navigate(
                &args.url,
                wait_until(args.wait_until),
                timeout(args.timeout_ms),
            )
        };
        let tab = st.tab()?;
        let result = navigate(tab);
        let tab = match result {
            Err(e) if state::browser_gone(&e) => {
                // The browser exited since the last call: start again in a fresh one.
                st.forget_tabs();
                let tab = st.tab()?;
                navigate(tab)?;
                tab
            }
            Err(e) => return Err(e.into()),
            Ok(_) => st.tab()?,
        };
        tab.last = None;
        snapshot_of(
            tab,
            Mode::Interactive,
            args.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            1,
        )
    })
}

fn history(delta: i32, args: HistoryArgs) -> Result<String, ToolError> {
    state::with(|st| {
        let tab = st.existing_tab()?;
        tab.page
            .history(delta, wait_until(args.wait_until), timeout(args.timeout_ms))?;
        tab.last = None;
        snapshot_of(tab, Mode::Interactive, DEFAULT_MAX_TOKENS, 1)
    })
}

fn browse_reload(args: HistoryArgs) -> Result<String, ToolError> {
    state::with(|st| {
        let tab = st.existing_tab()?;
        tab.page
            .reload(wait_until(args.wait_until), timeout(args.timeout_ms))?;
        tab.last = None;
        snapshot_of(tab, Mode::Interactive, DEFAULT_MAX_TOKENS, 1)
    })
}

fn browse_snapshot(args: SnapshotArgs) -> Result<String, ToolError> {
    let mode = match args.mode {
        Some(ModeArg::Full) => Mode::Full,
        _ => Mode::Interactive,
    };
    state::with(|st| {
        let tab = st.existing_tab()?;
        if let Some(d) = tab.page.dialog()? {
            return Ok(format!(
                "⚠ DIALOG [{}] \"{}\" is open and blocks the page — answer it with browse_dialog",
                d.kind, d.message
            ));
        }
        snapshot_of(
            tab,
            mode,
            args.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(200),
            args.page.unwrap_or(1),
        )
    })
}

fn browse_find(args: FindArgs) -> Result<String, ToolError> {
    if args.query.trim().is_empty() {
        return Err(ToolError::invalid_arguments("query must not be empty"));
    }
    let limit = args.limit.unwrap_or(20).clamp(1, 200);
    state::with(|st| {
        let tab = st.existing_tab()?;
        let snap = tab.page.snapshot(true)?;
        Ok(find::find(
            &snap,
            &mut tab.refs,
            &args.query,
            args.role.as_deref(),
            limit,
        ))
    })
}

fn browse_wait_for(args: WaitArgs) -> Result<String, ToolError> {
    let conditions: Vec<WaitCondition> = [
        args.text.map(WaitCondition::Text),
        args.text_gone.map(WaitCondition::TextGone),
        args.selector.map(WaitCondition::Selector),
        args.url.map(WaitCondition::Url),
    ]
    .into_iter()
    .flatten()
    .collect();
    if conditions.is_empty() {
        return Err(ToolError::invalid_arguments(
            "say what to wait for: text, text_gone, selector or url",
        ));
    }
    state::with(|st| {
        let tab = st.existing_tab()?;
        for c in conditions {
            tab.page.wait_for(c, timeout(args.timeout_ms))?;
        }
        after_action(tab, "Done waiting.")
    })
}

fn browse_screenshot(args: ScreenshotArgs) -> Result<ToolOutput, ToolError> {
    let jpeg = match args.format.as_deref() {
        None | Some("png") => false,
        Some("jpeg" | "jpg") => true,
        Some(other) => {
            return Err(ToolError::invalid_arguments(format!(
                "format \"{other}\" is not supported; use png or jpeg"
            )));
        }
    };
    state::with(|st| {
        let tab = st.existing_tab()?;
        let area = match (&args.element, args.full_page) {
            (Some(r), _) => Area::Element(tab.refs.handle(r.number()?)?),
            (None, Some(true)) => Area::FullPage,
            _ => Area::Viewport,
        };
        let (bytes, marked) = if args.marks == Some(true) {
            let (bytes, note) = marks::shoot(tab, area, jpeg)?;
            (bytes, format!("; {note}"))
        } else {
            let bytes = tab.page.screenshot(area, jpeg);
            (bytes.map_err(actions::element_error)?, String::new())
        };
        let mime = if jpeg { "image/jpeg" } else { "image/png" };
        let caption = format!(
            "Screenshot of {} ({} bytes){marked}",
            tab.page.url().unwrap_or_default(),
            bytes.len()
        );
        Ok(ToolOutput::image(mime, bytes).with(Content::text(caption)))
    })
}

fn browse_eval_js(args: EvalArgs) -> Result<String, ToolError> {
    state::with(|st| {
        let tab = st.existing_tab()?;
        Ok(tab.page.evaluate(&args.expression)?)
    })
}

fn plugin() -> Plugin {
    let p = Plugin::new()
        .tool(
            Tool::new("browse_navigate", browse_navigate)
                .title("Open a URL")
                .description(
                    "Open a URL in the current tab (a tab is opened if there is none) and return a \
                     compact snapshot of the page: one line per interactive element, \
                     `@eN [role] \"name\" attributes [states]`. Use the N of @eN as `ref` in the \
                     other browse_* tools. Refs stay the same for the same element while it \
                     exists. Overlays such as cookie banners are listed first. Only origins the \
                     administrator granted can be opened; a refusal names the grant.",
                )
                .open_world(),
        )
        .tool(
            Tool::new("browse_back", |a: HistoryArgs| history(-1, a))
                .title("Go back")
                .description("Go back one page in the tab's history and return the snapshot.")
                .open_world(),
        )
        .tool(
            Tool::new("browse_forward", |a: HistoryArgs| history(1, a))
                .title("Go forward")
                .description("Go forward one page in the tab's history and return the snapshot.")
                .open_world(),
        )
        .tool(
            Tool::new("browse_reload", browse_reload)
                .title("Reload")
                .description("Reload the page and return the snapshot.")
                .open_world(),
        )
        .tool(
            Tool::new("browse_snapshot", browse_snapshot)
                .title("Snapshot the page")
                .description(
                    "The page as compact text: interactive elements with @eN refs (mode \
                     \"interactive\", the default), or also headings and text in page order (mode \
                     \"full\"). Bounded by max_tokens (default 2000); long pages are split into \
                     pages and the last line says how to get the next one.",
                )
                .read_only(),
        )
        .tool(
            Tool::new("browse_find", browse_find)
                .title("Find on the page")
                .description(
                    "Search the whole page (every element and text block, not only the part a \
                     bounded snapshot shows) for text, optionally of one role. Matching controls \
                     come with their @eN ref.",
                )
                .read_only(),
        )
        .tool(
            Tool::new("browse_wait_for", browse_wait_for)
                .title("Wait for the page")
                .description(
                    "Wait until text appears (text), disappears (text_gone), a CSS selector \
                     matches (selector) or the URL matches a glob (url); then return what changed.",
                )
                .read_only(),
        )
        .tool(
            Tool::new("browse_screenshot", browse_screenshot)
                .title("Screenshot")
                .description(
                    "A PNG (or JPEG) image of the viewport, the full page (full_page: true) or one \
                     element (ref).",
                )
                .read_only(),
        )
        .tool(
            Tool::new("browse_eval_js", browse_eval_js)
                .title("Evaluate JavaScript")
                .description(
                    "Evaluate a JavaScript expression in the page and return its value as JSON. \
                     Needs the administrator's grant browser.eval_js.",
                )
                .open_world(),
        );
    let p = extract::register(gestures::register(tabs::register(actions::register(p))));
    storage::register(emulate::register(route::register(observe::register(p))))
}

warden_sdk::export_plugin!(plugin);
