//! One file per command.

pub mod audit;
pub mod call;
pub mod check;
pub mod check_access;
pub mod plugin_add;
pub mod plugin_keygen;
pub mod plugin_new;
pub mod plugin_pull;
pub mod plugin_push;
pub mod recordings;
pub mod registry_args;
pub mod serve;
pub mod tools;
