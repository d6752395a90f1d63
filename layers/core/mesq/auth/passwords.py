"""Password hashing with argon2id (argon2-cffi): memory-hard, salted, parameters in the hash.

argon2 is imported on first use: the token-only functions (MCP, REST) never hash a password, and
keep it off their cold start (tests/mcp/test_cold_import.py)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argon2 import PasswordHasher

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024


@cache
def _hasher() -> PasswordHasher:
    from argon2 import PasswordHasher

    return PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher().hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return _hasher().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
