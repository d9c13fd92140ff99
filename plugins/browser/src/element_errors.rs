//! The errors an action on an element answers, naming the element the agent meant.

use warden_sdk::prelude::*;

/// Turn the host's stale-element error into the agent's words.
pub fn element_error(e: CapabilityError) -> ToolError {
    match e {
        CapabilityError::StaleElement(_) => ToolError::not_found(
            "that element is gone from the page (the page changed since the snapshot); take a new snapshot (browse_snapshot) and use a fresh ref",
        ),
        other => other.into(),
    }
}

/// A host error about the element behind ref `name` (`@eN`), in the agent's words.
pub fn named_error(e: CapabilityError, name: &str) -> ToolError {
    match e {
        CapabilityError::StaleElement(_) => ToolError::not_found(format!(
            "{name} is gone from the page; take a new snapshot (browse_snapshot) and use a fresh ref"
        )),
        CapabilityError::InvalidArgument(m) => {
            ToolError::invalid_arguments(m.replacen("that element", name, 1))
        }
        other => other.into(),
    }
}
