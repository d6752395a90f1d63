"""Undo toasts that never lie (in-process, htmx requests): pin, then trash, then the pin's older
Undo undoes both in order and says what the memo is now, in the page's language; an Undo a newer
one already covered says so; a memo someone else changed since is left as it is, and the toast
says that and offers to open it. Never the service's message, a revision or an id. Each in-place
answer carries the sidebar's counts out of band."""

from __future__ import annotations

import re
from collections.abc import Callable

from mesq.memos.reads import get_memo
from mesq.memos.writes import create_memo, update_memo
from mesq.wiring.services import Services
from tests.hostile.test_no_url_text import shown_text

from ..conftest import Browser, memo_call

HTMX = {"HX-Request": "true", "Accept-Language": "zh-CN"}


def _change_ids(html: str) -> list[str]:
    return re.findall(r'name="changeId" value="([^"]+)"', html)


def _toast(html: str) -> str:
    """The toast's own words (the answer also carries the sidebar, out of band, after it)."""
    found = re.search(r'<div id="toasts".*?</div>\s*</div>', html, re.S)
    assert found, html
    return shown_text(found.group(0))


def _count(html: str, name: str) -> str:
    found = re.search(rf'id="memo-count-{name}" hx-swap-oob="true">(\d+)<', html)
    assert found, html
    return found.group(1)


def test_pin_then_trash_then_the_older_undo_undoes_both_in_order(services: Services, browser: Callable[..., Browser]):
    ada = browser()
    memo = create_memo(memo_call(services, ada.user_id), {"content": "周报\n本周完成"})["memo"]
    pinned = ada.post(f"/memos/{memo['id']}/pin", {"revision": "1", "value": "on", "return": "/"}, headers=HTMX)
    assert _count(pinned.text, "pinned") == "1"  # the sidebar follows the pin
    assert f'data-record="memo:{memo["id"]}"' in pinned.text  # inplace.js retires the record's other toasts
    trashed = ada.post(f"/memos/{memo['id']}/trash", {"revision": "2", "return": "/"}, headers=HTMX)
    assert _count(trashed.text, "pinned") == "0" and _count(trashed.text, "normal") == "0"

    older = ada.post(f"/memos/{memo['id']}/undo", {"changeId": _change_ids(pinned.text), "return": "/"}, headers=HTMX)
    assert older.status_code == 200
    said = _toast(older.text)
    assert "已撤销：已从回收站恢复，已取消置顶。" in said
    now = get_memo(memo_call(services, ada.user_id), {"id": memo["id"]})["memo"]
    assert now["status"] == "NORMAL" and now["pinned"] is False  # as the toast says
    assert _count(older.text, "normal") == "1" and _count(older.text, "pinned") == "0"

    newer = ada.post(f"/memos/{memo['id']}/undo", {"changeId": _change_ids(trashed.text), "return": "/"}, headers=HTMX)
    assert "已经撤销过了。" in _toast(newer.text)  # covered by the older one: nothing twice
    assert get_memo(memo_call(services, ada.user_id), {"id": memo["id"]})["memo"]["revision"] == now["revision"]
    for answer in (older, newer):
        text = _toast(answer.text)
        assert "revision" not in text and memo["id"] not in text and not re.search(r"[A-Za-z]{3,}", text)


def test_a_memo_changed_since_by_someone_else_stays_and_the_toast_offers_it(
    services: Services, browser: Callable[..., Browser]
):
    ada = browser()
    call = memo_call(services, ada.user_id)
    memo = create_memo(call, {"content": "周报"})["memo"]
    pinned = ada.post(f"/memos/{memo['id']}/pin", {"revision": "1", "value": "on", "return": "/"}, headers=HTMX)
    update_memo(call, {"id": memo["id"], "expectedRevision": 2, "content": "周报（代理改过）"})
    answer = ada.post(f"/memos/{memo['id']}/undo", {"changeId": _change_ids(pinned.text), "return": "/"}, headers=HTMX)
    said = _toast(answer.text)
    assert "这条笔记之后又被修改过，因此保持原样。" in said and "打开" in said
    assert f'href="/memos/{memo["id"]}/edit?return=%2F"' in answer.text
    now = get_memo(call, {"id": memo["id"]})["memo"]
    assert now["pinned"] is True and now["content"] == "周报（代理改过）"  # left as it is
    assert not re.search(r"[A-Za-z]{3,}", said)
