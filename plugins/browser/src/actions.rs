//! The tools that act on the page: click, hover, type, press, select, scroll, dialog (fill is
//! in `fill.rs`).
//! Each takes a `ref` from a snapshot and answers with what changed.

use crate::answer::after_action;
use crate::element_errors::named_error;
use crate::memory::{self, TabRefs};
use crate::refs::RefArg;
use std::time::Duration;
use warden_sdk::browser::{ClickOptions, Modifiers, MouseButton};
use warden_sdk::prelude::*;

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
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let (handle, name) = target(tab, r)?;
        let done = action(tab, handle).map_err(|e| named_error(e, &name))?;
        after_action(tab, &done)
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ClickArgs {
    /// N of @eN.
    #[serde(rename = "ref")]
    element: RefArg,
    /// Default left.
    #[schemars(extend("enum" = ["left", "middle", "right"]))]
    button: Option<String>,
    /// 2: double click.
    count: Option<u8>,
    #[schemars(extend("items" = { "enum": ["Alt", "Control", "Meta", "Shift"] }))]
    modifiers: Option<Vec<String>>,
    /// Tap with a finger.
    touch: Option<bool>,
    /// DOM click even if disabled or covered.
    force: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RefOnly {
    /// N of @eN.
    #[serde(rename = "ref")]
    element: RefArg,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TypeArgs {
    text: String,
    /// Focus this first.
    #[serde(rename = "ref")]
    element: Option<RefArg>,
    /// Between keys (max 1000).
    delay_ms: Option<u32>,
    /// Press Enter after.
    submit: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PressArgs {
    /// Like Enter, Control+A.
    key: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SelectArgs {
    /// N of @eN.
    #[serde(rename = "ref")]
    element: RefArg,
    /// Values or labels.
    values: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UploadArgs {
    /// N of @eN.
    #[serde(rename = "ref")]
    element: RefArg,
    /// Inside grant browser.upload_dirs.
    paths: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ScrollArgs {
    /// Into view; with direction, scroll inside it.
    #[serde(rename = "ref")]
    element: Option<RefArg>,
    /// Default down.
    #[schemars(extend("enum" = ["down", "up", "left", "right"]))]
    direction: Option<String>,
    /// Pixels (default 600).
    amount: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DialogArgs {
    accept: bool,
    /// For a prompt().
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
        None => memory::with(|st| {
            let tab = st.existing_tab()?;
            let done = type_it(tab)?;
            after_action(tab, &done)
        }),
    }
}

fn browse_press_key(args: PressArgs) -> Result<String, ToolError> {
    crate::tabs::noting_new_tabs(|| {
        memory::with(|st| {
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
        (None, delta) => memory::with(|st| {
            let (dx, dy) = delta.unwrap_or((0.0, amount));
            let tab = st.existing_tab()?;
            tab.page.scroll(None, dx, dy)?;
            after_action(tab, "Scrolled.")
        }),
    }
}

fn browse_dialog(args: DialogArgs) -> Result<String, ToolError> {
    memory::with(|st| {
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
            .description(
                "Click an element like a user (refused if disabled or covered); returns what \
                 changed.",
            )
            .open_world(),
    )
    .tool(
        Tool::new("browse_hover", browse_hover)
            .description("Hover an element (menus, tooltips); returns what changed."),
    )
    .tool(
        Tool::new("browse_fill", crate::fill::browse_fill).description(
            "Set fields' text to a value or a secret (passwords): one ref, or many as fields; \
         returns what changed.",
        ),
    )
    .tool(
        Tool::new("browse_type", browse_type)
            .description("Type text key by key, for fields that react to keystrokes."),
    )
    .tool(
        Tool::new("browse_press_key", browse_press_key)
            .description("Press a key or combination in the focused element."),
    )
    .tool(Tool::new("browse_select", browse_select).description("Choose options of a <select>."))
    .tool(
        Tool::new("browse_upload", browse_upload)
            .description("Attach files from the Warden host to a file input."),
    )
    .tool(
        Tool::new("browse_scroll", browse_scroll).description(
            "Scroll an element into view, or the page (or inside an element) by pixels.",
        ),
    )
    .tool(
        Tool::new("browse_dialog", browse_dialog)
            .description("Accept or dismiss the open alert, confirm or prompt dialog."),
    )
}
