use super::text::{clean, js_number};
use super::vocab::MASK;
use super::*;
use serde_json::{Value, json};

fn url() -> url::Url {
    url::Url::parse("https://docs.example.test/guide/start.html").expect("url")
}

/// A static page's snapshots, its linked style sheets read as empty.
fn parsed(html: &str) -> Parsed {
    let prepared = prepare(html, &url()).expect("a static page");
    let linked = vec![String::new(); prepared.stylesheets().len()];
    finish(&prepared, &linked, &url()).expect("a static page")
}

/// The numbers named, with their elements' names.
fn named(page: &Parsed) -> Vec<(u64, String)> {
    page.nodes.iter().map(|n| (n.id, n.name.clone())).collect()
}

fn elements(snapshot: &Value) -> &[Value] {
    snapshot["elements"].as_array().map_or(&[], Vec::as_slice)
}

/// The element of `role` named `name`.
fn find<'a>(snapshot: &'a Value, role: &str, name: &str) -> &'a Value {
    elements(snapshot)
        .iter()
        .find(|e| e["role"] == role && e["name"] == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in {:#}", snapshot["elements"]))
}

fn attr<'a>(e: &'a Value, key: &str) -> Option<&'a str> {
    e["attributes"]
        .as_array()?
        .iter()
        .find(|kv| kv[0] == key)
        .and_then(|kv| kv[1].as_str())
}

fn states(e: &Value) -> Vec<&str> {
    e["states"]
        .as_array()
        .map(|s| s.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn handle(e: &Value) -> u64 {
    e["handle"].as_u64().expect("a handle")
}

/// Five links, so a page is not turned away for having too few controls.
const LINKS: &str = r#"<p><a href="/1">One</a> <a href="/2">Two</a> <a href="/3">Three</a> <a href="/4">Four</a> <a href="/5">Five</a></p>"#;

fn page_with(head: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>T</title>{head}</head><body>{LINKS}{body}</body></html>"
    )
}

/// A documentation site's page, as sites write them: a fixed sidebar of links in divs,
/// breadcrumbs, a search form whose field is named only by the words before it, a long
/// options table, a preferences form, details, a hidden mobile menu.
fn docs_page() -> String {
    let rows: String = (1..=30)
        .map(|i| {
            format!(
                "<tr><td><code>opt{i}</code></td><td>{}</td><td>Option number {i}.</td></tr>\n",
                i * 10
            )
        })
        .collect();
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>  Getting started —
  Widget Docs </title>
<meta name="description" content="How to install   and configure Widget.">
<link rel="stylesheet" href="/static/docs.css">
<script type="application/ld+json">{{"@context":"https://schema.org","@type":"TechArticle"}}</script>
</head>
<body>
<div class="topbar">
  <a class="logo" href="/">Widget</a>
  <a class="icon-search" href="/search"></a>
  <button class="menu-toggle" aria-label="Open menu">&#9776;</button>
  <nav class="mobile-menu" hidden><a href="/m/guide">Guide</a><a href="/m/api">API</a></nav>
</div>
<div class="sidebar" style="position: sticky; top: 0">
  <div class="sidebar-section"><div class="sidebar-title">Guides</div>
    <div class="sidebar-item"><a href="/docs/install">Install</a></div>
    <div class="sidebar-item"><a href="/docs/config" target="_blank">Configure</a></div>
    <div class="sidebar-item" style="color: red; DISPLAY : None !important"><a href="/docs/old">Old page</a></div>
  </div>
</div>
<main>
  <div class="breadcrumbs"><a href="/">Home</a> / <a href="/docs">Docs</a> / <span>Getting started</span></div>
  <h1>Getting started</h1>
  <p>Widget is a <b>small</b> library. Read the <a href="/docs/faq">FAQ</a> first.</p>
  <form class="search" action="/search" method="get">
    <span>Search docs</span> <input name="q" type="search" autofocus>
    <button type="submit">Go</button>
  </form>
  <h2 id="opts-h">Options</h2>
  <table class="options">
    <thead><tr><th>Name</th><th>Default</th><th>Meaning</th></tr></thead>
    <tbody>
{rows}    </tbody>
  </table>
  <form action="/prefs" method="post">
    <input type="checkbox" name="news" id="news" checked> Send me the newsletter<br>
    <label><input type="checkbox" name="terms"> I agree</label>
    <label for="lang">Language</label>
    <select id="lang" name="lang"><option value="en">English</option><option value="fr" selected>Français</option><option value="de">Deutsch</option></select>
    <span id="mail-l">Email</span><span id="mail-hint" hidden>for receipts</span>
    <input type="email" name="mail" aria-labelledby="mail-l mail-hint" value=" me@example.test " required>
    <textarea name="notes">
Hello   world</textarea>
    <fieldset disabled><legend>Legacy <input type="checkbox" name="legacy-ok"></legend><input type="text" name="legacy" placeholder="Legacy key"></fieldset>
    <div role="radiogroup" aria-labelledby="opts-h"><input type="radio" name="size" value="s" checked> Small <input type="radio" name="size" value="l" checked> Large</div>
    <p style="display:none">Only for print <a href="/print">Print</a></p>
    <p aria-hidden="true">Decoration <a href="/deco">Deco</a></p>
  </form>
  <details><summary>Advanced</summary><p>Hidden text</p><a href="/adv">Advanced link</a></details>
  <details open><summary>Troubleshooting</summary><p>Try again.</p></details>
  <ul class="results"><li><a href="/r/1">Result one</a> <span>2 days ago</span></li></ul>
</main>
</body></html>
"#
    )
}

#[test]
fn a_docs_page_reads_as_page_js_reads_it() {
    let page = parsed(&docs_page());
    let snap = &page.with_text;
    assert_eq!(snap["version"], "static");
    assert_eq!(snap["overlays"], json!([]));
    assert_eq!(snap["frames"], json!([]));
    let meta = &snap["meta"];
    assert_eq!(meta["url"], "https://docs.example.test/guide/start.html");
    assert_eq!(meta["title"], "Getting started — Widget Docs");
    assert_eq!(meta["description"], "How to install and configure Widget.");
    assert_eq!(meta["pageType"], "search");
    assert_eq!(meta["formCount"], 2);
    assert_eq!(meta["hasLoginForm"], false);
    assert_eq!(meta["hasCaptcha"], false);

    // By hand: html 1, head 2, meta 3, title 4, meta 5, link 6, script 7, body 8,
    // div.topbar 9, a 10, a 11, button 12, nav 13, a 14, a 15, div.sidebar 16,
    // div.sidebar-section 17, div.sidebar-title 18, div 19, a 20, div 21, a 22, div 23,
    // a 24, main 25, div.breadcrumbs 26, a 27, a 28, span 29, h1 30.
    let h1 = find(snap, "heading", "Getting started");
    assert_eq!(handle(h1), 30);
    assert_eq!(h1["level"], 1);
    assert_eq!(find(snap, "heading", "Options")["level"], 2);
    assert_eq!(handle(find(snap, "link", "Widget")), 10);
    assert!(named(&page).contains(&(30, "h1".to_string())));

    // The sidebar's links, each in its card-like item; the hidden one is not listed.
    let install = find(snap, "link", "Install");
    assert_eq!(handle(install), 20);
    assert_eq!(attr(install, "href"), Some("/docs/install"));
    assert_eq!(attr(install, "group"), Some("19 card"));
    assert_eq!(
        attr(find(snap, "link", "Configure"), "target"),
        Some("_blank")
    );
    for hidden in [
        "Old page",
        "Guide",
        "API",
        "Print",
        "Advanced link",
        "Hidden text",
        "Only for print",
    ] {
        assert!(
            !elements(snap).iter().any(|e| e["name"] == hidden),
            "{hidden} is hidden"
        );
    }
    // Icon-only: the class says what it does.
    let search = find(snap, "link", "search");
    assert_eq!(attr(search, "name-from"), Some("icon"));
    assert_eq!(find(snap, "button", "Open menu")["value"], Value::Null);

    // Breadcrumbs: links and the words between them, in reading order.
    let names: Vec<&str> = elements(snap)
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    let crumbs = names.iter().position(|n| *n == "Home").expect("crumbs");
    assert_eq!(
        &names[crumbs..crumbs + 5],
        ["Home", "/", "Docs", "/ Getting started", "Getting started"]
    );
    assert_eq!(handle(find(snap, "text", "/ Getting started")), 26);
    assert!(names.contains(&"Widget is a small library. Read the"));

    // The search field has no label: the words before it name it, and stay text too.
    let q = find(snap, "searchbox", "Search docs");
    assert_eq!(attr(q, "name-from"), Some("text"));
    assert_eq!(q["value"], "");
    assert_eq!(states(q), ["focused"]);
    assert_eq!(q["bounds"], Value::Null);
    assert_eq!(q["overlay"], Value::Null);
    assert_eq!(q["interactive"], true);
    find(snap, "text", "Search docs");

    // The long table: one run per row, cells parted by " | ", each in its row's group.
    let header = find(snap, "text", "Name | Default | Meaning");
    let row = find(snap, "text", "opt7 | 70 | Option number 7.");
    let tr = attr(row, "group").expect("a row group");
    assert!(tr.ends_with(" row"), "{tr}");
    let tr_num: u64 = tr
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number");
    assert_eq!(
        named(&page)
            .iter()
            .find(|(n, _)| *n == tr_num)
            .map(|(_, name)| name.as_str()),
        Some("tr")
    );
    assert_ne!(attr(header, "group"), Some(tr));
    assert_eq!(
        elements(snap)
            .iter()
            .filter(|e| e["name"].as_str().is_some_and(|n| n.starts_with("opt")))
            .count(),
        30
    );

    // Check boxes named by the words after them; a <label> names its own.
    let news = find(snap, "checkbox", "Send me the newsletter");
    assert_eq!(states(news), ["checked"]);
    assert_eq!(attr(news, "name-from"), Some("text"));
    let terms = find(snap, "checkbox", "I agree");
    assert!(states(terms).is_empty());
    assert_eq!(attr(terms, "name-from"), None);
    assert!(!names.contains(&"I agree") || names.iter().filter(|n| **n == "I agree").count() == 1);

    // label[for], a selected option.
    let lang = find(snap, "combobox", "Language");
    assert_eq!(lang["value"], "Français");
    assert_eq!(attr(lang, "options"), Some("English | Français | Deutsch"));
    assert!(
        !names.contains(&"Language") || names.iter().filter(|n| **n == "Language").count() == 1
    );

    // aria-labelledby: a hidden element's words count (innerText of what is not laid out
    // is its textContent).
    let mail = find(snap, "textbox", "Email for receipts");
    assert_eq!(attr(mail, "type"), Some("email"));
    assert_eq!(mail["value"], "me@example.test");
    assert_eq!(states(mail), ["required"]);

    let notes = find(snap, "textbox", "notes");
    assert_eq!(notes["value"], "Hello world");
    assert_eq!(attr(notes, "multiline"), Some("true"));
    assert_eq!(attr(notes, "name-from"), Some("name"));

    // A disabled fieldset disables its fields, but not those in its first legend.
    let legacy = find(snap, "textbox", "Legacy key");
    assert_eq!(states(legacy), ["disabled"]);
    assert_eq!(attr(legacy, "name-from"), Some("placeholder"));
    assert_eq!(attr(legacy, "placeholder"), None);
    assert!(states(find(snap, "checkbox", "Legacy")).is_empty());

    // A radio group keeps its last checked button.
    assert!(states(find(snap, "radio", "Small")).is_empty());
    assert_eq!(states(find(snap, "radio", "Large")), ["checked"]);

    // aria-hidden text is not read; its controls are.
    assert!(!names.contains(&"Decoration"));
    find(snap, "link", "Deco");

    // details: a closed one shows its summary; an open one's summary is expanded.
    let advanced = find(snap, "button", "Advanced");
    assert!(states(advanced).is_empty());
    assert!(attr(advanced, "group").is_some_and(|g| g.ends_with(" section")));
    assert_eq!(
        states(find(snap, "button", "Troubleshooting")),
        ["expanded"]
    );
    find(snap, "text", "Try again.");

    let result = find(snap, "link", "Result one");
    let ago = find(snap, "text", "2 days ago");
    assert!(attr(result, "group").is_some_and(|g| g.ends_with(" item")));
    assert_eq!(attr(result, "group"), attr(ago, "group"));

    // Every number named is listed with its element's name.
    for e in elements(snap) {
        assert!(page.nodes.iter().any(|n| n.id == handle(e)));
    }
}

#[test]
fn the_interactive_snapshot_lists_the_same_controls_without_text() {
    let page = parsed(&docs_page());
    let controls: Vec<&Value> = elements(&page.with_text)
        .iter()
        .filter(|e| e["interactive"] == true)
        .collect();
    let listed = elements(&page.interactive);
    assert_eq!(listed.len(), controls.len());
    for (a, b) in listed.iter().zip(controls) {
        assert_eq!(a["handle"], b["handle"]);
        assert_eq!(a["name"], b["name"]);
        assert_eq!(a["value"], b["value"]);
        assert_eq!(a["states"], b["states"]);
        assert_eq!(attr(a, "group"), None);
        assert!(a["role"] != "text" && a["role"] != "heading");
    }
    assert_eq!(page.interactive["meta"], page.with_text["meta"]);
}

#[test]
fn node_numbers_count_every_element_but_template_content_and_noscript_text() {
    let html = r#"<!DOCTYPE html><html><head><title>T</title>
<noscript><img src="/pixel.gif"><style>p{}</style></noscript>
<template><div><a href="/t">In a template</a></div></template>
</head><body>
<svg class="logo"><g><path d="M0 0"/></g></svg>
<noscript><p><a href="/js">Enable JS</a></p></noscript>
<p><a href="/1">One</a> <a href="/2">Two</a> <a href="/3">Three</a> <a href="/4">Four</a> <a href="/5">Five</a></p>
</body></html>"#;
    // html 1, head 2, title 3, noscript 4, template 5, body 6, svg 7, g 8, path 9,
    // noscript 10, p 11, a 12…16.
    let page = parsed(html);
    let snap = &page.with_text;
    assert_eq!(handle(find(snap, "link", "One")), 12);
    assert_eq!(handle(find(snap, "link", "Five")), 16);
    assert!(
        !elements(snap)
            .iter()
            .any(|e| e["name"] == "Enable JS" || e["name"] == "In a template")
    );
    assert_eq!(
        named(&page),
        [
            (12, "a".into()),
            (13, "a".into()),
            (14, "a".into()),
            (15, "a".into()),
            (16, "a".into())
        ]
    );
}

#[test]
fn noscript_after_head_opens_the_body_as_chromium_does() {
    let html = format!(
        "<html><head><title>T</title></head><noscript><img src=x></noscript><body class=b>{LINKS}</body></html>"
    );
    // html 1, head 2, title 3, body 4, noscript 5, p 6, a 7.
    assert_eq!(handle(find(&parsed(&html).with_text, "link", "One")), 7);
}

#[test]
fn pages_that_need_the_browser_say_why() {
    let cases: &[(&str, &str, NeedsBrowser)] = &[
        (
            "",
            "<script>document.title = 'x'</script>",
            NeedsBrowser::Script,
        ),
        ("<script src=/app.js></script>", "", NeedsBrowser::Script),
        (
            "",
            "<script type=module>import './a.js'</script>",
            NeedsBrowser::Script,
        ),
        (
            "",
            "<script type=' Text/JavaScript; charset=utf-8'>1</script>",
            NeedsBrowser::Script,
        ),
        (
            "",
            "<script type=importmap>{}</script>",
            NeedsBrowser::Script,
        ),
        (
            "",
            "<svg><script>alert(1)</script></svg>",
            NeedsBrowser::Script,
        ),
        (
            "",
            "<button onclick=\"go()\">Go</button>",
            NeedsBrowser::InlineHandler,
        ),
        ("", "<body onload=init()>", NeedsBrowser::InlineHandler),
        (
            "",
            "<a href=' JavaScript:void(0)'>Menu</a>",
            NeedsBrowser::InlineHandler,
        ),
        (
            "",
            "<a href='java\tscript:go()'>Menu</a>",
            NeedsBrowser::InlineHandler,
        ),
        (
            "",
            "<form action='javascript:send()'></form>",
            NeedsBrowser::InlineHandler,
        ),
        (
            "",
            "<svg><a xlink:href='javascript:x()'><text>x</text></a></svg>",
            NeedsBrowser::InlineHandler,
        ),
        ("", "<iframe src=/embed></iframe>", NeedsBrowser::Frames),
        ("", "<object data=/x.pdf></object>", NeedsBrowser::Frames),
        (
            "<meta http-equiv=Refresh content='5; url=/next'>",
            "",
            NeedsBrowser::Refresh,
        ),
        ("", "<my-app></my-app>", NeedsBrowser::CustomElements),
        (
            "",
            "<dialog open><p>Accept cookies?</p></dialog>",
            NeedsBrowser::Modal,
        ),
        (
            "",
            "<div role=dialog aria-modal=true>Sign up</div>",
            NeedsBrowser::Modal,
        ),
        // Scripts come first, whatever else the page has.
        (
            "<script>1</script>",
            "<iframe></iframe><x-y></x-y>",
            NeedsBrowser::Script,
        ),
    ];
    for (head, body, why) in cases {
        assert_eq!(
            parse(&page_with(head, body), &url()).as_ref().err(),
            Some(why),
            "{head} {body}"
        );
    }
    assert_eq!(NeedsBrowser::Script.to_string(), "it runs scripts");
    assert_eq!(
        NeedsBrowser::TooFewControls(2).to_string(),
        "it has only 2 controls"
    );
}

#[test]
fn data_blocks_hidden_dialogs_and_svg_names_do_not_need_the_browser() {
    let ok = [
        (
            "<script type=\"application/ld+json\">{\"@type\":\"Article\"}</script>",
            "",
        ),
        (
            "<script type=text/template><div onclick=x()></div></script>",
            "",
        ),
        ("<script language=vbscript>x</script>", ""),
        (
            "",
            "<dialog><p>Later</p></dialog><div role=dialog hidden>Later</div>",
        ),
        (
            "",
            "<div style='display:none'><div role=alertdialog>x</div></div>",
        ),
        (
            "",
            "<svg><font-face></font-face><foreignObject><p>x</p></foreignObject></svg>",
        ),
        (
            "",
            "<template><script>1</script><x-y onclick=z()></x-y></template>",
        ),
        (
            "",
            "<noscript><iframe src=/x></iframe><script>1</script></noscript>",
        ),
        ("", "<a href='/javascript:intro'>Intro</a>"),
    ];
    for (head, body) in ok {
        assert!(
            parse(&page_with(head, body), &url()).is_ok(),
            "{head} {body}"
        );
    }
}

#[test]
fn a_page_with_few_controls_is_an_app_shell() {
    let html = "<html><body><div id=root><a href=/login>Log in</a><button>Menu</button></div><p>Loading…</p></body></html>";
    assert_eq!(
        parse(html, &url()).err(),
        Some(NeedsBrowser::TooFewControls(2))
    );
    assert_eq!(
        parse("", &url()).err(),
        Some(NeedsBrowser::TooFewControls(0))
    );
}

#[test]
fn five_thousand_nested_divs_do_not_exhaust_the_stack() {
    let nested = |depth: usize| {
        format!(
            "<!DOCTYPE html><html><body>{}<span>Deep</span>{LINKS}{}</body></html>",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        )
    };
    let deep = nested(5000);
    let run = move || parse(&deep, &url()).err();
    // A thread with a small stack: nothing may recurse per level.
    let refused = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(run)
        .expect("thread")
        .join()
        .expect("no overflow");
    // Deeper than Chromium's parser nests: the browser reads it.
    assert!(
        matches!(refused, Some(NeedsBrowser::Unmodelled(why)) if why.contains("deeper")),
        "{refused:?}"
    );
    let depth = 400;
    let page = parsed(&nested(depth));
    find(&page.with_text, "text", "Deep");
    // html 1, head 2, body 3, the divs, span, p, a.
    assert_eq!(
        handle(find(&page.with_text, "link", "One")),
        3 + depth as u64 + 3
    );
}

#[test]
fn a_one_megabyte_doc_page_parses_quickly() {
    let mut html = String::from(
        "<!DOCTYPE html><html><head><title>Reference</title></head><body><nav class=sidebar>",
    );
    for i in 0..300 {
        html.push_str(&format!(
            "<div class=nav-item><a href=\"/ref/{i}\">Item {i}</a></div>\n"
        ));
    }
    html.push_str("</nav><main>");
    let mut section = 0;
    while html.len() < 1_000_000 {
        html.push_str(&format!(
            "<section id=s{section}><h2>Section {section}</h2><p>Some <em>prose</em> about <a href=\"#s{section}\">this</a> and <code>that()</code>, long enough to be a paragraph of a real page.</p>\
                 <pre><code>fn main() {{ println!(\"{section}\"); }}</code></pre>\
                 <table><tr><th>Arg</th><th>Type</th></tr><tr><td>x</td><td>u32</td></tr><tr><td>y</td><td>&amp;str</td></tr></table>\
                 <ul><li>one</li><li>two <input type=checkbox> three</li></ul></section>\n"
        ));
        section += 1;
    }
    html.push_str("</main></body></html>");
    let started = std::time::Instant::now();
    let page = parsed(&html);
    let took = started.elapsed();
    println!(
        "parse() of a {} byte doc page ({} sections, {} text elements): {took:?}",
        html.len(),
        section,
        elements(&page.with_text).len()
    );
    assert!(elements(&page.interactive).len() > 300);
}

#[test]
fn headings_groups_and_runs_follow_page_js() {
    let body = r#"
<div role=heading aria-level=3>Release notes</div>
<article class=post><h3>Post title</h3><p>First line<br>second line</p></article>
<div class="product-card"><span>Teapot</span> <button>Add to cart</button></div>
<div role=row><span>Cell A</span></div>
<details open><summary><section><span>Inside summary</span></section></summary><p>Body</p></details>
<p>Remember me <input type=checkbox name=remember></p>
<p>Email: <input type=text name=e></p>
"#;
    let snap = parsed(&page_with("", body)).with_text;
    assert_eq!(find(&snap, "heading", "Release notes")["level"], 3);
    let post = find(&snap, "heading", "Post title");
    assert_eq!(post["level"], 3);
    assert!(attr(post, "group").is_some_and(|g| g.ends_with(" article")));
    // A <br> ends a run.
    find(&snap, "text", "First line");
    find(&snap, "text", "second line");
    let teapot = find(&snap, "text", "Teapot");
    assert!(attr(teapot, "group").is_some_and(|g| g.ends_with(" card")));
    assert_eq!(
        attr(find(&snap, "button", "Add to cart"), "group"),
        attr(teapot, "group")
    );
    assert!(attr(find(&snap, "text", "Cell A"), "group").is_some_and(|g| g.ends_with(" row")));
    // A section inside a summary is part of the control: the context is the details'.
    let summary = find(&snap, "button", "Inside summary");
    assert_eq!(
        attr(summary, "group"),
        attr(find(&snap, "text", "Body"), "group")
    );
    // Nothing after it: the words before a check box name it; a colon stays.
    assert_eq!(
        attr(find(&snap, "checkbox", "Remember me"), "name-from"),
        Some("text")
    );
    assert_eq!(
        attr(find(&snap, "textbox", "Email:"), "name-from"),
        Some("text")
    );
}

#[test]
fn clean_counts_as_js_does() {
    assert_eq!(clean("  a\u{a0}\u{a0}b\u{2003}\n c  ", 100), "a b c");
    assert_eq!(clean("abcdef", 4), "abc…");
    assert_eq!(clean("abcd", 4), "abcd");
    // An emoji is two JS characters; one astride the cut is dropped.
    assert_eq!(clean("ab😀cd", 4), "ab…");
    assert_eq!(clean("a😀cdef", 4), "a😀…");
    assert_eq!(js_number(" 0 "), 0.0);
    assert_eq!(js_number(""), 0.0);
    assert_eq!(js_number("-1"), -1.0);
    assert_eq!(js_number("0x10"), 16.0);
    assert!(js_number("1px").is_nan());
    assert!(js_number("inf").is_nan());
}

#[test]
fn form_fields_load_with_the_values_a_browser_gives_them() {
    let body = r##"
<form>
<select name=a><option disabled>Pick one</option><option>Red</option><option>Blue</option></select>
<select name=b size=3><option>Red</option><option>Blue</option></select>
<select name=c multiple><option selected>Red</option><option>Green</option><option selected label="Sky">Blue</option></select>
<select name=d><option selected>Red</option><option selected>Blue</option></select>
<input type=range name=r>
<input type=range name=r2 min=0 max=5>
<input type=number name=n value="1e3">
<input type=number name=n2 value="12abc">
<input type=color name=col value="#FFAA00">
<input type=date name=day value="2024-02-30">
<input type=datetime-local name=dt value="2024-02-03 10:30:00">
<input type=password name=pw value="hunter2">
<input type=file name=up accept=".png,.jpg">
<input name=plain value="a
b">
<div role=slider aria-valuenow=7 aria-valuetext="" tabindex=0>Volume</div>
<div contenteditable role=textbox aria-label=Bio>I <b>write</b> code</div>
<input type=hidden name=csrf value=x>
</form>"##;
    let snap = parsed(&page_with("", body)).with_text;
    let by_name = |n: &str| {
        elements(&snap)
            .iter()
            .find(|e| e["name"] == n)
            .unwrap_or_else(|| panic!("no {n} in {:#}", snap["elements"]))
            .clone()
    };
    assert_eq!(by_name("a")["value"], "Red");
    assert_eq!(by_name("b")["value"], "");
    assert_eq!(by_name("c")["value"], "Red, Sky");
    assert_eq!(by_name("c")["role"], "listbox");
    assert_eq!(attr(&by_name("c"), "options"), Some("Red | Green | Sky"));
    assert_eq!(by_name("d")["value"], "Blue");
    assert_eq!(by_name("r")["value"], "50");
    assert_eq!(by_name("r")["role"], "slider");
    assert_eq!(by_name("r2")["value"], "3");
    assert_eq!(by_name("n")["value"], "1e3");
    assert_eq!(by_name("n2")["value"], "");
    assert_eq!(by_name("col")["value"], "#ffaa00");
    assert_eq!(by_name("day")["value"], "");
    assert_eq!(by_name("dt")["value"], "2024-02-03T10:30");
    assert_eq!(by_name("pw")["value"], MASK);
    assert_eq!(by_name("pw")["role"], "password");
    assert_eq!(by_name("up")["value"], "");
    assert_eq!(attr(&by_name("up"), "accept"), Some(".png,.jpg"));
    assert_eq!(by_name("plain")["value"], "ab");
    assert_eq!(by_name("Volume")["value"], "7");
    assert_eq!(by_name("Bio")["value"], "I write code");
    assert!(!elements(&snap).iter().any(|e| e["name"] == "csrf"));
}

#[test]
fn visibility_and_inline_style_hide_as_css_does() {
    let body = r#"
<div style="visibility:hidden"><a href=/x>Invisible</a><span>gone</span><p style="visibility: visible">Back <a href=/y>Visible</a></p></div>
<div hidden style="display: flex"><a href=/z>Shown anyway</a></div>
<p style="opacity:0">Faded <a href=/f>Faded link</a></p>
<span class=sr style="clip: rect(0 0 0 0); position: absolute">Screen reader words</span>
<input type=checkbox id=remember style="display:none"><label for=remember>Remember me</label>
"#;
    let snap = parsed(&page_with("", body)).with_text;
    let names: Vec<&str> = elements(&snap)
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(!names.contains(&"Invisible"));
    assert!(!names.contains(&"gone"));
    assert!(names.contains(&"Back"));
    assert!(names.contains(&"Visible"));
    assert!(names.contains(&"Shown anyway"));
    assert!(!names.contains(&"Faded"));
    assert!(names.contains(&"Faded link"));
    assert!(!names.contains(&"Screen reader words"));
    // A custom check box: the real one hidden, its label shown.
    find(&snap, "checkbox", "Remember me");
}

#[test]
fn a_focusable_list_that_wraps_options_is_theirs() {
    let body = r#"
<ul role=listbox aria-label=Fruit><li role=option>Apple</li><li role=option aria-selected=true>Pear</li></ul>
<ul role=menu aria-label=Empty tabindex=0></ul>
<span tabindex=0>Focusable span</span>
<div tabindex=0>Focusable div</div>
<li><a href=/expand class=toggle></a>Folder<ul><li>File</li></ul></li>
<p><a href=/two autofocus>Second autofocus</a></p>
"#;
    let snap = parsed(&page_with("", body)).with_text;
    let names: Vec<&str> = elements(&snap)
        .iter()
        .filter(|e| e["interactive"] == true)
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(!names.contains(&"Fruit"));
    assert_eq!(states(find(&snap, "option", "Pear")), ["selected"]);
    find(&snap, "menu", "Empty");
    find(&snap, "generic", "Focusable span");
    assert!(!names.contains(&"Focusable div"));
    // A nameless expander is named by the item it opens, and expanded while its list shows.
    let toggle = find(&snap, "link", "Folder");
    assert_eq!(attr(toggle, "name-from"), Some("text"));
    assert_eq!(states(toggle), ["expanded"]);
    // The first autofocus that can take focus: a link is focusable.
    assert_eq!(states(find(&snap, "link", "Second autofocus")), ["focused"]);
}

#[test]
fn items_of_a_focusable_list_and_pointer_areas_are_guessed_controls() {
    let body = r#"
<ul class=suggestions tabindex=0><li>Apple pie</li><li>Banana bread</li></ul>
<div class=report style="cursor: pointer"><span>Open the report</span> <b>now</b></div>
<div style="cursor:pointer"><a href=/real>Real link</a> and words</div>
"#;
    let snap = parsed(&page_with("", body)).with_text;
    for name in ["Apple pie", "Banana bread", "Open the report now"] {
        let e = find(&snap, "generic", name);
        assert_eq!(e["interactive"], true);
        // Its words are its name, not text of their own.
        assert!(
            !elements(&snap)
                .iter()
                .any(|t| t["role"] == "text" && t["name"] == name),
            "{name}"
        );
    }
    // The list wraps its items: it is theirs, not a control of its own.
    assert!(
        !elements(&snap)
            .iter()
            .any(|e| e["name"] == "Apple pie Banana bread")
    );
    // A pointer area around a real control is that control's.
    find(&snap, "link", "Real link");
    find(&snap, "text", "and words");
}

/// The names of a snapshot's elements.
fn names(snap: &Value) -> Vec<&str> {
    elements(snap)
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect()
}

#[test]
fn the_page_style_sheet_hides_as_chromium_applies_it() {
    let head = r#"<style>
  .menu { display: none }
  .menu.open { display: block }
  #top .shown-again { display: block }
  nav > .quiet { visibility: hidden }
  nav > .quiet .loud { visibility: visible }
  .x.y { display: none !important }
  .important-loses { display: block }
  p.faint { opacity: 0 }
  @media print { .print-only { display: block } }
  @media screen { .screen-hidden { display: none } }
  .print-only { display: none }
  .tip::before { display: none }
  a:hover { color: red }
  .reverted { display: revert }
  .offpage { position: absolute; left: -10000px }
</style>"#;
    let body = r#"<div id=top>
<div class=menu><a href=/admin>Admin</a><button>Delete everything</button></div>
<div class="menu shown-again"><a href=/shown>Shown by an id rule</a></div>
<nav><div class=quiet><a href=/q>Quiet</a> <a class=loud href=/l>Loud</a></div></nav>
<div class="x y" style="display: block"><a href=/imp>Important wins over the attribute</a></div>
<p class=faint>Faint words</p>
<div class=print-only><a href=/print>Print only</a></div>
<div class=screen-hidden><a href=/screen>Screen hidden</a></div>
<span class=tip><a href=/tip>Tip</a></span>
<div class=reverted hidden><a href=/rev>Reverted past the hidden hint</a></div>
<a class=offpage href=/main>Skip to content</a><span class=offpage>Off the page words</span>
</div>"#;
    let snap = parsed(&page_with(head, body)).with_text;
    let names = names(&snap);
    for hidden in [
        "Admin",
        "Delete everything",
        "Quiet",
        "Important wins over the attribute",
        "Faint words",
        "Print only",
        "Screen hidden",
        "Off the page words",
    ] {
        assert!(!names.contains(&hidden), "{hidden} in {names:?}");
    }
    // Chromium's `hidden` is a presentational hint, which `revert` goes past.
    for shown in [
        "Shown by an id rule",
        "Loud",
        "Tip",
        "Reverted past the hidden hint",
    ] {
        assert!(names.contains(&shown), "{shown} not in {names:?}");
    }
}

#[test]
fn css_the_host_cannot_evaluate_sends_the_page_to_the_browser() {
    let why = |css: &str| match parse(
        &page_with(&format!("<style>{css}</style>"), "<div class=a>A</div>"),
        &url(),
    ) {
        Err(NeedsBrowser::Unmodelled(why)) => Some(why),
        Err(other) => panic!("{css}: {other}"),
        Ok(_) => None,
    };
    assert_eq!(why(".a { color: red; padding: 0 }"), None);
    assert_eq!(why("@media (max-width: 600px) { .a { margin: 0 } }"), None);
    assert!(why("@media (max-width: 600px) { .a { display: none } }").is_some());
    assert!(why(".nav:hover .a { display: block }").is_some());
    assert!(why("@import url(x.css);").is_some());
    assert!(why(".a { display: var(--shown) }").is_some());
    assert!(why(".a { overflow: hidden; height: 0 }").is_some());
    assert!(why(".a { position: absolute; left: -20px }").is_some());
    // A skip link's place, and where its focus would move it, are known.
    assert_eq!(
        why(".a { position: absolute; left: -9999px } .a:focus { left: 8px }"),
        None
    );
    assert!(why(".a { position: fixed; top: 0 }").is_some());
    assert!(why(".a { animation: fade 1s }").is_some());
    assert!(why(".a { text-transform: uppercase }").is_some());
    assert!(why("@layer base { .a { display: none } }").is_some());
    assert!(why(".a:unknown-state { display: none }").is_some());
    // What it does to an element that is not laid out does not matter.
    assert_eq!(
        why(".a { display: none } .a { } .b { position: fixed }"),
        None
    );
    // Quirks mode matches classes and ids whatever their case; standards mode does not.
    let quirks = format!(
        "<html><head><style>.A, #B {{ display: none }}</style></head><body>{LINKS}<p class=a>Words a</p><p id=b>Words b</p></body></html>"
    );
    let words = |html: &str| {
        names(&parsed(html).with_text)
            .into_iter()
            .filter(|n| n.starts_with("Words"))
            .count()
    };
    assert_eq!(words(&quirks), 0);
    assert_eq!(words(&format!("<!DOCTYPE html>{quirks}")), 2);
}

#[test]
fn linked_sheets_are_applied_in_order_with_the_page_own() {
    let html = page_with(
        r#"<link rel=stylesheet href="/css/site.css"><style>.b { display: none }</style><link rel="preload" as=style href=/x.css><link rel=stylesheet media=print href=/print.css>"#,
        r#"<div class=a><a href=/a>In a</a></div><div class=b><a href=/b>In b</a></div>"#,
    );
    let prepared = prepare(&html, &url()).expect("static");
    assert_eq!(
        prepared
            .stylesheets()
            .iter()
            .map(url::Url::as_str)
            .collect::<Vec<_>>(),
        ["https://docs.example.test/css/site.css"]
    );
    let page = finish(
        &prepared,
        &[".a { display: none } .b { display: block }".into()],
        &url(),
    )
    .expect("static");
    let names = names(&page.with_text);
    // The <style> comes after the link: its rule wins for .b.
    assert!(
        !names.contains(&"In a") && !names.contains(&"In b"),
        "{names:?}"
    );
    assert!(
        finish(&prepared, &[], &url()).is_err(),
        "a sheet it could not read"
    );
}

#[test]
fn constructs_chromium_builds_otherwise_go_to_the_browser() {
    for (body, what) in [
        (
            "<div><template shadowrootmode=open><button>Cancel</button><script>1</script></template></div>",
            "declarative shadow root",
        ),
        (
            "<div><template shadowroot=closed><p>x</p></template></div>",
            "declarative shadow root",
        ),
        (
            "<select><button><selectedcontent></selectedcontent></button><option>A</option></select>",
            "selectedcontent",
        ),
        (
            "<div hidden=until-found><a href=/f>Found</a></div>",
            "until found",
        ),
        ("<fencedframe></fencedframe>", "embedded"),
    ] {
        let why = parse(&page_with("", body), &url()).err();
        assert!(
            matches!(&why, Some(NeedsBrowser::Unmodelled(w)) if w.contains(what)),
            "{body}: {why:?}"
        );
    }
    for head in [
        r#"<meta http-equiv="Content-Security-Policy" content="style-src 'self'">"#,
        r#"<meta http-equiv=default-style content=Dark>"#,
    ] {
        assert!(
            matches!(
                parse(&page_with(head, ""), &url()),
                Err(NeedsBrowser::Unmodelled(_))
            ),
            "{head}"
        );
    }
}

#[test]
fn titled_sheets_apply_as_the_preferred_set_says() {
    let head = r#"<style title=Main>.a { display: none }</style><style>.b { display: none }</style>
<style title=Other>.c { display: none }</style><style title=Main>.d { display: none }</style>"#;
    let body = r#"<p class=a>Words a</p><p class=b>Words b</p><p class=c>Words c</p><p class=d>Words d</p>"#;
    let names = names(&parsed(&page_with(head, body)).with_text)
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>();
    // The first title names the set: Main's sheets and the untitled one apply, Other's not.
    assert!(names.contains(&"Words c".to_string()), "{names:?}");
    for hidden in ["Words a", "Words b", "Words d"] {
        assert!(
            !names.contains(&hidden.to_string()),
            "{hidden} in {names:?}"
        );
    }
}

#[test]
fn identities_are_what_page_js_fingerprints() {
    let page = parsed(&page_with(
        "",
        r#"<form action=/delete method=post><button class="btn danger" name=go>Delete everything</button><button type=button>Cancel</button></form>"#,
    ));
    let snap = &page.with_text;
    let delete = handle(find(snap, "button", "Delete everything"));
    let cancel = handle(find(snap, "button", "Cancel"));
    let of = |id: u64| {
        page.nodes
            .iter()
            .find(|n| n.id == id)
            .expect("numbered")
            .clone()
    };
    let (d, c) = (of(delete), of(cancel));
    assert_eq!((d.name.as_str(), c.name.as_str()), ("button", "button"));
    assert_eq!(d.parent, c.parent);
    assert_eq!((d.index, c.index), (0, 1));
    assert_ne!(d.print, c.print, "different attributes and words");
    // page.js's hash, in JS: attributes then the text's start, each part closed by a 1.
    let js = |parts: &[&str]| {
        let mut h: i32 = 0;
        for p in parts {
            for u in p.encode_utf16() {
                h = h.wrapping_mul(31).wrapping_add(i32::from(u));
            }
            h = h.wrapping_mul(31).wrapping_add(1);
        }
        h
    };
    assert_eq!(c.print, js(&["type", "button", "Cancel"]));
    assert_eq!(
        d.print,
        js(&["class", "btn danger", "name", "go", "Delete everything"])
    );
    assert_eq!(
        page.elements,
        page.nodes
            .iter()
            .map(|n| n.id)
            .max()
            .unwrap_or(0)
            .max(page.elements)
    );
}
