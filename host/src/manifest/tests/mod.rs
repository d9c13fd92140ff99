//! Bad manifests, each with the exact message (and `file:line:col`) an admin will read, and
//! good ones with what they load into; one file per manifest section.

mod audit;
mod browser;
mod distribution;
mod fleet_members;
mod grants;
mod hosts;
mod load;
mod oauth;
mod plugin;
mod roles;
mod search;
mod server_http;
mod support;
