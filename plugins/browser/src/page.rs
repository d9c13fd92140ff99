//! The page tools: navigate, back, forward, reload, snapshot, find, wait, screenshot and
//! eval. Actions on elements are in `actions.rs`, tabs and sessions in `tabs.rs`.

use crate::answer::{DEFAULT_MAX_TOKENS, WaitArg, after_action, snapshot_of, timeout, wait_until};
use crate::element_errors::element_error;
use crate::memory::{self, TabRefs};
use crate::refs::RefArg;
use crate::render::Mode;
use crate::{find, marks, search};
use warden_sdk::browser::{Area, WaitCondition};
use warden_sdk::prelude::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NavigateArgs {
    /// Absolute URL (its origin must be granted), or rN: a browse_search result.
    url: String,
    wait_until: Option<WaitArg>,
    timeout_ms: Option<u64>,
    /// Snapshot budget (default 2000).
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
    /// full adds the page's text.
    mode: Option<ModeArg>,
    max_tokens: Option<usize>,
    /// Of a long snapshot (default 1).
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
    /// Case-insensitive.
    query: String,
    /// Like button, link.
    role: Option<String>,
    limit: Option<usize>,
    /// Skip this many of the ranked matches.
    offset: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitArgs {
    /// Appears.
    text: Option<String>,
    /// Disappears.
    text_gone: Option<String>,
    /// CSS selector matches.
    selector: Option<String>,
    /// URL glob matches.
    url: Option<String>,
    timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ScreenshotArgs {
    /// Only this element.
    #[serde(rename = "ref")]
    element: Option<RefArg>,
    full_page: Option<bool>,
    /// Default png.
    #[schemars(extend("enum" = ["png", "jpeg"]))]
    format: Option<String>,
    /// Draw each interactive element's @eN ref on the image (set-of-mark).
    marks: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EvalArgs {
    /// JavaScript expression; promises are awaited.
    expression: String,
}

fn browse_navigate(args: NavigateArgs) -> Result<String, ToolError> {
    let url = search::target(&args.url)?;
    memory::with(|st| {
        let navigate = |tab: &mut TabRefs| {
            tab.page
                .navigate(&url, wait_until(args.wait_until), timeout(args.timeout_ms))
        };
        let tab = st.tab()?;
        let result = navigate(tab);
        let tab = match result {
            Err(e) if memory::browser_gone(&e) => {
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
    memory::with(|st| {
        let tab = st.existing_tab()?;
        tab.page
            .history(delta, wait_until(args.wait_until), timeout(args.timeout_ms))?;
        tab.last = None;
        snapshot_of(tab, Mode::Interactive, DEFAULT_MAX_TOKENS, 1)
    })
}

fn browse_reload(args: HistoryArgs) -> Result<String, ToolError> {
    memory::with(|st| {
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
    memory::with(|st| {
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
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let snap = tab.page.snapshot(true)?;
        Ok(find::find(
            &snap,
            &mut tab.refs,
            &args.query,
            args.role.as_deref(),
            limit,
            args.offset.unwrap_or(0),
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
    memory::with(|st| {
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
    memory::with(|st| {
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
            (bytes.map_err(element_error)?, String::new())
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
    memory::with(|st| {
        let tab = st.existing_tab()?;
        Ok(tab.page.evaluate(&args.expression)?)
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_navigate", browse_navigate)
            .description(
                "Open a URL in the tab; returns the page snapshot: a line per control, \
                     `@eN [role] \"name\"`, overlays first. Pass N as ref to other browse_* tools.",
            )
            .open_world(),
    )
    .tool(
        Tool::new("browse_back", |a: HistoryArgs| history(-1, a))
            .description("Go back in the tab's history; returns the snapshot.")
            .open_world(),
    )
    .tool(
        Tool::new("browse_forward", |a: HistoryArgs| history(1, a))
            .description("Go forward in the tab's history; returns the snapshot.")
            .open_world(),
    )
    .tool(
        Tool::new("browse_reload", browse_reload)
            .description("Reload the page; returns the snapshot.")
            .open_world(),
    )
    .tool(
        Tool::new("browse_snapshot", browse_snapshot)
            .description(
                "The page as text: controls with @eN refs; mode full adds all visible text. To \
                     read the page or refresh refs.",
            )
            .read_only(),
    )
    .tool(
        Tool::new("browse_find", browse_find)
            .description(
                "Find text anywhere on the page, beyond the snapshot's budget; best matches \
                     first (exact, whole word, word start), each with its @eN ref.",
            )
            .read_only(),
    )
    .tool(
        Tool::new("browse_wait_for", browse_wait_for)
            .description("Wait for text, a selector or a URL; returns what changed.")
            .read_only(),
    )
    .tool(
        Tool::new("browse_screenshot", browse_screenshot)
            .description("Image of the viewport, the full page or one element.")
            .read_only(),
    )
    .tool(
        Tool::new("browse_eval_js", browse_eval_js)
            .description(
                "Evaluate JavaScript in the page; returns the value as JSON. Needs grant \
                     browser.eval_js.",
            )
            .open_world(),
    )
}
