//! What the host reads from the browser: the DevTools pipe's NUL-ended JSON messages, the
//! event reducer (targets, frames, dialogs, paused requests), the console and network logs,
//! and `page.js` snapshot results and cookies (page-shaped JSON).

use crate::Target;
use std::sync::{Arc, OnceLock};
use warden::audit::AuditLog;

pub const TARGET: Target = Target {
    name: "browser",
    about: "CDP pipe messages, event reducer, console/network logs, page.js snapshot JSON, cookies",
    seeds,
    dict: &[
        b"\0",
        b"Target.attachedToTarget",
        b"Fetch.requestPaused",
        b"Page.frameNavigated",
        b"Page.javascriptDialogOpening",
        b"Network.requestWillBeSent",
        b"Runtime.consoleAPICalled",
        b"\"sessionId\":\"s-T1\"",
        b"\"targetId\":\"T1\"",
        b"ctx-1",
        b"\"handle\"",
        b"\"bounds\"",
        b"\"states\"",
        b"\"overlay\"",
        b"http://127.0.0.1:8000/",
        b"http://10.0.0.1/",
    ],
    contained: &[],
    run,
};

fn audit() -> Arc<AuditLog> {
    static LOG: OnceLock<Arc<AuditLog>> = OnceLock::new();
    LOG.get_or_init(|| {
        // Denials of fuzzed requests would grow without bound: write them nowhere.
        Arc::new(AuditLog::open(std::path::Path::new("/dev/null")).expect("open /dev/null"))
    })
    .clone()
}

fn run(input: &[u8]) -> u64 {
    warden::fuzzing::BrowserInput::new(audit()).feed(input)
}

const ATTACH: &str = r#"{"method":"Target.attachedToTarget","params":{"sessionId":"s-T1","targetInfo":{"targetId":"T1","type":"page","browserContextId":"ctx-1","url":"about:blank","title":""},"waitingForDebugger":true}}"#;

fn seeds() -> Vec<Vec<u8>> {
    let streams: Vec<Vec<&str>> = vec![
        vec![
            ATTACH,
            r#"{"method":"Page.frameNavigated","sessionId":"s-T1","params":{"frame":{"id":"T1","loaderId":"L1","url":"http://127.0.0.1:8000/a"}}}"#,
            r#"{"method":"Page.lifecycleEvent","sessionId":"s-T1","params":{"frameId":"T1","loaderId":"L1","name":"load"}}"#,
            r#"{"method":"Page.javascriptDialogOpening","sessionId":"s-T1","params":{"type":"prompt","message":"Name?","defaultPrompt":"x"}}"#,
            r#"{"method":"Target.targetInfoChanged","params":{"targetInfo":{"targetId":"T1","url":"http://127.0.0.1:8000/b","title":"B"}}}"#,
            r#"{"method":"Target.detachedFromTarget","params":{"sessionId":"s-T1"}}"#,
        ],
        vec![
            ATTACH,
            r#"{"method":"Fetch.requestPaused","sessionId":"s-T1","params":{"requestId":"G","request":{"url":"http://10.0.0.1/","method":"GET"},"resourceType":"Document"}}"#,
            r#"{"method":"Network.requestWillBeSent","sessionId":"s-T1","params":{"requestId":"R1","request":{"url":"http://127.0.0.1:8000/api","method":"POST"},"type":"Fetch","timestamp":1.0}}"#,
            r#"{"method":"Network.responseReceived","sessionId":"s-T1","params":{"requestId":"R1","response":{"status":200,"mimeType":"application/json"},"timestamp":1.5}}"#,
            r#"{"method":"Network.loadingFailed","sessionId":"s-T1","params":{"requestId":"R1","timestamp":2.0,"errorText":"net::ERR_ABORTED","type":"Fetch"}}"#,
            r#"{"method":"Runtime.consoleAPICalled","sessionId":"s-T1","params":{"type":"error","args":[{"type":"string","value":"boom"},{"type":"object","description":"Object"}],"stackTrace":{"callFrames":[{"url":"http://127.0.0.1:8000/app.js","lineNumber":3}]}}}"#,
            r#"{"method":"Runtime.exceptionThrown","sessionId":"s-T1","params":{"exceptionDetails":{"text":"Uncaught","exception":{"description":"TypeError: x"}}}}"#,
            r#"{"id":7,"result":{"frameTree":{}}}"#,
        ],
        vec![
            r#"{"meta":{"url":"http://127.0.0.1:8000/","title":"Inbox secret","pageType":"app","hasLoginForm":true,"formCount":2,"description":"d"},"overlays":[{"kind":"dialog","label":"Cookies"}],"elements":[{"handle":4,"role":"button","name":"Accept","states":["focused","expanded"],"bounds":[10,20,100,30],"interactive":true,"level":0,"overlay":0,"attributes":[["href","/x"],["data-id","secret"]]},{"handle":5,"role":"textbox","name":"Search","value":"q","states":["required"]}],"child":{"meta":{"url":"about:srcdoc"},"elements":[{"handle":1,"role":"link","name":"In frame"}]}}"#,
            r#"{"name":"sid","value":"abc","domain":".example.com","path":"/","expires":-1,"httpOnly":true,"secure":true,"sameSite":"Lax"}"#,
        ],
    ];
    streams.iter().map(|s| s.join("\0").into_bytes()).collect()
}
