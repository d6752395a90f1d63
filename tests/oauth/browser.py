"""A person in a browser, driven over plain HTTP: O2's /login form and consent API
(OAUTH_WEB.md): sign in with `username` / `password` / hidden `csrf`, then
`POST /api/oauth/consent` with the session cookie and its CSRF token."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.conftest import LiveServer, start_server, stop_server

_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def hidden_fields(page: str) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in _HIDDEN.findall(page)}


class Browser:
    def __init__(self, base_url: str, username: str, password: str) -> None:
        self.base_url = base_url
        self.http = httpx.Client(base_url=base_url, follow_redirects=False, timeout=30)
        self.username = username
        self.password = password

    def close(self) -> None:
        self.http.close()

    def _follow(self, url: str) -> httpx.Response:
        response = self.http.get(url)
        while response.status_code in (302, 303):
            location = response.headers["location"]
            if "/login" in location and "csrf" not in location:
                response = self._sign_in(location)
            else:
                response = self.http.get(location)
        return response

    def _sign_in(self, login_url: str) -> httpx.Response:
        form = self.http.get(login_url)
        assert form.status_code == 200, form.text
        fields = {**hidden_fields(form.text), "username": self.username, "password": self.password}
        assert "csrf" in fields, form.text
        signed_in = self.http.post("/login", data=fields, headers={"Origin": self.base_url})
        assert signed_in.status_code in (302, 303), signed_in.text
        return signed_in

    def decide(self, consent_url: str, approve: bool) -> str:
        """Open the consent page (signing in first when asked), answer it; the redirect URL."""
        page = self._follow(consent_url)
        assert page.status_code == 200, page.text
        assert "Approve" in page.text and "Deny" in page.text
        fields = hidden_fields(page.text)
        answer = self.http.post(
            "/api/oauth/consent",
            json={"requestId": fields["requestId"], "decision": "approve" if approve else "deny"},
            headers={"X-CSRF-Token": fields["csrf"], "Origin": self.base_url},
        )
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["ok"] is True
        url: str = body["redirectUrl"]
        return url


PASSWORD = "correct horse battery"


def oauth_server(data_dir: Path) -> Iterator[LiveServer]:
    """A real `mesq serve` that admits loopback CIMD client_ids, with the relaxed rate-limit
    profile (every test client shares 127.0.0.1), and `alice`, who signs in with `PASSWORD`."""
    live = start_server(data_dir, {"MESQ_OAUTH_CIMD_ALLOW_LOOPBACK": "true", "MCP_RATE_LIMIT_PROFILE": "relaxed"})
    created = live.cli_here("user", "create", "alice", "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    yield live
    stop_server(live)
