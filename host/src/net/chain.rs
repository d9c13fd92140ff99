//! An HTTP client's error with its causes: reqwest's own message hides them ("error sending
//! request"), and the cause (refused, timed out, bad certificate) is what the reader needs.
//! A reqwest error also names the URL it was for, query included, where a credential may
//! ride (`?appid=KEY`): [`request_error`] is how every such error is put into words, with
//! the URL as [`super::shown::shown_url`] gives it.

/// `e` and every error under it, joined by ": ".
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// [`error_chain`] of a request's error, its URL without user, password or query wherever
/// the text names it (the error's own URL, and the URL of any reqwest error under it).
pub fn request_error(e: &reqwest::Error) -> String {
    let mut text = error_chain(e);
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(url) = err
            .downcast_ref::<reqwest::Error>()
            .and_then(reqwest::Error::url)
        {
            text = text.replace(url.as_str(), &super::shown::shown_url(url));
        }
        source = err.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refused_request_is_named_without_its_query() {
        // A port nothing listens on: bound, then closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a port")
            .port();
        let url = format!("http://127.0.0.1:{port}/v1/weather?q=Berlin&appid=k3y-s3cret");
        let e = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("a client")
            .get(&url)
            .send()
            .await
            .expect_err("refused");
        assert!(
            error_chain(&e).contains("k3y-s3cret"),
            "{}",
            error_chain(&e)
        );
        let text = request_error(&e);
        assert!(
            !text.contains("k3y-s3cret") && !text.contains("Berlin"),
            "{text}"
        );
        assert!(
            text.contains(&format!("127.0.0.1:{port}/v1/weather?…")),
            "{text}"
        );
    }
}
