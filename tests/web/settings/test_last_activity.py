"""Settings -> Access credentials and Connected apps: each credential's last session (its newest
change records), linked to /activity showing that session alone; a credential that changed
nothing says so."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

from mesq.application.invocation import invoke_sync
from mesq.auth.oauth.grants import authenticate_access_token
from mesq.auth.tokens import authenticate_token, list_tokens
from mesq.kernel.context import Principal
from mesq.kernel.spec import load_spec
from mesq.wiring.services import Services

from ..conftest import Browser, grant_for

TOKEN = re.compile(r"mesq_pat_[A-Za-z0-9_-]{43}")


def _write(services: Services, principal: Principal) -> dict:
    return invoke_sync(
        load_spec().operations["create_memo"], {"content": "by an agent"}, principal=principal, services=services,
        trace_id="t", channel="mcp",
    )  # fmt: skip


def _row(html: str, marker: str) -> str:
    return html[html.index(marker) :].split("</tr>")[0]


def test_tokens_show_their_last_activity_linked_to_activity(services: Services, browser: Callable[..., Browser]):
    person = browser()
    for name in ("busy agent", "idle agent"):
        made = person.post("/settings/tokens", {"name": name, "scopes": ["memo:read", "memo:write"], "expiry": ""})
        assert made.status_code == 303
        secret = TOKEN.findall(person.get("/settings/tokens").text)[0]
        if name == "busy agent":
            _write(services, authenticate_token(services.items, secret))
    ids = {t["name"]: t["id"] for t in list_tokens(services.items, person.user_id)}
    page = person.get("/settings/tokens").text
    busy, idle = _row(page, f'data-token-id="{ids["busy agent"]}"'), _row(page, f'data-token-id="{ids["idle agent"]}"')
    link = re.search(r'href="(/activity\?sessionId=[^"]+)"', busy)
    assert link and "no recent changes" not in busy.split("last-activity")[1] and "1 change" in busy
    assert "no recent changes" in idle
    assert f'href="/activity?actor={quote("pat:" + ids["idle agent"], safe="")}"' in idle
    listed = person.get(link.group(1).replace("&amp;", "&")).text
    assert "busy agent" in listed and "1 change" in listed


def test_connected_apps_show_their_last_activity(services: Services, browser: Callable[..., Browser]):
    person = browser()
    access = grant_for(services, person)
    principal = authenticate_access_token(services.items, access, lambda _resource: True)
    _write(services, principal)
    page = person.get("/settings/apps").text
    grant_id = principal.credential_id.partition(":")[2]
    row = _row(page, f'data-grant-id="{grant_id}"')
    assert re.search(r'href="/activity\?sessionId=[^"]+"', row) and "1 change" in row
    assert "no recent changes" not in row


def test_an_app_that_reconnected_links_every_connections_changes(services: Services, browser: Callable[..., Browser]):
    """Two connections of one app (it registered again), neither with a recent change: the row's
    "no recent changes" linked /activity by the newest connection alone, hiding what the app did
    through the other; it links both."""
    person = browser()
    grants = [grant_for(services, person) for _ in range(2)]
    ids = [authenticate_access_token(services.items, access, lambda _r: True).credential_id for access in grants]
    page = person.get("/settings/apps").text
    assert page.count("<tr data-grant-id=") == 1 and "no recent changes" in page
    link = re.search(r'<a[^>]* href="(/activity\?[^"]+)">no recent changes</a>', page)
    assert link, page
    assert sorted(link.group(1).replace("&amp;", "&").split("?")[1].split("&")) == sorted(
        "actor=" + quote(credential, safe="") for credential in ids
    )
