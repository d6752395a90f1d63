"""Undo of a session too long for one `undo_changes` call (over 100 changes): the page calls
again while the service says there is `more`, and its sentence counts each change once; a change
left as it is in one round (edited by the person since) is left again in the next, and is still
one change left, not two."""

from __future__ import annotations

import re
from collections.abc import Callable

from mesq.wiring.services import Services
from tests.hostile.test_no_url_text import shown_text

from ..conftest import Browser
from .seed import caller
from .test_activity_pages import _sections
from .test_filtered_undo_and_restore import EN, ZH, _as_form, _flash, _forms

EDITS = 120


def test_a_long_session_with_one_record_changed_since_counts_it_once(
    services: Services, browser: Callable[..., Browser]
):
    person = browser()
    mine = caller(services, person.user_id, "pat:mine", "我的脚本")
    memos = [mine("create_memo", content=f"笔记 {n}")["memo"] for n in range(EDITS)]
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    edited = [
        agent("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=f"改过 {n}")["memo"]
        for n, memo in enumerate(memos)
    ]
    newest = edited[-1]
    mine("update_memo", id=newest["id"], expectedRevision=newest["revision"], content="我后来又改了")
    agent_group = next(group for group in _sections(person.get("/activity", headers=ZH).text) if "Claude" in group)
    [fields] = _forms(agent_group, "/activity/undo/preview")
    form = _as_form(fields)
    assert "sessionId" in form
    said = _flash(person, person.post("/activity/undo", form, headers=ZH), ZH)
    left = f"保持原样的是：笔记“改过 {EDITS - 1}”。"  # the record left, named once, by its title at the change
    assert said == f"已撤销 {EDITS - 1} 处改动；1 处保持原样（1 处之后又被修改过）。{left}", said
    english = _flash(person, person.post("/activity/undo", form, headers=EN), EN)
    assert english == f"Nothing was undone: 1 changed since. Left as it is: the memo “改过 {EDITS - 1}”.", english
    contents = [mine("get_memo", id=memo["id"])["memo"]["content"] for memo in memos]
    assert contents[:-1] == [f"笔记 {n}" for n in range(EDITS - 1)] and contents[-1] == "我后来又改了"


def test_a_record_edited_over_a_hundred_times_undoes_from_its_page(services: Services, browser: Callable[..., Browser]):
    """An agent that rewrote one memo 120 times in a session: the record's page posts the 121
    ids within a form's 100 fields (one a field, the form answered an error page), undone 100 per
    call; the older ones follow (nobody else changed the memo), in the preview and the undo,
    never "changed since" with the memo left half undone."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    memo = agent("create_memo", content="第 0 版")["memo"]
    for n in range(1, EDITS + 1):
        memo = agent("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=f"第 {n} 版")["memo"]
    [group] = _sections(person.get(f"/activity?recordId={memo['id']}", headers=ZH).text)
    [fields] = _forms(group, "/activity/undo/preview")
    form = _as_form(fields)
    form_ids = [i for packed in form["changeId"] for i in packed.split()]
    assert len(form_ids) == EDITS + 1 and len(fields) < 100
    preview = person.post("/activity/undo/preview", form, headers={**ZH, "HX-Request": "true"})
    assert preview.status_code == 200 and f"将撤销 {EDITS + 1} 处改动。" in preview.text, preview.text
    [confirm] = _forms(preview.text, "/activity/undo")
    assert [i for name, packed in confirm if name == "changeId" for i in packed.split()] == form_ids
    said = _flash(person, person.post("/activity/undo", _as_form(confirm), headers=ZH), ZH)
    assert said == f"已撤销 {EDITS + 1} 处改动。", said  # nobody else changed it: none left "changed since"
    assert agent("get_memo", id=memo["id"])["memo"]["status"] == "DELETED"  # its creation undone: in the trash
    # One click, one undo: a group of its own with every change it undid, whose Redo takes all back.
    undo_group = _sections(person.get(f"/activity?recordId={memo['id']}", headers=ZH).text)[0]
    assert 'undo-badge">撤销' in undo_group and f"{EDITS + 1} 处改动" in shown_text(undo_group), shown_text(undo_group)
    [redo_fields] = _forms(undo_group, "/activity/undo/preview")
    said = _flash(person, person.post("/activity/undo", _as_form(redo_fields), headers=ZH), ZH)
    assert said == f"已重做 {EDITS + 1} 处改动。", said
    assert agent("get_memo", id=memo["id"])["memo"]["content"] == f"第 {EDITS} 版"


def test_a_session_gone_before_its_undo_is_said_all_in_chinese(services: Services, browser: Callable[..., Browser]):
    """Undo this session, clicked after the session's changes are gone (expired, purged): the
    error names where ids come from in the page's language, not half in English."""
    person = browser()
    answer = person.post("/activity/undo/preview", {"sessionId": "gone", "back": "/activity"}, headers=ZH)
    assert answer.status_code == 404
    said = shown_text(answer.text[answer.text.index("<main") : answer.text.index("</main>")])
    assert "get_context" in said and "list_changes" in said  # the names a program uses stay as they are
    leftover = re.sub(
        r"get_context|list_changes|sessionId|runId|actor|me\b|gone|\b[0-9a-f]{32}\b", " ", said
    )  # a trace id too
    assert not re.findall(r"[A-Za-z]{3,}", leftover), said


def test_a_history_panel_past_its_newest_versions_says_the_older_ones_are_elsewhere(
    services: Services, browser: Callable[..., Browser]
):
    """A memo edited 120 times: its History panel lists the newest 100 versions; it says that the
    older ones are in Activity (linked), never reads as if the memo had only those."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    memo = agent("create_memo", content="第 0 版")["memo"]
    for n in range(1, EDITS + 1):
        memo = agent("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=f"第 {n} 版")["memo"]
    for headers, words in ((ZH, "更早的版本不在这里"), (EN, "Older versions are not listed here")):
        for path in (f"/memos/{memo['id']}/edit", f"/activity/history/{memo['id']}"):
            page = person.get(path, headers=headers).text
            panel = page[page.index('class="card history-panel"') :]
            assert panel.count('<li class="version') == 100
            assert words in shown_text(panel), path
    exactly = agent("create_memo", content="第 0 版")["memo"]  # 100 versions: all of them listed
    for n in range(1, 100):
        exactly = agent("update_memo", id=exactly["id"], expectedRevision=n, content=f"第 {n} 版")["memo"]
    page = person.get(f"/activity/history/{exactly['id']}", headers=ZH).text
    assert page.count('<li class="version') == 100 and "更早的版本不在这里" not in shown_text(page)


def test_a_task_panel_cut_by_its_subtasks_changes_says_where_they_are(
    services: Services, browser: Callable[..., Browser]
):
    """A task whose subtask was renamed past the panel's newest 100 changes: the panel says that
    older changes of its subtasks are in Activity (the task's own record page there lists the
    task's changes only, so "this record in Activity has all of them" alone was not true of
    them). With exactly 100 changes in all nothing is said to be older."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="装修")["task"]
    subtask = agent("create_todo_subtask", taskId=task["id"], title="第 0 版")["subtask"]
    for n in range(1, 99):  # the subtask's 99 changes and the task's one: 100, all listed
        subtask = agent("update_todo_subtask", id=subtask["id"], expectedRevision=subtask["revision"],
                        title=f"第 {n} 版")["subtask"]  # fmt: skip
    page = person.get(f"/todos/tasks/{task['id']}", headers=ZH).text
    panel = page[page.index('class="card history-panel"') : page.index("</section>", page.index("history-panel"))]
    assert panel.count('<li class="version') == 100 and "更早" not in panel
    for n in range(99, EDITS):
        subtask = agent("update_todo_subtask", id=subtask["id"], expectedRevision=subtask["revision"],
                        title=f"第 {n} 版")["subtask"]  # fmt: skip
    for headers, said in (
        (ZH, "子任务更早的改动不在这里列出：在动态中可以看到全部改动。"),
        (EN, "Older changes of its subtasks are not listed here: Activity has all of them."),
    ):
        page = person.get(f"/todos/tasks/{task['id']}", headers=headers).text
        panel = page[page.index('class="card history-panel"') : page.index("</section>", page.index("history-panel"))]
        assert panel.count('<li class="version') == 100 and f'<p class="muted">{said}</p>' in panel, panel[-500:]
