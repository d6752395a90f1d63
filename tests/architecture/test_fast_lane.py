"""The fast lane's test-side shortcuts stay honest: the remembered argon2id hashes are production
hashes, a wrong password is refused every time, and the lane rules see a fresh interpreter started
from a helper the test calls."""

from __future__ import annotations

import subprocess
import sys

import pytest
from argon2 import PasswordHasher
from argon2.exceptions import VerifyMismatchError

from mesq.auth.passwords import hash_password, verify_password
from tests.conftest import _names_used, _RememberingHasher


def test_remembered_hashes_are_argon2id_at_the_production_parameters():
    hasher = _RememberingHasher()
    first = hasher.hash("correct horse battery")
    assert hasher.hash("correct horse battery") == first  # remembered, not recomputed
    assert hasher.hash("another horse battery") != first
    production = PasswordHasher()
    params = f"$argon2id$v=19$m={production.memory_cost},t={production.time_cost},p={production.parallelism}$"
    assert first.startswith(params)
    assert production.verify(first, "correct horse battery")  # the real hasher accepts it


def test_a_wrong_password_is_refused_every_time():
    hasher = _RememberingHasher()
    stored = hasher.hash("correct horse battery")
    assert hasher.verify(stored, "correct horse battery") and hasher.verify(stored, "correct horse battery")
    for _ in range(2):
        with pytest.raises(VerifyMismatchError):
            hasher.verify(stored, "wrong horse battery")


def test_the_session_uses_the_remembering_hasher_through_mesqs_own_functions():
    stored = hash_password("correct horse battery")
    assert hash_password("correct horse battery") == stored
    assert verify_password(stored, "correct horse battery") and not verify_password(stored, "wrong horse battery")


def _starts_an_interpreter() -> str:
    return subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True, text=True, check=True).stdout


def _calls_a_helper() -> str:
    return _starts_an_interpreter()


def test_the_lane_rules_follow_helpers_defined_in_tests():
    # Looked up by string: naming the helper here would (rightly) make this test `slow` itself.
    helper = globals()["_calls_a_helper"]
    assert {"subprocess", "executable"} <= _names_used(helper.__code__, globals())
    assert not {"subprocess", "executable"} <= _names_used(helper.__code__)  # without the namespace
