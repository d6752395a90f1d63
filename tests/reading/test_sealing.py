"""Credentials at rest: sealed with the local key file (created once, mode 0600) or with KMS
envelope encryption (moto's KMS); the secret never appears in the SQLite file's bytes, and a
sealed value does not open under another user's context."""

from __future__ import annotations

import os
import stat

import boto3
import pytest
from moto import mock_aws

from mesq.adapters.sealing.kms import KmsEnvelopeSealer
from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.kernel.ports.sealer import SealingError
from mesq.reading.credentials import load_credential, save_credential
from mesq.wiring.services import build_sealer

SECRET = "wrk-Very-Secret-Key-1234567890"
NOW = "2026-03-01T00:00:00.000000Z"


def test_secret_is_not_readable_in_the_database_file(services, make_account):
    account = make_account(scopes="reading:read")
    sealer = build_sealer(services.settings)
    hint = save_credential(services.items, sealer, account.user_id, "api_key", SECRET, NOW)
    assert hint == "wrk-…7890"
    services.items.close()
    database = services.settings.sqlite_path
    raw = b"".join(path.read_bytes() for path in database.parent.glob(database.name + "*"))
    assert SECRET.encode() not in raw and SECRET[4:20].encode() not in raw
    key_file = services.settings.secret_key_file
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_local_key_is_created_once_and_reused(tmp_path):
    first, second = LocalKeySealer(tmp_path / "keys" / "k"), LocalKeySealer(tmp_path / "keys" / "k")
    sealed = first.seal(b"secret", {"userId": "a"})
    assert second.open(sealed, {"userId": "a"}) == b"secret"
    with pytest.raises(SealingError):
        second.open(sealed, {"userId": "b"})  # another user's context
    with pytest.raises(SealingError):
        LocalKeySealer(tmp_path / "other").open(sealed, {"userId": "a"})  # another key


def test_a_key_file_others_can_read_is_refused(tmp_path):
    path = tmp_path / "k"
    LocalKeySealer(path).seal(b"x", {})
    os.chmod(path, 0o644)
    with pytest.raises(SealingError, match="chmod 600"):
        LocalKeySealer(path).seal(b"x", {})


def test_sealed_value_moved_to_another_user_does_not_open(services, make_account):
    alice, bob = make_account(scopes="reading:read"), make_account(scopes="reading:read")
    sealer = build_sealer(services.settings)
    save_credential(services.items, sealer, alice.user_id, "api_key", SECRET, NOW)
    save_credential(services.items, sealer, bob.user_id, "api_key", "wrk-bobs-own-key-123", NOW)
    alices = services.items.get((f"U#{alice.user_id}", "READ#CREDENTIAL"))
    bobs = services.items.get((f"U#{bob.user_id}", "READ#CREDENTIAL"))
    services.items.put({**bobs, "sealed": alices["sealed"]})
    with pytest.raises(SealingError):
        load_credential(services.items, sealer, bob.user_id)


@mock_aws
def test_kms_envelope_round_trip_and_context_binding():
    kms = boto3.client("kms", region_name="us-east-1")
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    sealer = KmsEnvelopeSealer(key_id, "us-east-1", client=kms)
    sealed = sealer.seal(SECRET.encode(), {"purpose": "reading-credential", "userId": "u1"})
    assert sealed["scheme"] == "kms-envelope-aes256gcm-v1" and SECRET not in str(sealed)
    assert sealer.open(sealed, {"purpose": "reading-credential", "userId": "u1"}) == SECRET.encode()
    with pytest.raises(SealingError):
        sealer.open(sealed, {"purpose": "reading-credential", "userId": "u2"})
    with pytest.raises(SealingError):
        LocalKeySealer.__new__(LocalKeySealer).open(sealed, {})  # a KMS value is not a local one


def test_kms_is_chosen_when_a_key_is_configured(services):
    with mock_aws():
        settings = services.settings.with_overrides(kms_key_id="alias/mesq")
        assert isinstance(build_sealer(settings), KmsEnvelopeSealer)
    assert isinstance(build_sealer(services.settings), LocalKeySealer)
