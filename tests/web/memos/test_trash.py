"""Trash: list, restore, permanent delete (transactional, counters fixed), tenant isolation."""

from __future__ import annotations

from collections.abc import Callable

from mesq.memos import store
from mesq.memos.writes import create_memo, rename_memo_tag
from mesq.wiring.services import Services

from ..conftest import Browser, memo_call, trashed_memo


def test_trash_lists_only_trashed_memos(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    gone = trashed_memo(services, person.user_id, "in the trash #old")
    create_memo(memo_call(services, person.user_id), {"content": "still here"})
    page = person.get("/trash")
    assert page.status_code == 200
    assert "in the trash #old" in page.text and "still here" not in page.text
    assert f'data-memo-id="{gone["id"]}"' in page.text


def test_restore_brings_a_memo_back(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    gone = trashed_memo(services, person.user_id)
    answer = person.post(f"/trash/{gone['id']}/restore", {"revision": str(gone["revision"])})
    assert answer.status_code == 303
    assert store.read_memo(services.items, person.user_id, gone["id"])["status"] == "NORMAL"
    assert store.read_stats(services.items, person.user_id)["deleted"] == 0
    assert store.read_tag_counts(services.items, person.user_id) == {"work": 1}
    assert gone["id"] not in person.get("/trash").text


def test_restore_with_a_stale_revision_is_a_conflict(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    gone = trashed_memo(services, person.user_id)
    answer = person.post(f"/trash/{gone['id']}/restore", {"revision": str(gone["revision"] - 1)})
    assert answer.status_code == 409
    assert store.read_memo(services.items, person.user_id, gone["id"])["status"] == "DELETED"


def test_permanent_delete_asks_first_then_removes_for_good(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    gone = trashed_memo(services, person.user_id, "bye #a/b")
    confirm = person.get(f"/trash/{gone['id']}/delete")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.text
    assert store.read_memo(services.items, person.user_id, gone["id"]) is not None  # GET changes nothing
    answer = person.post(f"/trash/{gone['id']}/delete", {"revision": str(gone["revision"])})
    assert answer.status_code == 303
    assert store.read_memo(services.items, person.user_id, gone["id"]) is None
    assert store.read_stats(services.items, person.user_id) == {
        "normal": 0, "archived": 0, "deleted": 0, "pinned": 0, "untagged": 0,
    }  # fmt: skip
    assert "The trash is empty" in person.get("/trash").text


def test_permanent_delete_only_from_the_trash(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    call = memo_call(services, person.user_id)
    memo = create_memo(call, {"content": "not trashed"})["memo"]
    assert person.get(f"/trash/{memo['id']}/delete").status_code == 400
    answer = person.post(f"/trash/{memo['id']}/delete", {"revision": str(memo["revision"])})
    assert answer.status_code == 409 and "only memos in the trash" in answer.text
    assert store.read_memo(services.items, person.user_id, memo["id"]) is not None


def test_permanent_delete_refuses_a_memo_changed_since_the_page(services: Services, browser) -> None:
    person = browser()
    gone = trashed_memo(services, person.user_id)
    # A tag rename reaches the trash too (an edit of a trashed memo is refused: restore first).
    rename_memo_tag(memo_call(services, person.user_id), {"from": "work", "to": "job"})
    answer = person.post(f"/trash/{gone['id']}/delete", {"revision": str(gone["revision"])})
    assert answer.status_code == 409
    assert store.read_memo(services.items, person.user_id, gone["id"])["content"] == "old note #job"


def test_empty_the_trash(services: Services, browser: Callable[..., Browser]) -> None:
    person = browser()
    for number in range(3):
        trashed_memo(services, person.user_id, f"junk {number} #t{number}")
    keep = create_memo(memo_call(services, person.user_id), {"content": "keep #t0"})["memo"]
    assert "3 memos" in person.get("/trash/empty").text
    assert person.post("/trash/empty", {"confirm": "yes"}).status_code == 303
    assert store.read_stats(services.items, person.user_id)["deleted"] == 0
    assert store.read_stats(services.items, person.user_id)["normal"] == 1
    assert store.read_tag_counts(services.items, person.user_id) == {"t0": 1}
    assert store.read_memo(services.items, person.user_id, keep["id"]) is not None


def test_emptying_an_empty_trash_asks_nothing(services: Services, browser: Callable[..., Browser]) -> None:
    """The confirmation of an empty trash (its last memo restored in place, or a second tab) says
    the trash is empty and offers no red button: "0 memos will be deleted permanently. This cannot
    be undone." with "Empty the trash" asked to confirm nothing."""
    person = browser()
    page = person.get("/trash/empty")
    assert page.status_code == 200
    assert "The trash is empty." in page.text
    assert 'action="/trash/empty"' not in page.text and "deleted permanently" not in page.text
    assert 'href="/trash"' in page.text
    chinese = person.get("/trash/empty", headers={"Accept-Language": "zh-CN"}).text
    assert "回收站是空的。" in chinese and "永久删除" not in chinese


def test_users_cannot_touch_each_others_trash(services: Services, browser: Callable[..., Browser]) -> None:
    alice, bob = browser(), browser()
    bobs = trashed_memo(services, bob.user_id, "bob's secret")
    assert "bob's secret" not in alice.get("/trash").text
    assert alice.get(f"/trash/{bobs['id']}/delete").status_code == 404
    assert alice.post(f"/trash/{bobs['id']}/restore", {"revision": str(bobs["revision"])}).status_code == 404
    assert alice.post(f"/trash/{bobs['id']}/delete", {"revision": str(bobs["revision"])}).status_code == 404
    alice.post("/trash/empty", {"confirm": "yes"})
    memo = store.read_memo(services.items, bob.user_id, bobs["id"])
    assert memo is not None and memo["status"] == "DELETED" and memo["revision"] == bobs["revision"]


def test_trash_pages_through_every_memo(services: Services, browser: Callable[..., Browser], monkeypatch) -> None:
    monkeypatch.setattr("mesq.web.memos.trash.PAGE_SIZE", 2)
    person = browser()
    ids = {trashed_memo(services, person.user_id, f"junk {n}")["id"] for n in range(3)}
    first = person.get("/trash").text
    assert 'href="/trash?offset=2"' in first
    second = person.get("/trash?offset=2").text
    assert "Older" not in second
    seen = {memo_id for memo_id in ids if f'data-memo-id="{memo_id}"' in first + second}
    assert seen == ids
    assert person.get("/trash?offset=-1").status_code == 400  # one offset rule on every page (test_request_values)
