"""A todo's attachments on its pages (TestClient): files bound through REST, MCP or Shortcuts to a
task, its subtasks or an inbox item are listed on the task's and the item's page, each a download
through the session (`/todos/attachment`) with the same safe headers as a memo's; another
person's path, a memo path and a guessed one are refused."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from mesq.wiring.services import Services
from tests.support.operations import call_of, run_operation

from ..conftest import Browser

ALL_TODO = frozenset({"todo:read", "todo:write", "memo:read", "memo:write"})
PAGE_SCRIPT = b"<script>alert(document.cookie)</script>"


def run(services: Services, user_id: str, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return dict(run_operation(call_of(services, user_id, ALL_TODO), operation, arguments))


def upload(services: Services, user_id: str, name: str, data: bytes, mime: str) -> dict[str, Any]:
    content = base64.b64encode(data).decode()
    return run(services, user_id, "upload_todo_attachment", {"displayName": name, "mimeType": mime, "content": content})


def _link(resource: dict[str, Any]) -> str:
    return f"/todos/attachment?path={quote(resource['path'])}"


def test_a_tasks_files_are_listed_and_download_safely(services: Services, browser: Callable[..., Browser]) -> None:
    ada, eve = browser(), browser()
    page_file = upload(services, ada.user_id, "报价单.html", PAGE_SCRIPT, "text/html")
    photo = upload(services, ada.user_id, "whiteboard.png", b"\x89PNG\r\n\x1a\n", "image/png")
    task = run(services, ada.user_id, "create_todo_task", {"title": "Quote", "attachments": [page_file]})["task"]
    run(services, ada.user_id, "create_todo_subtask",
        {"taskId": task["id"], "title": "photo of the board", "attachments": [photo]})  # fmt: skip

    shown = ada.get(f"/todos/tasks/{task['id']}")
    assert shown.status_code == 200
    text = html.unescape(shown.text)
    assert 'id="attachments"' in text and "报价单.html" in text and "whiteboard.png" in text
    assert _link(page_file) in text and _link(photo) in text

    got = ada.get(_link(page_file))
    assert got.status_code == 200 and got.content == PAGE_SCRIPT
    assert got.headers["content-disposition"].startswith("attachment;")
    assert got.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in got.headers["content-security-policy"]

    assert eve.get(_link(page_file)).status_code == 403  # another person's file
    memo_file = run(services, ada.user_id, "upload_memo_resource",
                    {"displayName": "m.txt", "mimeType": "text/plain", "content": "aGk="})  # fmt: skip
    assert ada.get(_link(memo_file)).status_code == 400  # a memo path is not a todo attachment
    guessed = page_file["path"][:-1] + ("0" if page_file["path"][-1] != "0" else "1")
    assert ada.get(f"/todos/attachment?path={quote(guessed, safe='')}").status_code == 404


def test_an_inbox_items_files_are_listed(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser()
    note = upload(services, ada.user_id, "receipt.pdf", b"%PDF-1.4", "application/pdf")
    item = run(services, ada.user_id, "create_todo_inbox_item", {"title": "File the receipt", "attachments": [note]})
    item_id = (item.get("item") or item)["id"]
    shown = ada.get(f"/todos/inbox/{item_id}")
    assert shown.status_code == 200
    assert "receipt.pdf" in shown.text and _link(note) in html.unescape(shown.text)
    assert ada.get(_link(note)).content == b"%PDF-1.4"


def test_a_task_without_files_has_no_attachment_section(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser()
    task = run(services, ada.user_id, "create_todo_task", {"title": "Plain"})["task"]
    assert 'id="attachments"' not in ada.get(f"/todos/tasks/{task['id']}").text
