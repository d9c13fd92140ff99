//! The one door through which a plugin makes a browser load a URL of its choosing. A tab
//! loads a URL only as a [`Navigation`], and a `Navigation` is made only here: from the
//! plugin's text, read as the browser reads it (the WHATWG parser strips surrounding spaces
//! and control characters, removes tabs and newlines anywhere, and lowercases the scheme, so
//! ` JaVaScRiPt:` and `java\tscript:` are `javascript:`), then judged by what loading it
//! would do. The browser is sent the parsed form, never the plugin's text.
//!
//! | scheme | what loading it does | needs |
//! |---|---|---|
//! | `http`, `https` | loads a page of that origin | the origin in the guard's origin grant |
//! | `about:blank` | an empty document | nothing more |
//! | `javascript:` | runs the plugin's script in the page the tab shows, with its cookies and fields | `grants.browser.eval_js` |
//! | `data:` | shows a document the plugin wrote (script included) | `grants.browser.eval_js` |
//! | `blob:` | shows a document made in the blob's origin | `eval_js` and that origin granted |
//! | anything else (`view-source:`, `file:`, `filesystem:`, `chrome:`, other `about:` pages, ...) | no origin a grant can name | refused |
//!
//! The capture browser runs no plugin script at all: it loads only `http(s)` pages.
//! Where a page goes by itself (a link, a redirect, its own script) is the page's doing,
//! and is checked by the origin guard (`events.rs`) and the network guard (`proxy.rs`).

use super::owner::Guard;
use crate::manifest::grants::{Denied, Grants};
use url::Url;

/// A URL a tab may be sent to: made only by [`check`] (or, for URLs Warden itself chose,
/// [`Navigation::chosen_by_host`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Navigation {
    url: Url,
}

impl Navigation {
    /// A URL Warden chose itself, never a plugin: `about:blank`, or the origin of a saved
    /// state it restores.
    pub(in crate::capabilities) fn chosen_by_host(url: Url) -> Self {
        Self { url }
    }

    /// `about:blank`.
    pub(in crate::capabilities) fn blank() -> Self {
        Self::chosen_by_host(Url::parse("about:blank").unwrap_or_else(|_| unreachable!()))
    }

    /// The URL as the browser is sent it.
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    pub fn url(&self) -> &Url {
        &self.url
    }

    /// What an audit line names: origin and path of an http(s) URL (the query may carry
    /// tokens), only the scheme of anything else (a `data:` or `javascript:` URL is the
    /// plugin's own text, and can be long).
    pub fn audit_target(&self) -> String {
        audit_target(&self.url)
    }
}

impl std::fmt::Display for Navigation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.url.as_str())
    }
}

fn audit_target(url: &Url) -> String {
    match url.scheme() {
        "http" | "https" => format!("{}{}", url.origin().ascii_serialization(), url.path()),
        "about" => url
            .as_str()
            .split(['?', '#'])
            .next()
            .unwrap_or("about:")
            .into(),
        other => format!("a {other}: URL"),
    }
}

/// Why a plugin's URL was not loaded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Refused {
    /// Not a URL at all: an argument error, not a refusal.
    #[error(
        "\"{text}\" is not an absolute URL ({reason}); include the scheme, like https://example.com/"
    )]
    NotAUrl {
        text: String,
        reason: url::ParseError,
    },
    /// The grants refuse it; the message says which grant, if any, would allow it.
    #[error("{0}")]
    Denied(Denied),
}

impl Refused {
    /// The refusal to audit (a malformed URL is not one).
    pub fn denied(&self) -> Option<&Denied> {
        match self {
            Self::NotAUrl { .. } => None,
            Self::Denied(d) => Some(d),
        }
    }
}

/// The plugin's `text` as a navigation of a tab guarded by `guard`, if `grants` allow it.
pub fn check(guard: Guard, grants: &Grants, text: &str) -> Result<Navigation, Refused> {
    let url = Url::parse(text).map_err(|reason| Refused::NotAUrl {
        text: short(text),
        reason,
    })?;
    judge(guard, grants, &url).map_err(Refused::Denied)?;
    Ok(Navigation { url })
}

fn judge(guard: Guard, grants: &Grants, url: &Url) -> Result<(), Denied> {
    let target = audit_target(url);
    match (guard, url.scheme()) {
        (Guard::Browser, "http" | "https") => grants.check_browser_origin(url),
        (Guard::Capture, "http" | "https") => grants.check_capture_origin(url),
        (_, "about") if is_blank(url) => Ok(()),
        (Guard::Browser, "javascript") => script(
            grants,
            target,
            "runs the plugin's script in the page the tab shows, with that page's cookies and fields, as browse_eval_js does",
        ),
        (Guard::Browser, "data") => script(
            grants,
            target,
            "shows a document the plugin wrote, script included",
        ),
        (Guard::Browser, "blob") => {
            script(grants, target, "shows a document made in the blob's origin")?;
            // The document runs in the origin the blob was made in: that one must be granted.
            match Url::parse(url.path()) {
                Ok(inner) if matches!(inner.scheme(), "http" | "https") => {
                    grants.check_browser_origin(&inner)
                }
                _ => Err(no_origin("grants.browser.origins", url)),
            }
        }
        (Guard::Capture, _) => Err(Denied::unfixable(
            "grants.capture.origins",
            target,
            format!(
                "the capture browser loads only http and https pages, not {}: URLs; capture runs no script of the plugin's",
                url.scheme()
            ),
        )),
        (Guard::Browser, _) => Err(no_origin("grants.browser.origins", url)),
    }
}

/// `about:blank` (with a query or fragment: still the empty document).
fn is_blank(url: &Url) -> bool {
    url.path() == "blank"
}

/// A URL whose loading runs script the plugin wrote: allowed with `eval_js`.
fn script(grants: &Grants, target: String, what: &str) -> Result<(), Denied> {
    if grants.check_eval_js().is_ok() {
        return Ok(());
    }
    let mut denied = grants.needs_script(target.clone());
    denied.message = format!("{target} {what}; {}", denied.message);
    Err(denied)
}

fn no_origin(key: &'static str, url: &Url) -> Denied {
    Denied::unfixable(
        key,
        audit_target(url),
        format!(
            "a tab loads only http and https pages (and about:blank); {}: URLs have no origin a grant can name, so no grant allows them{}",
            url.scheme(),
            match url.scheme() {
                "view-source" => "; to read a page's HTML, use browse_extract with format html",
                _ => "",
            }
        ),
    )
}

/// The plugin's text cut for a message.
fn short(text: &str) -> String {
    let mut s: String = text.chars().take(80).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::grants::{BrowserGrant, CaptureGrant, GlobList};

    fn grants(eval_js: bool) -> Grants {
        let list = |l: &[&str]| {
            GlobList::new(&l.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("globs")
        };
        Grants {
            plugin: "p".into(),
            browser: Some(BrowserGrant {
                origins: list(&["http://127.0.0.1:*", "https://shop.example"]),
                resource_origins: list(&[]),
                cookies: false,
                eval_js,
                upload_dirs: Vec::new(),
                download_dir: None,
                download_max: crate::manifest::DEFAULT_DOWNLOAD_MAX,
                secrets: Vec::new(),
                profiles: Vec::new(),
                owned: Default::default(),
            }),
            capture: Some(CaptureGrant {
                http_hosts: list(&[]),
                max_body: 1,
                origins: list(&["http://127.0.0.1:*"]),
                cookies: false,
                http_only_cookies: false,
            }),
            ..Grants::default()
        }
    }

    fn refused(guard: Guard, g: &Grants, text: &str) -> Denied {
        match check(guard, g, text) {
            Ok(n) => panic!("{text:?} was let through as {}", n.as_str()),
            Err(Refused::Denied(d)) => d,
            Err(e) => panic!("{text:?}: {e}"),
        }
    }

    #[test]
    fn script_urls_need_eval_js_however_they_are_spelled() {
        let g = grants(false);
        for text in [
            "javascript:alert(document.cookie)",
            " JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            "java\nscript:alert(1)",
            "\u{1}\u{1f}javascript:alert(1)",
            "JAVASCRIPT:void(0)",
            "javascript://%0aalert(1)",
            "data:text/html,<script>alert(1)</script>",
            " DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
            "blob:http://127.0.0.1:8000/0b9f5a1e-8a6b-4d8c-9a4f-1c2d3e4f5a6b",
        ] {
            let d = refused(Guard::Browser, &g, text);
            assert_eq!(d.grant, "grants.browser.eval_js", "{text:?}: {}", d.message);
            assert!(d.fix.is_some(), "{text:?}");
            // The audit names the scheme, never the plugin's script.
            assert!(!d.target.contains("alert"), "{}", d.target);
        }
        // With eval_js, script URLs are what evaluation is.
        let g = grants(true);
        assert!(check(Guard::Browser, &g, "javascript:void(0)").is_ok());
        assert!(check(Guard::Browser, &g, "data:text/html,hi").is_ok());
        let sent = check(Guard::Browser, &g, " JaVa\tScRiPt:void(0)").expect("eval_js");
        assert_eq!(sent.as_str(), "javascript:void(0)");
        // A blob runs in its own origin, which must be granted even with eval_js.
        assert!(check(Guard::Browser, &g, "blob:http://127.0.0.1:8000/x").is_ok());
        let d = refused(Guard::Browser, &g, "blob:https://evil.example/x");
        assert_eq!(d.grant, "grants.browser.origins");
    }

    #[test]
    fn schemes_without_a_grantable_origin_are_refused_for_everyone() {
        for eval_js in [false, true] {
            let g = grants(eval_js);
            for text in [
                "view-source:http://127.0.0.1:8000/",
                "view-source:javascript:alert(1)",
                "file:///etc/passwd",
                "filesystem:http://127.0.0.1:8000/temporary/x",
                "chrome://settings",
                "about:srcdoc",
                "about:version",
                "ws://127.0.0.1:8000/",
                "ftp://127.0.0.1/",
            ] {
                let d = refused(Guard::Browser, &g, text);
                assert!(d.fix.is_none(), "{text}: {}", d.message);
                assert!(!d.message.contains("\"null\""), "{}", d.message);
            }
        }
    }

    #[test]
    fn pages_and_the_blank_page() {
        let g = grants(false);
        for ok in [
            "http://127.0.0.1:8000/x?y=1",
            "HTTPS://SHOP.example/cart",
            "about:blank",
            "about:blank#top",
        ] {
            assert!(check(Guard::Browser, &g, ok).is_ok(), "{ok}");
        }
        let d = refused(Guard::Browser, &g, "https://other.example/");
        assert_eq!(d.grant, "grants.browser.origins");
        assert!(matches!(
            check(Guard::Browser, &g, "shop.example/cart"),
            Err(Refused::NotAUrl { .. })
        ));
    }

    #[test]
    fn capture_loads_only_pages_of_its_own_grant() {
        let g = grants(true);
        assert!(check(Guard::Capture, &g, "http://127.0.0.1:9/").is_ok());
        for text in [
            "javascript:alert(1)",
            "data:text/html,x",
            "blob:http://127.0.0.1:9/x",
            "view-source:http://127.0.0.1:9/",
        ] {
            let d = refused(Guard::Capture, &g, text);
            assert!(d.fix.is_none(), "{text}");
        }
        let d = refused(Guard::Capture, &g, "https://shop.example/");
        assert_eq!(d.grant, "grants.capture.origins");
    }
}
