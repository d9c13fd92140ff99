//! A URL the admin configured (a remote browser, a trace collector), as logs, audit lines and
//! messages name it: scheme, host, port and path, never its user, password or query, where a
//! hosted service's token often rides (`wss://browser.example/?token=…`).

use url::Url;

/// `url` without user, password, query (`?…` where one was) and fragment.
pub fn shown_url(url: &Url) -> String {
    let mut url = url.clone();
    let had_query = url.query().is_some();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    let mut text = url.to_string();
    if had_query {
        text.push_str("?…");
    }
    text
}

/// [`shown_url`] of a URL given as text; one that does not parse is not repeated.
pub fn shown(url: &str) -> String {
    Url::parse(url).map_or_else(|_| "(a URL that does not parse)".into(), |u| shown_url(&u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_queries_are_left_out() {
        assert_eq!(
            shown("wss://ops:pw-s3cret@browser.example:3000/devtools?token=s3cret#x"),
            "wss://browser.example:3000/devtools?…"
        );
        assert_eq!(shown("http://127.0.0.1:9222"), "http://127.0.0.1:9222/");
        assert_eq!(shown("not a url s3cret"), "(a URL that does not parse)");
    }
}
