"""The home page, error pages for browsers, revoke confirmations with a notice afterwards, and
token status labels."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from mesq.asgi.app import starlette_app
from mesq.auth.tokens import create_token, record_key
from mesq.kernel.ports.storage import Update
from mesq.kernel.timestamps import format_timestamp, utc_now
from mesq.runtime.app_factories import create_oauth_app
from mesq.web import browser_error_page
from mesq.web.kit.i18n import Translator
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from ..conftest import Browser, grant_for

HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def test_unknown_url_is_a_page_for_browsers_and_json_for_clients(client: TestClient) -> None:
    page = client.get("/no/such/page", headers=HTML)
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "<h1>Not found</h1>" in page.text and "no page or route &#39;/no/such/page&#39;" in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    api = client.get("/no/such/page", headers={"Accept": "application/json"})
    assert api.status_code == 404 and api.json()["error"]["code"] == "NOT_FOUND"
    assert client.get("/no/such/page").json()["error"]["code"] == "NOT_FOUND"  # no Accept: an API client
    wrong_method = client.delete("/login", headers=HTML)
    assert wrong_method.status_code == 405 and wrong_method.headers["content-type"].startswith("text/html")
    static = client.get("/static/missing.css", headers=HTML)
    assert static.status_code == 404 and static.headers["content-type"].startswith("text/html")


def test_a_get_of_a_forms_post_url_goes_to_the_page_above_it(client: TestClient) -> None:
    """A reload after a post, a bookmarked or typed action URL: the page the form is on, not an
    error page saying "'/todos/tasks/ID/complete' 不允许 'GET'" (each was a 405 page before)."""
    pages = {
        "/todos/tasks/abc/complete": "/todos/tasks/abc",
        "/todos/subtasks/def/toggle": "/todos",
        "/todos/spaces": "/todos",
        "/todos/columns": "/todos",
        "/todos/trash/restore": "/todos/trash",
        "/todos/today/undo": "/todos/today",
        "/activity/undo": "/activity",
    }
    for path, above in pages.items():
        answer = client.get(path, headers=HTML, follow_redirects=False)
        assert (answer.status_code, answer.headers.get("location")) == (303, above), path
    # A program's POST-only path, and another method than GET, keep the 405.
    assert client.get("/api/toolkit/todo/tasks", headers=HTML).status_code != 303
    assert client.get("/oauth/token", headers=HTML, follow_redirects=False).status_code == 405
    assert client.delete("/todos/spaces", headers=HTML).status_code == 405
    assert client.get("/todos/spaces", follow_redirects=False).status_code == 405  # no Accept: a client, JSON


def test_every_page_links_the_favicon(client: TestClient, browser: Callable[..., Browser]) -> None:
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.startswith("<svg")
    link = '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'
    assert link in client.get("/login").text  # signed out
    assert link in client.get("/no/such/page", headers=HTML).text  # an error page
    ada = browser("ada")
    for path in ("/", "/todos", "/settings"):
        assert link in ada.get(path).text, path


def test_counts_say_their_noun_in_the_right_number() -> None:
    english, chinese = Translator("en"), Translator("zh")
    files = [english.ngettext("%(num)d file", "%(num)d files", n) for n in (0, 1, 2)]
    assert files == ["0 files", "1 file", "2 files"]
    assert chinese.ngettext("%(num)d file", "%(num)d files", 2) == "2 个文件"
    more = "and %(num)d more record in the same change", "and %(num)d more records in the same change"
    assert english.ngettext(*more, 3) == "and 3 more records in the same change"


def test_mcp_paths_keep_json(client: TestClient) -> None:
    answer = client.get("/mcp/x/memo/extra/path", headers=HTML)
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/json")


def test_the_oauth_function_shows_pages_too(services: Services) -> None:
    with TestClient(create_oauth_app(services)) as oauth_client:
        page = oauth_client.get("/nope", headers=HTML)
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")


def test_a_fault_is_a_page_with_only_the_trace_id(tmp_path) -> None:
    async def broken(request: object) -> Response:
        raise RuntimeError("secret internals")

    settings = inprocess_settings(data_dir=tmp_path)
    app = starlette_app([Route("/broken", broken)], settings, error_page=browser_error_page)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        page = test_client.get("/broken", headers=HTML)
        api = test_client.get("/broken")
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
    assert "Something went wrong" in page.text and "secret internals" not in page.text
    assert api.status_code == 500 and api.json()["error"]["code"] == "INTERNAL"
    assert "secret internals" not in api.text


def test_home_is_the_timeline_and_links_everywhere(browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    home = ada.get("/")
    assert home.status_code == 200
    assert "Memos" in home.text and ">ada</a>" in home.text
    for link in ('href="/settings"', 'href="/trash"', 'action="/logout"'):
        assert link in home.text
    settings = ada.get("/settings").text  # the settings pages: one header entry, then its menu
    for link in ('href="/settings/tokens"', 'href="/settings/apps"', 'href="/trash"'):
        assert link in settings
    assert '<html lang="en">' in home.text and 'lang="zh-Hans"' not in home.text  # one language at a time


def test_signed_out_home_redirects(new_client: Callable[[], TestClient], browser: Callable[..., Browser]) -> None:
    fresh = new_client()
    assert fresh.get("/", follow_redirects=False).headers["location"] == "/setup"
    browser("ada")
    assert fresh.get("/", follow_redirects=False).headers["location"] == "/login"


def test_revoking_a_token_asks_then_says_so(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    _, token = create_token(services.items, ada.user_id, name="我的笔记本", scopes="memo:read")
    listing = ada.get("/settings/tokens")
    assert f'href="/settings/tokens/{token["id"]}/revoke"' in listing.text  # a link to a confirmation, not a POST
    confirm = ada.get(f"/settings/tokens/{token['id']}/revoke")
    assert confirm.status_code == 200 and "Revoke this token?" in confirm.text and "我的笔记本" in confirm.text
    assert f'action="/settings/tokens/{token["id"]}/revoke"' in confirm.text and ada.csrf in confirm.text
    assert ada.get("/settings/tokens").text.count("revoked") == 0  # looking at it changed nothing
    done = ada.post(f"/settings/tokens/{token['id']}/revoke")
    assert done.status_code == 303 and done.headers["location"] == "/settings/tokens"
    after = ada.get("/settings/tokens")
    assert "Token “我的笔记本” revoked" in after.text and 'class="flash"' in after.text
    assert "Token “我的笔记本” revoked" not in ada.get("/settings/tokens").text  # shown once
    again = ada.get(f"/settings/tokens/{token['id']}/revoke", follow_redirects=True)
    assert "was revoked already" in again.text


def test_another_users_token_cannot_be_confirmed(services: Services, browser: Callable[..., Browser]) -> None:
    ada, bob = browser("ada"), browser("bob")
    _, token = create_token(services.items, ada.user_id, name="ada's", scopes="memo:read")
    assert bob.get(f"/settings/tokens/{token['id']}/revoke").status_code == 404
    assert bob.post(f"/settings/tokens/{token['id']}/revoke").status_code == 404


def test_revoking_an_app_asks_then_says_so(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    grant_for(services, ada)
    listing = ada.get("/settings/apps")
    grant_id = listing.text.split('data-grant-id="')[1].split('"')[0]
    assert f'href="/settings/apps/{grant_id}/revoke"' in listing.text
    confirm = ada.get(f"/settings/apps/{grant_id}/revoke")
    assert confirm.status_code == 200 and "Disconnect" in confirm.text and "Test Agent" in confirm.text
    assert browser("bob").get(f"/settings/apps/{grant_id}/revoke").status_code == 404
    done = ada.post(f"/settings/apps/{grant_id}/revoke")
    assert done.status_code == 303
    after = ada.get("/settings/apps")
    assert "“Test Agent” disconnected" in after.text and "No connected apps" in after.text
    assert ada.get(f"/settings/apps/{grant_id}/revoke").status_code == 404


def test_expired_tokens_are_labelled(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    _, live = create_token(services.items, ada.user_id, name="live", scopes="memo:read", expires_days=365)
    _, old = create_token(services.items, ada.user_id, name="old", scopes="memo:read", expires_days=1)
    # The page judges expiry by its clock (the test clock, early 2038): this one ended years ago,
    # the live one ends 30 years from now.
    for token, days in ((old, -3650), (live, 30 * 365)):
        services.items.update(
            Update(
                key=record_key(ada.user_id, token["id"]),
                set={"expiresAt": format_timestamp(utc_now() + timedelta(days=days))},
            )
        )
    page = ada.get("/settings/tokens").text
    live_row = page.split(f'data-token-id="{live["id"]}"')[1].split("</tr>")[0]
    old_row = page.split(f'data-token-id="{old["id"]}"')[1].split("</tr>")[0]
    assert "status-active" in live_row and "Active" in live_row
    assert "status-expired" in old_row and "Expired" in old_row and "Revoke" in old_row
