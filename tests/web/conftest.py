"""Browser-page helpers: the web routes in a TestClient over https (Secure cookies come back),
a clock the tests move, accounts that sign in through the real login form, and OAuth pending
requests/grants made with the authorization server's own domain functions."""

from __future__ import annotations

import base64
import hashlib
import itertools
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.asgi.app import starlette_app
from mesq.auth.oauth.authorization import create_pending
from mesq.auth.oauth.clients import ClientMetadata, register_client, registered_client
from mesq.auth.oauth.grants import exchange_code
from mesq.auth.users import create_user
from mesq.kernel.context import Call, Principal
from mesq.memos.writes import create_memo, delete_memo
from mesq.web import ThrottlePolicy, web_routes
from mesq.wiring.services import Services

from ..conftest import LiveServer, start_server, stop_server

BASE = "https://testserver"
PASSWORD = "correct horse battery"
POLICY = ThrottlePolicy(free_per_account_ip=3, free_per_ip=10, first_delay_seconds=60, max_delay_seconds=3600)
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
REDIRECT_URI = "http://127.0.0.1:9999/callback"


#: 2038-01-15 08:00 UTC, a Friday: a driven clock's start far ahead of the real clock on purpose.
#: What code writes with a driven clock (a session's or a counter's `ttl`, an expiry) the store
#: judges by the real one, so a day the real clock has passed would expire it on write (the pages'
#: clock stood at 2027-01-15).
FAR_AHEAD = 2_147_155_200.0


class FakeClock:
    def __init__(self, now: float = FAR_AHEAD) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, "no csrf field on the page"
    return found.group(1)


@dataclass
class Browser:
    """A TestClient with its own cookie jar, signed in as one user."""

    client: TestClient
    user_id: str
    username: str
    csrf: str = ""
    cookies: dict[str, str] = field(default_factory=dict)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.client.get(path, **kwargs)

    def post(self, path: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        form = {"csrf": self.csrf, **(data or {})}
        return self.client.post(path, data=form, follow_redirects=False, **kwargs)


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LiveServer]:
    """A real `mesq serve` subprocess (for the Chromium tests): the test's own, or in a module
    marked `shared_server` the module's one server (`module_server`)."""
    if request.node.get_closest_marker("shared_server") is not None:
        yield request.getfixturevalue("module_server")
        return
    live = start_server(tmp_path / "live")
    yield live
    stop_server(live)


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real `mesq serve` for a whole test module (in each xdist worker that runs its tests),
    for modules whose tests each sign in as an account of their own: a server start is ~1.2
    CPU-seconds and seconds of waiting, and the first AI search on it loads the model again."""
    live = start_server(tmp_path_factory.mktemp("module-server") / "live")
    yield live
    stop_server(live)


_USERNAMES = itertools.count(1)


def fresh_username(prefix: str) -> str:
    """A username no other test of this process has taken: tests on a shared server each sign
    in as an account of their own."""
    return f"{prefix}{next(_USERNAMES)}"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def web_app(services: Services, clock: FakeClock) -> Any:
    return starlette_app(web_routes(services, clock=clock, throttle=POLICY), services.settings)


@pytest.fixture
def new_client(web_app: Any) -> Iterator[Callable[..., TestClient]]:
    made: list[TestClient] = []

    def make(address: str = "testclient") -> TestClient:
        """A browser at client IP `address` (TestClient's own is `testclient`)."""
        client = TestClient(web_app, base_url=BASE, raise_server_exceptions=False, client=(address, 50000))
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def sign_in(client: TestClient, username: str, password: str = PASSWORD, next_path: str | None = None) -> Any:
    page = client.get("/login" + (f"?next={next_path}" if next_path else ""))
    form = {"csrf": csrf_of(page.text), "username": username, "password": password}
    if next_path:
        form["next"] = next_path
    return client.post("/login", data=form, follow_redirects=False)


@pytest.fixture
def browser(services: Services, new_client: Callable[[], TestClient]) -> Callable[..., Browser]:
    counter = iter(range(1, 1000))

    def make(username: str | None = None) -> Browser:
        name = username or f"person{next(counter)}"
        user = create_user(services.items, name, PASSWORD)
        client = new_client()
        answer = sign_in(client, name)
        assert answer.status_code == 303, answer.text
        page = client.get("/settings/tokens")
        assert page.status_code == 200
        return Browser(client=client, user_id=user["id"], username=name, csrf=csrf_of(page.text))

    return make


def memo_call(services: Services, user_id: str) -> Call:
    principal = Principal(user_id=user_id, scopes=frozenset({"memo:read", "memo:write"}), credential_id="t", kind="pat")
    return Call(principal=principal, services=services, trace_id="test", channel="api")


def trashed_memo(services: Services, user_id: str, content: str = "old note #work") -> dict[str, Any]:
    call = memo_call(services, user_id)
    memo = create_memo(call, {"content": content})["memo"]
    return delete_memo(call, {"id": memo["id"], "expectedRevision": memo["revision"]})["memo"]


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


@dataclass(frozen=True)
class PendingRequest:
    request_id: str
    client_id: str
    verifier: str


def pending_request(
    services: Services,
    *,
    state: str | None = "st-123",
    scopes: str = "memo:read",
    resource: str = f"{BASE}/mcp",
    client_name: str | None = "Test Agent",
) -> PendingRequest:
    """`client_name=None`: a client that registered without a name (RFC 7591 makes it optional)."""
    registered = register_client(services.items, ClientMetadata(redirect_uris=(REDIRECT_URI,), client_name=client_name))
    client = registered_client(services.items, registered["client_id"])
    assert client is not None
    verifier = secrets.token_urlsafe(40)
    request_id = create_pending(
        services.items,
        client=client,
        redirect_uri=REDIRECT_URI,
        redirect_uri_given=True,
        scopes=frozenset(scopes.split()),
        resource=resource,
        state=state,
        code_challenge=s256(verifier),
        issuer=BASE,
    )
    return PendingRequest(request_id, client.client_id, verifier)


def grant_for(
    services: Services, browser: Browser, resource: str = f"{BASE}/mcp", client_name: str | None = "Test Agent"
) -> str:
    """Approve a consent as `browser` and exchange the code: one OAuth grant (for `resource`);
    returns its access token."""
    pending = pending_request(services, resource=resource, client_name=client_name)
    answer = browser.client.post(
        "/api/oauth/consent",
        json={"requestId": pending.request_id, "decision": "approve"},
        headers={"X-CSRF-Token": browser.csrf},
    )
    assert answer.status_code == 200, answer.text
    code = re.search(r"[?&]code=([^&]+)", answer.json()["redirectUrl"])
    assert code
    tokens = exchange_code(
        services.items, code=code.group(1), client_id=pending.client_id, redirect_uri=REDIRECT_URI,
        code_verifier=pending.verifier, resource=None, instance=BASE,
    )  # fmt: skip
    return tokens.access_token
