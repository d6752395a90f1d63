"""Settings -> Attachments: every memo and todo attachment with its size and whether it is
bound; discarding orphans frees bytes and quota (the permanent memo delete's `ORPHANS#` lists
included); a bound attachment or another user's path is never discarded; nothing of it is
reachable with a token or listed by MCP."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from mesq.attachments.store import read_usage
from mesq.kernel.context import Call
from mesq.kernel.spec import load_spec
from mesq.mcp.service import default_catalog
from mesq.memos.purge import ORPHANS_PREFIX, purge_memo
from mesq.wiring.services import Services
from tests.support.operations import call_of, run_operation

from ..conftest import Browser

SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})


def _call(services: Services, user_id: str) -> Call:
    return call_of(services, user_id, SCOPES, channel="web", kind="session")


def _op(services: Services, user_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict(run_operation(_call(services, user_id), name, args))


def _upload(services: Services, user_id: str, name: str, data: bytes) -> dict[str, Any]:
    operation = "upload_memo_resource" if name.startswith("memo") else "upload_todo_attachment"
    content = base64.b64encode(data).decode()
    return _op(services, user_id, operation, {"displayName": name, "mimeType": "text/plain", "content": content})


def _resource(uploaded: dict[str, Any]) -> dict[str, Any]:
    return {k: uploaded[k] for k in ("path", "displayName", "fileSize", "mimeType", "type")}


def test_orphans_are_listed_and_discarded(services: Services, browser: Callable[..., Browser]):
    alice, bob = browser(), browser()
    uid = alice.user_id
    kept_memo = _upload(services, uid, "memo-kept.txt", b"a" * 10)
    purged_memo = _upload(services, uid, "memo-purged.txt", b"b" * 20)
    kept_todo = _upload(services, uid, "todo-kept.txt", b"c" * 30)
    loose_todo = _upload(services, uid, "todo-loose.txt", b"d" * 40)
    _op(services, uid, "create_memo", {"content": "keeps one", "resources": [_resource(kept_memo)]})
    doomed = _op(services, uid, "create_memo", {"content": "goes", "resources": [_resource(purged_memo)]})["memo"]
    trashed = _op(services, uid, "delete_memo", {"id": doomed["id"], "expectedRevision": doomed["revision"]})["memo"]
    purge_memo(services.items, uid, doomed["id"], trashed["revision"])
    assert services.items.query(f"U#{uid}", prefix=ORPHANS_PREFIX).items  # the purge recorded its orphan
    _op(services, uid, "create_todo_task", {"title": "t", "attachments": [{"path": kept_todo["path"]}]})
    bobs = _upload(services, bob.user_id, "todo-bob.txt", b"e" * 5)
    assert read_usage(services.items, uid) == (100, 4)

    page = alice.get("/settings/attachments")
    assert page.status_code == 200
    for name in ("memo-kept.txt", "memo-purged.txt", "todo-kept.txt", "todo-loose.txt"):
        assert name in page.text
    assert "todo-bob.txt" not in page.text
    assert page.text.count('class="orphan"') == 2 and page.text.count('class="bound"') == 2

    refused = alice.post("/settings/attachments/discard", {"path": kept_todo["path"]})
    assert refused.status_code == 409 and services.blobs.head(kept_todo["path"]) is not None
    foreign = alice.post("/settings/attachments/discard", {"path": bobs["path"]})
    assert foreign.status_code == 400 and services.blobs.head(bobs["path"]) is not None

    one = alice.post("/settings/attachments/discard", {"path": loose_todo["path"]})
    assert one.status_code == 303
    assert services.blobs.head(loose_todo["path"]) is None and read_usage(services.items, uid) == (60, 3)
    again = alice.post("/settings/attachments/discard", {"path": loose_todo["path"]})
    assert again.status_code == 404 and read_usage(services.items, uid) == (60, 3)  # freed once

    everything = alice.post("/settings/attachments/discard-orphans", {"confirm": "yes"})
    assert everything.status_code == 303
    assert read_usage(services.items, uid) == (40, 2)
    assert services.blobs.head(purged_memo["path"]) is None
    assert services.items.query(f"U#{uid}", prefix=ORPHANS_PREFIX).items == []
    assert services.blobs.head(kept_memo["path"]) is not None and services.blobs.head(kept_todo["path"]) is not None
    assert read_usage(services.items, bob.user_id) == (5, 1)
    assert 'class="orphan"' not in alice.get("/settings/attachments").text


def test_cleanup_and_calendar_are_browser_only(services: Services, browser: Callable[..., Browser]):
    person = browser()
    with_token = person.client.post(
        "/settings/attachments/discard-orphans",
        data={"csrf": person.csrf, "confirm": "yes"},
        headers={"Authorization": "Bearer mesq_pat_x"},
    )
    assert with_token.status_code == 403
    forged = person.client.post("/settings/attachments/discard-orphans", data={"confirm": "yes"})
    assert forged.status_code == 403
    # No operation (so no REST route and no MCP tool) or MCP resource reaches them.
    words = ("orphan", "discard", "cleanup", "calendar", "feed", "ics")
    names = [*load_spec().operations, *load_spec().raw_operations]
    assert not [name for name in names if any(word in name for word in words)]
    catalog = default_catalog()
    listed = " ".join(tool.tool.model_dump_json().lower() for tool in catalog.tools.values())
    assert not any(word in listed for word in ("orphaned attachment", "discard", "calendar feed", ".ics"))


def test_each_listed_file_opens_before_it_is_discarded(services: Services, browser: Callable[..., Browser]):
    """An unattached file is looked at before it is thrown away: each name is a download of that
    file through the session (a memo's at /memos/attachment, a todo's at /todos/attachment)."""
    alice = browser()
    memo_file = _upload(services, alice.user_id, "memo-scan.txt", b"memo bytes")
    todo_file = _upload(services, alice.user_id, "todo-scan.txt", b"todo bytes")
    page = html.unescape(alice.get("/settings/attachments").text)
    for route, uploaded, data in (
        ("/memos/attachment", memo_file, b"memo bytes"),
        ("/todos/attachment", todo_file, b"todo bytes"),
    ):
        link = f'href="{route}?path={quote(uploaded["path"])}" download><bdi>{uploaded["displayName"]}</bdi>'
        assert link in page, page
        got = alice.get(f"{route}?path={quote(uploaded['path'])}")
        assert got.status_code == 200 and got.content == data
        assert got.headers["content-disposition"].startswith("attachment;")
