"""Local sealing for `mesq serve`: AES-256-GCM under a key file in the data directory, created on
first use with mode 0600 (O_EXCL, so two processes starting together agree on one key). A key
file that others can read is refused rather than trusted."""

from __future__ import annotations

import base64
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ...kernel.messages import quoted
from ...kernel.ports.sealer import Sealed, SealingError, associated_data
from ..private_files import private_directory

SCHEME = "local-aes256gcm-v1"
KEY_BYTES = 32


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class LocalKeySealer:
    def __init__(self, key_file: Path) -> None:
        self.key_file = key_file

    def _key(self) -> bytes:
        try:
            return self._read()
        except FileNotFoundError:
            pass
        private_directory(self.key_file.parent)
        try:
            descriptor = os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return self._read()  # another process created it first
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        return self._read()

    def _read(self) -> bytes:
        mode = self.key_file.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise SealingError(f"{self.key_file} is readable by other users; chmod 600 it")
        key = self.key_file.read_bytes()
        if len(key) != KEY_BYTES:
            raise SealingError(f"{self.key_file} is not a {KEY_BYTES}-byte key")
        return key

    def seal(self, plaintext: bytes, context: Mapping[str, str]) -> Sealed:
        nonce = secrets.token_bytes(12)
        ciphertext = AESGCM(self._key()).encrypt(nonce, plaintext, associated_data(context))
        return {"scheme": SCHEME, "nonce": _b64(nonce), "ciphertext": _b64(ciphertext)}

    def open(self, sealed: Mapping[str, str], context: Mapping[str, str]) -> bytes:
        if sealed.get("scheme") != SCHEME:
            raise SealingError(f"not sealed with the local key (scheme {quoted(sealed.get('scheme'))})")
        try:
            nonce, ciphertext = base64.b64decode(sealed["nonce"]), base64.b64decode(sealed["ciphertext"])
            return AESGCM(self._key()).decrypt(nonce, ciphertext, associated_data(context))
        except (InvalidTag, KeyError, ValueError):
            raise SealingError("the sealed value cannot be opened with this key and context") from None
