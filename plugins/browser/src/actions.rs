//! The tools that act on the page: click, hover, fill, type, press, select, scroll, dialog.
//! Each takes a `ref` from a snapshot and answers with what changed.

use crate::after_action;
use crate::refs::RefArg;
use crate::state::{self, TabRefs};
use std::time::Duration;
use warden_sdk::browser::{ClickOptions, Modifiers, MouseButton};
use warden_sdk::prelude::*;

/// Turn the host's stale-element error into the agent's words.
pub fn element_error(e: CapabilityError) -> ToolError {
    match e {
        CapabilityError::StaleElement(_) => ToolError::not_found(
            "that element is gone from the page (the page changed since the snapshot); take a new snapshot (browse_snapshot) and use a fresh ref",
        ),
        other => other.into(),
    }
}

/// The handle behind a ref, and the ref's text for messages.
fn target(tab: &TabRefs, r: &RefArg) -> Result<(u64, String), ToolError> {
    let n = r.number()?;
    Ok((tab.refs.handle(n)?, format!("@e{n}")))
}

/// Run an action on the current tab, naming the ref in a "gone" error.
pub(crate) fn act(
    r: &RefArg,
    action: impl FnOnce(&TabRefs, u64) -> Result<String, CapabilityError>,
) -> Result<String, ToolError> {
    state::with(|st| {
        let tab = st.existing_tab()?;
        let (handle, name) = target(tab, r)?;
        let done = action(tab, handle).map_err(|e| match e {
            CapabilityError::StaleElement(_) => ToolError::not_found(format!(
                "{name} is gone from the page; take a new snapshot (browse_snapshot) and use a fresh ref"
            )),
            CapabilityError::InvalidArgument(m) => {
                ToolError::invalid_arguments(m.replacen("that element", &name, 1))
            }
            other => other.into(),
        })?;
        after_action(tab, &done)
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ClickArgs {
    /// The element to click: the N of @eN from the last snapshot.
    #[serde(rename = "ref")]
    element: RefArg,
    /// "left" (default), "middle" or "right".
    button: Option<String>,
    /// 2 for a double click.
    count: Option<u8>,
    /// Keys held during the click: "Alt", "Control", "Meta", "Shift".
    modifiers: Option<Vec<String>>,
    /// Tap with a finger instead of clicking with the mouse (touch events, pointerType
    /// "touch"; the tab becomes a touch device).
    touch: Option<bool>,
    /// Click the element itself even when it looks disabled or something covers it (a DOM
    /// click; the covering element is not clicked). Use when the refusal is wrong.
    force: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RefOnly {
    /// The element: the N of @eN from the last snapshot.
    #[serde(rename = "ref")]
    element: RefArg,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FillArgs {
    /// The text field: the N of @eN from the last snapshot.
    #[serde(rename = "ref")]
    element: RefArg,
    /// The text to put in the field (replaces what is there).
    value: Option<String>,
    /// Instead of value: the name of a secret the administrator keeps in the manifest (such
    /// as a password). Warden types it; it never appears in any answer.
    secret: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TypeArgs {
    /// Text to type, key by key, like a user.
    text: String,
    /// Focus this element first (the N of @eN); otherwise the focused element gets the keys.
    #[serde(rename = "ref")]
    element: Option<RefArg>,
    /// Pause between keys in milliseconds (default 0, at most 1000).
    delay_ms: Option<u32>,
    /// Press Enter afterwards.
    submit: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PressArgs {
    /// A key or combination: "Enter", "Tab", "Escape", "ArrowDown", "Control+A", "Shift+Tab".
    key: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SelectArgs {
    /// The <select>: the N of @eN.
    #[serde(rename = "ref")]
    element: RefArg,
    /// Option values or labels to select (several for a multiple select).
    values: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UploadArgs {
    /// The file input: the N of @eN.
    #[serde(rename = "ref")]
    element: RefArg,
    /// Absolute paths of files on the Warden host, inside a directory the administrator
    /// granted (browser.upload_dirs).
    paths: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ScrollArgs {
    /// Scroll this element into view (the N of @eN); or, with direction, scroll inside it.
    #[serde(rename = "ref")]
    element: Option<RefArg>,
    /// "down" (default), "up", "left" or "right".
    direction: Option<String>,
    /// How far in CSS pixels (default: most of a screen, 600).
    amount: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DialogArgs {
    /// true to accept (OK), false to dismiss (Cancel).
    accept: bool,
    /// The answer for a prompt() dialog.
    text: Option<String>,
}

fn modifiers(names: &[String]) -> Result<Modifiers, ToolError> {
    let mut m = Modifiers::empty();
    for n in names {
        m |= match n.to_ascii_lowercase().as_str() {
            "alt" => Modifiers::ALT,
            "control" | "ctrl" => Modifiers::CTRL,
            "meta" | "cmd" => Modifiers::META,
            "shift" => Modifiers::SHIFT,
            other => {
                return Err(ToolError::invalid_arguments(format!(
                    "modifier \"{other}\" is not one of Alt, Control, Meta, Shift"
                )));
            }
        };
    }
    Ok(m)
}

fn browse_click(args: ClickArgs) -> Result<String, ToolError> {
    let button = match args.button.as_deref() {
        None | Some("left") => MouseButton::Left,
        Some("middle") => MouseButton::Middle,
        Some("right") => MouseButton::Right,
        Some(other) => {
            return Err(ToolError::invalid_arguments(format!(
                "button \"{other}\" is not left, middle or right"
            )));
        }
    };
    let options = ClickOptions {
        button,
        count: args.count.unwrap_or(1).clamp(1, 3),
        modifiers: modifiers(args.modifiers.as_deref().unwrap_or_default())?,
    };
    let touch = args.touch.unwrap_or(false);
    let force = args.force.unwrap_or(false);
    let plain = args.button.is_none() && args.count.is_none() && args.modifiers.is_none();
    if (touch || force) && !plain {
        return Err(ToolError::invalid_arguments(
            "touch and force click once with the primary button; leave out button, count and modifiers",
        ));
    }
    if touch && force {
        return Err(ToolError::invalid_arguments(
            "give touch or force, not both",
        ));
    }
    let n = args.element.number().unwrap_or(0);
    crate::tabs::noting_new_tabs(|| {
        act(&args.element, |tab, h| {
            if touch {
                tab.page.tap(h)?;
                Ok(format!("Tapped @e{n}."))
            } else if force {
                tab.page.force_click(h)?;
                Ok(format!(
                    "Clicked @e{n} with a DOM click; the actionability checks (enabled, not covered) were skipped."
                ))
            } else {
                tab.page.click(h, options)?;
                Ok(format!("Clicked @e{n}."))
            }
        })
    })
}

fn browse_hover(args: RefOnly) -> Result<String, ToolError> {
    act(&args.element, |tab, h| {
        tab.page.hover(h)?;
        Ok("Hovering.".into())
    })
}

fn browse_fill(args: FillArgs) -> Result<String, ToolError> {
    act(&args.element, |tab, h| match (&args.value, &args.secret) {
        (Some(v), None) => {
            tab.page.fill(h, v)?;
            Ok("Filled.".into())
        }
        (None, Some(name)) => {
            tab.page.fill_secret(h, name)?;
            Ok(format!("Filled with secret {name}."))
        }
        _ => Err(CapabilityError::InvalidArgument(
            "give exactly one of value or secret".into(),
        )),
    })
}

fn browse_type(args: TypeArgs) -> Result<String, ToolError> {
    let delay = Duration::from_millis(u64::from(args.delay_ms.unwrap_or(0).min(1000)));
    let submit = args.submit.unwrap_or(false);
    let type_it = |tab: &TabRefs| -> Result<String, CapabilityError> {
        tab.page.type_text(&args.text, delay)?;
        if submit {
            tab.page.press("Enter")?;
        }
        Ok(format!(
            "Typed {} character(s){}.",
            args.text.chars().count(),
            if submit { " and pressed Enter" } else { "" }
        ))
    };
    match &args.element {
        Some(r) => act(r, |tab, h| {
            tab.page.focus(h)?;
            type_it(tab)
        }),
        None => state::with(|st| {
            let tab = st.existing_tab()?;
            let done = type_it(tab)?;
            after_action(tab, &done)
        }),
    }
}

fn browse_press_key(args: PressArgs) -> Result<String, ToolError> {
    crate::tabs::noting_new_tabs(|| {
        state::with(|st| {
            let tab = st.existing_tab()?;
            tab.page.press(&args.key)?;
            after_action(tab, &format!("Pressed {}.", args.key))
        })
    })
}

fn browse_select(args: SelectArgs) -> Result<String, ToolError> {
    act(&args.element, |tab, h| {
        let selected = tab.page.select(h, &args.values)?;
        Ok(format!("Selected {}.", selected.join(", ")))
    })
}

fn browse_upload(args: UploadArgs) -> Result<String, ToolError> {
    act(&args.element, |tab, h| {
        tab.page.upload(h, &args.paths)?;
        Ok(format!("Attached {} file(s).", args.paths.len()))
    })
}

fn browse_scroll(args: ScrollArgs) -> Result<String, ToolError> {
    let amount = args.amount.unwrap_or(600.0);
    let delta = match args.direction.as_deref() {
        None if args.element.is_some() => None,
        None | Some("down") => Some((0.0, amount)),
        Some("up") => Some((0.0, -amount)),
        Some("left") => Some((-amount, 0.0)),
        Some("right") => Some((amount, 0.0)),
        Some(other) => {
            return Err(ToolError::invalid_arguments(format!(
                "direction \"{other}\" is not up, down, left or right"
            )));
        }
    };
    match (&args.element, delta) {
        (Some(r), None) => act(r, |tab, h| {
            tab.page.scroll_into_view(h)?;
            Ok("Scrolled it into view.".into())
        }),
        (Some(r), Some((dx, dy))) => act(r, |tab, h| {
            tab.page.scroll(Some(h), dx, dy)?;
            Ok("Scrolled.".into())
        }),
        (None, delta) => state::with(|st| {
            let (dx, dy) = delta.unwrap_or((0.0, amount));
            let tab = st.existing_tab()?;
            tab.page.scroll(None, dx, dy)?;
            after_action(tab, "Scrolled.")
        }),
    }
}

fn browse_dialog(args: DialogArgs) -> Result<String, ToolError> {
    state::with(|st| {
        let tab = st.existing_tab()?;
        let Some(d) = tab.page.dialog()? else {
            return Err(ToolError::invalid_arguments(
                "no dialog is open on this tab",
            ));
        };
        tab.page.answer_dialog(args.accept, args.text.as_deref())?;
        let done = format!(
            "{} the {} dialog \"{}\".",
            if args.accept { "Accepted" } else { "Dismissed" },
            d.kind,
            d.message
        );
        after_action(tab, &done)
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_click", browse_click)
            .title("Click")
            .description(
                "Click an element by ref (the N of @eN). Scrolls it into view and clicks its \
                 center like a user; refuses when it is disabled or covered by another element \
                 (an overlay: deal with that first; force: true clicks the element anyway). \
                 touch: true taps it with a finger. Returns what changed on the page.",
            )
            .open_world(),
    )
    .tool(
        Tool::new("browse_hover", browse_hover)
            .title("Hover")
            .description("Move the mouse over an element (menus, tooltips). Returns what changed."),
    )
    .tool(
        Tool::new("browse_fill", browse_fill)
            .title("Fill a field")
            .description(
                "Replace the text of a field (ref) with `value`, or with the administrator's \
                 secret named by `secret` (for passwords: Warden types it and it never appears \
                 in any answer; needs grant browser.secrets). Returns what changed.",
            ),
    )
    .tool(
        Tool::new("browse_type", browse_type)
            .title("Type")
            .description(
                "Type text key by key (into ref, or the focused element), optionally with a \
                 delay between keys and Enter at the end.",
            ),
    )
    .tool(
        Tool::new("browse_press_key", browse_press_key)
            .title("Press a key")
            .description(
                "Press a key or combination, like Enter, Escape, Tab, ArrowDown or Control+A.",
            ),
    )
    .tool(
        Tool::new("browse_select", browse_select)
            .title("Select options")
            .description("Choose options of a <select> (ref) by value or label."),
    )
    .tool(
        Tool::new("browse_upload", browse_upload)
            .title("Upload files")
            .description(
                "Attach files from the Warden host to a file input (ref). Only files inside the \
                 administrator's browser.upload_dirs can be attached.",
            ),
    )
    .tool(
        Tool::new("browse_scroll", browse_scroll)
            .title("Scroll")
            .description(
                "Scroll an element into view (ref), or scroll the page (or inside ref) by \
                 direction and amount in pixels.",
            ),
    )
    .tool(
        Tool::new("browse_dialog", browse_dialog)
            .title("Answer a dialog")
            .description(
                "Accept or dismiss the open alert/confirm/prompt dialog (with text for a prompt).",
            ),
    )
}
