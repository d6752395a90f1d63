"""First-run set-up, sign-in, sessions (cookie flags, server-side logout, expiry) and throttling."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from mesq.asgi.app import starlette_app
from mesq.auth.users import SetupAlreadyDone, any_user_exists, create_user, find_user_by_name
from mesq.kernel.errors import NotFound
from mesq.web import web_routes
from mesq.web.kit.sessions import ABSOLUTE_SECONDS, IDLE_SECONDS
from mesq.wiring.services import Services

from ..conftest import PASSWORD, POLICY, Browser, FakeClock, csrf_of, sign_in


def _setup(client: TestClient, username: str = "admin", password: str = PASSWORD, confirm: str | None = None):
    page = client.get("/setup")
    assert page.status_code == 200
    form = {"csrf": csrf_of(page.text), "username": username, "password": password, "confirm": confirm or password}
    return client.post("/setup", data=form, follow_redirects=False)


def test_setup_creates_the_admin_once_and_then_is_gone(
    services: Services, new_client: Callable[[], TestClient]
) -> None:
    first = new_client()
    assert first.get("/", follow_redirects=False).headers["location"] == "/setup"
    answer = _setup(first)
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    assert find_user_by_name(services.items, "admin")["admin"] is True
    assert first.get("/settings/tokens").status_code == 200  # signed in by the set-up

    second = new_client()
    closed = second.get("/setup", follow_redirects=False)
    assert closed.status_code == 303 and closed.headers["location"] == "/login"
    hijack = second.post(
        "/setup",
        data={"csrf": "x", "username": "evil", "password": PASSWORD, "confirm": PASSWORD},
        follow_redirects=False,
    )
    assert hijack.status_code == 303 and hijack.headers["location"] == "/login"
    with pytest.raises(NotFound):
        find_user_by_name(services.items, "evil")
    assert second.get("/", follow_redirects=False).headers["location"] == "/login"


def test_setup_is_closed_when_a_user_was_made_with_the_cli(
    services: Services, new_client: Callable[[], TestClient]
) -> None:
    create_user(services.items, "someone", PASSWORD)
    assert any_user_exists(services.items)
    closed = new_client().get("/setup", follow_redirects=False)
    assert closed.status_code == 303 and closed.headers["location"] == "/login"


def test_first_user_claim_is_atomic(services: Services) -> None:
    create_user(services.items, "first", PASSWORD, admin=True, first_user=True)
    with pytest.raises(SetupAlreadyDone):
        create_user(services.items, "second", PASSWORD, admin=True, first_user=True)
    with pytest.raises(NotFound):
        find_user_by_name(services.items, "second")  # nothing half-written


def test_setup_validation_keeps_the_page(new_client: Callable[[], TestClient]) -> None:
    client = new_client()
    mismatch = _setup(client, confirm="something else entirely")
    assert mismatch.status_code == 400 and "do not match" in mismatch.text
    short = _setup(client, password="short", confirm="short")
    assert short.status_code == 400 and "password must be" in short.text
    assert client.get("/setup").status_code == 200  # still open: nothing was created


def test_login_success_goes_to_next_and_failure_says_so(
    services: Services, new_client: Callable[[], TestClient]
) -> None:
    create_user(services.items, "alice", PASSWORD)
    client = new_client()
    assert client.get("/trash", follow_redirects=False).headers["location"] == "/login?next=%2Ftrash"
    wrong = sign_in(client, "alice", "not the password")
    assert wrong.status_code == 401 and "Wrong username or password" in wrong.text
    unknown = sign_in(client, "nobody", PASSWORD)
    assert unknown.status_code == 401 and "Wrong username or password" in unknown.text
    assert client.get("/trash", follow_redirects=False).status_code == 303
    ok = sign_in(client, "alice", next_path="/trash")
    assert ok.status_code == 303 and ok.headers["location"] == "/trash"
    assert client.get("/trash").status_code == 200


@pytest.mark.parametrize(
    "target", ["//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"]
)
def test_login_never_redirects_off_site(services: Services, new_client: Callable[[], TestClient], target: str) -> None:
    create_user(services.items, "bob", PASSWORD)
    client = new_client()
    answer = sign_in(client, "bob", next_path=target)
    assert answer.status_code == 303 and answer.headers["location"] == "/"


def test_login_form_needs_its_csrf_cookie(services: Services, new_client: Callable[[], TestClient]) -> None:
    create_user(services.items, "carol", PASSWORD)
    client = new_client()
    csrf = csrf_of(client.get("/login").text)
    stranger = new_client()  # has no login cookie: a cross-site login attempt
    forged = stranger.post("/login", data={"csrf": csrf, "username": "carol", "password": PASSWORD})
    assert forged.status_code == 403
    missing = client.post("/login", data={"username": "carol", "password": PASSWORD})
    assert missing.status_code == 403
    # The refusal is a sentence on its own: capitalized in English, translated in Chinese.
    english = stranger.post("/login", data={"csrf": csrf}, headers={"accept-language": "en-US"})
    assert "The sign-in form is out of date or your browser did not keep its cookie" in english.text
    chinese = stranger.post("/login", data={"csrf": csrf}, headers={"accept-language": "zh-CN"})
    assert "登录表单已过期" in chinese.text


def _set_cookie(response, name: str) -> str:
    for header in response.headers.get_list("set-cookie"):
        if header.startswith(name + "="):
            return header
    raise AssertionError(f"no Set-Cookie for {name}: {response.headers.get_list('set-cookie')}")


def test_session_cookie_flags(services: Services, new_client: Callable[[], TestClient]) -> None:
    create_user(services.items, "dave", PASSWORD)
    answer = sign_in(new_client(), "dave")
    cookie = _set_cookie(answer, "__Host-mesq_session").lower()
    for flag in ("httponly", "secure", "samesite=lax", "path=/"):
        assert flag in cookie
    assert "domain=" not in cookie


def test_plain_http_loopback_instance_gets_a_usable_non_secure_cookie(services: Services, clock: FakeClock) -> None:
    local = services.__class__(
        settings=services.settings.with_overrides(public_url="http://127.0.0.1:8787"),
        items=services.items,
        blobs=services.blobs,
    )
    create_user(local.items, "erin", PASSWORD)
    app = starlette_app(web_routes(local, clock=clock, throttle=POLICY), local.settings)
    with TestClient(app, base_url="http://127.0.0.1:8787") as client:
        answer = sign_in(client, "erin")
        cookie = _set_cookie(answer, "mesq_session").lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
        assert client.get("/settings/tokens").status_code == 200


def test_session_is_stored_only_as_a_hash(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    session_id = person.client.cookies.get("__Host-mesq_session")
    assert session_id
    digest = hashlib.sha256(session_id.encode()).hexdigest()
    item = services.items.get((f"WEBSESSION#{digest}", "SESSION"))
    assert item is not None and item["userId"] == person.user_id
    assert session_id not in repr(item)
    assert item["ttl"] > 0


def test_logout_ends_the_session_on_the_server(services: Services, browser: Callable[..., Browser], new_client) -> None:
    person = browser()
    session_id = person.client.cookies.get("__Host-mesq_session")
    answer = person.post("/logout")
    assert answer.status_code == 303 and answer.headers["location"] == "/login"
    digest = hashlib.sha256(session_id.encode()).hexdigest()
    assert services.items.get((f"WEBSESSION#{digest}", "SESSION")) is None
    # A copy of the old cookie (kept by an attacker, or a browser that ignored the deletion) is worthless.
    replay = new_client()
    replay.cookies.set("__Host-mesq_session", session_id)
    assert replay.get("/settings/tokens", follow_redirects=False).status_code == 303
    assert (
        replay.post("/settings/tokens", data={"csrf": person.csrf, "name": "x", "scopes": "memo:read"}).status_code
        == 401
    )


def test_logout_needs_csrf(browser: Callable[..., Browser]) -> None:
    person = browser()
    assert person.client.post("/logout", follow_redirects=False).status_code == 403
    assert person.client.post("/logout", data={"csrf": "forged"}, follow_redirects=False).status_code == 403
    assert person.get("/settings/tokens").status_code == 200  # still signed in


def test_signing_out_a_tab_that_is_signed_out_already_lands_on_sign_in(browser: Callable[..., Browser]) -> None:
    """Two tabs: Sign out in one, then in the other (or after a password change or expiry): the
    second landed on a 401 error page ("you are not signed in"), not on the sign-in page."""
    person = browser()
    assert person.post("/logout").headers["location"] == "/login"
    again = person.post("/logout")  # the other tab's form, its CSRF token with it
    assert again.status_code == 303 and again.headers["location"] == "/login"
    assert person.client.post("/logout", follow_redirects=False).headers["location"] == "/login"  # no token at all


def test_idle_and_absolute_expiry(browser: Callable[..., Browser], clock: FakeClock) -> None:
    idle = browser()
    clock.advance(IDLE_SECONDS + 1)
    assert idle.get("/settings/tokens", follow_redirects=False).status_code == 303

    busy = browser()
    for _ in range(ABSOLUTE_SECONDS // (IDLE_SECONDS - 3600) + 1):
        clock.advance(IDLE_SECONDS - 3600)  # used within the idle limit every time...
        if busy.get("/settings/tokens", follow_redirects=False).status_code != 200:
            break
    else:
        raise AssertionError("a session outlived its absolute limit")
    assert busy.get("/settings/tokens", follow_redirects=False).status_code == 303  # ...but it still ends


def test_guessing_at_an_account_does_not_lock_its_owner_out(services: Services, new_client, clock: FakeClock) -> None:
    create_user(services.items, "alice", PASSWORD)
    attacker = new_client("203.0.113.7")
    answers = [sign_in(attacker, "alice", f"guess {n}!").status_code for n in range(50)]
    # A few free failures, then the attacker's address waits (refused before any password check).
    assert answers[: POLICY.free_per_account_ip] == [401] * POLICY.free_per_account_ip
    assert set(answers[POLICY.free_per_account_ip :]) == {429}
    blocked = sign_in(attacker, "alice")  # even the right password, from the guessing address
    assert blocked.status_code == 429 and "Too many failed sign-in attempts" in blocked.text
    assert 1 <= int(blocked.headers["retry-after"]) <= POLICY.first_delay_seconds
    # The owner, from an address that has not failed, signs in at once.
    assert sign_in(new_client("198.51.100.20"), "alice").status_code == 303
    counters = services.items.query("LOGINFAIL#account-ip:alice|203.0.113.7")
    assert counters.items and all(item["ttl"] > clock() for item in counters.items)


def test_delays_grow_with_every_further_failure(services: Services, new_client, clock: FakeClock) -> None:
    create_user(services.items, "bob", PASSWORD)
    attacker = new_client("203.0.113.8")
    for _ in range(POLICY.free_per_account_ip):
        assert sign_in(attacker, "bob", "wrong password!").status_code == 401
    waits = []
    for _ in range(4):
        wait = int(sign_in(attacker, "bob", "wrong password!").headers["retry-after"])
        waits.append(wait)
        clock.advance(wait)  # the window passed: one more guess is heard...
        assert sign_in(attacker, "bob", "wrong password!").status_code == 401  # ...and doubles the next
    first = POLICY.first_delay_seconds
    assert waits == [first, 2 * first, 4 * first, 8 * first]
    clock.advance(POLICY.max_delay_seconds)
    assert sign_in(attacker, "bob").status_code == 303  # the right password once the window has passed
    assert services.items.query("LOGINFAIL#account-ip:bob|203.0.113.8").items == []  # success clears it


def test_spraying_many_usernames_from_one_address_is_delayed(services: Services, new_client) -> None:
    create_user(services.items, "heidi", PASSWORD)
    sprayer = new_client("203.0.113.9")
    for number in range(POLICY.free_per_ip):
        assert sign_in(sprayer, f"guess{number}", "wrong password!").status_code == 401
    assert sign_in(sprayer, "someone-else", "wrong password!").status_code == 429
    assert sign_in(sprayer, "heidi").status_code == 429  # the address waits, whatever the username
    assert sign_in(new_client("198.51.100.21"), "heidi").status_code == 303  # other addresses do not


def test_plain_http_on_a_lan_address_says_why_sign_in_cannot_work(services: Services, clock: FakeClock) -> None:
    create_user(services.items, "judy", PASSWORD)
    app = starlette_app(web_routes(services, clock=clock, throttle=POLICY), services.settings)
    with TestClient(app, base_url="http://192.168.1.20:8787") as client:
        page = client.get("/login")
        assert "plain HTTP" in page.text
        assert "secure" in _set_cookie(page, "__Host-mesq_login").lower()  # never sent in clear text...
        assert sign_in(client, "judy").status_code == 403  # ...so it does not come back, and nothing signs in
    with TestClient(app, base_url="https://192.168.1.20") as client:
        assert "plain HTTP" not in client.get("/login").text
