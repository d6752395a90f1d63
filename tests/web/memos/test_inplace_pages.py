"""In-place writes in-process (TestClient, real SQLite): with htmx a memo's pin / archive / trash,
a task card's complete, and the restores of both trashes answer the fragment to swap in place
and a toast whose Undo carries exactly the change ids the write recorded (not another writer's
made meanwhile); the Undo undoes those and answers the item again. Without htmx the same forms
still redirect (the no-script fallback)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mesq.application.invocation import REGISTRY
from mesq.kernel.context import Call, Principal
from mesq.memos.reads import get_memo
from mesq.memos.writes import create_memo, update_memo
from mesq.wiring.services import Services

from ..conftest import Browser, memo_call

HTMX = {"HX-Request": "true"}


def _change_ids(html: str) -> list[str]:
    return re.findall(r'name="changeId" value="([^"]+)"', html)


def _changes_of(services: Services, user_id: str, record_id: str) -> list[dict[str, Any]]:
    return list(REGISTRY["list_changes"](memo_call(services, user_id), {"recordId": record_id})["changes"])


def _todo(services: Services, user_id: str, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    principal = Principal(user_id=user_id, scopes=frozenset({"todo:read", "todo:write"}), credential_id="t", kind="pat")
    call = Call(principal=principal, services=services, trace_id="t", channel="api")
    return dict(REGISTRY[operation](call, arguments))


def test_trash_in_place_carries_exactly_its_change_and_undo_puts_it_back(
    services: Services, browser: Callable[..., Browser]
) -> None:
    ada = browser("ada")
    call = memo_call(services, ada.user_id)
    memo = create_memo(call, {"content": "keep me"})["memo"]
    other = create_memo(call, {"content": "an agent's memo"})["memo"]

    trashed = ada.post(f"/memos/{memo['id']}/trash", {"revision": "1", "return": "/"}, headers=HTMX)
    assert trashed.status_code == 200
    assert f'<li class="memo-gone" id="memo-{memo["id"]}"' in trashed.text  # its place kept, hidden
    assert 'hx-swap-oob="beforeend"' in trashed.text and "Moved to the trash" in trashed.text
    update_memo(call, {"id": other["id"], "expectedRevision": 1, "content": "edited meanwhile"})
    newest = _changes_of(services, ada.user_id, memo["id"])[0]
    assert newest["action"] == "trash"
    assert _change_ids(trashed.text) == [newest["id"]]

    undone = ada.post(f"/memos/{memo['id']}/undo", {"changeId": newest["id"], "return": "/"}, headers=HTMX)
    assert undone.status_code == 200
    assert f'id="memo-{memo["id"]}"' in undone.text and "keep me" in undone.text
    assert "Undone: back from the trash." in undone.text
    assert get_memo(call, {"id": memo["id"]})["memo"]["status"] == "NORMAL"
    assert get_memo(call, {"id": other["id"]})["memo"]["content"] == "edited meanwhile"  # not undone

    again = ada.post(f"/memos/{memo['id']}/undo", {"changeId": newest["id"], "return": "/"}, headers=HTMX)
    assert "Already undone." in again.text  # said, not reverted twice
    assert ada.post(f"/memos/{memo['id']}/undo", {"return": "/"}, headers=HTMX).status_code == 400


def test_pin_and_archive_in_place_and_a_stale_one_says_so(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    memo = create_memo(memo_call(services, ada.user_id), {"content": "pin me"})["memo"]
    pinned = ada.post(f"/memos/{memo['id']}/pin", {"revision": "1", "value": "on", "return": "/"}, headers=HTMX)
    assert 'class="card memo pinned"' in pinned.text and "Pinned." in pinned.text
    assert len(_change_ids(pinned.text)) == 1
    # Archived while the view lists all memos: the card stays, with its badge.
    shown = ada.post(f"/memos/{memo['id']}/archive", {"revision": "2", "value": "on", "return": "/?status=ALL"},
                     headers=HTMX)  # fmt: skip
    assert 'class="card memo pinned"' in shown.text and ">Archived</span>" in shown.text
    stale = ada.post(f"/memos/{memo['id']}/pin", {"revision": "1", "value": "off", "return": "/"}, headers=HTMX)
    assert "changed elsewhere" in stale.text and _change_ids(stale.text) == []  # no Undo for nothing done
    assert 'class="memo-gone"' in stale.text  # the current memo (archived) is not in the timeline


def test_without_htmx_the_forms_still_redirect(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    memo = create_memo(memo_call(services, ada.user_id), {"content": "plain form"})["memo"]
    trashed = ada.post(f"/memos/{memo['id']}/trash", {"revision": "1", "return": "/?tag=x"})
    assert trashed.status_code == 303 and trashed.headers["location"] == "/?tag=x"
    change = _changes_of(services, ada.user_id, memo["id"])[0]
    undone = ada.post(f"/memos/{memo['id']}/undo", {"changeId": change["id"], "return": "/?tag=x"})
    assert undone.status_code == 303 and undone.headers["location"] == "/?tag=x"
    assert get_memo(memo_call(services, ada.user_id), {"id": memo["id"]})["memo"]["status"] == "NORMAL"


def test_another_users_change_ids_are_out_of_reach(services: Services, browser: Callable[..., Browser]) -> None:
    ada, bob = browser("ada"), browser("bob")
    memo = create_memo(memo_call(services, ada.user_id), {"content": "ada's"})["memo"]
    ada.post(f"/memos/{memo['id']}/trash", {"revision": "1"}, headers=HTMX)
    change = _changes_of(services, ada.user_id, memo["id"])[0]
    assert bob.post(f"/memos/{memo['id']}/undo", {"changeId": change["id"]}, headers=HTMX).status_code == 404
    assert get_memo(memo_call(services, ada.user_id), {"id": memo["id"]})["memo"]["status"] == "DELETED"


def test_memo_trash_restore_in_place_and_undo(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    call = memo_call(services, ada.user_id)
    memo = create_memo(call, {"content": "in the bin"})["memo"]
    REGISTRY["delete_memo"](call, {"id": memo["id"], "expectedRevision": 1})
    restored = ada.post(f"/trash/{memo['id']}/restore", {"revision": "2"}, headers=HTMX)
    assert f'<li class="trash-gone" id="trash-{memo["id"]}"' in restored.text
    [change_id] = _change_ids(restored.text)
    assert get_memo(call, {"id": memo["id"]})["memo"]["status"] == "NORMAL"
    undone = ada.post(f"/trash/{memo['id']}/undo", {"changeId": change_id}, headers=HTMX)
    assert f'id="trash-{memo["id"]}"' in undone.text and "in the bin" in undone.text
    assert get_memo(call, {"id": memo["id"]})["memo"]["status"] == "DELETED"
    stale = ada.post(f"/trash/{memo['id']}/restore", {"revision": "2"}, headers=HTMX)
    assert stale.headers["HX-Reswap"] == "none" and "changed meanwhile" in stale.text


def test_task_complete_and_todo_trash_restore_in_place_with_undo(
    services: Services, browser: Callable[..., Browser]
) -> None:
    ada = browser("ada")
    task = _todo(services, ada.user_id, "create_todo_task", {"title": "water the plants"})["task"]
    done = ada.post(f"/todos/tasks/{task['id']}/complete", {"revision": "1", "place": "0"}, headers=HTMX)
    assert f'id="task-{task["id"]}"' in done.text and "Done." in done.text
    [change_id] = _change_ids(done.text)
    undone = ada.post(f"/todos/tasks/{task['id']}/undo", {"changeId": change_id, "place": "0"}, headers=HTMX)
    assert 'aria-pressed="false"' in undone.text and "Undone: open again." in undone.text
    assert _todo(services, ada.user_id, "get_todo_task", {"id": task["id"]})["task"]["done"] is False

    current = _todo(services, ada.user_id, "get_todo_task", {"id": task["id"]})["task"]
    _todo(services, ada.user_id, "delete_todo_task", {"id": task["id"], "expectedRevision": current["revision"]})
    entry = _todo(services, ada.user_id, "list_todo_trash", {})["items"][0]
    fields = {"id": task["id"], "kind": "task", "revision": str(entry["revision"])}
    restored = ada.post("/todos/trash/restore", fields, headers=HTMX)
    assert f'<li class="trash-gone" id="todo-trash-{task["id"]}"' in restored.text
    [change_id] = _change_ids(restored.text)
    back = ada.post("/todos/trash/undo", {"changeId": change_id, "id": task["id"]}, headers=HTMX)
    assert f'id="todo-trash-{task["id"]}"' in back.text and "water the plants" in back.text
    assert [item["id"] for item in _todo(services, ada.user_id, "list_todo_trash", {})["items"]] == [task["id"]]
    stale = ada.post("/todos/trash/restore", fields, headers=HTMX)
    assert stale.headers["HX-Reswap"] == "none" and "changed meanwhile" in stale.text
