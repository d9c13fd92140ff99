//! An issue-tracker plugin: `create_issue` POSTs JSON to the tracker's API and returns the
//! issue it created. The plugin holds no token: the manifest binds one to the API's origin
//! (`[credentials.tracker]`) and the host adds it to the request, after the plugin hands the
//! request over. Where the API lives comes from `[plugin.settings] api_base`.

use warden_sdk::prelude::*;
use warden_sdk::{http, settings};

/// Arguments of `create_issue`.
#[derive(Deserialize, JsonSchema)]
struct CreateIssue {
    /// One-line summary.
    title: String,
    /// What happened, in Markdown.
    #[serde(default)]
    body: String,
}

/// What the tracker answered.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Issue {
    /// The new issue's number.
    id: u64,
    /// Everything else the tracker said about it.
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

fn create_issue(args: CreateIssue) -> Result<Structured<Issue>, ToolError> {
    let base = settings::get("api_base")
        .map_err(ToolError::failed)?
        .ok_or_else(|| ToolError::failed("set api_base under [plugin.settings] in the manifest"))?;
    let issue: Issue = http::post(format!("{}/issues", base.trim_end_matches('/')))
        .header("accept", "application/json")
        .json(&serde_json::json!({ "title": args.title, "body": args.body }))?
        .send()?
        .error_for_status()?
        .json()?;
    Ok(Structured::new(issue))
}

warden_sdk::export_plugin!(|| Plugin::new().tool(
    Tool::new("create_issue", create_issue)
        .title("Create issue")
        .description("File an issue in the tracker and return it.")
));
