//! One file per command.

pub mod audit;
pub mod call;
pub mod check;
pub mod plugin_new;
pub mod serve;
pub mod tools;
