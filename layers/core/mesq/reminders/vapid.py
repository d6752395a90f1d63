"""The instance's VAPID key pair for Web Push (RFC 8292): generated once, the private key
sealed at rest (`INSTANCE#VAPID` / `keys`), the public key served to the Settings page as the
browser's applicationServerKey. Two processes generating at once: the conditional put lets one
win and the other reads the winner's pair."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ..kernel.errors import ValidationError
from ..kernel.i18n import N_
from ..kernel.ports.sealer import Sealer
from ..kernel.ports.storage import Condition, ConditionFailed, Item, ItemStore


@dataclass(frozen=True)
class Vapid:
    """The instance's Web Push key pair (vapid.py): the private key as PEM, the public key as
    the browser's applicationServerKey (base64url of the uncompressed point)."""

    private_pem: bytes
    public_key: str
    subject: str


KEY = ("INSTANCE#VAPID", "keys")
#: A template (the catalog has it: a page says it in its reader's language; it was a formatted
#: English sentence on every page).
NEEDS_HTTPS = N_(
    "Web Push needs this server on an https:// address: push services accept only an https:// or mailto: "
    "contact in the VAPID signature, and this server's public URL is %(url)s. Set MESQ_PUBLIC_URL to its https:// URL."
)
_CONTEXT = {"purpose": "vapid-private-key"}


def _public(private: ec.EllipticCurvePrivateKey) -> str:
    point = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def instance_vapid(items: ItemStore, sealer: Sealer, subject: str) -> Vapid:
    """The pair, generated on first use. `subject`: the VAPID `sub` claim (the instance's URL)."""
    stored = items.get(KEY)
    if stored is None:
        private = ec.generate_private_key(ec.SECP256R1())
        pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())  # fmt: skip
        record: Item = {"pk": KEY[0], "sk": KEY[1], "publicKey": _public(private), "sealed": sealer.seal(pem, _CONTEXT)}
        try:
            items.put(record, Condition(exists=False))
            stored = record
        except ConditionFailed:
            stored = items.get(KEY)
            assert stored is not None
    pem = sealer.open(stored["sealed"], _CONTEXT)
    return Vapid(private_pem=pem, public_key=str(stored["publicKey"]), subject=subject)


def subject_of(public_url: str) -> str:
    """The VAPID `sub` claim (RFC 8292 §2.1: a contact, an https: or mailto: URI) of an instance at
    `public_url`: its https origin without a port or path (what py_vapid and the push services
    accept). ValidationError when the instance is not on https: no push could be signed, so a
    subscription is refused up front rather than failing at every send."""
    parts = urlsplit(public_url)
    if parts.scheme != "https" or not parts.hostname:
        raise ValidationError(NEEDS_HTTPS, url=public_url)
    return f"https://{parts.hostname}"
