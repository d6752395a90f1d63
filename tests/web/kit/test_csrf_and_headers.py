"""CSRF on every cookie-authenticated POST, the Origin check, security headers, no leaked faults."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mesq.application.invocation import REGISTRY
from mesq.auth.tokens import list_tokens
from mesq.memos import store
from mesq.wiring.services import Services

from ..conftest import Browser, trashed_memo

PAGES = ["/settings/tokens", "/settings/apps", "/trash", "/login", "/setup", "/trash/empty"]


def _posts(memo_id: str, revision: int) -> list[tuple[str, dict[str, object]]]:
    return [
        ("/logout", {}),
        ("/settings/tokens", {"name": "x", "scopes": "memo:read"}),
        ("/settings/tokens/abc/revoke", {}),
        ("/settings/apps/abc/revoke", {}),
        (f"/trash/{memo_id}/restore", {"revision": str(revision)}),
        (f"/trash/{memo_id}/delete", {"revision": str(revision)}),
        ("/trash/empty", {"confirm": "yes"}),
        ("/api/oauth/consent", {"requestId": "abc", "decision": "deny"}),
    ]


@pytest.mark.parametrize("token", [None, "", "wrong-token"])
def test_every_post_needs_the_sessions_csrf_token(services: Services, browser: Callable[..., Browser], token) -> None:
    person = browser()
    memo = trashed_memo(services, person.user_id)
    for path, form in _posts(memo["id"], memo["revision"]):
        data = dict(form) if token is None else {**form, "csrf": token}
        answer = person.client.post(path, data=data, follow_redirects=False)
        assert answer.status_code == 403, (path, answer.status_code)
    assert store.read_memo(services.items, person.user_id, memo["id"])["status"] == "DELETED"
    assert list_tokens(services.items, person.user_id) == []
    assert person.get("/settings/tokens").status_code == 200  # logout did not happen either


def test_another_sessions_csrf_token_is_refused(services: Services, browser: Callable[..., Browser]) -> None:
    alice, bob = browser(), browser()
    memo = trashed_memo(services, alice.user_id)
    answer = alice.client.post(
        f"/trash/{memo['id']}/delete", data={"csrf": bob.csrf, "revision": str(memo["revision"])}
    )
    assert answer.status_code == 403
    assert store.read_memo(services.items, alice.user_id, memo["id"]) is not None


def test_cross_site_origin_is_refused_even_with_a_token(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    memo = trashed_memo(services, person.user_id)
    answer = person.post(
        f"/trash/{memo['id']}/delete", {"revision": str(memo["revision"])}, headers={"Origin": "https://evil.example"}
    )
    assert answer.status_code == 403
    same = person.post(
        f"/trash/{memo['id']}/restore", {"revision": str(memo["revision"])}, headers={"Origin": "https://testserver"}
    )
    assert same.status_code == 303


def test_pages_carry_security_headers(browser: Callable[..., Browser], new_client) -> None:
    person = browser()
    for path in PAGES:
        answer = person.get(path)
        headers = answer.headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY"
        assert headers["cache-control"] == "no-store"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
    anonymous = new_client().get("/login")
    assert anonymous.headers["x-frame-options"] == "DENY"


def test_faults_show_only_a_trace_id(services: Services, browser: Callable[..., Browser], monkeypatch) -> None:
    person = browser()

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals: /etc/shadow")

    monkeypatch.setitem(REGISTRY, "list_memos", explode)  # /trash lists through Page.invoke
    answer = person.get("/trash")
    assert answer.status_code == 500
    assert "secret internals" not in answer.text and "RuntimeError" not in answer.text
    assert "trace" in answer.text
    monkeypatch.setattr("mesq.web.settings.consent.decide", explode)
    api = person.client.post(
        "/api/oauth/consent", json={"requestId": "r", "decision": "deny"}, headers={"X-CSRF-Token": person.csrf}
    )
    assert api.status_code == 500 and "secret internals" not in api.text
    assert api.json()["error"]["code"] == "INTERNAL"


def test_unknown_memo_ids_and_html_are_escaped(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    trashed_memo(services, person.user_id, "<script>alert(1)</script>")
    page = person.get("/trash").text
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_fetch_metadata_cross_site_is_refused(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    memo = trashed_memo(services, person.user_id)
    for site in ("cross-site", "same-site", "none"):
        answer = person.post(
            f"/trash/{memo['id']}/delete", {"revision": str(memo["revision"])}, headers={"Sec-Fetch-Site": site}
        )
        assert answer.status_code == 403, site
    assert store.read_memo(services.items, person.user_id, memo["id"]) is not None
    ok = person.post(
        f"/trash/{memo['id']}/restore", {"revision": str(memo["revision"])}, headers={"Sec-Fetch-Site": "same-origin"}
    )
    assert ok.status_code == 303
