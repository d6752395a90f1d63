"""Settings -> Access credentials: create (shown once), list, revoke; tenant isolation."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from mesq.auth.tokens import authenticate_token, list_tokens
from mesq.kernel.errors import Unauthorized
from mesq.wiring.services import Services

from ..conftest import Browser

TOKEN = re.compile(r"mesq_pat_[A-Za-z0-9_-]{43}")


def _create(person: Browser, **form: object):
    data = {"name": "Shortcuts", "scopes": ["memo:read", "memo:write"], "expiry": "30", **form}
    return person.post("/settings/tokens", data)


def test_token_is_shown_exactly_once_and_works(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    created = _create(person)
    assert created.status_code == 303 and created.headers["location"] == "/settings/tokens"
    assert not TOKEN.search(created.text)
    page = person.get("/settings/tokens")
    shown = TOKEN.findall(page.text)
    assert len(shown) == 1
    assert "shown only this once" in page.text
    principal = authenticate_token(services.items, shown[0])
    assert principal.user_id == person.user_id and principal.scopes == {"memo:read", "memo:write"}
    again = person.get("/settings/tokens")  # a reload: the secret is gone for good
    assert not TOKEN.search(again.text)
    assert "Shortcuts" in again.text
    stored = repr(services.items.query(f"U#{person.user_id}", prefix="PAT#").items)
    assert shown[0] not in stored  # only its hash is kept


def test_list_shows_created_last_used_and_expiry(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    _create(person, name="with expiry", expiry="7")
    token = TOKEN.findall(person.get("/settings/tokens").text)[0]
    _create(person, name="forever", expiry="", scopes="todo:read")
    page = person.get("/settings/tokens").text
    row = page[page.index("with expiry") :]
    assert "never" in row.split("</tr>")[0]  # not used yet
    authenticate_token(services.items, token)
    page = person.get("/settings/tokens").text
    records = {t["name"]: t for t in list_tokens(services.items, person.user_id)}
    used_row = page[page.index("with expiry") :].split("</tr>")[0]
    assert records["with expiry"]["lastUsedAt"][:10] in used_row
    assert records["with expiry"]["expiresAt"][:10] in used_row
    forever_row = page[page.index(">forever<") :].split("</tr>")[0]
    assert forever_row.count("never") == 2 and "todo:read" in forever_row


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"scopes": []}, "choose at least one scope"),
        ({"name": "   "}, "token name must be"),
        ({"expiry": "0"}, "expiry must be"),
        ({"expiry": "abc"}, "expiry must be"),
        ({"expiry": "²"}, "expiry must be"),  # str.isdigit() says yes, int() refuses it: was a 500
        ({"expiry": "٣٠"}, "expiry must be"),  # Arabic-Indic digits: only 0-9 are a number of days
        ({"scopes": ["memo:delete"]}, "unknown scope"),
        ({"name": "laptop\u202egpj"}, "found U+202E"),  # a bidi override: reads as "laptopjpg"
        ({"name": "a\x00b"}, "found U+0000"),  # was stored and shown as it is
        ({"name": "two\nlines"}, "token name must not contain control or format characters"),
    ],
)
def test_invalid_token_forms_are_refused_clearly(services: Services, browser, form, message) -> None:
    person = browser()
    answer = _create(person, **form)
    assert answer.status_code == 400 and message in answer.text
    assert list_tokens(services.items, person.user_id) == []


def test_revoke_stops_the_token(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    _create(person)
    token = TOKEN.findall(person.get("/settings/tokens").text)[0]
    token_id = list_tokens(services.items, person.user_id)[0]["id"]
    answer = person.post(f"/settings/tokens/{token_id}/revoke")
    assert answer.status_code == 303
    with pytest.raises(Unauthorized):
        authenticate_token(services.items, token)
    page = person.get("/settings/tokens").text
    assert "revoked" in page and f"/settings/tokens/{token_id}/revoke" not in page


def test_user_cannot_revoke_another_users_token(services: Services, browser: Callable[..., Browser]) -> None:
    alice, bob = browser(), browser()
    _create(bob)
    bobs_token = TOKEN.findall(bob.get("/settings/tokens").text)[0]
    bobs_id = list_tokens(services.items, bob.user_id)[0]["id"]
    answer = alice.post(f"/settings/tokens/{bobs_id}/revoke")
    assert answer.status_code == 404
    assert authenticate_token(services.items, bobs_token).user_id == bob.user_id
    assert bobs_id not in alice.get("/settings/tokens").text


def test_flash_cookie_of_another_user_is_not_shown(services: Services, browser: Callable[..., Browser]) -> None:
    alice, bob = browser(), browser()
    _create(bob)
    flash = bob.client.cookies.get("__Host-mesq_new_token")
    assert flash
    alice.client.cookies.set("__Host-mesq_new_token", flash)
    assert not TOKEN.search(alice.get("/settings/tokens").text)
