"""What the history pages write is what they showed: on `/activity` filtered to one record a group
undoes only the changes it lists (the whole session is one link away, where Undo takes all of it);
"Restore this version" writes at the revision the page showed, so an edit made meanwhile is never
overwritten and the page says so; a memo in the trash comes back from it with the version chosen,
and a task in the trash is left there with words that say what to do. In Chinese and in English."""

from __future__ import annotations

import html as markup
import re
from collections.abc import Callable
from typing import Any

from mesq.wiring.services import Services
from tests.hostile.test_no_url_text import shown_text

from ..conftest import Browser
from .seed import caller
from .test_activity_pages import _sections

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
EN = {"Accept-Language": "en"}


def _forms(page: str, action: str) -> list[list[tuple[str, str]]]:
    """The hidden fields of each form posting to `action`, in page order (csrf left out)."""
    found = []
    for form in re.findall(rf'<form method="post" action="{re.escape(action)}".*?</form>', page, flags=re.DOTALL):
        fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)
        found.append([(name, markup.unescape(value)) for name, value in fields if name != "csrf"])
    return found


def _as_form(fields: list[tuple[str, str]]) -> dict[str, Any]:
    form: dict[str, Any] = {}
    for name, value in fields:
        form[name] = [*form[name], value] if isinstance(form.get(name), list) else value
        if name == "changeId" and not isinstance(form[name], list):
            form[name] = [value]
    return form


def _flash(person: Browser, answer: Any, headers: dict[str, str]) -> str:
    assert answer.status_code == 303, answer.text
    page = person.get(answer.headers["location"], headers=headers).text
    found = re.search(r'<p class="flash" role="status">(.*?)</p>', page, flags=re.DOTALL)
    assert found, "no notice"
    return markup.unescape(found.group(1))


def test_a_page_showing_one_record_undoes_only_the_changes_it_shows(
    services: Services, browser: Callable[..., Browser]
):
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    memos = [agent("create_memo", content=text)["memo"] for text in ("会议纪要 #工作", "买菜 #生活", "读《三体》#读书")]
    agent("update_memo", id=memos[0]["id"], expectedRevision=1, content="会议纪要：已改 #工作")
    page = person.get(f"/activity?recordId={memos[0]['id']}", headers=ZH).text
    [group] = _sections(page)
    said = shown_text(group)
    assert "2 处改动" in said and "撤销这些改动" in said and "撤销这次会话" not in said
    assert "只撤销这里列出的改动。" in said and "查看整个会话" in said
    english = shown_text(_sections(person.get(f"/activity?recordId={memos[0]['id']}", headers=EN).text)[0])
    assert "Undo these changes" in english and "Undoes only the changes shown here." in english
    [fields] = _forms(group, "/activity/undo/preview")
    form = _as_form(fields)
    assert "sessionId" not in form and len(form["changeId"]) == 2
    preview = person.post("/activity/undo/preview", form, headers={**ZH, "HX-Request": "true"})
    assert "将撤销 2 处改动。" in shown_text(preview.text)
    # The whole session: one link away, where Undo takes all of it (the session itself).
    whole = re.search(r'href="(/activity\?sessionId=[^"]+)"', group)
    assert whole
    [session] = _sections(person.get(markup.unescape(whole.group(1)), headers=ZH).text)
    assert "4 处改动" in shown_text(session) and "撤销这次会话" in shown_text(session)
    assert [name for name, _ in _forms(session, "/activity/undo/preview")[0]] == ["back", "sessionId"]
    [confirm] = _forms(preview.text, "/activity/undo")  # the preview's Undo posts the same changes back
    assert confirm == [("back", form["back"]), *(("changeId", change_id) for change_id in form["changeId"])]
    assert "已撤销 2 处改动。" in _flash(person, person.post("/activity/undo", _as_form(confirm), headers=ZH), ZH)
    statuses = [agent("get_memo", id=memo["id"])["memo"]["status"] for memo in memos]
    assert statuses == ["DELETED", "NORMAL", "NORMAL"]  # the two memos the page never showed stay


def test_a_page_showing_one_run_undoes_that_run(services: Services, browser: Callable[..., Browser]):
    """Two calls, two runs, one session: a run's page (an import's report links to one) undoes the
    run it shows, all of it, never the session's other run."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    agent("create_memo", content="第一条")
    second = agent("create_memo", content="第二条")["memo"]
    run_id = agent("list_changes", recordId=second["id"])["changes"][0]["runId"]
    [group] = _sections(person.get(f"/activity?runId={run_id}", headers=ZH).text)
    assert "1 处改动" in shown_text(group) and "撤销这些改动" in shown_text(group)
    [fields] = _forms(group, "/activity/undo/preview")
    assert fields == [("back", f"/activity?runId={run_id}"), ("runId", run_id)]
    assert "已撤销 1 处改动。" in _flash(person, person.post("/activity/undo", _as_form(fields), headers=ZH), ZH)
    assert [memo["content"] for memo in agent("list_memos")["timelineItems"]] == ["第一条"]


def _memo_with_versions(services: Services, person: Browser) -> tuple[Any, dict[str, Any]]:
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    memo = agent("create_memo", content="第一版 #版本")["memo"]
    memo = agent("update_memo", id=memo["id"], expectedRevision=1, content="第二版 #版本")["memo"]
    return agent, memo


def test_restoring_a_version_over_a_newer_edit_changes_nothing_and_says_so(
    services: Services, browser: Callable[..., Browser]
):
    person = browser()
    agent, memo = _memo_with_versions(services, person)
    history = f"/activity/history/{memo['id']}"
    for headers, revision, refused in (
        (ZH, 2, "没有恢复任何内容：页面打开后，它又被修改过。历史里现在是最新的版本，请重新选择要恢复的版本。"),
        (EN, 3, "Nothing was restored: this was changed after the page showed it."),
    ):
        first_version = _forms(person.get(history, headers=headers).text, "/activity/restore")[-1]
        assert ("revision", str(revision)) in first_version  # the revision the page showed
        newer = f"智能体刚写的重要内容 {revision}"
        agent("update_memo", id=memo["id"], expectedRevision=revision, content=newer)  # while the page is open
        answer = person.post("/activity/restore", _as_form(first_version), headers=headers)
        assert refused in _flash(person, answer, headers)
        assert agent("get_memo", id=memo["id"])["memo"]["content"] == newer  # left as the agent wrote it
    fresh = _forms(person.get(history, headers=ZH).text, "/activity/restore")[-1]
    assert _flash(person, person.post("/activity/restore", _as_form(fresh), headers=ZH), ZH) == "已恢复此版本。"
    assert agent("get_memo", id=memo["id"])["memo"]["content"] == "第一版 #版本"


def test_a_version_of_a_memo_in_the_trash_brings_it_back_from_the_trash(
    services: Services, browser: Callable[..., Browser]
):
    person = browser()
    agent, memo = _memo_with_versions(services, person)
    agent("delete_memo", id=memo["id"], expectedRevision=2)
    history = f"/activity/history/{memo['id']}"
    english = shown_text(person.get(history, headers=EN).text)
    assert "This memo is in the trash. Restoring one of its versions also brings it back from the trash." in english
    assert "Restore from the trash with this version" in english
    page = person.get(history, headers=ZH).text
    said = shown_text(page)
    assert "这条笔记在回收站中。恢复它的某个版本，也会把它从回收站恢复。" in said
    assert "以此版本从回收站恢复" in said and "恢复此版本" not in said
    first_version = _forms(page, "/activity/restore")[-1]
    answer = person.post("/activity/restore", _as_form(first_version), headers=ZH)
    assert _flash(person, answer, ZH) == "已恢复此版本，笔记也已从回收站恢复。"
    back = agent("get_memo", id=memo["id"])["memo"]
    assert (back["status"], back["content"]) == ("NORMAL", "第一版 #版本")


def test_a_version_of_a_task_in_the_trash_says_to_restore_it_first(services: Services, browser: Callable[..., Browser]):
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="买牛奶")["task"]
    agent("update_todo_task", id=task["id"], expectedRevision=1, title="买酸奶")
    agent("delete_todo_task", id=task["id"], expectedRevision=2)
    history = f"/activity/history/{task['id']}"
    for headers, refused in (
        (ZH, "没有恢复任何内容：这个任务在回收站中。请先在待办回收站恢复它。"),
        (EN, "Nothing was restored: this task is in the trash. Restore it from the todo trash first."),
    ):
        first_version = _forms(person.get(history, headers=headers).text, "/activity/restore")[-1]
        answer = person.post("/activity/restore", _as_form(first_version), headers=headers)
        assert _flash(person, answer, headers) == refused
    trashed = agent("list_todo_trash")["items"]
    assert [(item["id"], item.get("title")) for item in trashed] == [(task["id"], "买酸奶")]


def test_restoring_from_a_task_page_or_a_memo_editor_comes_back_to_it(
    services: Services, browser: Callable[..., Browser]
):
    """ "Restore this version" in the History panel of a task's page or a memo's editor lands on that
    page again, with the version restored and the notice there; it took the person away to the
    record's separate history page."""
    person = browser()
    agent, memo = _memo_with_versions(services, person)
    task = agent("create_todo_task", title="买牛奶")["task"]
    agent("update_todo_task", id=task["id"], expectedRevision=1, title="买酸奶")
    for page in (f"/todos/tasks/{task['id']}", f"/memos/{memo['id']}/edit"):
        first_version = _forms(person.get(page, headers=ZH).text, "/activity/restore")[-1]
        answer = person.post("/activity/restore", _as_form(first_version), headers=ZH)
        assert answer.status_code == 303 and answer.headers["location"] == page, (page, answer.headers)
        assert _flash(person, answer, ZH) == "已恢复此版本。"
    assert agent("get_todo_task", id=task["id"])["task"]["title"] == "买牛奶"
    assert agent("get_memo", id=memo["id"])["memo"]["content"] == "第一版 #版本"


def test_activity_links_to_a_trashed_task_or_a_moved_inbox_item_lead_somewhere(
    services: Services, browser: Callable[..., Browser]
):
    """/activity links each line to its record's page. A task in the trash opens its history with a
    note where it went (not an error page asking for a trace id); an inbox item moved to the board
    opens the task it became; an id with no history is still not found."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="退押金")["task"]
    agent("delete_todo_task", id=task["id"], expectedRevision=task["revision"])
    item = agent("create_todo_inbox_item", title="问房东要发票")["item"]
    agent("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=item["revision"])
    page = person.get("/activity", headers=ZH).text
    assert f'href="/todos/tasks/{task["id"]}"' in page and f'href="/todos/inbox/{item["id"]}"' in page
    trashed = person.get(f"/todos/tasks/{task['id']}", headers=ZH)
    said = shown_text(trashed.text)
    assert trashed.status_code == 404 and "它已不在看板上" in said and "把任务“ 退押金 ”移到了回收站" in said, said
    assert "追踪编号" not in said and 'href="/todos/trash"' in trashed.text
    moved = person.get(f"/todos/inbox/{item['id']}", headers=ZH, follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == f"/todos/tasks/{item['id']}"
    unknown = person.get("/todos/tasks/no-such-task", headers=ZH)
    assert unknown.status_code == 404 and "它已不在看板上" not in shown_text(unknown.text)


def test_an_inbox_item_page_has_the_history_panel_and_restores_from_it(
    services: Services, browser: Callable[..., Browser]
):
    """The memo and task pages have a History panel; the inbox item page had none, so an agent's
    edit of an inbox item could be seen and taken back only through /activity. Its page now shows
    the same panel in the page's language, and "Restore this version" comes back to it with the
    version restored; an item in the trash is left there and the notice says so."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    item = agent("create_todo_inbox_item", title="买牛奶")["item"]
    agent("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="买酸奶", priority="high")
    page = f"/todos/inbox/{item['id']}"
    for headers, sentences in (
        (ZH, ["编辑了收件箱条目“买酸奶”", "新建了收件箱条目“买牛奶”"]),
        (EN, ["edited the inbox item “买酸奶”", "created the inbox item “买牛奶”"]),
    ):
        html = person.get(page, headers=headers).text
        panel = html[html.index('class="card history-panel"') :].split("</section>")[0]
        says = [shown_text(part.split("</p>")[0]) for part in panel.split('class="version-says">')[1:]]
        assert [said.replace("“ ", "“").replace(" ”", "”") for said in says] == sentences, says
    first_version = _forms(person.get(page, headers=ZH).text, "/activity/restore")[-1]
    answer = person.post("/activity/restore", _as_form(first_version), headers=ZH)
    assert answer.status_code == 303 and answer.headers["location"] == page, answer.headers
    assert _flash(person, answer, ZH) == "已恢复此版本。"
    back = agent("get_todo_inbox_item", id=item["id"])["item"]
    assert (back["title"], back["priority"]) == ("买牛奶", "none")
    agent("delete_todo_inbox_item", id=item["id"], expectedRevision=back["revision"])
    for headers, refused in (
        (ZH, "没有恢复任何内容：这个收件箱条目在回收站中。请先在待办回收站恢复它。"),
        (EN, "Nothing was restored: this inbox item is in the trash. Restore it from the todo trash first."),
    ):
        older = _forms(person.get(f"/activity/history/{item['id']}", headers=headers).text, "/activity/restore")[-1]
        assert _flash(person, person.post("/activity/restore", _as_form(older), headers=headers), headers) == refused


def test_a_task_moved_from_the_inbox_restores_its_versions_on_the_task(
    services: Services, browser: Callable[..., Browser]
):
    """An inbox item moved to the board keeps its id as a task, and its history goes on: the
    move's change (the inbox item's removal) is its newest, with no revision after it. The panel
    posted that missing revision ('None') with every "Restore this version", so each answered
    'the form is incomplete or out of date; reload the page' however often it was reloaded, and a
    restore read the record as the inbox item it no longer is. The task's revision is posted now,
    and a version from its inbox days is put back on the task; a task in the trash is left there."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    item = agent("create_todo_inbox_item", title="买牛奶")["item"]
    item = agent("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="买酸奶", priority="high")["item"]
    task = agent("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=item["revision"])["task"]
    page = f"/todos/tasks/{item['id']}"
    forms = _forms(person.get(page, headers=EN).text, "/activity/restore")
    assert forms and all(dict(form)["revision"] == str(task["revision"]) for form in forms), forms
    first_version = forms[-1]  # "created the inbox item “买牛奶”"
    assert _flash(person, person.post("/activity/restore", _as_form(first_version), headers=ZH), ZH) == "已恢复此版本。"
    back = agent("get_todo_task", id=item["id"])["task"]
    assert (back["title"], back["priority"]) == ("买牛奶", "none")
    agent("delete_todo_task", id=item["id"], expectedRevision=back["revision"])
    gone = person.get(f"/activity/history/{item['id']}", headers=EN).text
    in_trash = _forms(gone, "/activity/restore")[-1]
    refused = "Nothing was restored: this task is in the trash. Restore it from the todo trash first."
    assert _flash(person, person.post("/activity/restore", _as_form(in_trash), headers=EN), EN) == refused


def test_an_item_moved_back_to_the_inbox_offers_no_version_of_its_task_days(
    services: Services, browser: Callable[..., Browser]
):
    """An inbox item moved to the board and moved back (the move undone) has its task's changes in
    its history under the same id (the task's creation and its trash). The item's panel offered
    "Restore this version" on them, and a click said "Version restored." having written nothing (a
    task's fields are not the item's). Only the item's own versions restore now."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    item = agent("create_todo_inbox_item", title="买牛奶")["item"]
    item = agent("update_todo_inbox_item", id=item["id"], expectedRevision=1, title="买酸奶")["item"]
    agent("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=item["revision"])
    agent("undo_changes", runId=agent("list_changes", recordId=item["id"])["changes"][0]["runId"])
    kinds = {c["id"]: c["record"]["kind"] for c in agent("list_changes", recordId=item["id"])["changes"]}
    forms = _forms(person.get(f"/todos/inbox/{item['id']}").text, "/activity/restore")
    offered = [dict(form)["changeId"] for form in forms]
    assert offered and {kinds[change_id] for change_id in offered} == {"inbox"}, [kinds[c] for c in offered]
    first = forms[-1]
    assert _flash(person, person.post("/activity/restore", _as_form(first), headers=EN), EN) == "Version restored."
    assert agent("get_todo_inbox_item", id=item["id"])["item"]["title"] == "买牛奶"
