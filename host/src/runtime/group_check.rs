//! A plugin's declared tool groups (`warden:plugin/groups`) checked against its tools when
//! it loads: valid, unique names; every tool named is one of its tools, in one group only.

use super::bindings::ToolInfo;
use super::group_bindings::ToolGroup;
use crate::manifest::valid_group_name;
use std::collections::HashMap;

/// Checks the groups a plugin declares against its tools: valid, unique names; every tool
/// named is one of its tools, and in one group only.
pub fn validate(groups: &[ToolGroup], tools: &[ToolInfo]) -> Result<(), String> {
    let mut owner: HashMap<&str, &str> = HashMap::new();
    for (i, group) in groups.iter().enumerate() {
        if !valid_group_name(&group.name) {
            return Err(format!(
                "declares a tool group named \"{}\"; group names must match [a-z0-9_-]{{1,32}}",
                group.name
            ));
        }
        if groups[..i].iter().any(|g| g.name == group.name) {
            return Err(format!("declares tool group \"{}\" twice", group.name));
        }
        for tool in &group.tools {
            if !tools.iter().any(|t| &t.name == tool) {
                return Err(format!(
                    "puts \"{tool}\" in tool group \"{}\", but has no such tool",
                    group.name
                ));
            }
            if let Some(first) = owner.insert(tool, &group.name) {
                return Err(format!(
                    "puts tool \"{tool}\" in two groups, \"{first}\" and \"{}\"; a tool is in one group",
                    group.name
                ));
            }
        }
    }
    Ok(())
}
