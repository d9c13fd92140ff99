//! The options of page calls: when a navigation is done, what to wait for, what a
//! screenshot covers, where a drag ends, how to click.

use crate::bindings::warden::browser::browser as wit;
use wit::{ClickOptions, Modifiers, MouseButton};

/// When a navigation counts as done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum WaitUntil {
    /// The `load` event fired.
    #[default]
    Load,
    /// The `DOMContentLoaded` event fired.
    DomContentLoaded,
    /// The network has been idle for a moment.
    NetworkIdle,
}

impl From<WaitUntil> for wit::WaitUntil {
    fn from(w: WaitUntil) -> Self {
        match w {
            WaitUntil::Load => Self::Load,
            WaitUntil::DomContentLoaded => Self::DomContentLoaded,
            WaitUntil::NetworkIdle => Self::NetworkIdle,
        }
    }
}

/// What [`Page::wait_for`](crate::browser::Page::wait_for) waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitCondition {
    /// The text appears in the page.
    Text(String),
    /// The text is gone from the page.
    TextGone(String),
    /// A CSS selector matches.
    Selector(String),
    /// The URL matches a glob (`*` matches any run of characters).
    Url(String),
}

/// What a screenshot covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    Viewport,
    FullPage,
    /// One element, by handle.
    Element(u64),
}

/// Where a drag ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DragTo {
    /// On an element, by handle.
    Element(u64),
    /// At a point in CSS pixels of the main frame's viewport.
    Point(f64, f64),
    /// This far (x, y in CSS pixels) from where the drag starts.
    Offset(f64, f64),
}

impl Default for ClickOptions {
    fn default() -> Self {
        Self {
            button: MouseButton::Left,
            count: 1,
            modifiers: Modifiers::empty(),
        }
    }
}
