"""A registry is a hostile server: what it sends is bounded, where it sends Warden is checked,
and what it says is scrubbed before anyone reads it.

Against `HostileRegistry` (a registry of the test's own that lies) and a `Recorder` on
127.0.0.2 (an address no manifest names): a layer, a manifest and a signature payload that
stream 400 MiB whatever their descriptors declare leave the host's peak RSS (the kernel's
high-water mark) near an honest load's; a blob redirect and a token realm on the unnamed
address reach nothing there, with the registry's password set; a 500 that echoes the request
and an 8 MiB error body put neither the password nor its encodings, nor a long line, into the
audit log, stdout or stderr. Each refusal writes an audit line."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import pytest

from hostile_registry import MIB, PAYLOAD_TYPE, HostileRegistry, Recorder, closed_port, digest_of

pytestmark = pytest.mark.anyio

USER, PASSWORD = "ci", "s3cret/Pa55+word"
SECRETS = {
    "the password": PASSWORD,
    "base64 of user:password": base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode(),
    "base64 of the password": base64.b64encode(PASSWORD.encode()).decode(),
}
# An audit line or a log line about a refused pull: the error text is cut to 2 KiB.
MAX_LINE = 4096


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileRegistry]:
    registry = HostileRegistry(user=(USER, PASSWORD))
    yield registry
    registry.stop()


def named(registry: str, extra: str = "") -> str:
    return (
        f'[registries."{registry}"]\nplain_http = true\nusername = "{USER}"\npassword_env = "REG_PASSWORD"\n{extra}\n'
    )


def plugin(source: str, verify: bool = False) -> str:
    return f'[[plugin]]\nname = "echo"\nsource = "{source}"\nverify = {str(verify).lower()}\n'


def run(bin_: Path, *args: str, cache: Path, env: dict[str, str] | None = None) -> tuple[int, str, str, int]:
    """Run warden: exit code, stdout, stderr and its peak RSS in KiB. The peak is the kernel's
    high-water mark of the process (VmHWM), read from /proc while it runs and from wait4's
    rusage when it ends (the same counter, so the last moments are not missed)."""
    full_env = {
        **os.environ,
        "WARDEN_CACHE_DIR": str(cache),
        "REG_PASSWORD": PASSWORD,
        "RUST_LOG": "debug",
        **(env or {}),
    }
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([str(bin_), *args], stdout=out, stderr=err, env=full_env)
        peak, deadline = 0, time.monotonic() + 60
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            try:
                for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
            except OSError:
                pass
            if time.monotonic() > deadline:
                proc.kill()
            time.sleep(0.005)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"), max(peak, usage.ru_maxrss)


def check(bin_: Path, manifest, cache: Path) -> tuple[int, str, str, int]:
    return run(bin_, "check", "--manifest", str(manifest.path), cache=cache)


def last_load(manifest) -> dict:
    return [line for line in manifest.audit_lines() if line["event"] == "plugin_load"][-1]


async def test_a_registry_that_lies_about_sizes_is_read_no_further_than_declared(
    warden_bin, echo_wasm, hostile, write_manifest, tmp_path
):
    wasm = echo_wasm.read_bytes()
    registry = hostile.host
    keys = tmp_path / "keys"
    keys.mkdir()
    done = subprocess.run([str(warden_bin), "plugin", "keygen", "--out", str(keys / "k.key")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

    # An honest load from the same registry: the normal peak.
    honest = hostile.add_plugin("honest/echo", wasm)
    manifest = write_manifest(named(registry) + plugin(hostile.ref("honest/echo", honest)), name="honest.toml", audit="honest.jsonl")
    code, out, _, normal = check(warden_bin, manifest, tmp_path / "cache-honest")
    assert code == 0, out
    assert last_load(manifest)["decision"] == "allowed"

    # A layer declared at 800 kB whose blob streams 400 MiB.
    lie = {"mediaType": "application/wasm", "digest": digest_of(b"x" * 800_000), "size": 800_000}
    layer = hostile.add_manifest("lie/layer", [lie])
    hostile.repo("lie/layer").endless.add(lie["digest"])
    # An image manifest of 400 MiB.
    hostile.repo("lie/manifest").endless_manifests = True
    # A signature payload declared at 244 bytes, served at 400 MiB, beside an honest plugin.
    signed = hostile.add_plugin("lie/signature", wasm)
    payload = {
        "mediaType": PAYLOAD_TYPE,
        "digest": digest_of(b"p" * 244),
        "size": 244,
        "annotations": {"dev.cosignproject.cosign/signature": "MEUCIQDx"},
    }
    hostile.add_manifest("lie/signature", [payload], tag="sha256-" + signed.removeprefix("sha256:") + ".sig")
    hostile.repo("lie/signature").endless.add(payload["digest"])

    trust = f'[trust.keys]\nk = "{keys / "k.pub"}"\n\n'
    cases = [
        # (name, manifest body, audit error, what the message says)
        ("layer", plugin(hostile.ref("lie/layer", layer)), "size_mismatch", "than the 800000 its manifest declares"),
        ("manifest", plugin(hostile.ref("lie/manifest", digest_of(b"m"))), "too_large", "the registry sent more than 4194304 bytes for manifest"),
        ("signature", trust + plugin(hostile.ref("lie/signature", signed), verify=True), "size_mismatch", "than the 244 its manifest declares"),
    ]
    for name, body, kind, says in cases:
        manifest = write_manifest(named(registry) + body, name=f"{name}.toml", audit=f"{name}.jsonl")
        sent = hostile.sent
        code, out, _, peak = check(warden_bin, manifest, tmp_path / f"cache-{name}")
        print(f"peak RSS of a load: honest {normal // 1024} MiB, lying {name} {peak // 1024} MiB")
        assert peak < normal + 32 * 1024, f"{name}: peak RSS {peak // 1024} MiB, an honest load {normal // 1024} MiB"
        # What the server under test could send before Warden hung up: far less than 400 MiB.
        assert hostile.sent - sent < 64 * MIB, (name, hostile.sent - sent)
        assert code == 1 and says in out, out
        line = last_load(manifest)
        assert line["decision"] == "denied" and line["error"] == kind, line


async def test_redirects_and_token_realms_reach_only_what_the_admin_named(
    warden_bin, echo_wasm, hostile, write_manifest, tmp_path
):
    wasm = echo_wasm.read_bytes()
    recorder = Recorder("127.0.0.2")
    # A registry whose 401 names a token realm on the recorder's address.
    evil = HostileRegistry(user=(USER, PASSWORD), realm=f"{recorder.origin}/token")
    # A registry whose token realm is its own origin: the standard flow.
    own = HostileRegistry(user=(USER, PASSWORD), realm="own")
    try:
        redirected = hostile.add_plugin("redirect/echo", wasm)
        hostile.repo("redirect/echo").redirect_blobs = f"{recorder.origin}/blobs"
        realm = evil.add_plugin("realm/echo", wasm)
        cases = [
            (hostile, hostile.ref("redirect/echo", redirected), "a redirect"),
            (evil, evil.ref("realm/echo", realm), "the token realm"),
        ]
        for n, (registry, source, hop) in enumerate(cases):
            manifest = write_manifest(named(registry.host) + plugin(source), name=f"d{n}.toml", audit=f"d{n}.jsonl")
            code, out, err, _ = check(warden_bin, manifest, tmp_path / f"cache-d{n}")
            assert code == 1 and f"sent Warden to {recorder.origin} ({hop})" in out, out
            assert f'add [registries."{recorder.host}:{recorder.port}"]' in out, out
            line = last_load(manifest)
            assert line["decision"] == "denied" and line["error"] == "private_destination", line
            assert recorder.heard_nothing(), recorder.requests
            assert PASSWORD not in out + err

        # `warden plugin push` takes the same path: a realm or an upload location elsewhere gets
        # nothing; with --manifest, each refusal is audited there.
        hostile.repo("upload/echo").upload_location = f"{recorder.origin}/upload"
        audit_to = write_manifest('[[plugin]]\nname = "capture"\nsource = "builtin:capture"\n', name="push.toml", audit="push.jsonl")
        for registry, says in [(evil, "(the token realm)"), (hostile, "Warden uploads only to the registry itself")]:
            code, out, err, _ = run(
                warden_bin, "plugin", "push", str(echo_wasm), f"oci://{registry.host}/upload/echo:2", "--plain-http",
                "--username", USER, "--password-env", "REG_PASSWORD", "--manifest", str(audit_to.path),
                cache=tmp_path / "cache-push",
            )
            assert code != 0 and says in err, err
            assert recorder.heard_nothing(), recorder.requests
            assert PASSWORD not in out + err
        pushes = [line for line in audit_to.audit_lines() if line["event"] == "plugin_push"]
        assert [(p["decision"], p["error"]) for p in pushes] == [("denied", "private_destination"), ("denied", "registry")], pushes
        assert "Warden uploads only to the registry itself" in pushes[1]["reason"], pushes
        assert PASSWORD not in audit_to.audit.read_text()

        # The standard token flow: a realm on the registry's own origin gets the Basic credentials.
        digest = own.add_plugin("own/echo", wasm)
        manifest = write_manifest(named(own.host) + plugin(own.ref("own/echo", digest)), name="own.toml", audit="own.jsonl")
        code, out, _, _ = check(warden_bin, manifest, tmp_path / "cache-own")
        assert code == 0, out
        asked = [s for s in own.seen if s.path.startswith("/token?")]
        assert asked and asked[-1].headers.get("authorization") == own.basic(), asked

        # Named, the other host is reached, without the registry's credentials: the redirect
        # target gets no Authorization, the realm is asked for an anonymous token and the
        # error says how to name it as the token service.
        other = f'[registries."{recorder.host}:{recorder.port}"]\nplain_http = true\n\n'
        for n, (registry, source, _) in enumerate(cases):
            manifest = write_manifest(other + named(registry.host) + plugin(source), name=f"n{n}.toml", audit=f"n{n}.jsonl")
            code, out, _, _ = check(warden_bin, manifest, tmp_path / f"cache-n{n}")
            assert code == 1, out
            assert recorder.requests and "authorization" not in recorder.requests[-1].headers, recorder.requests
        assert f'set token_realm = "{recorder.origin}/token"' in out, out
        # A URL that carries the password is not followed, even to a named host.
        leaky = hostile.add_plugin("leaky/echo", wasm)
        hostile.repo("leaky/echo").redirect_blobs = f"{recorder.origin}/{quote(PASSWORD, safe='')}"
        heard = (recorder.connections, len(recorder.requests))
        manifest = write_manifest(other + named(hostile.host) + plugin(hostile.ref("leaky/echo", leaky)), name="l.toml", audit="l.jsonl")
        code, out, err, _ = check(warden_bin, manifest, tmp_path / "cache-l")
        assert code == 1 and "a URL that carries the registry's credential: refused" in out, out
        assert (recorder.connections, len(recorder.requests)) == heard, recorder.requests
        assert PASSWORD not in out + err and quote(PASSWORD, safe="") not in out + err
        # Named as the registry's token_realm, the realm gets them: the admin's choice.
        realm_named = named(evil.host, f'token_realm = "{recorder.origin}/token"')
        manifest = write_manifest(realm_named + plugin(evil.ref("realm/echo", realm)), name="t.toml", audit="t.jsonl")
        code, out, _, _ = check(warden_bin, manifest, tmp_path / "cache-t")
        assert code == 1 and last_load(manifest)["error"] == "unauthorized", out
        assert recorder.requests[-1].path.startswith("/token?")
        assert recorder.requests[-1].headers.get("authorization") == evil.basic()
    finally:
        recorder.stop()
        evil.stop()
        own.stop()


async def test_what_a_registry_says_is_bounded_and_scrubbed_everywhere_it_is_written(
    warden_bin, echo_wasm, hostile, write_manifest, tmp_path
):
    registry = hostile.host

    def echo(headers: dict[str, str]) -> bytes:
        return f"internal error; you sent {json.dumps(headers)}; password={PASSWORD}; {SECRETS['base64 of the password']}".encode()

    def huge(headers: dict[str, str]) -> bytes:
        line = f"{headers.get('authorization', '')} {PASSWORD}\n"
        return (line * (8 * MIB // len(line) + 1)).encode()

    hostile.repo("echo/echo").error = (500, echo)
    hostile.repo("huge/echo").error = (500, huge)
    for n, repo in enumerate(["echo/echo", "huge/echo"]):
        source = hostile.ref(repo, digest_of(repo.encode()))
        manifest = write_manifest(named(registry) + plugin(source), name=f"w{n}.toml", audit=f"w{n}.jsonl")
        code, out, err, _ = check(warden_bin, manifest, tmp_path / f"cache-w{n}")
        assert code == 1 and "HTTP 500 Internal Server Error: " in out, out
        line = last_load(manifest)
        assert line["decision"] == "denied" and line["error"] == "registry", line
        # The other door to the same pull: the CLI, whose error goes to stderr.
        pulled, pull_out, pull_err, _ = run(
            warden_bin, "plugin", "pull", source, "--plain-http", "--username", USER, "--password-env", "REG_PASSWORD",
            "--manifest", str(manifest.path), cache=tmp_path / f"cache-p{n}",
        )
        assert pulled != 0 and "HTTP 500" in pull_err, pull_err
        pull_line = [line for line in manifest.audit_lines() if line["event"] == "plugin_pull"][-1]
        assert pull_line["decision"] == "denied" and pull_line["error"] == "registry", pull_line
        for where, text in [("audit log", manifest.audit.read_text()), ("check stdout", out), ("check stderr", err), ("pull stderr", pull_out + pull_err)]:
            for what, secret in SECRETS.items():
                assert secret not in text, f"{what} in the {where} ({repo})"
            longest = max((len(l) for l in text.splitlines()), default=0)
            assert longest <= MAX_LINE, f"a {longest}-byte line in the {where} ({repo})"
        assert "[redacted]" in out, out


async def test_a_store_changed_on_disk_is_audited_as_such(warden_bin, echo_wasm, hostile, write_manifest, tmp_path):
    wasm = echo_wasm.read_bytes()
    digest = hostile.add_plugin("store/echo", wasm)
    cache = tmp_path / "cache"
    up = write_manifest(named(hostile.host) + plugin(hostile.ref("store/echo", digest)), name="up.toml", audit="up.jsonl")
    code, out, _, _ = check(warden_bin, up, cache)
    assert code == 0, out
    layer = cache / "oci/sha256" / digest_of(wasm).removeprefix("sha256:")
    assert layer.is_file()

    # The registry is gone: the refusal is the changed store, not the connection that failed.
    gone = f"127.0.0.1:{closed_port()}"
    down = write_manifest(named(gone) + plugin(f"oci://{gone}/store/echo:1@{digest}"), name="down.toml", audit="down.jsonl")
    layer.write_bytes(wasm[:-1] + bytes([wasm[-1] ^ 1]))
    code, out, _, _ = check(warden_bin, down, cache)
    assert code == 1 and "was changed on disk since it was pulled" in out, out
    line = last_load(down)
    assert line["decision"] == "denied" and line["error"] == "store_changed", line

    # The registry is there: the artifact is pulled again, and the audit line says why.
    layer.write_bytes(b"tampered")
    code, out, _, _ = check(warden_bin, up, cache)
    assert code == 0, out
    line = last_load(up)
    assert line["decision"] == "allowed" and "changed on disk and was replaced" in line["detail"], line
    assert layer.read_bytes() == wasm
