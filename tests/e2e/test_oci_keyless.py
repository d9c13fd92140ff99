"""Keyless signatures (cosign without a key): a plugin signed by a certified identity loads
when `[trust.identities]` names that identity, its issuer and the sigstore trust root, checked
offline from what is stored beside the signature. Each way a keyless signature can lie (another
identity or issuer, a certificate from another authority, a log timestamp forged, altered or by
a log nobody trusts, a certificate that had expired when the log saw it, a log entry of another
signature, no log entry at all, a signature of another artifact) refuses the load with a
message that says why, and an audit line."""

from __future__ import annotations

import copy
import datetime as dt
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from cryptography.x509.oid import ExtendedKeyUsageOID

from oci_registry import Registry, start_registry
from sigstore_fixture import NOW, Sigstore, attach
from test_oci_plugins import check, loads, push, warden

pytestmark = pytest.mark.anyio

CI = "https://github.com/acme/tools/.github/workflows/release.yml@refs/heads/main"
GITHUB = "https://token.actions.githubusercontent.com"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    server = start_registry(tmp_path_factory.mktemp("registry"))
    yield server
    server.stop()


def manifest_text(registry: Registry, source: str, trust_root: Path, identity: str = CI, issuer: str = GITHUB) -> str:
    return (
        f'[trust.identities.release]\nidentity = "{identity}"\nissuer = "{issuer}"\ntrust_root = "{trust_root}"\n\n'
        f'[registries."{registry.host}"]\nplain_http = true\n\n'
        f'[[plugin]]\nname = "echo"\nsource = "{source}"\n'
    )


def published(bin_: Path, wasm: Path, registry: Registry, repo: str) -> tuple[str, str, str]:
    """Push without a key; (the pinned source, the repository, the digest)."""
    pinned = push(bin_, wasm, registry.ref(f"{repo}:1"))
    return pinned, repo, pinned.rsplit("@", 1)[1]


async def test_a_plugin_signed_by_a_trusted_identity_loads_and_the_audit_names_it(
    warden_bin, echo_wasm, registry, write_manifest, tmp_path
):
    store = Sigstore()
    root = store.write_trusted_root(tmp_path / "trusted_root.json")
    pinned, repo, digest = published(warden_bin, echo_wasm, registry, "keyless/echo")
    # The certificate lived ten minutes an hour ago: what counts is that the log saw the
    # signature while it was valid (cosign's rule), not whether it is valid now.
    signed_at = NOW - dt.timedelta(hours=1)
    attach(registry, repo, digest, [store.sign(f"{registry.host}/{repo}", digest, CI, GITHUB, signed_at=signed_at)])

    # A cache of its own: the artifact has the same digest as other tests' pushes.
    env = {"WARDEN_CACHE_DIR": str(tmp_path / "cache")}
    manifest = write_manifest(manifest_text(registry, pinned, root))
    done = warden(warden_bin, "call", "--manifest", str(manifest.path), "echo", '{"text": "keyless"}', env=env)
    assert done.returncode == 0 and "keyless" in done.stdout, done.stdout + done.stderr
    [line] = loads(manifest)
    assert line["decision"] == "allowed" and line["target"] == pinned, line
    assert line["detail"].startswith(f"signed by identity 'release' ({CI}, issuer {GITHUB}; log entry "), line

    # The admin's commands take the same trust on the command line.
    trust = ["--identity", CI, "--issuer", GITHUB, "--trust-root", str(root)]
    done = warden(warden_bin, "plugin", "verify", pinned, "--plain-http", *trust, env=env)
    assert done.returncode == 0 and f"signed by identity 'identity' ({CI}" in done.stdout, done.stdout + done.stderr
    done = warden(warden_bin, "plugin", "verify", pinned, "--plain-http", "--identity", "someone@example.com", "--issuer", GITHUB, "--trust-root", str(root), env=env)
    assert done.returncode == 2 and "not an identity the admin trusts" in done.stderr, done.stderr
    done = warden(warden_bin, "plugin", "add", pinned, "--plain-http", *trust, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f'[trust.identities.signer]\nidentity = "{CI}"\nissuer = "{GITHUB}"\ntrust_root = "{root}"' in done.stdout, done.stdout
    done = warden(warden_bin, "plugin", "verify", pinned, "--plain-http", "--identity", CI, env=env)
    assert done.returncode == 2 and "--issuer" in done.stderr, done.stderr

    # An e-mail identity works the same way.
    email = "release@acme.example"
    attach(registry, repo, digest, [store.sign(f"{registry.host}/{repo}", digest, email, "https://accounts.google.com")])
    manifest = write_manifest(manifest_text(registry, pinned, root, email, "https://accounts.google.com"), name="email.toml", audit="email.jsonl")
    done = check(warden_bin, manifest, tmp_path / "cache-email")
    assert done.returncode == 0, done.stdout
    assert f"({email}, issuer https://accounts.google.com" in loads(manifest)[0]["detail"]


async def test_a_keyless_signature_that_lies_does_not_load(
    warden_bin, echo_wasm, registry, write_manifest, tmp_path
):
    store = Sigstore()
    root = store.write_trusted_root(tmp_path / "trusted_root.json")
    stranger = Sigstore("stranger")

    def case(n: int):
        pinned, repo, digest = published(warden_bin, echo_wasm, registry, f"lies/c{n}")
        return pinned, repo, digest, f"{registry.host}/{repo}"

    def refused(n: int, pinned: str, says: str) -> None:
        manifest = write_manifest(manifest_text(registry, pinned, root), name=f"m{n}.toml", audit=f"a{n}.jsonl")
        done = check(warden_bin, manifest, tmp_path / f"cache{n}")
        assert done.returncode == 1, done.stdout
        assert f"m{n}.toml:" in done.stdout and says in done.stdout, (says, done.stdout)
        [line] = loads(manifest)
        assert line["decision"] == "denied" and line["error"] == "untrusted_signature", line

    lies = []
    # 0. Another identity, certified by the trusted authority.
    lies.append((lambda r, d: [store.sign(r, d, "https://github.com/mallory/x/.github/workflows/a.yml@refs/heads/main", GITHUB)],
                 "signed by https://github.com/mallory/x/"))
    # 1. The trusted identity, vouched for by another issuer.
    lies.append((lambda r, d: [store.sign(r, d, CI, "https://evil.example")], "issuer https://evil.example"))
    # 2. The trusted identity on a certificate from an authority the admin does not trust
    #    (logged by the trusted log, so only the chain is wrong).
    def other_ca(r, d):
        sig = stranger.sign(r, d, CI, GITHUB)
        sig.bundle["Payload"]["logID"] = store.log_id
        store.seal(sig.bundle)
        return [sig]
    lies.append((other_ca, "does not chain to the trust root"))
    # 3. The log's timestamp signed by another key under the trusted log's id.
    def forged_set(r, d):
        sig = store.sign(r, d, CI, GITHUB)
        store.seal(sig.bundle, stranger.log_key)
        return [sig]
    lies.append((forged_set, "signed timestamp does not verify"))
    # 4. Logged by a log the trust root does not list.
    lies.append((lambda r, d: [store.sign(r, d, CI, GITHUB, log_key=stranger.log_key)], "which the trust root does not list"))
    # 5. The certificate had expired when the log recorded the signature.
    lies.append((lambda r, d: [store.sign(r, d, CI, GITHUB, signed_at=NOW - dt.timedelta(hours=2), logged_at=NOW - dt.timedelta(hours=1))],
                 "does not chain to the trust root at the signing time"))
    # 6. The log time moved back into the certificate's life after the log signed it.
    def moved(r, d):
        sig = store.sign(r, d, CI, GITHUB, signed_at=NOW - dt.timedelta(hours=2), logged_at=NOW - dt.timedelta(hours=1))
        sig.bundle["Payload"]["integratedTime"] -= 3300
        return [sig]
    lies.append((moved, "signed timestamp does not verify"))
    # 7. A genuine log entry, of another signature.
    def swapped(r, d):
        a, b = store.sign(r, d, CI, GITHUB), store.sign(r, d, CI, GITHUB)
        a.bundle = copy.deepcopy(b.bundle)
        return [a]
    lies.append((swapped, "the log entry does not record this signature"))
    # 8. No log entry at all.
    def unlogged(r, d):
        sig = store.sign(r, d, CI, GITHUB)
        sig.bundle = {}
        del sig.annotations["dev.sigstore.cosign/bundle"]
        return [sig]
    lies.append((unlogged, "has no transparency-log bundle"))
    # 9. A certificate the authority issued for another purpose (TLS clients, not code).
    lies.append((lambda r, d: [store.sign(r, d, CI, GITHUB, usage=ExtendedKeyUsageOID.CLIENT_AUTH)], "not issued for code signing"))
    # 10. A valid signature of another artifact, copied beside this one.
    other_digest = "sha256:" + "ab" * 32
    lies.append((lambda r, d: [store.sign(r, other_digest, CI, GITHUB)], "names another digest"))

    for n, (make, says) in enumerate(lies):
        pinned, repo, digest, name = case(n)
        attach(registry, repo, digest, make(name, digest))
        refused(n, pinned, says)

    # A lie beside a valid signature does not hide it: the valid one admits the plugin.
    pinned, repo, digest, name = case(len(lies))
    attach(registry, repo, digest, [store.sign(name, digest, "https://github.com/mallory/x@refs/heads/main", GITHUB), store.sign(name, digest, CI, GITHUB)])
    manifest = write_manifest(manifest_text(registry, pinned, root), name="both.toml", audit="both.jsonl")
    assert check(warden_bin, manifest, tmp_path / "cache-both").returncode == 0


async def test_the_manifest_says_what_is_wrong_with_a_trust_root(warden_bin, write_manifest, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"tlogs": []}')
    manifest = write_manifest(
        f'[trust.identities.ci]\nidentity = "{CI}"\nissuer = "{GITHUB}"\ntrust_root = "{bad}"\n\n'
        f'[trust.identities.other]\nidentity = ""\nissuer = "{GITHUB}"\ntrust_root = "{tmp_path / "missing.json"}"\n'
    )
    done = subprocess.run([str(warden_bin), "check", "--manifest", str(manifest.path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout
    assert "trust.identities.ci: trust_root" in done.stdout and "lists no certificate authority" in done.stdout, done.stdout
    assert "trust.identities.other: identity and issuer must not be empty" in done.stdout, done.stdout
