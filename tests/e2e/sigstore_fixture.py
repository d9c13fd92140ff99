"""A throwaway sigstore, made by the tests: a certificate authority in Fulcio's shape (a P-384
root and intermediate issuing short-lived code-signing certificates that carry the signer's
identity as their SAN and the OpenID issuer in Fulcio's extension), a transparency log in
Rekor's shape (a P-256 key that signs entry timestamps over the canonical JSON of each entry),
the `trusted_root.json` that names both, and keyless signatures laid out in the registry as
`cosign sign` stores them (the `sha256-HEX.sig` tag, one layer per signature, with the
certificate, chain and log bundle in its annotations)."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

from oci_registry import Registry

ISSUER_V2 = ObjectIdentifier("1.3.6.1.4.1.57264.1.8")
PAYLOAD_TYPE = "application/vnd.dev.cosign.simplesigning.v1+json"
NOW = dt.datetime.now(dt.timezone.utc)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def spki(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def utf8_der(text: str) -> bytes:
    data = text.encode()
    assert len(data) < 128
    return bytes([0x0C, len(data)]) + data


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "warden-test"), x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _ca(subject: str, key, issuer_name: x509.Name | None, issuer_key, path_len: int | None) -> x509.Certificate:
    name = _name(subject)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - dt.timedelta(days=30))
        .not_valid_after(NOW + dt.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=True, path_length=path_len), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    return builder.sign(issuer_key, hashes.SHA384())


@dataclass
class Signature:
    """One signature layer: the payload and its annotations, which a test may change."""

    payload: bytes
    annotations: dict[str, str]
    bundle: dict = field(default_factory=dict)


class Sigstore:
    def __init__(self, name: str = "test") -> None:
        self.root_key = ec.generate_private_key(ec.SECP384R1())
        self.root = _ca(f"{name} root", self.root_key, None, self.root_key, 1)
        self.inter_key = ec.generate_private_key(ec.SECP384R1())
        self.inter = _ca(f"{name} intermediate", self.inter_key, self.root.subject, self.root_key, 0)
        self.log_key = ec.generate_private_key(ec.SECP256R1())
        self.log_id = hashlib.sha256(spki(self.log_key)).hexdigest()
        self.log_index = 1000

    def write_trusted_root(self, path: Path) -> Path:
        start = (NOW - dt.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        path.write_text(json.dumps({
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [{
                "baseUrl": "https://rekor.invalid",
                "hashAlgorithm": "SHA2_256",
                "publicKey": {"rawBytes": b64(spki(self.log_key)), "keyDetails": "PKIX_ECDSA_P256_SHA_256", "validFor": {"start": start}},
                "logId": {"keyId": b64(bytes.fromhex(self.log_id))},
            }],
            "certificateAuthorities": [{
                "subject": {"organization": "warden-test", "commonName": "test"},
                "uri": "https://fulcio.invalid",
                "certChain": {"certificates": [
                    {"rawBytes": b64(self.inter.public_bytes(serialization.Encoding.DER))},
                    {"rawBytes": b64(self.root.public_bytes(serialization.Encoding.DER))},
                ]},
                "validFor": {"start": start},
            }],
            "ctlogs": [],
            "timestampAuthorities": [],
        }, indent=2))
        return path

    def leaf(self, identity: str, issuer: str, not_before: dt.datetime, minutes: int = 10, usage=ExtendedKeyUsageOID.CODE_SIGNING):
        """A Fulcio-shaped certificate: empty subject, the identity as a critical SAN (e-mail
        when it has an @ and no scheme, else URI), code signing, the issuer in its extension."""
        key = ec.generate_private_key(ec.SECP256R1())
        san = x509.RFC822Name(identity) if "@" in identity and "://" not in identity else x509.UniformResourceIdentifier(identity)
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([]))
            .issuer_name(self.inter.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before)
            .not_valid_after(not_before + dt.timedelta(minutes=minutes))
            .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .add_extension(x509.SubjectAlternativeName([san]), critical=True)
            .add_extension(x509.UnrecognizedExtension(ISSUER_V2, utf8_der(issuer)), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.inter_key.public_key()), critical=False)
            .sign(self.inter_key, hashes.SHA384())
        )
        return key, cert

    def sign(
        self,
        reference: str,
        digest: str,
        identity: str,
        issuer: str,
        *,
        signed_at: dt.datetime | None = None,
        logged_at: dt.datetime | None = None,
        log_key=None,
        usage=ExtendedKeyUsageOID.CODE_SIGNING,
    ) -> Signature:
        """A keyless signature of `digest`: a certificate issued at `signed_at` (default: a
        minute ago), logged at `logged_at` (default: then too) by this log, or by `log_key`."""
        signed_at = signed_at or NOW - dt.timedelta(minutes=1)
        logged_at = logged_at or signed_at + dt.timedelta(seconds=5)
        payload = json.dumps({
            "critical": {
                "identity": {"docker-reference": reference},
                "image": {"docker-manifest-digest": digest},
                "type": "cosign container image signature",
            },
            "optional": None,
        }).encode()
        key, cert = self.leaf(identity, issuer, signed_at, usage=usage)
        signature = key.sign(payload, ec.ECDSA(hashes.SHA256()))
        body = json.dumps({
            "apiVersion": "0.0.1",
            "kind": "hashedrekord",
            "spec": {
                "data": {"hash": {"algorithm": "sha256", "value": hashlib.sha256(payload).hexdigest()}},
                "signature": {"content": b64(signature), "publicKey": {"content": b64(pem(cert).encode())}},
            },
        }, separators=(",", ":")).encode()
        self.log_index += 1
        log_key = log_key or self.log_key
        entry = {
            "body": b64(body),
            "integratedTime": int(logged_at.timestamp()),
            "logIndex": self.log_index,
            "logID": hashlib.sha256(spki(log_key)).hexdigest() if log_key is not self.log_key else self.log_id,
        }
        bundle = {"SignedEntryTimestamp": "", "Payload": entry}
        self.seal(bundle, log_key)
        return Signature(
            payload,
            {
                "dev.cosignproject.cosign/signature": b64(signature),
                "dev.sigstore.cosign/certificate": pem(cert),
                "dev.sigstore.cosign/chain": pem(self.inter) + pem(self.root),
                "dev.sigstore.cosign/bundle": json.dumps(bundle),
            },
            bundle,
        )

    def seal(self, bundle: dict, log_key=None) -> None:
        """Sign the bundle's entry as the log does (its canonical JSON) and store the bundle."""
        canonical = json.dumps(bundle["Payload"], sort_keys=True, separators=(",", ":")).encode()
        bundle["SignedEntryTimestamp"] = b64((log_key or self.log_key).sign(canonical, ec.ECDSA(hashes.SHA256())))


def attach(registry: Registry, repo: str, digest: str, signatures: list[Signature]) -> None:
    """Store `signatures` under the artifact's `sha256-HEX.sig` tag, as cosign does."""
    layers = []
    for sig in signatures:
        if sig.bundle:
            sig.annotations["dev.sigstore.cosign/bundle"] = json.dumps(sig.bundle)
        blob = registry.push_blob(repo, sig.payload)
        layers.append({"mediaType": PAYLOAD_TYPE, "digest": blob, "size": len(sig.payload), "annotations": sig.annotations})
    config = json.dumps({"architecture": "", "os": "", "config": {}, "rootfs": {"type": "layers", "diff_ids": [l["digest"] for l in layers]}}).encode()
    config_digest = registry.push_blob(repo, config)
    registry.push_manifest(repo, digest.replace(":", "-", 1) + ".sig", {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": len(config)},
        "layers": layers,
    })
