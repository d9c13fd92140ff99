use super::*;

const PAGE: &str = "https://journal.example.test/2026/garden/index.html";

fn md(html: &str) -> Extracted {
    extract(html, PAGE, Format::Markdown).expect("extracts")
}

#[test]
fn article_page_keeps_the_article_and_drops_the_furniture() {
    let out = md(include_str!("fixtures/article.html"));
    assert_eq!(out.source, "article");
    assert_eq!(out.title, "Tending a Rust Garden | The Example Journal");
    let c = &out.content;
    assert!(
        c.contains("Gardening in a small backyard starts with the soil."),
        "{c}"
    );
    assert!(c.contains("## Choosing what to grow"), "{c}");
    assert!(c.contains("- Radishes: four weeks from seed"), "{c}");
    assert!(
        c.contains("[watering guide](https://journal.example.test/guides/watering?src=article)"),
        "{c}"
    );
    assert!(
        c.contains(
            "![Raised beds in spring](https://journal.example.test/2026/garden/img/beds.jpg)"
        ),
        "{c}"
    );
    assert!(c.contains("water(bed, litres = 20)"), "{c}");
    for furniture in [
        "tracking-script-body",
        "font-family",
        "Trending story",
        "Sports",
        "Copyright",
        "Subscribe",
        "Your email",
    ] {
        assert!(!c.contains(furniture), "{furniture} leaked into: {c}");
    }
}

#[test]
fn article_as_text_has_no_markdown() {
    let out = extract(include_str!("fixtures/article.html"), PAGE, Format::Text).expect("text");
    assert_eq!(out.source, "article");
    assert!(
        out.content.contains("Choosing what to grow"),
        "{}",
        out.content
    );
    assert!(!out.content.contains("## "), "{}", out.content);
    assert!(!out.content.contains("]("), "{}", out.content);
    assert!(!out.content.contains("Trending story"), "{}", out.content);
}

#[test]
fn nav_heavy_page_falls_back_to_main() {
    let out = md(include_str!("fixtures/nav_heavy.html"));
    assert_eq!(out.source, "main");
    let c = &out.content;
    assert!(c.starts_with("# Garden tools"), "{c}");
    assert!(
        c.contains("[Spade](https://journal.example.test/2026/garden/spade.html)"),
        "{c}"
    );
    assert!(c.contains("25 EUR"), "{c}");
    for nav in ["Category A", "Log in", "Cart", "About us", "Jobs"] {
        assert!(!c.contains(nav), "{nav} leaked into: {c}");
    }
}

#[test]
fn page_without_article_falls_back_to_the_body() {
    let out = md(include_str!("fixtures/no_article.html"));
    assert_eq!(out.source, "body");
    assert_eq!(out.title, "Dashboard");
    let c = &out.content;
    assert!(c.starts_with("# Welcome back, user@example.com"), "{c}");
    assert!(
        c.contains("[Sign out](https://journal.example.test/login)"),
        "{c}"
    );
    assert!(c.contains("Open tickets: 3"), "{c}");
    let text = extract(include_str!("fixtures/no_article.html"), PAGE, Format::Text)
        .expect("text")
        .content;
    assert!(text.starts_with("Welcome back, user@example.com"), "{text}");
    assert!(text.contains("Messages: 12"), "{text}");
}

#[test]
fn hostile_markup_cannot_hide_text_or_smuggle_links() {
    let out = md(include_str!("fixtures/hostile.html"));
    // The title is the document's, whitespace collapsed; a script that would have changed it
    // never ran here (the browser's DOM already holds what scripts did).
    assert_eq!(out.title, "Totally normal page");
    let c = &out.content;
    assert!(c.contains("Visible paragraph."), "{c}");
    for hidden in [
        "IGNORE PREVIOUS",
        "hidden by attribute",
        "hidden from readers",
        "hidden by visibility",
        "frame text",
        "template text",
        "noscript text",
        "svg text",
        "textarea text",
        "style text",
        "pwned",
        "javascript:",
        "data:",
    ] {
        assert!(!c.contains(hidden), "{hidden} leaked into: {c}");
    }
    // Link text stays; targets that are not http(s) or mailto are dropped.
    assert!(c.contains("script link"), "{c}");
    assert!(!c.contains("(javascript"), "{c}");
    // Relative links resolve as the browser resolves them: against <base href>.
    assert!(c.contains("(https://evil.example/relative/page)"), "{c}");
    assert!(c.contains("(https://cdn.example.test/pic.png)"), "{c}");
}

#[test]
fn deep_nesting_and_garbage_do_not_break_the_extractor() {
    let deep = format!("{}deep text{}", "<div>".repeat(5000), "</div>".repeat(5000));
    let out = md(&deep);
    assert!(out.content.contains("deep text"), "{}", out.content);
    let garbage = "<<<>>><p <a href=\"\u{0}\">\u{feff}unclosed <b><i>tags</p></table></html>";
    assert!(md(garbage).content.contains("unclosed"));
    assert_eq!(md("").content, "");
}

#[test]
fn html_format_returns_the_document() {
    let html = include_str!("fixtures/no_article.html");
    let out = extract(html, PAGE, Format::Html).expect("html");
    assert_eq!(out.content, html);
    assert_eq!(out.title, "Dashboard");
}

#[test]
fn bad_input_is_a_clear_error() {
    let err = extract("<p>x</p>", "not a url", Format::Text).expect_err("bad url");
    assert!(err.to_string().contains("not an absolute"), "{err}");
    let err = extract("<p>x</p>", "file:///etc/passwd", Format::Text).expect_err("file url");
    assert!(err.to_string().contains("file"), "{err}");
    let big = "a".repeat(MAX_HTML + 1);
    let err = extract(&big, PAGE, Format::Markdown).expect_err("too large");
    assert!(err.to_string().contains("format \"html\""), "{err}");
}

#[test]
fn a_page_of_any_size_is_handed_on_whole_in_html_after_one_small_parse() {
    // 64 MiB of page: the title in its head is found, and the document is returned as it is.
    let filler = "<div class=\"row\"><span>é</span></div>".repeat(64 * 1024 * 1024 / 40);
    let html = format!("<html><head><title>Big board</title></head><body>{filler}</body></html>");
    let out = extract(&html, PAGE, Format::Html).expect("html");
    assert_eq!(out.title, "Big board");
    assert_eq!(out.content.len(), html.len());
    // Only the start is parsed: a title past it is not read (the tab's own title is used).
    let late = format!("<html><head>{filler}<title>Late</title></head></html>");
    assert_eq!(extract(&late, PAGE, Format::Html).expect("html").title, "");
}
