//! One file per command.

pub mod call;
pub mod check;
pub mod serve;
pub mod tools;
