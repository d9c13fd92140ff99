//! The requests of 2025-11-25 tasks under the internal names [`super::wire`] gives them, and
//! the refusal of a call that a task-only tool needs as a task.

use rmcp::ErrorData as McpError;
use rmcp::model::ErrorCode;

/// The requests of 2025-11-25 tasks, under the internal names [`wire`] gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `tools/call` with `params.task`.
    Call,
    Get,
    Result,
    List,
    Cancel,
}

/// Prefix of the internal names: no MCP method starts with it.
pub(super) const PREFIX: &str = "warden/2025-11-25/";

impl Method {
    const ALL: [(Method, &'static str); 5] = [
        (Method::Call, "tools/call"),
        (Method::Get, "tasks/get"),
        (Method::Result, "tasks/result"),
        (Method::List, "tasks/list"),
        (Method::Cancel, "tasks/cancel"),
    ];

    /// The method an internal name stands for.
    pub fn of(internal: &str) -> Option<Self> {
        let wire = internal.strip_prefix(PREFIX)?;
        Self::ALL.iter().find(|(_, m)| *m == wire).map(|(m, _)| *m)
    }

    /// The MCP method.
    pub fn wire(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map_or("", |(_, w)| w)
    }

    /// The internal name of an MCP method.
    pub fn internal(wire: &str) -> Option<String> {
        Self::ALL
            .iter()
            .any(|(_, w)| *w == wire)
            .then(|| format!("{PREFIX}{wire}"))
    }
}

/// The refusal of a call without `task` to a tool that runs only as one.
pub fn required() -> McpError {
    McpError::new(
        ErrorCode::METHOD_NOT_FOUND,
        "this tool runs only as a task: call it with `task` in the params (tools/list shows execution.taskSupport \"required\")",
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_names_stand_only_for_the_task_methods() {
        for (method, wire) in Method::ALL {
            let internal = Method::internal(wire).expect("a task method");
            assert_eq!(Method::of(&internal), Some(method));
        }
        assert_eq!(Method::internal("tasks/update"), None);
        assert_eq!(Method::of("tasks/get"), None, "only the internal name");
        assert_eq!(Method::of("warden/2025-11-25/tools/list"), None);
    }
}
