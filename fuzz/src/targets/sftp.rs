//! SFTP root confinement: splitting a path into parent and name, making it absolute under
//! the first root, and judging where the server resolved it against the granted roots.

use crate::Target;

pub const TARGET: Target = Target {
    name: "sftp",
    about: "sftp path resolution: split, absolute, root confinement",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"..",
        b"/",
        b"//",
        b".",
        b"/srv/data",
        b"/srv/data-other",
        b"\0",
        b"~",
        b"\\",
    ],
    contained: &[],
    run,
};

fn run(input: &[u8]) -> u64 {
    let Some(v) = super::support::json(input) else {
        return 0;
    };
    let roots: Vec<String> = v["roots"]
        .as_array()
        .into_iter()
        .flatten()
        .map(super::support::text)
        .collect();
    warden::fuzzing::sftp_path(
        &super::support::text(&v["path"]),
        &roots,
        &super::support::text(&v["resolved"]),
    )
}

const SEEDS: &[&str] = &[
    r#"{"path":"notes/a.txt","roots":["/srv/data"],"resolved":"/srv/data/notes/a.txt"}"#,
    r#"{"path":"../etc/passwd","roots":["/srv/data/"],"resolved":"/srv/etc/passwd"}"#,
    r#"{"path":"/srv/data-other/x","roots":["/srv/data"],"resolved":"/srv/data-other/x"}"#,
    r#"{"path":"dir/","roots":["/","/tmp"],"resolved":"/"}"#,
];
