//! Per-session routes: requests whose URL matches a glob are failed (`block`) or answered
//! without being sent (`mock`). Routes are checked after the origin guard, so a route can
//! neither let a tab reach an origin that is not granted nor fake a document for one.
//!
//! Blocking needs only the browser grant. A mock is plugin-written content that runs in the
//! origin of the URL it answers (a document, or a script a real page loads), with that
//! origin's cookies and storage: it needs `grants.browser.eval_js` (checked in
//! `wit/extras.rs`), which the manifest never grants with secrets, and it marks its session
//! as one no secret is typed in (`SessionExtras::mocked`).

use crate::capabilities::browser::error::{BrowserError, Result};
use crate::manifest::emulation::Emulation;
use base64::Engine as _;
use serde_json::{Value, json};

/// At most this many routes per session, and this big a mocked body.
pub const MAX_ROUTES: usize = 100;
pub const MAX_MOCK_BODY: usize = 1 << 20;

#[derive(Debug, Clone)]
pub struct Mock {
    pub status: u16,
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

#[derive(Debug, Clone)]
pub enum Action {
    Block,
    Mock(Mock),
}

#[derive(Debug, Clone)]
pub struct Route {
    pub id: u32,
    pub glob: String,
    matcher: globset::GlobMatcher,
    pub action: Action,
}

/// What a session adds to its tabs: routes and emulation.
#[derive(Debug, Default)]
pub struct SessionExtras {
    pub routes: Vec<Route>,
    next_id: u32,
    pub emulation: Emulation,
    /// The session has or had a mock route: a page it showed may have been written by the
    /// plugin (a mocked document, or a mocked script a real page ran), so no secret is typed
    /// in it for as long as it lives. Never cleared.
    pub mocked: bool,
    /// Windows its pages opened that were closed for going over a tab cap (`caps.rs`).
    pub popups_closed: u64,
    /// Origins a secret was typed into in this session (`model/hold.rs`). Never cleared.
    pub secret_origins: super::hold::SecretOrigins,
    /// Every form of every secret typed into this session, longest first: masked in what any
    /// of its tabs shows (`model/hold.rs`). Never cleared.
    pub secret_variants: Vec<String>,
}

/// A URL glob as routes, `browse_network` and `browse_wait_for` read it: `*` matches any
/// run of characters (slashes included), `?` one character, `[abc]` one of a set.
pub fn url_glob(pattern: &str) -> Result<globset::GlobMatcher> {
    if pattern.is_empty() {
        return Err(BrowserError::Invalid(
            "the URL glob is empty; give one such as \"*/api/*\" or \"*.png\"".into(),
        ));
    }
    Ok(globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .build()
        .map_err(|e| {
            BrowserError::Invalid(format!(
                "\"{pattern}\" is not a valid URL glob: {}",
                e.kind()
            ))
        })?
        .compile_matcher())
}

impl SessionExtras {
    /// Add a route; returns its id.
    pub fn add_route(&mut self, glob: &str, action: Action) -> Result<u32> {
        if self.routes.len() >= MAX_ROUTES {
            return Err(BrowserError::Invalid(format!(
                "this session has {MAX_ROUTES} routes already; remove some first"
            )));
        }
        if let Action::Mock(m) = &action {
            validate_mock(m)?;
        }
        let matcher = url_glob(glob)?;
        self.mocked |= matches!(action, Action::Mock(_));
        self.next_id += 1;
        self.routes.push(Route {
            id: self.next_id,
            glob: glob.to_string(),
            matcher,
            action,
        });
        Ok(self.next_id)
    }

    pub fn remove_route(&mut self, id: u32) -> Result<()> {
        let before = self.routes.len();
        self.routes.retain(|r| r.id != id);
        if self.routes.len() == before {
            return Err(BrowserError::NotFound(format!(
                "this session has no route {id}; list the routes to see their ids"
            )));
        }
        Ok(())
    }

    /// The first route matching `url`.
    pub fn route_for(&self, url: &str) -> Option<&Route> {
        self.routes.iter().find(|r| r.matcher.is_match(url))
    }
}

fn validate_mock(m: &Mock) -> Result<()> {
    if !(200..=599).contains(&m.status) {
        return Err(BrowserError::Invalid(format!(
            "status {} cannot answer a request; use 200-599",
            m.status
        )));
    }
    if m.body.len() > MAX_MOCK_BODY {
        return Err(BrowserError::Invalid(format!(
            "the mocked body is {} bytes; at most {MAX_MOCK_BODY} are allowed",
            m.body.len()
        )));
    }
    for (name, value) in &m.headers {
        let bad = |s: &str| s.contains(['\r', '\n', '\0']);
        if name.is_empty() || bad(name) || name.contains(':') || bad(value) {
            return Err(BrowserError::Invalid(format!(
                "header \"{name}\" is not a valid header name and value"
            )));
        }
    }
    Ok(())
}

/// The `Fetch.enable` of a tab: documents only (the origin guard), or every request when
/// its session has routes.
pub fn fetch_patterns(routed: bool) -> Value {
    if routed {
        json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] })
    } else {
        json!({ "patterns": [{ "urlPattern": "*", "resourceType": "Document", "requestStage": "Request" }] })
    }
}

/// The `Fetch.fulfillRequest` parameters of a mocked answer.
pub fn fulfill(request_id: &str, m: &Mock) -> Value {
    let mut headers = vec![json!({ "name": "Content-Type", "value": m.content_type })];
    for (name, value) in &m.headers {
        if !name.eq_ignore_ascii_case("content-type") {
            headers.push(json!({ "name": name, "value": value }));
        }
    }
    json!({
        "requestId": request_id,
        "responseCode": m.status,
        "responseHeaders": headers,
        "body": base64::engine::general_purpose::STANDARD.encode(m.body.as_bytes()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mock(status: u16) -> Action {
        Action::Mock(Mock {
            status,
            content_type: "application/json".into(),
            headers: vec![],
            body: "{}".into(),
        })
    }

    #[test]
    fn first_matching_route_wins() {
        let mut extras = SessionExtras::default();
        let a = extras.add_route("*/api/items*", mock(200)).expect("valid");
        let b = extras.add_route("*/api/*", Action::Block).expect("valid");
        extras.add_route("*.png", Action::Block).expect("valid");
        assert_eq!(
            extras
                .route_for("http://127.0.0.1:8000/api/items?x=1")
                .map(|r| r.id),
            Some(a)
        );
        assert_eq!(
            extras
                .route_for("http://127.0.0.1:8000/api/other")
                .map(|r| r.id),
            Some(b)
        );
        assert!(
            extras
                .route_for("http://127.0.0.1:8000/img/a.png")
                .is_some()
        );
        assert!(
            extras
                .route_for("http://127.0.0.1:8000/index.html")
                .is_none()
        );
        extras.remove_route(a).expect("valid");
        assert_eq!(
            extras
                .route_for("http://127.0.0.1:8000/api/items")
                .map(|r| r.id),
            Some(b)
        );
        assert!(extras.remove_route(a).is_err());
    }

    #[test]
    fn bad_routes_are_refused() {
        let mut extras = SessionExtras::default();
        assert!(extras.add_route("", Action::Block).is_err());
        assert!(extras.add_route("*[", Action::Block).is_err());
        assert!(extras.add_route("*", mock(42)).is_err());
        assert!(extras.add_route("*", mock(101)).is_err());
        let bad_header = Action::Mock(Mock {
            status: 200,
            content_type: "text/plain".into(),
            headers: vec![("X-A".into(), "a\r\nSet-Cookie: x".into())],
            body: String::new(),
        });
        assert!(extras.add_route("*", bad_header).is_err());
        assert!(extras.routes.is_empty());
        assert!(!extras.mocked, "a refused mock leaves no mark");
    }

    #[test]
    fn a_mock_marks_its_session_for_good() {
        let mut extras = SessionExtras::default();
        extras.add_route("*.png", Action::Block).expect("valid");
        assert!(!extras.mocked);
        let id = extras.add_route("*/api/*", mock(200)).expect("valid");
        extras.remove_route(id).expect("valid");
        assert!(
            extras.mocked,
            "removing the mock does not unwrite what it served"
        );
    }

    #[test]
    fn fulfill_encodes_the_body_and_one_content_type() {
        let m = Mock {
            status: 201,
            content_type: "application/json".into(),
            headers: vec![
                ("content-type".into(), "x".into()),
                ("X-A".into(), "1".into()),
            ],
            body: "[1]".into(),
        };
        let p = fulfill("r1", &m);
        assert_eq!(p["responseCode"], 201);
        assert_eq!(p["body"], "WzFd");
        assert_eq!(p["responseHeaders"].as_array().map(Vec::len), Some(2));
    }
}
