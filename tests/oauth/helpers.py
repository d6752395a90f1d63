"""OAuth client-side helpers shared by the in-process and the end-to-end tests."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote_plus, urlsplit

REDIRECT_URI = "http://127.0.0.1:8765/callback"


@dataclass(frozen=True)
class Pkce:
    verifier: str
    challenge: str

    @classmethod
    def new(cls) -> Pkce:
        verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        return cls(verifier, base64.urlsafe_b64encode(digest).decode("ascii").rstrip("="))


def basic_auth(user: str, password: str = "") -> dict[str, str]:
    """An `Authorization: Basic` header as RFC 6749 §2.3.1 builds it (each part form-encoded)."""
    pair = f"{quote_plus(user)}:{quote_plus(password)}"
    return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def authorize_params(client_id: str, pkce: Pkce, **overrides: str | None) -> dict[str, str]:
    params: dict[str, str | None] = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "code_challenge": pkce.challenge,
        "code_challenge_method": "S256",
        "state": "xyz-state",
        "scope": "memo:read memo:write",
        **overrides,
    }
    return {name: value for name, value in params.items() if value is not None}


class RefreshingMeanwhile:
    """A real store whose next `times` transactions (None: every one) each find one connection
    refreshed just before them, through the real refresh on the same store: the client of a
    connection rotating its tokens while the person disconnects its app. Everything else is the
    store itself. `tokens` is the connection's latest token response (access and refresh)."""

    def __init__(self, items: Any, tokens: dict[str, str], client_id: str, instance: str, times: int | None) -> None:
        self.items, self.tokens, self.client_id, self.instance, self.times = items, tokens, client_id, instance, times

    def transact(self, ops: Any) -> None:
        from mesq.auth.oauth.grants import refresh

        if self.times is None or self.times > 0:
            self.times = None if self.times is None else self.times - 1
            issued = refresh(self.items, refresh_token=self.tokens["refresh_token"], client_id=self.client_id,
                             scope=None, resource=None, instance=self.instance)  # fmt: skip
            self.tokens = {"access_token": issued.access_token, "refresh_token": issued.refresh_token}
        self.items.transact(ops)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.items, name)
