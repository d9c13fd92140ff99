//! Warden's built-in `browser` plugin: the `browse_*` tools.
//!
//! The host drives a real Chromium and guards every navigation with the manifest's
//! `grants.browser.origins`; this plugin turns the host's element snapshots into compact
//! `@eN` text, keeps refs stable per DOM node, and answers actions with a diff of the page.

mod actions;
mod answer;
mod cache;
mod downloads;
mod element_errors;
mod emulate;
mod extract;
mod fill;
mod find;
mod gestures;
mod groups;
mod marks;
mod memory;
mod observe;
mod page;
mod refs;
mod render;
mod route;
mod script;
mod search;
mod storage;
mod tabs;
mod text;

use warden_sdk::prelude::*;

/// The plugin: its tools in the order agents see them.
fn plugin() -> Plugin {
    let p = page::register(Plugin::new());
    let p = extract::register(gestures::register(tabs::register(actions::register(p))));
    let p = downloads::register(p);
    let p = cache::register(search::register(script::register(p, plugin)));
    let p = storage::register(emulate::register(route::register(observe::register(p))));
    groups::register(p)
}

warden_sdk::export_plugin!(plugin);
