//! The browser's tool groups. `core` and `forms` do ordinary browsing (navigate, read, find,
//! act, fill forms, upload, tabs, dialogs, screenshots) and are what the built-in manifest
//! lists; the rest an admin lists or offers when agents need them.

use warden_sdk::prelude::*;

const GROUPS: &[(&str, &str, &[&str])] = &[
    (
        "core",
        "navigate, read, find, click, scroll, wait, tabs, dialogs, screenshots",
        &[
            "browse_navigate",
            "browse_back",
            "browse_forward",
            "browse_reload",
            "browse_snapshot",
            "browse_find",
            "browse_click",
            "browse_hover",
            "browse_press_key",
            "browse_scroll",
            "browse_wait_for",
            "browse_dialog",
            "browse_tabs",
            "browse_screenshot",
        ],
    ),
    (
        "forms",
        "fill, type, select, upload, drag",
        &[
            "browse_fill",
            "browse_type",
            "browse_select",
            "browse_upload",
            "browse_drag",
        ],
    ),
    (
        "pages",
        "PDF, structured extraction, downloads",
        &["browse_pdf", "browse_extract", "browse_downloads"],
    ),
    (
        "sessions",
        "isolated sessions, cookies, storage",
        &["browse_session", "browse_cookies", "browse_storage"],
    ),
    (
        "network",
        "console, network log, request routes",
        &["browse_console", "browse_network", "browse_route"],
    ),
    (
        "emulation",
        "device, locale, geolocation",
        &["browse_emulate"],
    ),
    ("script", "run JavaScript in the page", &["browse_eval_js"]),
    (
        "search",
        "web search and the page cache",
        &[
            "browse_search",
            "cache_search",
            "cache_get",
            "cache_stats",
            "cache_evict",
        ],
    ),
    (
        "flows",
        "saved, replayable browsing scripts",
        &["script_run", "script_load", "script_list"],
    ),
];

pub fn register(plugin: Plugin) -> Plugin {
    GROUPS.iter().fold(plugin, |p, (name, summary, tools)| {
        p.group(
            Group::new(*name, *summary)
                .tools(tools.iter().copied())
                .needs([Capability::Browser]),
        )
    })
}
