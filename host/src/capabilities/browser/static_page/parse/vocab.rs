//! The word lists and role sets the parser's files share, and the style-policy test.

/// What a secret field's value reads as.
pub(super) const MASK: &str = "••••";
/// A control's longest name.
pub(super) const NAME_MAX: usize = 200;
/// The longest text beside a field that still reads as its label.
pub(super) const LABEL_MAX: usize = 60;
/// Roles that make an element a control.
#[rustfmt::skip]
pub(super) const INTERACTIVE_ROLES: &[&str] = &[
    "button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "switch", "option", "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem",
    "listbox",
];
/// Input types whose value is text.
#[rustfmt::skip]
pub(super) const TEXT_INPUTS: &[&str] = &[
    "text", "email", "tel", "url", "search", "number", "date", "datetime-local", "month", "week",
    "time", "color", "",
];
/// Roles of boxes of choices: a control only while no control is inside.
pub(super) const CONTAINER_ROLES: &[&str] = &[
    "listbox", "menu", "menubar", "tree", "tablist", "grid", "treegrid",
];
/// Controls whose missing name the text around them can stand for.
#[rustfmt::skip]
pub(super) const LABELLED_ROLES: &[&str] = &[
    "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "slider", "spinbutton",
    "password", "file", "switch",
];
/// Words of an icon's class or file name that say what the control does.
pub(super) const ICON_WORDS: &[&str] = &[
    "add", "archive", "back", "bookmark", "cart", "close", "collapse", "copy", "delete",
    "download", "edit", "expand", "favorite", "filter", "flag", "forward", "heart", "help", "home",
    "like", "menu", "minus", "more", "next", "pause", "play", "plus", "prev", "previous",
    "refresh", "remove", "reply", "retweet", "save", "search", "send", "settings", "share", "sort",
    "star", "trash", "upload", "user",
];
/// page.js `CARD`'s words: a `<div>` class with one of them (or its plural) is a card.
pub(super) const CARD_WORDS: &[&str] = &[
    "card", "item", "product", "result", "row", "entry", "tile", "listing", "post", "record",
];
/// page.js `SKIP` (HTML tag names): never walked.
pub(super) const SKIP: &[&str] = &[
    "script", "style", "noscript", "template", "head", "iframe", "frame", "object",
];
/// page.js `NO_TEXT`'s HTML tags (`svg` and `math` are checked by namespace).
pub(super) const NO_TEXT: &[&str] = &[
    "select", "textarea", "option", "datalist", "canvas", "video", "audio",
];

/// `list` holds `s`.
pub(super) fn has(list: &[&str], s: &str) -> bool {
    list.contains(&s)
}

/// page.js `role && SET.has(role)`.
pub(super) fn role_in(list: &[&str], role: Option<&str>) -> bool {
    role.is_some_and(|r| has(list, r))
}

/// Content security policy directives that can stop the page's own styles (or sandbox it),
/// so what the browser shows is not what its markup and style sheets say.
const STYLE_DIRECTIVES: &[&str] = &[
    "default-src",
    "style-src",
    "style-src-elem",
    "style-src-attr",
    "sandbox",
];

/// Does this policy (a header's value, or a `<meta http-equiv>`'s `content`) name one of
/// [`STYLE_DIRECTIVES`]?
pub fn policy_restricts_styles(policy: &str) -> bool {
    policy.split([',', ';']).any(|d| {
        d.split_ascii_whitespace().next().is_some_and(|name| {
            STYLE_DIRECTIVES
                .iter()
                .any(|s| name.eq_ignore_ascii_case(s))
        })
    })
}
