"""KMS envelope sealing for AWS: a fresh data key per secret from `GenerateDataKey` (AES_256,
with the context as KMS encryption context), AES-256-GCM with that key and the same context as
additional data; only the KMS-encrypted data key is stored, and opening it needs `kms:Decrypt`
with the same context."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Mapping
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ...kernel.messages import quoted
from ...kernel.ports.sealer import Sealed, SealingError, associated_data

SCHEME = "kms-envelope-aes256gcm-v1"


class KmsEnvelopeSealer:
    def __init__(self, key_id: str, region: str, client: Any = None) -> None:
        self.key_id = key_id
        self.client = client or boto3.client("kms", region_name=region)

    def seal(self, plaintext: bytes, context: Mapping[str, str]) -> Sealed:
        try:
            answer = self.client.generate_data_key(
                KeyId=self.key_id, KeySpec="AES_256", EncryptionContext=dict(context)
            )
        except (BotoCoreError, ClientError):
            raise SealingError("the encryption key service (KMS) refused or failed; try again") from None
        nonce = secrets.token_bytes(12)
        ciphertext = AESGCM(answer["Plaintext"]).encrypt(nonce, plaintext, associated_data(context))
        return {
            "scheme": SCHEME,
            "encryptedKey": base64.b64encode(answer["CiphertextBlob"]).decode("ascii"),
            "nonce": base64.b64encode(nonce).decode("ascii"),
            "ciphertext": base64.b64encode(ciphertext).decode("ascii"),
        }

    def open(self, sealed: Mapping[str, str], context: Mapping[str, str]) -> bytes:
        if sealed.get("scheme") != SCHEME:
            raise SealingError(f"not sealed with KMS (scheme {quoted(sealed.get('scheme'))})")
        try:
            answer = self.client.decrypt(
                CiphertextBlob=base64.b64decode(sealed["encryptedKey"]), EncryptionContext=dict(context)
            )
            nonce, ciphertext = base64.b64decode(sealed["nonce"]), base64.b64decode(sealed["ciphertext"])
            return AESGCM(answer["Plaintext"]).decrypt(nonce, ciphertext, associated_data(context))
        except (BotoCoreError, ClientError, InvalidTag, KeyError, ValueError):
            raise SealingError("the sealed value cannot be opened (KMS key or context mismatch)") from None
