//! The reducer on hand-written CDP events, as Chromium sends them.

use super::{Effect, Reduced, reduce};
use crate::audit::GuestScope;
use crate::capabilities::browser::cdp::Event;
use crate::capabilities::browser::guard::Guard;
use crate::capabilities::browser::model::state::{Owner, State};
use crate::manifest::grants::{BrowserGrant, GlobList, Grants};
use serde_json::{Value, json};
use std::sync::Arc;

const CONTEXT: &str = "ctx-1";

fn owner(origins: &[&str]) -> Owner {
    owner_with(origins, origins)
}

/// An owner granted `origins` to navigate to and `resources` for requests only.
fn owner_with(origins: &[&str], resources: &[&str]) -> Owner {
    let list = |l: &[&str]| {
        GlobList::new(&l.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("valid globs")
    };
    let grants = Grants {
        plugin: "p".into(),
        browser: Some(BrowserGrant {
            origins: list(origins),
            resource_origins: list(resources),
            cookies: false,
            eval_js: false,
            upload_dirs: Vec::new(),
            download_dir: None,
            download_max: crate::manifest::DEFAULT_DOWNLOAD_MAX,
            secrets: Vec::new(),
            profiles: Vec::new(),
            owned: Default::default(),
        }),
        ..Grants::default()
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = crate::audit::AuditLog::open(&dir.path().join("audit.jsonl")).expect("audit log");
    Owner {
        grants: Arc::new(grants),
        scope: GuestScope::new("p", Arc::new(audit)),
        client: Default::default(),
    }
}

/// A browser state with one session of plugin `p`, granted `http://127.0.0.1:8000`.
fn state() -> State {
    let mut st = State::default();
    st.bind(
        ("p".into(), "default".into()),
        CONTEXT.into(),
        owner(&["http://127.0.0.1:8000"]),
    );
    st
}

fn event(method: &str, session: Option<&str>, params: Value) -> Event {
    Event {
        method: method.into(),
        session: session.map(str::to_string),
        params,
    }
}

fn feed(st: &mut State, method: &str, session: Option<&str>, params: Value) -> Reduced {
    reduce(st, Guard::Browser, &event(method, session, params))
}

/// Attach a page target `id` (session `s-<id>`), opened by `opener`.
fn attach(st: &mut State, id: &str, opener: Option<&str>) -> Reduced {
    let mut info = json!({ "targetId": id, "type": "page", "browserContextId": CONTEXT, "url": "about:blank", "title": "" });
    if let Some(o) = opener {
        info["openerId"] = json!(o);
    }
    feed(
        st,
        "Target.attachedToTarget",
        None,
        json!({ "sessionId": format!("s-{id}"), "targetInfo": info, "waitingForDebugger": true }),
    )
}

/// An event on tab `id`'s session.
fn on(st: &mut State, id: &str, method: &str, params: Value) -> Reduced {
    feed(st, method, Some(&format!("s-{id}")), params)
}

#[test]
fn an_attached_tab_is_guarded_before_it_runs() {
    let mut st = state();
    let r = attach(&mut st, "T1", None);
    assert!(r.changed);
    let [Effect::SetUp { session, commands }] = r.effects.as_slice() else {
        panic!("one set-up: {:?}", r.effects);
    };
    assert_eq!(session, "s-T1");
    let methods: Vec<&str> = commands.iter().map(|(m, _)| *m).collect();
    assert_eq!(methods.first(), Some(&"Fetch.enable"));
    assert_eq!(methods.last(), Some(&"Runtime.runIfWaitingForDebugger"));
    assert_eq!(st.sessions.get("s-T1").map(String::as_str), Some("T1"));
    assert_eq!(st.tabs["T1"].context, CONTEXT);
}

#[test]
fn a_target_outside_our_contexts_is_released_unwatched() {
    let mut st = state();
    let r = feed(
        &mut st,
        "Target.attachedToTarget",
        None,
        json!({ "sessionId": "s-w", "targetInfo": { "targetId": "W", "type": "service_worker", "browserContextId": CONTEXT } }),
    );
    assert!(matches!(r.effects.as_slice(), [Effect::Release { session, .. }] if session == "s-w"));
    assert!(st.tabs.is_empty());
}

#[test]
fn popups_are_ordered_after_their_opener() {
    let mut st = state();
    attach(&mut st, "ZZZ-opener", None);
    attach(&mut st, "AAA-popup", Some("ZZZ-opener"));
    attach(&mut st, "MMM-second", Some("ZZZ-opener"));
    let mut order: Vec<(&u64, &str)> = st
        .tabs
        .iter()
        .map(|(id, t)| (&t.opened, id.as_str()))
        .collect();
    order.sort();
    let ids: Vec<&str> = order.into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, ["ZZZ-opener", "AAA-popup", "MMM-second"]);
    assert_eq!(st.tabs["AAA-popup"].opener.as_deref(), Some("ZZZ-opener"));
    assert_eq!(
        st.front.as_deref(),
        Some("MMM-second"),
        "a new tab opens in front"
    );
    assert_eq!(super::ready_popups(&st, "ZZZ-opener"), 0, "not shown yet");
    feed(
        &mut st,
        "Target.targetInfoChanged",
        None,
        json!({ "targetInfo": { "targetId": "AAA-popup", "url": "http://127.0.0.1:8000/p", "title": "P" } }),
    );
    assert_eq!(super::ready_popups(&st, "ZZZ-opener"), 1);
}

#[test]
fn detach_and_destroy_forget_the_tab() {
    let mut st = state();
    attach(&mut st, "T1", None);
    attach(&mut st, "T2", None);
    assert!(
        feed(
            &mut st,
            "Target.detachedFromTarget",
            None,
            json!({ "sessionId": "s-T1" })
        )
        .changed
    );
    assert!(!st.tabs.contains_key("T1") && !st.sessions.contains_key("s-T1"));
    feed(
        &mut st,
        "Target.targetDestroyed",
        None,
        json!({ "targetId": "T2" }),
    );
    assert!(st.tabs.is_empty() && st.sessions.is_empty());
    // Events of a forgotten tab change nothing.
    let r = on(
        &mut st,
        "T2",
        "Page.javascriptDialogOpening",
        json!({ "type": "alert", "message": "x" }),
    );
    assert!(!r.changed && r.effects.is_empty());
}

#[test]
fn main_frame_navigation_and_load_events() {
    let mut st = state();
    attach(&mut st, "T1", None);
    on(
        &mut st,
        "T1",
        "Page.frameRequestedNavigation",
        json!({ "frameId": "T1", "url": "http://127.0.0.1:8000/a" }),
    );
    on(
        &mut st,
        "T1",
        "Page.frameStartedLoading",
        json!({ "frameId": "T1" }),
    );
    on(
        &mut st,
        "T1",
        "Page.lifecycleEvent",
        json!({ "frameId": "T1", "loaderId": "L1", "name": "init" }),
    );
    on(
        &mut st,
        "T1",
        "Page.frameNavigated",
        json!({ "frame": { "id": "T1", "loaderId": "L1", "url": "http://127.0.0.1:8000/a" } }),
    );
    let t = &st.tabs["T1"];
    assert_eq!((t.nav_seq, t.loading, t.loader.as_str()), (1, true, "L1"));
    assert_eq!(t.url, "http://127.0.0.1:8000/a");
    assert!(t.lifecycle.contains("init") && !t.lifecycle.contains("load"));
    for name in ["DOMContentLoaded", "load"] {
        on(
            &mut st,
            "T1",
            "Page.lifecycleEvent",
            json!({ "frameId": "T1", "loaderId": "L1", "name": name }),
        );
    }
    on(
        &mut st,
        "T1",
        "Page.frameStoppedLoading",
        json!({ "frameId": "T1" }),
    );
    let t = &st.tabs["T1"];
    assert!(t.lifecycle.contains("load") && !t.loading && t.stop_seq == 1);
    assert_eq!(
        t.stopped_nav, 1,
        "the stop came after the first navigation started"
    );
    // A new document's lifecycle starts over: the old one's "load" must not answer for it.
    on(
        &mut st,
        "T1",
        "Page.frameNavigated",
        json!({ "frame": { "id": "T1", "loaderId": "L2", "url": "http://127.0.0.1:8000/b" } }),
    );
    let t = &st.tabs["T1"];
    assert_eq!(t.loader, "L2");
    assert!(t.lifecycle.is_empty());
    // Back to the first document, restored from the back/forward cache: it sends no
    // lifecycle events, and a wait for its load must end.
    on(
        &mut st,
        "T1",
        "Page.frameNavigated",
        json!({ "frame": { "id": "T1", "loaderId": "L1", "url": "http://127.0.0.1:8000/a" }, "type": "BackForwardCacheRestore" }),
    );
    let t = &st.tabs["T1"];
    assert_eq!(
        (t.loader.as_str(), t.url.as_str()),
        ("L1", "http://127.0.0.1:8000/a")
    );
    assert!(t.lifecycle.contains("load") && t.lifecycle.contains("DOMContentLoaded"));
}

#[test]
fn child_frames_do_not_move_the_tab() {
    let mut st = state();
    attach(&mut st, "T1", None);
    on(
        &mut st,
        "T1",
        "Page.frameAttached",
        json!({ "frameId": "F1", "parentFrameId": "T1" }),
    );
    on(
        &mut st,
        "T1",
        "Page.frameStartedLoading",
        json!({ "frameId": "F1" }),
    );
    on(
        &mut st,
        "T1",
        "Page.frameRequestedNavigation",
        json!({ "frameId": "F1", "url": "http://127.0.0.1:8000/f" }),
    );
    on(
        &mut st,
        "T1",
        "Page.frameNavigated",
        json!({ "frame": { "id": "F1", "parentId": "T1", "loaderId": "LF", "url": "http://127.0.0.1:8000/f" } }),
    );
    on(
        &mut st,
        "T1",
        "Page.lifecycleEvent",
        json!({ "frameId": "F1", "loaderId": "LF", "name": "load" }),
    );
    on(
        &mut st,
        "T1",
        "Page.frameDetached",
        json!({ "frameId": "F1" }),
    );
    let t = &st.tabs["T1"];
    assert_eq!(
        (t.nav_seq, t.loading, t.url.as_str()),
        (0, false, "about:blank")
    );
    assert!(t.loader.is_empty() && t.lifecycle.is_empty());
}

#[test]
fn same_document_navigation_moves_the_url_only() {
    let mut st = state();
    attach(&mut st, "T1", None);
    on(
        &mut st,
        "T1",
        "Page.lifecycleEvent",
        json!({ "frameId": "T1", "loaderId": "L1", "name": "load" }),
    );
    on(
        &mut st,
        "T1",
        "Page.navigatedWithinDocument",
        json!({ "frameId": "T1", "url": "http://127.0.0.1:8000/#/inbox" }),
    );
    let t = &st.tabs["T1"];
    assert_eq!(t.url, "http://127.0.0.1:8000/#/inbox");
    assert_eq!(t.same_doc_seq, 1);
    assert_eq!(t.loader, "L1");
    assert!(t.lifecycle.contains("load"));
}

#[test]
fn dialogs_open_and_close() {
    let mut st = state();
    attach(&mut st, "T1", None);
    let r = on(
        &mut st,
        "T1",
        "Page.javascriptDialogOpening",
        json!({ "type": "prompt", "message": "Name?", "defaultPrompt": "x" }),
    );
    assert!(r.changed);
    let t = &st.tabs["T1"];
    let d = t.dialog.as_ref().expect("open");
    assert_eq!(
        (
            d.kind.as_str(),
            d.message.as_str(),
            d.default_prompt.as_str()
        ),
        ("prompt", "Name?", "x")
    );
    assert_eq!(t.dialog_seq, 1);
    on(
        &mut st,
        "T1",
        "Page.javascriptDialogClosed",
        json!({ "result": true, "userInput": "" }),
    );
    assert!(st.tabs["T1"].dialog.is_none());
    // A chained dialog counts as a new one.
    on(
        &mut st,
        "T1",
        "Page.javascriptDialogOpening",
        json!({ "type": "alert", "message": "Done" }),
    );
    assert_eq!(st.tabs["T1"].dialog_seq, 2);
}

#[test]
fn requests_in_flight_are_counted_until_they_finish() {
    let mut st = state();
    attach(&mut st, "T1", None);
    let seq = st.tabs["T1"].request_seq;
    let sent = |id: &str| json!({ "requestId": id, "request": { "url": "http://127.0.0.1:8000/api", "method": "POST" }, "type": "Fetch", "timestamp": 1.0 });
    let r = on(&mut st, "T1", "Network.requestWillBeSent", sent("R1"));
    assert!(!r.changed, "a request starting wakes nobody");
    on(&mut st, "T1", "Network.requestWillBeSent", sent("R2"));
    // A redirect reuses the request id: still one request.
    on(&mut st, "T1", "Network.requestWillBeSent", sent("R2"));
    assert_eq!(st.tabs["T1"].requests_since(seq), 2);
    let later = st.tabs["T1"].request_seq;
    assert_eq!(st.tabs["T1"].requests_since(later), 0);
    let r = on(
        &mut st,
        "T1",
        "Network.loadingFinished",
        json!({ "requestId": "R1", "timestamp": 2.0, "encodedDataLength": 10 }),
    );
    assert!(r.changed, "a request finishing wakes the waiters");
    on(
        &mut st,
        "T1",
        "Network.loadingFailed",
        json!({ "requestId": "R2", "timestamp": 2.0, "errorText": "net::ERR_ABORTED", "type": "Fetch" }),
    );
    assert_eq!(st.tabs["T1"].requests_since(seq), 0);
    // An image does not hold an action up.
    let image = json!({ "requestId": "I1", "request": { "url": "http://127.0.0.1:8000/a.png", "method": "GET" }, "type": "Image" });
    on(&mut st, "T1", "Network.requestWillBeSent", image);
    assert_eq!(st.tabs["T1"].requests_since(seq), 0);
    // An unknown request finishing changes nothing.
    let r = on(
        &mut st,
        "T1",
        "Network.loadingFinished",
        json!({ "requestId": "R9", "timestamp": 3.0 }),
    );
    assert!(!r.changed);
}

#[test]
fn requests_of_a_replaced_document_are_finished_with_it() {
    let mut st = state();
    attach(&mut st, "T1", None);
    let nav = |loader: &str| json!({ "frame": { "id": "T1", "loaderId": loader, "url": "http://127.0.0.1:8000/" } });
    on(&mut st, "T1", "Page.frameNavigated", nav("L1"));
    let seq = st.tabs["T1"].request_seq;
    let sent = |id: &str, loader: &str, frame: &str, kind: &str| {
        json!({ "requestId": id, "loaderId": loader, "frameId": frame, "type": kind, "timestamp": 1.0,
                "request": { "url": format!("http://127.0.0.1:8000/{id}"), "method": "GET" } })
    };
    // The search page's suggestions fetch, a frame's document and a frame's fetch: all of
    // the document the click replaces; then the results page's own navigation request.
    on(
        &mut st,
        "T1",
        "Network.requestWillBeSent",
        sent("F1", "L1", "T1", "Fetch"),
    );
    on(
        &mut st,
        "T1",
        "Network.requestWillBeSent",
        sent("D1", "LF", "F9", "Document"),
    );
    on(
        &mut st,
        "T1",
        "Network.requestWillBeSent",
        sent("F2", "LF", "F9", "XHR"),
    );
    on(
        &mut st,
        "T1",
        "Network.requestWillBeSent",
        sent("N2", "L2", "T1", "Document"),
    );
    assert_eq!(st.tabs["T1"].requests_since(seq), 4);

    on(&mut st, "T1", "Page.frameNavigated", nav("L2"));
    let t = &st.tabs["T1"];
    assert_eq!(
        t.requests_since(seq),
        1,
        "only the new document's own load is left"
    );
    assert!(t.requests.contains_key("N2"));
    let log = |st: &mut State| {
        st.tabs
            .get_mut("T1")
            .expect("the tab")
            .log
            .network
            .read(false, false)
    };
    let entries = log(&mut st);
    let (_, fetch) = entries
        .iter()
        .find(|(_, e)| e.url.ends_with("/F1"))
        .expect("the fetch is logged");
    assert!(fetch.done, "not pending any more");
    assert!(
        fetch
            .failure
            .as_deref()
            .is_some_and(|f| f.starts_with("abandoned")),
        "{fetch:?}"
    );
    let (_, own) = entries
        .iter()
        .find(|(_, e)| e.url.ends_with("/N2"))
        .expect("the navigation is logged");
    assert!(!own.done, "the new document's load goes on");
    // The browser's late word on it changes the entry, and adds none.
    on(
        &mut st,
        "T1",
        "Network.loadingFailed",
        json!({ "requestId": "F1", "timestamp": 2.0, "errorText": "net::ERR_ABORTED", "type": "Fetch" }),
    );
    assert_eq!(log(&mut st).len(), entries.len());
}

#[test]
fn the_guard_answers_every_paused_request_once() {
    let mut st = state();
    attach(&mut st, "T1", None);
    let paused = |id: &str, url: &str| json!({ "requestId": id, "request": { "url": url, "method": "GET" }, "resourceType": "Document" });
    let r = on(
        &mut st,
        "T1",
        "Fetch.requestPaused",
        paused("G1", "http://127.0.0.1:8000/ok"),
    );
    assert!(matches!(
        r.effects.as_slice(),
        [Effect::Answer {
            method: "Fetch.continueRequest",
            ..
        }]
    ));
    assert!(!r.changed);
    let r = on(
        &mut st,
        "T1",
        "Fetch.requestPaused",
        paused("G2", "http://127.0.0.1:9999/no"),
    );
    assert!(r.changed);
    assert!(matches!(
        r.effects.as_slice(),
        [Effect::Deny { target, .. }, Effect::Answer { method: "Fetch.fulfillRequest", .. }] if target == "http://127.0.0.1:9999"
    ));
    let t = &st.tabs["T1"];
    assert_eq!(t.blocked_seq, 1);
    assert!(
        t.blocked[0].contains("http://127.0.0.1:9999/no"),
        "{}",
        t.blocked[0]
    );
    // A request of a tab nobody owns fails closed, and is not audited against anyone.
    let r = feed(
        &mut st,
        "Fetch.requestPaused",
        Some("s-unknown"),
        paused("G3", "http://127.0.0.1:8000/ok"),
    );
    assert!(matches!(
        r.effects.as_slice(),
        [Effect::Answer {
            method: "Fetch.fulfillRequest",
            ..
        }]
    ));
}

#[test]
fn a_popup_blocked_before_it_showed_a_page_tells_its_opener() {
    let mut st = state();
    attach(&mut st, "T1", None);
    attach(&mut st, "T2", Some("T1"));
    on(
        &mut st,
        "T2",
        "Fetch.requestPaused",
        json!({ "requestId": "G", "request": { "url": "http://10.0.0.1/", "method": "GET" }, "resourceType": "Document" }),
    );
    assert_eq!(st.tabs["T1"].blocked_seq, 1);
    assert_eq!(st.tabs["T2"].blocked_seq, 1);
    assert_eq!(super::ready_popups(&st, "T1"), 1);
}

#[test]
fn windows_over_the_tab_cap_are_closed_before_they_run() {
    let mut st = state();
    let cap = st.contexts[CONTEXT].grants.caps.browser_tabs;
    attach(&mut st, "T0", None);
    for i in 1..cap {
        attach(&mut st, &format!("P{i}"), Some("T0"));
    }
    assert_eq!(st.tabs.len(), cap);
    let r = attach(&mut st, "OVER", Some("T0"));
    assert!(
        r.effects
            .iter()
            .any(|e| matches!(e, Effect::CloseUnseen { target, .. } if target == "OVER"))
    );
    assert!(!r.effects.iter().any(|e| matches!(e, Effect::SetUp { .. })));
    assert!(!st.tabs.contains_key("OVER"));
    assert_eq!(st.tabs["T0"].blocked_seq, 1);
}

#[test]
fn the_tab_cap_counts_the_plugins_tabs_in_its_other_browsers() {
    // Two browsers of one provider (say two fleet sessions): what one holds counts in the other.
    let census = Arc::new(crate::capabilities::browser::model::census::TabCensus::default());
    let mut first = State {
        census: Some((1, census.clone())),
        ..state()
    };
    let mut second = State {
        census: Some((2, census.clone())),
        ..state()
    };
    let cap = first.contexts[CONTEXT].grants.caps.browser_tabs;
    for i in 0..cap - 1 {
        attach(&mut first, &format!("F{i}"), None);
        first.tell_census();
    }
    attach(&mut second, "S0", None);
    second.tell_census();
    let r = attach(&mut second, "OVER", Some("S0"));
    assert!(
        r.effects
            .iter()
            .any(|e| matches!(e, Effect::CloseUnseen { target, .. } if target == "OVER")),
        "{cap} tabs together: the next window is over the cap"
    );
    census.forget(1);
    let r = attach(&mut second, "FITS", Some("S0"));
    assert!(r.effects.iter().any(|e| matches!(e, Effect::SetUp { .. })));
}

/// Commit document `loader` in tab `id`'s main frame, as a page's own navigation.
fn navigate(st: &mut State, id: &str, loader: &str, url: &str) -> Reduced {
    on(
        st,
        id,
        "Page.frameStartedNavigating",
        json!({ "frameId": id, "loaderId": loader, "url": url, "navigationType": "differentDocument" }),
    );
    on(
        st,
        id,
        "Page.frameNavigated",
        json!({ "frame": { "id": id, "loaderId": loader, "url": url }, "type": "Navigation" }),
    )
}

#[test]
fn a_window_a_guarded_tab_opens_is_guarded_before_its_first_document() {
    let mut st = state();
    attach(&mut st, "T1", None);
    navigate(&mut st, "T1", "d1", "http://127.0.0.1:8000/login");
    let guards = st.hold_secret("T1", "http://127.0.0.1:8000", &["s3cr3t".to_string()]);
    assert!(matches!(guards.as_slice(), [(session, _)] if session == "s-T1"));
    // Once per tab and origin.
    assert!(
        st.hold_secret("T1", "http://127.0.0.1:8000", &[])
            .is_empty()
    );
    let r = attach(&mut st, "P1", Some("T1"));
    let [Effect::SetUp { commands, .. }] = r.effects.as_slice() else {
        panic!("one set-up: {:?}", r.effects);
    };
    let methods: Vec<&str> = commands.iter().map(|(m, _)| *m).collect();
    let guard = methods
        .iter()
        .position(|m| *m == "Page.addScriptToEvaluateOnNewDocument")
        .expect("the popup's name is guarded");
    assert_eq!(guard + 1, methods.len() - 1, "before it runs: {methods:?}");
    // The session masks the secret in every tab.
    assert_eq!(st.session_secrets(CONTEXT), ["s3cr3t".to_string()]);
}

#[test]
fn a_window_holds_while_its_opener_holds() {
    let mut st = state();
    attach(&mut st, "T1", None);
    navigate(&mut st, "T1", "d1", "http://127.0.0.1:8000/login");
    st.hold_secret("T1", "http://127.0.0.1:8000", &[]);
    attach(&mut st, "P1", Some("T1"));
    navigate(&mut st, "P1", "p1", "http://127.0.0.1:8000/board");
    // A fresh document of the popup: its opener still holds and can post the value over.
    navigate(&mut st, "P1", "p2", "http://127.0.0.1:8001/elsewhere");
    assert!(st.tabs["P1"].holds_secret());
    // The opener moves on to a fresh document while the popup holds: it holds too.
    navigate(&mut st, "T1", "d2", "http://127.0.0.1:8000/home");
    assert!(st.tabs["T1"].holds_secret());
    // With the popup gone, the opener's next fresh document is clean.
    feed(
        &mut st,
        "Target.targetDestroyed",
        None,
        json!({ "targetId": "P1" }),
    );
    navigate(&mut st, "T1", "d3", "http://127.0.0.1:8000/next");
    assert!(!st.tabs["T1"].holds_secret());
}

/// Attach out-of-process frame `id` (session `s-<id>`) through session `parent`.
fn attach_frame(st: &mut State, id: &str, parent: &str) -> Reduced {
    let info = json!({ "targetId": id, "type": "iframe", "browserContextId": CONTEXT, "url": "", "title": "" });
    feed(
        st,
        "Target.attachedToTarget",
        Some(parent),
        json!({ "sessionId": format!("s-{id}"), "targetInfo": info, "waitingForDebugger": true }),
    )
}

#[test]
fn an_out_of_process_frame_is_a_guarded_frame_of_its_tab_until_it_goes() {
    let mut st = state();
    attach(&mut st, "T1", None);
    // Through the tab's session, then a frame inside that frame through the frame's.
    let r = attach_frame(&mut st, "F1", "s-T1");
    let [Effect::SetUp { session, commands }] = r.effects.as_slice() else {
        panic!("one set-up: {:?}", r.effects);
    };
    assert_eq!(session, "s-F1");
    let methods: Vec<&str> = commands.iter().map(|(m, _)| *m).collect();
    assert_eq!(methods.first(), Some(&"Fetch.enable"));
    assert!(methods.contains(&"Target.setAutoAttach"), "{methods:?}");
    assert_eq!(methods.last(), Some(&"Runtime.runIfWaitingForDebugger"));
    attach_frame(&mut st, "F2", "s-F1");
    assert_eq!(st.tabs.len(), 1, "a frame is not a tab");
    assert_eq!(st.tabs["T1"].oopifs["F2"].parent, "s-F1");

    // Its document requests are checked against the tab's owner, and refusals reach the tab.
    let paused = json!({ "requestId": "R1", "request": { "url": "http://127.0.0.1:9999/x", "method": "GET" }, "resourceType": "Document" });
    let r = feed(&mut st, "Fetch.requestPaused", Some("s-F2"), paused);
    assert!(matches!(
        r.effects.as_slice(),
        [Effect::Deny { .. }, Effect::Answer { method: "Fetch.fulfillRequest", session: Some(s), .. }] if s == "s-F2"
    ));
    assert_eq!(st.tabs["T1"].blocked_seq, 1);

    // Its dialog is answered on its session; its crash is no crash of the tab.
    feed(
        &mut st,
        "Page.javascriptDialogOpening",
        Some("s-F1"),
        json!({ "type": "alert", "message": "hi", "defaultPrompt": "" }),
    );
    assert_eq!(
        st.tabs["T1"].dialog.as_ref().map(|d| d.session.as_str()),
        Some("s-F1")
    );
    feed(&mut st, "Inspector.targetCrashed", Some("s-F1"), json!({}));
    assert!(!st.tabs["T1"].crashed);

    // A frame that detaches is forgotten, and the tab stays.
    feed(
        &mut st,
        "Target.detachedFromTarget",
        Some("s-F1"),
        json!({ "sessionId": "s-F2" }),
    );
    assert!(st.tabs.contains_key("T1"));
    assert!(!st.tabs["T1"].oopifs.contains_key("F2"));
    assert!(!st.sessions.contains_key("s-F2"));

    // A frame of no tab Warden drives is let go; a closed tab takes its frames' sessions.
    let r = attach_frame(&mut st, "F9", "s-unknown");
    assert!(matches!(r.effects.as_slice(), [Effect::Release { .. }]));
    feed(
        &mut st,
        "Target.targetDestroyed",
        None,
        json!({ "targetId": "T1" }),
    );
    assert!(
        st.tabs.is_empty() && st.sessions.is_empty(),
        "{:?}",
        st.sessions
    );
}

/// A state whose plugin may navigate to `:8000` and send requests to `:9000` too.
fn state_with_resources() -> State {
    let mut st = State::default();
    st.bind(
        ("p".into(), "default".into()),
        CONTEXT.into(),
        owner_with(&["http://127.0.0.1:8000"], &["http://127.0.0.1:9000"]),
    );
    st
}

/// Attach target `id` of `kind` (session `s-<id>`) through session `parent`.
fn attach_child(st: &mut State, id: &str, kind: &str, parent: &str, url: &str) -> Reduced {
    let info = json!({ "targetId": id, "type": kind, "browserContextId": CONTEXT, "url": url, "title": "" });
    feed(
        st,
        "Target.attachedToTarget",
        Some(parent),
        json!({ "sessionId": format!("s-{id}"), "targetInfo": info, "waitingForDebugger": true }),
    )
}

#[test]
fn a_tab_attaches_everything_its_page_starts_and_workers_run_at_once() {
    let mut st = state();
    let r = attach(&mut st, "T1", None);
    let [Effect::SetUp { commands, .. }] = r.effects.as_slice() else {
        panic!("one set-up: {:?}", r.effects);
    };
    // No filter: a worker the filter left out would wait for a debugger that never comes.
    let (_, auto) = commands
        .iter()
        .find(|(m, _)| *m == "Target.setAutoAttach")
        .expect("auto-attach");
    assert_eq!(auto["waitForDebuggerOnStart"], json!(true));
    assert!(auto.get("filter").is_none(), "{auto}");
    assert!(
        commands
            .iter()
            .any(|(m, p)| *m == "Page.setPrerenderingAllowed" && p["isAllowed"] == json!(false)),
        "{commands:?}"
    );
    for (id, kind) in [
        ("W1", "worker"),
        ("W2", "worklet"),
        ("W3", "service_worker"),
        ("W4", "shared_storage_worklet"),
    ] {
        let r = attach_child(&mut st, id, kind, "s-T1", "blob:http://127.0.0.1:8000/x");
        assert!(
            matches!(r.effects.as_slice(), [Effect::Release { session, parent: Some(p) }]
                if *session == format!("s-{id}") && p == "s-T1"),
            "{kind}: {:?}",
            r.effects
        );
    }
    // Neither a tab nor a frame of one.
    assert_eq!(st.tabs.len(), 1);
    assert!(st.tabs["T1"].oopifs.is_empty());
    // A frame's workers too, through the frame's session.
    attach_frame(&mut st, "F1", "s-T1");
    let r = attach_child(
        &mut st,
        "W5",
        "worker",
        "s-F1",
        "http://127.0.0.1:8000/w.js",
    );
    assert!(
        matches!(r.effects.as_slice(), [Effect::Release { parent: Some(p), .. }] if p == "s-F1")
    );
}

#[test]
fn a_page_rendered_ahead_of_a_navigation_never_runs() {
    let mut st = state_with_resources();
    attach(&mut st, "T1", None);
    // Through the tab's session, as speculation rules prerender.
    let r = attach_child(&mut st, "PR", "page", "s-T1", "http://127.0.0.1:9000/doc");
    assert!(
        matches!(r.effects.as_slice(), [
            Effect::Deny { target, .. },
            Effect::CloseUnseen { session: Some(s), target: t },
        ] if target == "http://127.0.0.1:9000" && s == "s-PR" && t == "PR"),
        "{:?}",
        r.effects
    );
    assert_eq!(st.tabs.len(), 1, "not a tab");
    // Through the browser's session, marked as a prerender.
    let info = json!({ "targetId": "PR2", "type": "page", "subtype": "prerender", "browserContextId": CONTEXT, "url": "http://127.0.0.1:8000/next" });
    let r = feed(
        &mut st,
        "Target.attachedToTarget",
        None,
        json!({ "sessionId": "s-PR2", "targetInfo": info, "waitingForDebugger": true }),
    );
    assert!(matches!(
        r.effects.as_slice(),
        [Effect::Deny { .. }, Effect::CloseUnseen { .. }]
    ));
    assert_eq!(st.tabs.len(), 1);
    // Any request it makes before it closes is failed: nobody's tab.
    let paused = json!({ "requestId": "R1", "request": { "url": "http://127.0.0.1:8000/next", "method": "GET" }, "resourceType": "Document" });
    let r = feed(&mut st, "Fetch.requestPaused", Some("s-PR2"), paused);
    assert!(matches!(
        r.effects.as_slice(),
        [Effect::Answer {
            method: "Fetch.fulfillRequest",
            ..
        }]
    ));
}

#[test]
fn a_document_that_came_without_a_paused_request_is_held_to_the_origin_rule() {
    let mut st = state_with_resources();
    attach(&mut st, "T1", None);
    let r = navigate(&mut st, "T1", "d1", "http://127.0.0.1:8000/spec");
    assert!(r.effects.is_empty(), "{:?}", r.effects);
    assert!(st.tabs["T1"].refused_frames.is_empty());
    // A prefetched response of the resource origin answers the click's navigation.
    let r = navigate(&mut st, "T1", "d2", "http://127.0.0.1:9000/doc?k=v");
    assert!(
        matches!(r.effects.as_slice(), [
            Effect::Deny { target, reason, .. },
            Effect::Leave { session, frame },
        ] if target == "http://127.0.0.1:9000" && reason.contains("grants.browser.origins")
            && session == "s-T1" && frame == "T1"),
        "{:?}",
        r.effects
    );
    let tab = &st.tabs["T1"];
    assert_eq!(tab.blocked_seq, 1);
    assert!(
        tab.blocked[0].contains("http://127.0.0.1:9000/doc?k=v"),
        "{:?}",
        tab.blocked
    );
    assert_eq!(
        tab.refused_frames.get("T1").map(String::as_str),
        Some("s-T1")
    );
    // It left for about:blank: the tab serves calls again.
    let r = navigate(&mut st, "T1", "d3", "about:blank");
    assert!(r.effects.is_empty(), "{:?}", r.effects);
    assert!(st.tabs["T1"].refused_frames.is_empty());
    // The back/forward cache restores it: refused the same way.
    let r = on(
        &mut st,
        "T1",
        "Page.frameNavigated",
        json!({ "frame": { "id": "T1", "loaderId": "d2", "url": "http://127.0.0.1:9000/doc" }, "type": "BackForwardCacheRestore" }),
    );
    assert!(r.effects.iter().any(|e| matches!(e, Effect::Leave { .. })));
    // A frame of the page, too; and one that goes is no longer waited for.
    on(
        &mut st,
        "T1",
        "Page.frameNavigated",
        json!({ "frame": { "id": "SUB", "parentId": "T1", "loaderId": "f1", "url": "http://127.0.0.1:9000/frame" }, "type": "Navigation" }),
    );
    assert!(st.tabs["T1"].refused_frames.contains_key("SUB"));
    on(
        &mut st,
        "T1",
        "Page.frameDetached",
        json!({ "frameId": "SUB" }),
    );
    assert!(!st.tabs["T1"].refused_frames.contains_key("SUB"));
    // Documents with no origin of a server's are the page's own.
    for url in [
        "about:srcdoc",
        "data:text/html,x",
        "blob:http://127.0.0.1:8000/u",
        "chrome-error://chromewebdata/",
    ] {
        let r = on(
            &mut st,
            "T1",
            "Page.frameNavigated",
            json!({ "frame": { "id": "SUB2", "parentId": "T1", "loaderId": "f2", "url": url }, "type": "Navigation" }),
        );
        assert!(r.effects.is_empty(), "{url}: {:?}", r.effects);
    }
}

#[test]
fn what_the_hold_withholds_of_a_url_stays_out_of_refusals() {
    let mut st = state();
    attach(&mut st, "T1", None);
    navigate(&mut st, "T1", "d1", "http://127.0.0.1:8000/login");
    st.hold_secret("T1", "http://127.0.0.1:8000", &[]);
    attach(&mut st, "P1", Some("T1"));
    // The holding page opens a window to an origin not granted, the secret in the query.
    let paused = json!({ "requestId": "R1", "request": { "url": "http://127.0.0.1:9999/steal?pw=hunter2#x", "method": "GET" }, "resourceType": "Document" });
    feed(&mut st, "Fetch.requestPaused", Some("s-P1"), paused);
    for id in ["P1", "T1"] {
        let blocked = &st.tabs[id].blocked;
        assert!(!blocked.is_empty(), "{id}");
        assert!(
            blocked
                .iter()
                .all(|m| !m.contains("hunter2") && m.contains("http://127.0.0.1:9999/steal?…")),
            "{id}: {blocked:?}"
        );
    }
    // The commit rule's message too.
    navigate(&mut st, "T1", "d2", "http://127.0.0.1:9999/x?pw=hunter2");
    assert!(
        st.tabs["T1"].blocked.iter().all(|m| !m.contains("hunter2")),
        "{:?}",
        st.tabs["T1"].blocked
    );
}
