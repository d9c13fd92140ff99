//! Why a page's snapshot needs the browser.

use std::fmt;

/// Why a page's snapshot needs the browser: what it shows or does cannot be known from its
/// markup alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeedsBrowser {
    /// A `<script>` that runs (JavaScript, a module or an import map).
    Script,
    /// An `on…` attribute or a `javascript:` URL.
    InlineHandler,
    /// An iframe, frame, frameset, object or embed.
    Frames,
    /// A `<meta http-equiv="refresh">`.
    Refresh,
    /// An element whose name has a `-`: a custom element, which only script renders.
    CustomElements,
    /// A dialog shown on load, which covers the page.
    Modal,
    /// Markup whose document or rendering in Chromium the host does not build the same way
    /// (a declarative shadow root, a `<selectedcontent>`, a tree deeper than Chromium's
    /// parser nests, a policy or style sheet set that changes which styles apply...).
    Unmodelled(&'static str),
    /// Fewer than [`MIN_CONTROLS`](super::MIN_CONTROLS) controls: probably an app shell that script fills in.
    TooFewControls(usize),
}

impl fmt::Display for NeedsBrowser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Script => f.write_str("it runs scripts"),
            Self::InlineHandler => f.write_str("it has inline event handlers"),
            Self::Frames => f.write_str("it embeds other documents"),
            Self::Refresh => f.write_str("it refreshes itself"),
            Self::CustomElements => f.write_str("it uses custom elements"),
            Self::Modal => f.write_str("it opens with a dialog"),
            Self::Unmodelled(what) => write!(f, "it has {what}, which only the browser shows"),
            Self::TooFewControls(n) => write!(f, "it has only {n} controls"),
        }
    }
}
