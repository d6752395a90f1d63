"""In-process OAuth fixtures: the local app (TestClient, instance http://testserver), a client
registered over RFC 7591, and codes approved through the consent interface (`decide`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from mesq.auth.oauth.authorization import decide
from mesq.auth.users import create_user
from mesq.wiring.services import Services
from tests.oauth.helpers import REDIRECT_URI, Pkce, authorize_params, query_of

INSTANCE = "http://testserver"


@dataclass
class Flow:
    client: TestClient
    services: Services
    client_id: str
    user_id: str

    def authorize(self, pkce: Pkce, **overrides: str | None) -> httpx.Response:
        params = authorize_params(self.client_id, pkce, **overrides)
        return self.client.get("/oauth/authorize", params=params, follow_redirects=False)

    def approve(self, response: httpx.Response, approve: bool = True) -> dict[str, str]:
        assert response.status_code == 302, response.text
        location = response.headers["location"]
        assert location.startswith(f"{INSTANCE}/oauth/consent?request="), location
        url = decide(self.services.items, self.user_id, query_of(location)["request"], approve)
        return query_of(url)

    def code(self, pkce: Pkce, **overrides: str | None) -> str:
        return self.approve(self.authorize(pkce, **overrides))["code"]

    def token(self, **form: str) -> httpx.Response:
        return self.client.post("/oauth/token", data={"client_id": self.client_id, **form})

    def exchange(self, code: str, pkce: Pkce, **extra: str) -> httpx.Response:
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI}
        return self.token(**{**form, "code_verifier": pkce.verifier, **extra})

    def tokens(self, pkce: Pkce | None = None, **overrides: str | None) -> dict[str, Any]:
        pkce = pkce or Pkce.new()
        response = self.exchange(self.code(pkce, **overrides), pkce)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture
def register(client: TestClient) -> Callable[..., dict[str, Any]]:
    def make(**metadata: Any) -> dict[str, Any]:
        body = {"client_name": "Test Agent", "redirect_uris": [REDIRECT_URI], **metadata}
        response = client.post("/oauth/register", json=body)
        assert response.status_code == 201, response.text
        registered: dict[str, Any] = response.json()
        return registered

    return make


@pytest.fixture
def flow(client: TestClient, services: Services, register: Callable[..., dict[str, Any]]) -> Flow:
    user = create_user(services.items, "oauthuser", "correct horse battery")
    return Flow(client=client, services=services, client_id=register()["client_id"], user_id=user["id"])
