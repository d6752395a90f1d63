"""The consent page, POST /api/oauth/consent (deny and approve), and Settings -> Connected apps."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from mesq.auth.oauth.authorization import list_grants
from mesq.auth.oauth.connected_apps import disconnect_app, list_apps
from mesq.auth.oauth.grants import authenticate_access_token, exchange_code
from mesq.kernel.errors import MesqError
from mesq.wiring.services import Services
from tests.oauth.helpers import RefreshingMeanwhile

from ..conftest import BASE, PASSWORD, REDIRECT_URI, Browser, csrf_of, grant_for, pending_request, sign_in


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_consent_page_needs_sign_in_then_shows_the_request(services: Services, new_client, browser) -> None:
    pending = pending_request(services, scopes="memo:read todo:write")
    consent_url = f"/oauth/consent?request={pending.request_id}"
    anonymous = new_client()
    first = anonymous.get(consent_url, follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/login?next=" + quote(consent_url, safe="")
    person = browser()
    page = person.get(consent_url)
    assert page.status_code == 200
    assert "Test Agent" in page.text
    assert "Read your memos" in page.text and "Create and change todos" in page.text
    assert ">Approve" in page.text and ">Deny" in page.text
    assert "http://127.0.0.1:9999" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


def test_login_then_back_to_consent(services: Services, new_client) -> None:
    from mesq.auth.users import create_user

    create_user(services.items, "ivan", "correct horse battery")
    pending = pending_request(services)
    consent_url = f"/oauth/consent?request={pending.request_id}"
    client = new_client()
    answer = sign_in(client, "ivan", next_path=consent_url)
    assert answer.status_code == 303 and answer.headers["location"] == consent_url


def test_the_sign_in_before_consent_names_the_app_asking(services: Services, new_client) -> None:
    """An MCP host's "Connect" opens the authorization URL; a person not signed in landed on a
    bare sign-in form that said nothing of the app or of the approval after it. Now the form
    names the app (its own name, escaped, or MeSQ's words for an unnamed one) in the page's
    language, also when a wrong password shows the form again; any other sign-in stays as it was."""
    from mesq.auth.users import create_user

    create_user(services.items, "ivan", PASSWORD)
    pending = pending_request(services, client_name="Claude <b>")
    to_login = new_client().get(f"/oauth/consent?request={pending.request_id}", follow_redirects=False)
    login_url = to_login.headers["location"]
    en = new_client().get(login_url, headers={"Accept-Language": "en-US"})
    assert "<strong>Claude &lt;b&gt;</strong> asks to use your MeSQ: sign in, then approve or deny it." in en.text
    zh = new_client().get(login_url, headers={"Accept-Language": "zh-CN"})
    assert "<strong>Claude &lt;b&gt;</strong> 请求使用你的 MeSQ：请先登录，再选择允许或拒绝。" in zh.text
    client = new_client()
    form = client.get(login_url, headers={"Accept-Language": "zh-CN"})
    consent_url = f"/oauth/consent?request={pending.request_id}"
    wrong = client.post(
        "/login",
        data={"csrf": csrf_of(form.text), "username": "ivan", "password": "wrong one", "next": consent_url},
        headers={"Accept-Language": "zh-CN"},
    )
    assert wrong.status_code == 401 and "请求使用你的 MeSQ" in wrong.text
    unnamed = pending_request(services, client_name=None)
    page = new_client().get("/login?next=" + quote(f"/oauth/consent?request={unnamed.request_id}", safe=""))
    assert "asks to use your MeSQ" in page.text and "None" not in page.text
    for other in ("/login", "/login?next=%2Ftodos", "/login?next=" + quote("/oauth/consent?request=gone", safe="")):
        assert "asks to use your MeSQ" not in new_client().get(other).text


def test_first_run_set_up_then_back_to_consent(services: Services, new_client) -> None:
    """A person who runs MeSQ for the first time and connects an app right away has no account
    yet: sign-in sends them to the set-up, which must bring them back to the consent page too (it
    went to the memo timeline, and the app waited for a callback that never came)."""
    pending = pending_request(services)
    consent_url = f"/oauth/consent?request={pending.request_id}"
    client = new_client()
    to_login = client.get(consent_url, follow_redirects=False)
    to_setup = client.get(to_login.headers["location"], follow_redirects=False)
    assert to_setup.status_code == 303
    assert to_setup.headers["location"] == "/setup?next=" + quote(consent_url, safe="")
    form = client.get(to_setup.headers["location"])
    assert form.status_code == 200
    fields = {"csrf": csrf_of(form.text), "username": "first", "password": PASSWORD, "confirm": PASSWORD}
    hidden_next = f'<input type="hidden" name="next" value="{consent_url}">'
    assert hidden_next in form.text
    # The set-up says why it is there: the app waiting for the approval (the form said nothing of it).
    assert (
        "<strong>Test Agent</strong> asks to use your MeSQ: create the account, then approve or deny it." in form.text
    )
    zh = client.get(to_setup.headers["location"], headers={"Accept-Language": "zh-CN"})
    assert "<strong>Test Agent</strong> 请求使用你的 MeSQ：请先创建账户，再选择允许或拒绝。" in zh.text
    mismatch = client.post("/setup", data={**fields, "confirm": "another one", "next": consent_url})
    assert mismatch.status_code == 400 and "Test Agent</strong> asks to use your MeSQ" in mismatch.text
    fields["csrf"] = csrf_of(mismatch.text)
    created = client.post("/setup", data={**fields, "next": consent_url}, follow_redirects=False)
    assert created.status_code == 303 and created.headers["location"] == consent_url
    assert "Test Agent" in client.get(consent_url).text
    # Only a local path: anything else goes home, as after sign-in.
    assert new_client().get("/setup?next=//evil.example/x").text.count("evil.example") == 0


def test_setup_closed_sends_next_on_to_sign_in(services: Services, new_client) -> None:
    from mesq.auth.users import create_user

    create_user(services.items, "zoe", PASSWORD)
    closed = new_client().get("/setup?next=/oauth/consent%3Frequest%3Dabc", follow_redirects=False)
    assert closed.status_code == 303
    assert closed.headers["location"] == "/login?next=" + quote("/oauth/consent?request=abc", safe="")


def test_deny_returns_ok_with_access_denied_and_state(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    pending = pending_request(services, state="opaque state/with?chars")
    answer = person.client.post(
        "/api/oauth/consent",
        json={"requestId": pending.request_id, "decision": "deny"},
        headers={"X-CSRF-Token": person.csrf},
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["ok"] is True
    assert body["redirectUrl"].startswith(REDIRECT_URI + "?")
    query = _query(body["redirectUrl"])
    assert query["error"] == ["access_denied"]
    assert query["state"] == ["opaque state/with?chars"]
    assert "code" not in query
    assert answer.headers["cache-control"] == "no-store"
    # Answered once only.
    again = person.client.post(
        "/api/oauth/consent",
        json={"requestId": pending.request_id, "decision": "approve"},
        headers={"X-CSRF-Token": person.csrf},
    )
    assert again.status_code == 404 and again.json()["error"]["code"] == "NOT_FOUND"


def test_deny_without_state_and_as_a_form(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    pending = pending_request(services, state=None)
    answer = person.post("/api/oauth/consent", {"requestId": pending.request_id, "decision": "deny"})
    assert answer.status_code == 200
    query = _query(answer.json()["redirectUrl"])
    assert query["error"] == ["access_denied"] and "state" not in query


def test_approve_gives_code_state_and_iss(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    pending = pending_request(services)
    answer = person.post(
        "/api/oauth/consent", {"requestId": pending.request_id, "decision": "approve"}, headers={"Accept": "text/html"}
    )
    assert answer.status_code == 303  # a browser form post without script is sent on directly
    query = _query(answer.headers["location"])
    assert query["code"] and query["state"] == ["st-123"] and query["iss"] == [BASE]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"requestId": "nope", "decision": "deny"}, 404),
        ({"decision": "deny"}, 400),
        ({"requestId": "x", "decision": "maybe"}, 400),
        ({"requestId": "x", "decision": "deny", "extra": 1}, 400),
    ],
)
def test_bad_consent_answers(services: Services, browser, body, status) -> None:
    person = browser()
    answer = person.client.post("/api/oauth/consent", json=body, headers={"X-CSRF-Token": person.csrf})
    assert answer.status_code == status
    assert "error" in answer.json()


def test_consent_api_needs_a_session(services: Services, new_client) -> None:
    pending = pending_request(services)
    answer = new_client().post("/api/oauth/consent", json={"requestId": pending.request_id, "decision": "approve"})
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "UNAUTHORIZED"


def test_connected_apps_list_and_revoke(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    access = grant_for(services, person)
    assert authenticate_access_token(services.items, access, lambda resource: True).user_id == person.user_id
    grants = list_grants(services.items, person.user_id)
    assert len(grants) == 1
    page = person.get("/settings/apps")
    assert "Test Agent" in page.text and "Read your memos" in page.text
    answer = person.post(f"/settings/apps/{grants[0]['id']}/revoke")
    assert answer.status_code == 303
    assert list_grants(services.items, person.user_id) == []
    with pytest.raises(MesqError):
        authenticate_access_token(services.items, access, lambda resource: True)
    assert "No connected apps" in person.get("/settings/apps").text


def test_user_cannot_revoke_another_users_grant(services: Services, browser: Callable[..., Browser]) -> None:
    alice, bob = browser(), browser()
    access = grant_for(services, bob)
    bobs_grant = list_grants(services.items, bob.user_id)[0]["id"]
    assert "Test Agent" not in alice.get("/settings/apps").text
    assert alice.post(f"/settings/apps/{bobs_grant}/revoke").status_code == 404
    assert authenticate_access_token(services.items, access, lambda resource: True).user_id == bob.user_id


@pytest.mark.parametrize(
    ("language", "heading"),
    [
        ("en-US", 'Allow <bdi class="client">Test Agent</bdi> to use'),
        ("zh-CN", '允许 <bdi class="client">Test Agent</bdi> 使用'),
    ],
)
def test_the_client_name_is_isolated_on_every_page_that_shows_it(
    services: Services, browser: Callable[..., Browser], language: str, heading: str
) -> None:
    """A client names itself: its text must not reorder the page's own words around it (<bdi>,
    HTML's dir=auto isolate), whatever the language; registration refuses the controls inside it."""
    person = browser()
    pending = pending_request(services)
    headers = {"Accept-Language": language}
    page = person.get(f"/oauth/consent?request={pending.request_id}", headers=headers).text
    assert heading in page and "<strong><bdi>Test Agent</bdi></strong>" in page
    grant_for(services, person)
    assert "<bdi>Test Agent</bdi>" in person.get("/settings/apps", headers=headers).text
    grant_id = list_grants(services.items, person.user_id)[0]["id"]
    revoke = person.get(f"/settings/apps/{grant_id}/revoke", headers=headers).text
    assert '<bdi class="client">Test Agent</bdi>' in revoke


@pytest.mark.parametrize(
    ("language", "consent_words", "apps_words"),
    [
        ("en-US", "Where: MCP, only memos and todos, read-only", "MCP, only memos and todos, read-only"),
        ("zh-CN", "连接范围：MCP：仅限笔记和待办，只读", "MCP：仅限笔记和待办，只读"),
    ],
)
def test_consent_and_connected_apps_say_which_connection_a_grant_is_for(
    services: Services, browser: Callable[..., Browser], language: str, consent_words: str, apps_words: str
) -> None:
    """A person who approved a narrowed, read-only connection can tell it from one to everything,
    before approving and afterwards, in the page's language, with the URL beside the words."""
    person = browser()
    narrowed = f"{BASE}/mcp/x/memo,todo/readonly"
    headers = {"Accept-Language": language}
    pending = pending_request(services, resource=narrowed)
    consent = person.get(f"/oauth/consent?request={pending.request_id}", headers=headers).text
    assert f"{consent_words} <code>/mcp/x/memo,todo/readonly</code>" in consent
    grant_for(services, person, resource=narrowed)
    apps = person.get("/settings/apps", headers=headers).text
    assert f'{apps_words} <code class="wrap">/mcp/x/memo,todo/readonly</code>' in apps


@pytest.mark.parametrize(
    ("language", "unnamed", "other_language"),
    [("en-US", "Unnamed client", "未命名的应用"), ("zh-CN", "未命名的应用", "Unnamed client")],
)
def test_an_app_that_gave_no_name_is_named_in_the_pages_language(
    services: Services, browser: Callable[..., Browser], language: str, unnamed: str, other_language: str
) -> None:
    """RFC 7591 makes `client_name` optional, and a client that registers without one gets a name
    from MeSQ. That name is MeSQ's own words, so the consent page, Connected apps (the list, the
    revoke question and the note after it) and the activity page say it in the page's language:
    "Unnamed client" stood in English on every Chinese page."""
    from mesq.auth.oauth.grants import authenticate_access_token as principal_of
    from mesq.kernel.context import Call
    from mesq.memos.writes import create_memo

    person = browser()
    headers = {"Accept-Language": language}
    pending = pending_request(services, client_name=None)
    consent = person.get(f"/oauth/consent?request={pending.request_id}", headers=headers).text
    assert f'<bdi class="client">{unnamed}</bdi>' in consent and other_language not in consent
    access = grant_for(services, person, client_name=None)
    apps = person.get("/settings/apps", headers=headers).text
    assert f"<bdi>{unnamed}</bdi>" in apps and other_language not in apps
    # A change made with the app's token: the activity page names the app who made it.
    call = Call(principal=principal_of(services.items, access, lambda _: True), services=services,
                trace_id="test", channel="mcp")  # fmt: skip
    create_memo(call, {"content": "from an app with no name"})
    activity = person.get("/activity", headers=headers).text
    assert unnamed in activity and other_language not in activity
    grant_id = list_grants(services.items, person.user_id)[0]["id"]
    question = person.get(f"/settings/apps/{grant_id}/revoke", headers=headers).text
    assert f'<bdi class="client">{unnamed}</bdi>' in question and other_language not in question
    revoked = person.post(f"/settings/apps/{grant_id}/revoke", headers=headers)
    assert revoked.status_code == 303
    after = person.get(revoked.headers["location"], headers=headers).text
    assert unnamed in after and other_language not in after


@pytest.mark.parametrize(
    ("language", "memo_words", "todo_words"),
    [
        ("en-US", "Create and change memos, move them to the trash", "Create and change todos, move them to the trash"),
        ("zh-CN", "创建和修改笔记，并将其移入回收站", "创建和修改待办，并将其移入回收站"),
    ],
)
def test_the_consent_page_says_a_write_scope_can_move_records_to_the_trash(
    services: Services, browser: Callable[..., Browser], language: str, memo_words: str, todo_words: str
) -> None:
    """`todo:write` moves tasks, subtasks and inbox items to the trash (delete_todo_task and its
    siblings need it), as `memo:write` does memos: the person approving must read that for both,
    not "Create and change todos" alone."""
    person = browser()
    pending = pending_request(services, scopes="memo:read memo:write todo:read todo:write")
    page = person.get(f"/oauth/consent?request={pending.request_id}", headers={"Accept-Language": language}).text
    assert f"<span>{memo_words}</span> <code>memo:write</code>" in page
    assert f"<span>{todo_words}</span> <code>todo:write</code>" in page


@pytest.mark.parametrize(
    ("language", "words"),
    [("en-US", "MCP, only memos and todos, read-only"), ("zh-CN", "MCP：仅限笔记和待办，只读")],
)
def test_the_revoke_question_names_the_connection_it_ends(
    services: Services, browser: Callable[..., Browser], language: str, words: str
) -> None:
    """One app connected twice (the whole of /mcp, and a narrowed read-only URL) is two rows with one
    name: the question before revoking must say which connection it ends, as the list does."""
    person = browser()
    narrowed = f"{BASE}/mcp/x/memo,todo/readonly"
    grant_for(services, person)
    grant_for(services, person, resource=narrowed)
    grants = list_grants(services.items, person.user_id)
    grant_id = next(grant["id"] for grant in grants if grant["resource"] == narrowed)
    question = person.get(f"/settings/apps/{grant_id}/revoke", headers={"Accept-Language": language}).text
    assert f'{words} <code class="wrap">/mcp/x/memo,todo/readonly</code>' in question


def _tokens_for(services: Services, person: Browser) -> tuple[str, dict[str, str]]:
    """One more connection of "Test Agent" (a new registration, as a host that lost its client):
    its client id and its token response."""
    pending = pending_request(services)
    answer = person.client.post("/api/oauth/consent", json={"requestId": pending.request_id, "decision": "approve"},
                                headers={"X-CSRF-Token": person.csrf})  # fmt: skip
    code = parse_qs(urlsplit(answer.json()["redirectUrl"]).query)["code"][0]
    issued = exchange_code(services.items, code=code, client_id=pending.client_id, redirect_uri=REDIRECT_URI,
                           code_verifier=pending.verifier, resource=None, instance=BASE)  # fmt: skip
    return pending.client_id, {"access_token": issued.access_token, "refresh_token": issued.refresh_token}


def test_a_disconnect_that_cannot_end_every_connection_says_so(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's last connection refreshes its tokens before every write of the disconnect: the
    page answered an internal error, half the app signed out. Now nothing is ended, the list says
    so in the page's language, and the row is there, all its connections, to revoke again."""
    from mesq.web.settings import connected_apps as page_module

    person = browser()
    made = [_tokens_for(services, person) for _ in range(2)]
    (app,) = list_apps(services.items, person.user_id)
    grant_of = {_grant_id(services, tokens): (client_id, tokens) for client_id, tokens in made}
    client_id, last = grant_of[app["grantIds"][-1]]
    (first,) = [tokens for _client_id, tokens in made if tokens is not last]
    busy = RefreshingMeanwhile(services.items, last, client_id, BASE, times=None)
    monkeypatch.setattr(page_module, "disconnect_app", lambda _items, user, row: disconnect_app(busy, user, row))
    for language, said, count in (
        ("zh-CN", "仍然连接着：一个连接也没有断开", "2 个连接"),
        ("en-US", "is still connected: none of its connections was ended", "2 connections"),
    ):
        headers = {"Accept-Language": language}
        revoked = person.post(f"/settings/apps/{app['id']}/revoke", headers=headers)
        assert revoked.status_code == 303, revoked.text
        listed = person.get("/settings/apps", headers=headers).text
        flash = listed.split('class="flash"')[1].split("</p>")[0]
        assert said in flash and "Test Agent" in flash, flash
        (row,) = listed.split("<tr data-grant-id=")[1:]
        assert count in row and "/revoke" in row
    for tokens in (first, busy.tokens):
        assert _grant_id(services, tokens) in app["grantIds"]  # both still sign in


def _grant_id(services: Services, tokens: dict[str, str]) -> str:
    principal = authenticate_access_token(services.items, tokens["access_token"], lambda _resource: True)
    return principal.credential_id.removeprefix("oauth:")
