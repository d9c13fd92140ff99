//! What plugins hand the host across the WIT boundary: tool lists (names, schemas as JSON
//! text), outputs with structured content, resource contents and progress messages.

use crate::Target;

pub const TARGET: Target = Target {
    name: "plugin_json",
    about: "plugin tool lists, schemas, outputs, structured content, resource contents, progress",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"\"type\"",
        b"\"object\"",
        b"\"properties\"",
        b"\"$ref\"",
        b"\"#/$defs/a\"",
        b"image",
        b"audio",
        b"resource",
        b"text/plain",
        b"data:",
        b"file:///etc/passwd",
    ],
    contained: &[],
    run: |input| super::support::json(input).map_or(0, |v| warden::fuzzing::plugin_json(&v)),
};

const SEEDS: &[&str] = &[
    r#"{"tools":[{"name":"echo","title":"Echo","description":"Echo text.","input_schema":"{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}","output_schema":"{\"type\":\"object\"}","annotations":{"read_only":true},"task":"optional"}]}"#,
    r#"{"output":{"content":[{"type":"text","text":"hi"},{"type":"image","mime_type":"image/png","data":"\u0089PNG"},{"type":"resource","resource":{"uri":"notes://1","mime_type":"text/plain","text":"x"}}],"structured":"{\"sum\":3}"}}"#,
    r#"{"output":{"content":[],"structured":"{not json"}}"#,
    r#"{"resources":[{"uri":"terminal://s1/screen","text":"$ ls"},{"uri":"x://b","blob":"bytes"}],"progress":"step 1 of 3"}"#,
    r#"{"tools":[{"name":"bad name!","description":"","input_schema":"[]"},{"name":"","input_schema":"{\"type\":\"string\"}"}]}"#,
];
