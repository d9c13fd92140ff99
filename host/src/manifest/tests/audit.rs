//! `[audit]`: session recordings.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "a frame rate out of range",
            format!("[audit]\nframe_rate = 60\n{PLUGIN}"),
            "warden.toml:2:14: audit.frame_rate: 60 frames a second is out of range; write one from 1 to 10",
        ),
        (
            "an unknown kind",
            format!("[audit]\nrecord = [\"shell\"]\n{PLUGIN}"),
            "warden.toml:2:11: audit.record: unknown kind \"shell\"; write \"terminal\", \"rdp\" or \"browser\"",
        ),
        (
            "a cap too small for the header",
            format!("[audit]\nmax_session = \"100\"\n{PLUGIN}"),
            "warden.toml:2:15: audit.max_session: at least \"4KiB\", to hold the recording's header and its last note",
        ),
        (
            "no days",
            format!("[audit]\nretention = {{ days = 0 }}\n{PLUGIN}"),
            "warden.toml:2:22: audit.retention.days: 0 is not a number of days; write one from 1 to 36500",
        ),
        (
            "a size that is not one",
            format!("[audit]\nretention = {{ bytes = \"lots\" }}\n{PLUGIN}"),
            "warden.toml:2:23: audit.retention.bytes: \"lots\" is not a size; write it like \"128MiB\" or \"512KiB\"",
        ),
        (
            "an unknown key",
            format!("[audit]\nrecords = [\"terminal\"]\n{PLUGIN}"),
            "warden.toml:2:1: unknown field `records`, expected one of `record`, `dir`, `retention`, `max_session`, `frame_rate`, `screencast`",
        ),
    ];
    check_errors(cases);
}

#[test]
fn nothing_is_recorded_by_default_and_recordings_sit_beside_the_audit_log() {
    let text = format!("[server]\naudit_log = \"logs/audit.jsonl\"\n{PLUGIN}");
    let m = Manifest::parse(&text, "warden.toml", Path::new("/etc/warden"), BUILTINS).expect("ok");
    assert!(!m.recording.any());
    assert_eq!(m.recording.dir, Path::new("/etc/warden/logs/recordings"));
    assert_eq!(m.recording.max_session, DEFAULT_MAX_SESSION);
    assert_eq!(
        (m.recording.retention_days, m.recording.retention_bytes),
        (DEFAULT_RETENTION_DAYS, DEFAULT_RETENTION_BYTES)
    );

    let text = format!(
        "[audit]\nrecord = [\"terminal\"]\ndir = \"rec\"\nmax_session = \"1MiB\"\nretention = {{ days = 7, bytes = \"2GiB\" }}\n{PLUGIN}"
    );
    let m = Manifest::parse(&text, "warden.toml", Path::new("/etc/warden"), BUILTINS).expect("ok");
    assert!(m.recording.terminal && !m.recording.rdp && !m.recording.browser);
    assert_eq!(m.recording.frame_rate, 2);
    assert!(!m.recording.screencast);
    assert_eq!(m.recording.dir, Path::new("/etc/warden/rec"));
    assert_eq!(m.recording.max_session, 1024 * 1024);
    assert_eq!(
        (m.recording.retention_days, m.recording.retention_bytes),
        (7, 2 * 1024 * 1024 * 1024)
    );
}

#[test]
fn every_kind_of_session_can_be_recorded() {
    let text = format!(
        "[audit]\nrecord = [\"terminal\", \"rdp\", \"browser\"]\nframe_rate = 5\nscreencast = true\n{PLUGIN}"
    );
    let m = Manifest::parse(&text, "warden.toml", Path::new("/etc/warden"), BUILTINS).expect("ok");
    assert!(m.recording.terminal && m.recording.rdp && m.recording.browser);
    assert_eq!(m.recording.frame_rate, 5);
    assert!(m.recording.screencast);
}
