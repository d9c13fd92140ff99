//! The manifest loader: TOML syntax, the strict schema and every validation rule. Any text
//! loads or fails with located, non-empty messages; none panics.

use crate::Target;

pub const TARGET: Target = Target {
    name: "manifest",
    about: "warden.toml: TOML, schema, grants, limits, profiles, secrets (every error a message)",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"[[plugin]]",
        b"[server]",
        b"[browser]",
        b"[ssh_hosts.a]",
        b"grants",
        b"limits",
        b"name",
        b"source",
        b"builtin:",
        b"tools",
        b"allow",
        b"deny",
        b"\"1s\"",
        b"\"64MiB\"",
        b"=",
        b"'''",
        b"\"\"\"",
        b"http_hosts",
        b"roots",
        b"secrets",
        b"profiles",
        b"approval",
        b"prefix",
    ],
    contained: &[],
    run: |input| {
        warden::fuzzing::manifest(&String::from_utf8_lossy(input), super::support::scratch())
    },
};

const SEEDS: &[&str] = &[
    "",
    "[server]\naudit_log = \"audit.jsonl\"\n",
    "[[plugin]]\nname = \"browser\"\nsource = \"builtin:browser\"\ngrants = { browser = { origins = [\"https://*.example.com\"] } }\n",
    "[[plugin]]\nname = \"capture\"\nsource = \"builtin:capture\"\n[plugin.grants.capture]\nhttp_hosts = [\"api.example.com\", \"*.example.org:8443\"]\nmax_body = \"1MiB\"\n",
    "[ssh_hosts.box]\nhost = \"127.0.0.1\"\nport = 2222\nuser = \"me\"\nidentity = \"~/.ssh/id_ed25519\"\n\n[[plugin]]\nname = \"terminal\"\nsource = \"builtin:terminal\"\ngrants = { terminal = { ssh = [\"box\"], local = true } }\n\n[[plugin]]\nname = \"sftp\"\nsource = \"builtin:sftp\"\ngrants = { sftp = { hosts = [\"box\"], roots = [\"/tmp\"], write = true } }\n",
    "[[plugin]]\nname = \"echo\"\nsource = \"native:echo\"\ntools = { deny = [\"count\"] }\nlimits = { call_timeout = \"2s\", memory = \"64MiB\", output = \"64KiB\" }\n",
    "[http]\nlisten = \"127.0.0.1:8080\"\n\n[browser]\nheadless = true\n",
];
