//! The fuzz targets, one file each.

mod audit;
mod browser;
mod http;
mod manifest;
mod mcp_server;
mod plugin_json;
mod sftp;
mod stdio;
mod support;
mod terminal;
mod tool_args;

use crate::Target;

/// Every target, in the order a run goes through them.
pub const ALL: &[Target] = &[
    stdio::TARGET,
    tool_args::TARGET,
    manifest::TARGET,
    plugin_json::TARGET,
    browser::TARGET,
    terminal::TARGET,
    sftp::TARGET,
    http::TARGET,
    audit::TARGET,
    mcp_server::TARGET,
];

pub fn named(name: &str) -> Option<&'static Target> {
    ALL.iter().find(|t| t.name == name)
}
