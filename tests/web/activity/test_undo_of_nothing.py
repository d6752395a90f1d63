"""An Undo that undoes nothing says so in the page's language: a session undone already (a
second tab, a stale page, a double click) and a session whose every record was changed since.
The preview and the notice after the undo each read a whole sentence saying why, never
"Undid 0 changes." nor "Nothing here can be undone: ." with no reason."""

from __future__ import annotations

from collections.abc import Callable

from mesq.wiring.services import Services
from tests.hostile.test_no_url_text import shown_text

from ..conftest import Browser
from .seed import caller
from .test_filtered_undo_and_restore import EN, ZH, _flash


def _preview(person: Browser, form: dict[str, str], headers: dict[str, str]) -> str:
    answer = person.post("/activity/undo/preview", form, headers={**headers, "HX-Request": "true"})
    assert answer.status_code == 200, answer.text
    return " ".join(shown_text(answer.text).split())


def test_a_session_undone_already_says_there_is_nothing_left(services: Services, browser: Callable[..., Browser]):
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    agent("create_memo", content="草稿")
    form = {"sessionId": agent("get_context")["sessionId"], "back": "/activity"}
    assert _flash(person, person.post("/activity/undo", form, headers=EN), EN) == "Undid 1 change."
    # the same button again, from a page opened before the undo
    assert _preview(person, form, EN).startswith("Nothing is left to undo here: it was all undone already.")
    assert _preview(person, form, ZH).startswith("这里已没有可撤销的改动：都已经撤销过了。")
    assert "Undo them" not in _preview(person, form, EN)  # nothing to confirm
    assert _flash(person, person.post("/activity/undo", form, headers=EN), EN) == (
        "Nothing was undone: it was all undone already."
    )
    assert _flash(person, person.post("/activity/undo", form, headers=ZH), ZH) == "没有撤销任何改动：都已经撤销过了。"


def test_a_redo_of_what_was_redone_already_says_so(services: Services, browser: Callable[..., Browser]):
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    agent("create_memo", content="草稿")
    person.post("/activity/undo", {"sessionId": agent("get_context")["sessionId"], "back": "/activity"})
    undo_ids = [change["id"] for change in agent("list_changes", limit=10)["changes"] if change.get("undoes")]
    undo_session = agent("list_changes", limit=1)["changes"][0]["sessionId"]
    form = {"sessionId": undo_session, "redo": "1", "back": "/activity"}
    assert person.post("/activity/undo", form).status_code == 303
    assert undo_ids
    assert _preview(person, form, EN).startswith("Nothing is left to redo here: it was all redone already.")
    chinese = _flash(person, person.post("/activity/undo", form, headers=ZH), ZH)
    assert chinese == "没有重做任何改动：都已经重做过了。", chinese


def test_a_session_whose_records_all_changed_since_says_why(services: Services, browser: Callable[..., Browser]):
    person = browser()
    mine = caller(services, person.user_id, "pat:mine", "我的脚本")
    memo = mine("create_memo", content="笔记")["memo"]
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    edited = agent("update_memo", id=memo["id"], expectedRevision=memo["revision"], content="改过")["memo"]
    form = {"sessionId": agent("get_context")["sessionId"], "back": "/activity"}
    mine("update_memo", id=memo["id"], expectedRevision=edited["revision"], content="我后来又改了")
    assert _preview(person, form, EN).startswith(
        "Nothing here can be undone: 1 changed since. Will stay as it is: the memo “改过”."
    )
    said = _flash(person, person.post("/activity/undo", form, headers=EN), EN)
    assert said == "Nothing was undone: 1 changed since. Left as it is: the memo “改过”.", said
    chinese = _flash(person, person.post("/activity/undo", form, headers=ZH), ZH)
    assert chinese == "没有撤销任何改动：1 处之后又被修改过。保持原样的是：笔记“改过”。", chinese
