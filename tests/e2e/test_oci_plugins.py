"""Plugins from an OCI registry: pushed, signed, pinned by digest, verified at every load and
loaded offline from the store, against a real registry on loopback. Each way an artifact can
be wrong (a wrong digest, no signature, an untrusted signer, a tampered layer, an unpinned tag,
a private registry nobody named) stops the load with an error that names the manifest line and
says what to do, and writes an audit line."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from conftest import Manifest, text_of
from oci_registry import Registry, start_registry

pytestmark = pytest.mark.anyio

PINNED = re.compile(r"^pushed (oci://\S+@sha256:[0-9a-f]{64})$", re.M)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    server = start_registry(tmp_path_factory.mktemp("registry"))
    yield server
    server.stop()


def warden(bin_: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(bin_), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def keygen(bin_: Path, path: Path) -> Path:
    done = warden(bin_, "plugin", "keygen", "--out", str(path))
    assert done.returncode == 0, done.stderr
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    return path.with_suffix(".pub")


def push(bin_: Path, wasm: Path, target: str, key: Path | None = None) -> str:
    args = ["plugin", "push", str(wasm), target, "--plain-http"]
    if key is not None:
        args += ["--sign", str(key)]
    done = warden(bin_, *args)
    assert done.returncode == 0, done.stderr
    match = PINNED.search(done.stdout)
    assert match, done.stdout
    return match.group(1)


def manifest_text(registry: Registry, source: str, trust: dict[str, Path], extra: str = "", named: bool = True) -> str:
    text = ""
    if trust:
        text += "[trust.keys]\n" + "".join(f'{name} = "{path}"\n' for name, path in trust.items()) + "\n"
    if named:
        text += f'[registries."{registry.host}"]\nplain_http = true\n\n'
    return text + f'[[plugin]]\nname = "echo"\nsource = "{source}"\n{extra}\n'


def check(bin_: Path, manifest: Manifest, cache: Path) -> subprocess.CompletedProcess:
    return warden(bin_, "check", "--manifest", str(manifest.path), env={"WARDEN_CACHE_DIR": str(cache)})


def loads(manifest: Manifest) -> list[dict]:
    return [line for line in manifest.audit_lines() if line["event"] == "plugin_load"]


async def test_a_signed_plugin_loads_by_digest_and_starts_from_the_store_when_the_registry_is_gone(
    warden_bin, warden_env, echo_wasm, write_manifest, start_warden, tmp_path_factory
):
    # Its own registry: this test stops it.
    registry = start_registry(tmp_path_factory.mktemp("registry-gone"))
    try:
        keys = tmp_path_factory.mktemp("keys")
        release = keygen(warden_bin, keys / "release.key")
        pinned = push(warden_bin, echo_wasm, registry.ref("team/echo:1.0"), keys / "release.key")
        manifest = write_manifest(manifest_text(registry, pinned, {"release": release}))

        async with start_warden(manifest) as w:
            await w.assert_echo("from a registry")
        [first] = loads(manifest)
        assert first["decision"] == "allowed" and first["target"] == pinned, first
        assert first["detail"].startswith("signed by key 'release' (sha256:"), first
        assert "pulled from the registry" in first["detail"], first

        registry.stop()
        async with start_warden(manifest) as w:
            await w.assert_echo("from the store")
        second = loads(manifest)[-1]
        assert second["decision"] == "allowed" and "from the local store" in second["detail"], second

        # The store is no way around the trust: another key refuses it, registry or not.
        stranger = keygen(warden_bin, keys / "stranger.key")
        other = write_manifest(manifest_text(registry, pinned, {"stranger": stranger}), name="other.toml", audit="other.jsonl")
        done = warden(warden_bin, "check", "--manifest", str(other.path), env={"WARDEN_CACHE_DIR": warden_env["WARDEN_CACHE_DIR"]})
        assert done.returncode == 1 and "none valid by what [trust] names (keys: stranger)" in done.stdout, done.stdout
        assert loads(other)[-1]["error"] == "untrusted_signature"
    finally:
        registry.stop()


async def test_an_artifact_that_is_not_what_the_manifest_trusts_does_not_load(
    warden_bin, echo_wasm, hostile_wasm, registry, write_manifest, tmp_path
):
    keys = tmp_path / "keys"
    keys.mkdir()
    trusted = keygen(warden_bin, keys / "trusted.key")
    keygen(warden_bin, keys / "stranger.key")
    good = push(warden_bin, echo_wasm, registry.ref("team/echo:good"), keys / "trusted.key")
    unsigned = push(warden_bin, hostile_wasm, registry.ref("team/unsigned:1"))
    stranger = push(warden_bin, hostile_wasm, registry.ref("team/stranger:1"), keys / "stranger.key")
    digest = good.rsplit("@", 1)[1]
    other = "sha256:" + ("0" if digest[-1] != "0" else "1") * 64

    cases = [
        # (source, what the error says, the audit error kind)
        (good.replace(digest, other), "has no manifest", "not_found"),
        (unsigned, "has no signature", "unsigned"),
        (stranger, "none valid by what [trust] names (keys: trusted)", "untrusted_signature"),
    ]
    for n, (source, says, kind) in enumerate(cases):
        manifest = write_manifest(manifest_text(registry, source, {"trusted": trusted}), name=f"m{n}.toml", audit=f"a{n}.jsonl")
        done = check(warden_bin, manifest, tmp_path / f"cache{n}")
        assert done.returncode == 1, done.stdout
        assert f"m{n}.toml:" in done.stdout and says in done.stdout, done.stdout
        [line] = loads(manifest)
        assert line["decision"] == "denied" and line["error"] == kind, line

    # A layer changed in the registry's storage after the push: the digest check refuses it.
    tampered = push(warden_bin, echo_wasm, registry.ref("team/tampered:1"), keys / "trusted.key")
    layer = registry.blob_path("sha256:" + hashlib.sha256(echo_wasm.read_bytes()).hexdigest())
    original = layer.read_bytes()
    layer.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
    try:
        manifest = write_manifest(manifest_text(registry, tampered, {"trusted": trusted}), name="t.toml", audit="t.jsonl")
        done = check(warden_bin, manifest, tmp_path / "cache-t")
        assert done.returncode == 1 and "tampered with" in done.stdout, done.stdout
        assert loads(manifest)[0]["error"] == "layer_mismatch"
    finally:
        layer.write_bytes(original)

    # A layer the registry lost: the pull says which blob is missing.
    lost = layer.parent.with_name(layer.parent.name + ".lost")
    layer.parent.rename(lost)
    try:
        manifest = write_manifest(manifest_text(registry, tampered, {"trusted": trusted}), name="l.toml", audit="l.jsonl")
        done = check(warden_bin, manifest, tmp_path / "cache-l")
        assert done.returncode == 1 and "the registry has no layer sha256:" in done.stdout, done.stdout
        assert loads(manifest)[0]["error"] == "not_found"
    finally:
        lost.rename(layer.parent)

    # A tag without a digest is refused before anything is pulled, unless the admin opts in.
    tag = good.split("@")[0]
    manifest = write_manifest(manifest_text(registry, tag, {"trusted": trusted}), name="u.toml", audit="u.jsonl")
    done = check(warden_bin, manifest, tmp_path / "cache-u")
    assert done.returncode == 1 and "names no digest" in done.stdout and "allow_unpinned" in done.stdout, done.stdout
    assert loads(manifest) == []
    manifest = write_manifest(manifest_text(registry, tag, {"trusted": trusted}, "allow_unpinned = true"), name="v.toml", audit="v.jsonl")
    done = check(warden_bin, manifest, tmp_path / "cache-v")
    assert done.returncode == 0, done.stdout
    assert loads(manifest)[0]["target"] == good, loads(manifest)

    # A registry in private network space that the manifest does not name is not asked.
    manifest = write_manifest(manifest_text(registry, good, {"trusted": trusted}, named=False), name="p.toml", audit="p.jsonl")
    done = check(warden_bin, manifest, tmp_path / "cache-p")
    assert done.returncode == 1 and f'add [registries."{registry.host}"]' in done.stdout, done.stdout
    assert loads(manifest)[0]["error"] == "private_registry"

    # verify defaults to true, so a manifest with no trusted key refuses to guess.
    manifest = write_manifest(manifest_text(registry, good, {}), name="n.toml", audit="n.jsonl")
    done = check(warden_bin, manifest, tmp_path / "cache-n")
    assert done.returncode == 1 and "[trust] names no key or identity" in done.stdout, done.stdout


async def test_a_rotated_key_and_the_admin_commands(warden_bin, echo_wasm, registry, write_manifest, tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir()
    old = keygen(warden_bin, keys / "old.key")
    new = keygen(warden_bin, keys / "new.key")
    pinned = push(warden_bin, echo_wasm, registry.ref("team/rotating:1"), keys / "old.key")
    # Signing the same artifact with the new key adds a signature beside the old one.
    assert push(warden_bin, echo_wasm, registry.ref("team/rotating:1"), keys / "new.key") == pinned
    cache = tmp_path / "cache"
    manifest = write_manifest(manifest_text(registry, pinned, {"old": old}))
    assert check(warden_bin, manifest, cache).returncode == 0
    # The old key is retired: the stored signatures are checked again, and the new one holds.
    manifest = write_manifest(manifest_text(registry, pinned, {"new": new}), name="rotated.toml")
    done = warden(warden_bin, "call", "--manifest", str(manifest.path), "echo", '{"text": "rotated"}', env={"WARDEN_CACHE_DIR": str(cache)})
    assert done.returncode == 0 and "rotated" in done.stdout, done.stdout + done.stderr

    done = warden(warden_bin, "plugin", "verify", pinned, "--plain-http", "--key", str(old))
    assert done.returncode == 0 and "signed by key 'old'" in done.stdout, done.stdout + done.stderr
    keygen(warden_bin, keys / "stranger.key")
    done = warden(warden_bin, "plugin", "verify", pinned, "--plain-http", "--key", str(keys / "stranger.pub"))
    assert done.returncode == 2 and "none valid" in done.stderr, done.stderr

    done = warden(warden_bin, "plugin", "add", pinned.split("@")[0], "--plain-http", "--key", str(new))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "imports:" in out and "wasi:" in out, out
    block = out[out.index("[[plugin]]"):]
    assert f'source = "{pinned}"' in block and 'name = "rotating"' in block, out
    assert "grants" not in block, block
    assert f'[registries."{registry.host}"]\nplain_http = true' in out and 'new = "' in out, out


async def test_a_registry_that_asks_for_credentials_gets_them_from_the_environment(
    warden_bin, echo_wasm, write_manifest, tmp_path
):
    registry = start_registry(tmp_path / "registry", user=("ci", "s3cret-pass"))
    try:
        env = {"REG_PASSWORD": "s3cret-pass"}
        anonymous = warden(warden_bin, "plugin", "push", str(echo_wasm), registry.ref("team/echo:1"), "--plain-http")
        assert anonymous.returncode == 2 and "refused the credentials" in anonymous.stderr, anonymous.stderr
        done = warden(
            warden_bin, "plugin", "push", str(echo_wasm), registry.ref("team/echo:1"), "--plain-http",
            "--username", "ci", "--password-env", "REG_PASSWORD", env=env,
        )
        assert done.returncode == 0, done.stderr
        pinned = PINNED.search(done.stdout).group(1)
        body = f'[registries."{registry.host}"]\nplain_http = true\nusername = "ci"\npassword_env = "REG_PASSWORD"\n\n'
        body += f'[[plugin]]\nname = "echo"\nsource = "{pinned}"\nverify = false\n'
        manifest = write_manifest(body)
        unset = check(warden_bin, manifest, tmp_path / "cache-1")
        assert unset.returncode == 1 and "REG_PASSWORD named in [registries] is not set" in unset.stdout, unset.stdout
        done = warden(warden_bin, "check", "--manifest", str(manifest.path), env={**env, "WARDEN_CACHE_DIR": str(tmp_path / "cache-2")})
        assert done.returncode == 0, done.stdout
        line = loads(manifest)[-1]
        assert line["decision"] == "allowed" and line["detail"].startswith("not verified (verify = false)"), line
        assert "s3cret" not in manifest.audit.read_text()
    finally:
        registry.stop()
