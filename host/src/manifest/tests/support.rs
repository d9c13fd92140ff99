//! What the manifest tests share: a parse that must fail, and a table of bad manifests.

pub(super) use super::super::*;
pub(super) use std::path::Path;
pub(super) use std::time::Duration;

pub(super) const BUILTINS: &[&str] = &["capture"];

pub(super) fn error_of(text: &str) -> String {
    match Manifest::parse(
        text,
        "warden.toml",
        Path::new("/nonexistent-base"),
        BUILTINS,
    ) {
        Ok(_) => panic!("manifest unexpectedly valid:\n{text}"),
        Err(e) => e.to_string(),
    }
}

pub(super) const PLUGIN: &str = "[[plugin]]\nname = \"capture\"\nsource = \"builtin:capture\"\n";

/// Each `(what, manifest, expected error)` case fails with exactly its error.
pub(super) fn check_errors(cases: &[(&str, String, &str)]) {
    let mut failures = Vec::new();
    for (what, text, expected) in cases {
        let got = error_of(text);
        if got != *expected {
            failures.push(format!(
                "{what}:\n  expected: {expected}\n  got:      {got}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
