"""The sealing port: encrypt a small secret bound to a context (AES-GCM additional data, and the
KMS encryption context), so a sealed value copied to another user's record cannot be opened."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Protocol

Sealed = dict[str, str]


class SealingError(Exception):
    """A sealed value cannot be opened (wrong key, wrong context, tampered) or the key is unusable."""


class Sealer(Protocol):
    def seal(self, plaintext: bytes, context: Mapping[str, str]) -> Sealed: ...

    def open(self, sealed: Mapping[str, str], context: Mapping[str, str]) -> bytes: ...


def associated_data(context: Mapping[str, str]) -> bytes:
    """The context as AES-GCM additional data: canonical JSON, so key order never matters."""
    return json.dumps(dict(context), sort_keys=True, separators=(",", ":")).encode("utf-8")
