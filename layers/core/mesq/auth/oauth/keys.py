"""Keys, digests and lifetimes of the OAuth items (docs/data-model.md, "OAuth").

Lookups by secret are one GetItem on `OAUTH<kind>#<sha256>`; what a person lists (their grants)
lives in their own partition `U#<userId>`.
"""

from __future__ import annotations

import secrets

from ...kernel.keys import user_partition
from ..tokens import secret_digest

PENDING_SECONDS = 600  # the consent page must be answered within 10 minutes
CODE_SECONDS = 300  # RFC 6749 §4.1.2 recommends at most 10 minutes
ACCESS_SECONDS = 3600
REFRESH_SECONDS = 30 * 24 * 3600
#: A used refresh token presented again by its client this soon answers what it answered first
#: (two requests of a host refreshing together, a retry after a lost response) rather than
#: revoking the grant as a replay: docs/decisions.md, "refresh-token grace".
REFRESH_GRACE_SECONDS = 30
#: A used code is kept this long after it expires, so a replay can still revoke what it issued.
USED_CODE_RETENTION_SECONDS = ACCESS_SECONDS

ACCESS_PREFIX = "mesq_at_"
REFRESH_PREFIX = "mesq_rt_"
CODE_PREFIX = "mesq_ac_"
MAX_SECRET_LENGTH = 200


def new_secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def new_id() -> str:
    return secrets.token_hex(10)


digest = secret_digest


def client_key(client_id: str) -> tuple[str, str]:
    return (f"OAUTHCLIENT#{client_id}", "CLIENT")


def pending_key(request_id: str) -> tuple[str, str]:
    return (f"OAUTHREQ#{request_id}", "REQ")


def code_key(code_digest: str) -> tuple[str, str]:
    return (f"OAUTHCODE#{code_digest}", "CODE")


def access_key(token_digest: str) -> tuple[str, str]:
    return (f"OAUTHAT#{token_digest}", "AT")


def refresh_key(token_digest: str) -> tuple[str, str]:
    return (f"OAUTHRT#{token_digest}", "RT")


def grant_key(user_id: str, grant_id: str) -> tuple[str, str]:
    return (user_partition(user_id), f"OAUTHGRANT#{grant_id}")
