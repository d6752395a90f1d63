"""/activity and the History panels written for people, read as a person reads them (the text
of the page, not its markup): an agent's session of 30 memo edits and a task move is one group
with its name, its time span and a summary line; every change a sentence with the record's
title and the columns by name; in Chinese nothing English but what the person typed, in English
nothing Chinese but the same; never an id, a revision, `None` or `False`. "Undo this session"
answers the dry run first, then reverts the session and says so in one sentence; the undo is a
group of its own."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from mesq.application.invocation import invoke_sync
from mesq.auth.tokens import create_token
from mesq.kernel.context import Principal
from mesq.kernel.spec import load_spec
from mesq.web.activity.pages import GROUPS_PER_PAGE
from mesq.wiring.services import Services
from tests.hostile.test_no_url_text import shown_text

from ..conftest import Browser
from .seed import COLUMN_NAMES, Seeded, agent_session, caller

#: Latin words a Chinese page may show: the names the person typed (the tokens'), nothing else.
TYPED = {"Claude", "Desktop"}
LATIN = re.compile(r"[A-Za-z]+")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")


def _main(html: str) -> str:
    return shown_text(html[html.index("<main") : html.index("</main>")])


def _sections(html: str) -> list[str]:
    start = '<section class="card activity-group'
    return [start + part.split("</section>")[0] for part in html.split(start)[1:]]


def _ids(services: Services, user_id: str, seeded: Seeded) -> set[str]:
    """Every id the page must never show: records', changes', runs' and sessions'."""
    call = _as_person(services, user_id)
    changes = call("list_changes", limit=100)["changes"]
    found = {seeded.task_id, *seeded.memo_ids}
    for change in changes:
        found |= {change["id"], change["runId"], change["sessionId"], change["record"]["id"]}
        for side in ("before", "after"):
            found |= {str(value) for name, value in change[side].items() if name.endswith("Id") and value}
    return found


def _as_person(services: Services, user_id: str) -> Any:
    scopes = frozenset({"memo:read", "todo:read"})
    principal = Principal(user_id=user_id, scopes=scopes, credential_id="pat:x", kind="pat")

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        found: dict[str, Any] = invoke_sync(
            load_spec().operations[operation_id], arguments, principal=principal, services=services, trace_id="t",
            channel="api",
        )  # fmt: skip
        return found

    return call


@pytest.fixture
def seeded_zh(services: Services, browser: Callable[..., Browser]) -> tuple[Browser, Seeded]:
    person = browser()
    person.client.headers["Accept-Language"] = "zh-CN,zh;q=0.9"
    return person, agent_session(services, person.user_id)


def test_an_agent_session_is_one_group_in_chinese_words(services: Services, seeded_zh: tuple[Browser, Seeded]):
    person, seeded = seeded_zh
    html = person.get("/activity").text
    groups = _sections(html)
    assert len(groups) == 2  # the agent's session, then the person's own
    agent = shown_text(groups[0])
    assert "Claude Desktop" in agent and "访问令牌" in agent
    assert re.search(r"\d{1,2}:\d{2}", agent)  # the time span
    assert "31 处改动：编辑了 30 条笔记，移动了 1 个任务" in agent
    assert f"把任务“买牛奶”从“{COLUMN_NAMES[0]}”移到了“{COLUMN_NAMES[1]}”" in re.sub(r"\s*([“”])\s*", r"\1", agent)
    assert "编辑了笔记“周报 29”" in re.sub(r"\s*([“”])\s*", r"\1", agent)
    assert "认真" in agent  # the edit's own words, in its details
    text = _main(html)
    for forbidden in _ids(services, person.user_id, seeded) | {"None", "False", "True", "revision", "a0", "a1"}:
        assert forbidden not in text, forbidden
    # The agent's group and the page around the groups (the person's own group renames the board's
    # first columns, named in English before this wave's boards in the person's language).
    # (A time input's value is the machine's `2026-12-06T14:02`: the browser shows it in its own words.)
    around = re.sub(r'<input type="datetime-local"[^>]*>', "", html)
    around = _main(re.sub(r'<section class="card activity-group.*?</section>', "", around, flags=re.DOTALL))
    for words in (agent, around):
        assert set(LATIN.findall(words)) <= TYPED, set(LATIN.findall(words)) - TYPED


def test_the_same_page_in_english_has_no_chinese_of_its_own(services: Services, browser: Callable[..., Browser]):
    person = browser()
    seeded = agent_session(services, person.user_id)
    text = _main(person.get("/activity", headers={"Accept-Language": "en"}).text)
    assert "31 changes: edited 30 memos, moved 1 task" in text
    typed = {*seeded.titles, *COLUMN_NAMES, "买牛奶", "我的脚本", "本周", "认真", "完成了第", "项"}
    leftover = text
    for words in sorted(typed, key=len, reverse=True):
        leftover = leftover.replace(words, " ")
    assert CJK.findall(leftover) == []


def test_undo_this_session_previews_then_reverts_and_says_so(services: Services, seeded_zh: tuple[Browser, Seeded]):
    person, seeded = seeded_zh
    html = person.get("/activity").text
    agent = _sections(html)[0]
    session_id = re.search(r'name="sessionId" value="([^"]+)"', agent)
    assert session_id
    form = {"sessionId": session_id.group(1), "back": "/activity"}
    preview = person.post("/activity/undo/preview", form, headers={"HX-Request": "true"})
    assert preview.status_code == 200
    assert "将撤销 31 处改动。" in shown_text(preview.text)
    unchanged = _as_person(services, person.user_id)("get_memo", id=seeded.memo_ids[0])["memo"]
    assert unchanged["revision"] == 2  # nothing written yet
    answer = person.post("/activity/undo", form)
    assert answer.status_code == 303 and answer.headers["location"] == "/activity"
    done = person.get("/activity")
    assert "已撤销 31 处改动。" in done.text
    call = _as_person(services, person.user_id)
    assert all("认真" not in call("get_memo", id=memo_id)["memo"]["content"] for memo_id in seeded.memo_ids)
    groups = _sections(done.text)
    assert len(groups) == 3 and 'undo-badge">撤销' in groups[0]  # the undo: a group of its own, marked
    assert "Claude Desktop" in groups[1] and "撤销这次会话" not in groups[1]  # nothing left to undo there


def test_the_history_panels_of_a_memo_and_a_task_speak_the_same_words(
    services: Services, seeded_zh: tuple[Browser, Seeded]
):
    person, seeded = seeded_zh
    memo_page = _main(person.get(f"/memos/{seeded.memo_ids[3]}/edit").text)
    panel = memo_page[memo_page.index("历史") :]
    assert "Claude Desktop" in panel and "编辑了笔记" in panel and "我的脚本" in panel and "新建了笔记" in panel
    task_page = _main(person.get(f"/todos/tasks/{seeded.task_id}").text)
    panel = re.sub(r"\s*([“”])\s*", r"\1", task_page[task_page.index("历史") :])
    assert f"从“{COLUMN_NAMES[0]}”移到了“{COLUMN_NAMES[1]}”" in panel
    ids = _ids(services, person.user_id, seeded)
    for text in (memo_page, task_page):
        assert not [found for found in ids if found in text]
        assert "None" not in text and "False" not in text and not re.search(r"版本\s*\d", text)


def test_a_token_shows_its_last_session_linked_to_it_alone(services: Services, browser: Callable[..., Browser]):
    person = browser()
    _, token = create_token(services.items, person.user_id, name="Claude Desktop", scopes="memo:read,memo:write")
    agent = caller(services, person.user_id, f"pat:{token['id']}", "Claude Desktop")
    for n in range(3):
        agent("create_memo", content=f"草稿 {n}")
    page = person.get("/settings/tokens", headers={"Accept-Language": "zh-CN"}).text
    row = page[page.index("Claude Desktop") :]
    row = row[: row.index("</tr>")]
    link = re.search(r'href="(/activity\?sessionId=[^"]+)"', row)
    assert link and "3 处改动：新建了 3 条笔记" in shown_text(row)
    alone = person.get(link.group(1).replace("&amp;", "&"), headers={"Accept-Language": "zh-CN"}).text
    assert len(_sections(alone)) == 1 and "草稿 2" in shown_text(_sections(alone)[0])
    unknown = person.get("/activity?sessionId=no-such-session", headers={"Accept-Language": "zh-CN"})
    assert unknown.status_code in (200, 404) and "no-such-session" not in shown_text(unknown.text)


@pytest.mark.parametrize("name", ["sessionId", "runId"])
def test_a_session_or_run_no_longer_kept_is_said_in_the_pages_words(
    services: Services, browser: Callable[..., Browser], name: str
):
    """A link to a session or run none of whose changes are kept (expired, purged with its memo, a
    settings link followed late) is the activity page saying so in the person's language, not an
    error page with the API's English advice (get_context, list_changes) to an agent."""
    person = browser()
    for language, said in (("zh-CN", "这些改动已不再保留"), ("en", "None of these changes is kept any more")):
        answer = person.get(f"/activity?{name}=gone-long-ago", headers={"Accept-Language": language})
        text = _main(answer.text)
        assert answer.status_code == 200 and said in text, text
        assert "get_context" not in text and "list_changes" not in text and "gone-long-ago" not in text
        if language == "zh-CN":
            assert set(LATIN.findall(text)) == set(), text


def test_fifty_groups_then_older(services: Services, browser: Callable[..., Browser]):
    person = browser()
    for n in range(GROUPS_PER_PAGE + 1):  # each agent's one write: a session each
        caller(services, person.user_id, f"pat:agent{n}", f"agent {n}")("create_memo", content=f"memo {n}")
    first = person.get("/activity", headers={"Accept-Language": "en"}).text
    assert len(_sections(first)) == GROUPS_PER_PAGE
    older = re.search(r'href="(/activity\?[^"]+)">Older<', first)
    assert older and "agent 0" not in shown_text(first)
    second = person.get(older.group(1).replace("&amp;", "&"), headers={"Accept-Language": "en"}).text
    assert len(_sections(second)) == 1 and "agent 0" in shown_text(second) and ">Older<" not in second


def test_an_undo_that_removes_a_space_reads_as_one_group_with_its_columns(
    services: Services, browser: Callable[..., Browser]
):
    """An agent's session made a space and a task in it; undoing the session trashes the task and
    removes the emptied space with its columns. The page shows that as the undo's one group: the
    space's removal names its columns with it, and no group of deletions stands apart."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    trip = agent("create_todo_space", name="旅行")["space"]
    agent("create_todo_task", title="订机票", spaceId=trip["id"])
    columns = [c for c in agent("list_todo_spaces")["columns"] if c["spaceId"] == trip["id"]]
    session_id = agent("get_context")["sessionId"]
    answer = person.post("/activity/undo", {"sessionId": session_id, "back": "/activity"})
    assert answer.status_code == 303
    assert trip["id"] not in {space["id"] for space in agent("list_todo_spaces")["spaces"]}
    for language, removed, with_it in (
        ("zh-CN", "删除了空间“旅行”", f"{len(columns)} 列"),
        ("en", "deleted the space“旅行”", f"{len(columns)} columns"),
    ):
        groups = _sections(person.get("/activity", headers={"Accept-Language": language}).text)
        assert len(groups) == 2, [shown_text(group)[:80] for group in groups]  # the undo, the agent's session
        undo = re.sub(r"\s*([“”])\s*", r"\1", shown_text(groups[0]))
        assert 'undo-badge"' in groups[0] and removed in undo and with_it in undo, undo


def test_redo_these_changes_brings_the_space_back_and_reads_so(services: Services, browser: Callable[..., Browser]):
    """The undo group's "Redo these changes" (its pending change ids, previewed, then undone):
    the space the undo removed is back with its columns and the task in its own column; the
    preview promises all of it (nothing left as it is), and the redo's group says the space was
    brought back with its columns, in Chinese and in English."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    trip = agent("create_todo_space", name="旅行")["space"]
    task = agent("create_todo_task", title="订机票", spaceId=trip["id"])["task"]
    columns = [c for c in agent("list_todo_spaces")["columns"] if c["spaceId"] == trip["id"]]
    person.post("/activity/undo", {"sessionId": agent("get_context")["sessionId"], "back": "/activity"})
    undo_group = _sections(person.get("/activity", headers={"Accept-Language": "zh-CN"}).text)[0]
    assert "重做这些改动" in undo_group and 'undo-badge">撤销' in undo_group
    change_ids = list(dict.fromkeys(re.findall(r'name="changeId" value="([^"]+)"', undo_group)))
    assert len(change_ids) == 2  # the task's trash and the space's removal
    assert 'name="redo" value="1"' in undo_group  # the form says it redoes: the preview and notice say so
    form = {"changeId": change_ids, "redo": "1", "back": "/activity"}
    preview = shown_text(person.post("/activity/undo/preview", form, headers={"Accept-Language": "en"}).text)
    assert "This redoes 2 changes." in preview and "left as" not in preview and "Redo them" in preview, preview
    assert "将重做 2 处改动。" in shown_text(
        person.post("/activity/undo/preview", form, headers={"Accept-Language": "zh-CN"}).text
    )
    assert person.post("/activity/undo", form).status_code == 303
    assert "Redid 2 changes." in person.get("/activity", headers={"Accept-Language": "en"}).text
    assert trip["id"] in {space["id"] for space in agent("list_todo_spaces")["spaces"]}
    back = agent("get_todo_task", id=task["id"])["task"]
    assert (back["spaceId"], back["columnId"]) == (trip["id"], task["columnId"])
    for language, brought, with_it in (
        ("zh-CN", "恢复了空间“旅行”", f"{len(columns)} 列"),
        ("en", "brought back the space“旅行”", f"{len(columns)} columns"),
    ):
        redo = re.sub(
            r"\s*([“”])\s*",
            r"\1",
            shown_text(_sections(person.get("/activity", headers={"Accept-Language": language}).text)[0]),
        )
        assert brought in redo and with_it in redo and "deleted" not in redo and "删除" not in redo, redo
    # The redo's own group is marked Redo, and its button takes the redo back: "Undo these changes",
    # never a second "Redo these changes" that would trash the space's task again.
    redo_group = _sections(person.get("/activity", headers={"Accept-Language": "en"}).text)[0]
    assert 'undo-badge">Redo' in redo_group and "Undo these changes" in redo_group, shown_text(redo_group)
    assert "Redo these changes" not in redo_group and 'name="redo"' not in redo_group
    assert ">Redo<" not in shown_text(redo_group)  # its lines' own buttons undo too


def test_the_undo_of_a_completion_reads_as_reopening(services: Services, browser: Callable[..., Browser]):
    """Completing moves a task to the done column; undoing that moves it back and reopens it. The
    undo's line says what a person would: reopened, not "moved from Done to To do"."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="退押金")["task"]
    agent("complete_todo_task", id=task["id"], expectedRevision=task["revision"])
    completion = agent("list_changes", limit=1)["changes"][0]["id"]
    person.post("/activity/undo", {"changeId": completion, "back": "/activity"})
    for language, said, moved in (
        ("zh-CN", "重新打开了任务“退押金”", "移到了"),
        ("en", "reopened the task“退押金”", "moved"),
    ):
        undo = re.sub(
            r"\s*([“”])\s*",
            r"\1",
            shown_text(_sections(person.get("/activity", headers={"Accept-Language": language}).text)[0]),
        )
        assert said in undo and moved not in undo, undo


def test_the_undo_of_a_tag_rename_is_one_group_and_redoes_whole(services: Services, browser: Callable[..., Browser]):
    """Undoing an agent's tag rename renames the tag back and rewrites the task carrying it; the
    task's rewrite is part of the undo (same call), so /activity shows one undo group, never a
    "Web app" session of a task edit the person did not make with its own Undo this session. Its
    Redo renames the tag again and the task with it, nothing left behind."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = caller(services, person.user_id, "pat:mine", "我的脚本")(
        "create_todo_task", title="联系搬家公司", tags=["电话"]
    )["task"]
    tag = next(tag for tag in agent("list_todo_tags")["tags"] if tag["name"] == "电话")
    agent("update_todo_tag", name="电话", newName="打电话", expectedRevision=tag["revision"])
    person.post("/activity/undo", {"sessionId": agent("get_context")["sessionId"], "back": "/activity"})
    assert agent("get_todo_task", id=task["id"])["task"]["tags"] == ["电话"]
    groups = _sections(person.get("/activity", headers={"Accept-Language": "zh-CN"}).text)
    assert len(groups) == 3, [shown_text(group)[:80] for group in groups]  # the undo, the agent's, the task's
    undo = shown_text(groups[0])
    assert 'undo-badge">撤销' in groups[0] and "联系搬家公司" in undo and "重做这些改动" in undo, undo
    assert "撤销这次会话" not in undo
    change_ids = list(dict.fromkeys(re.findall(r'name="changeId" value="([^"]+)"', groups[0])))
    form = {"changeId": change_ids, "redo": "1", "back": "/activity"}
    assert person.post("/activity/undo", form, headers={"Accept-Language": "zh-CN"}).status_code == 303
    page = person.get("/activity", headers={"Accept-Language": "zh-CN"}).text
    assert "已重做" in page and 'undo-badge">重做' in _sections(page)[0], shown_text(page)
    assert agent("get_todo_task", id=task["id"])["task"]["tags"] == ["打电话"]


@pytest.mark.parametrize("query", ["kind=highlight", "cursor=not-a-cursor"])
def test_a_link_with_a_filter_or_page_activity_never_made_is_said_in_the_pages_words(
    browser: Callable[..., Browser], query: str
):
    """A hand-edited or mangled link (a kind the history has no such records of, a cursor that is
    no change id) answered an error page with the API's advice to an agent on the Chinese page (the
    field's name, the allowed values 'memo', 'task', ..., list_changes and nextCursor). It is a small
    400 in the page's words, in Chinese without a Latin word, that says what to do."""
    person = browser()
    for language, said in (("zh-CN", "请从菜单打开“动态”"), ("en", "open Activity from the menu")):
        answer = person.get(f"/activity?{query}", headers={"Accept-Language": language})
        text = shown_text(answer.text[answer.text.index("<body") :])
        assert answer.status_code == 400 and said in text, text
        assert "list_changes" not in text and "nextCursor" not in text and "'memo'" not in text, text
        if language == "zh-CN":
            shown = text.split("操作未成功")[1].split("追踪编号")[0]  # the trace id after it is for a bug report
            assert LATIN.findall(shown) == [], shown


def test_a_session_longer_than_a_page_reads_says_it_has_more(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
):
    """A page reads at most MAX_READS x READ_SIZE changes (500): an import of 1,050 memos was one
    group reading "493 changes: created 493 memos", its Undo taking back all 1,050, and the rest
    of the session one more group on each older page. The group cut by the page's reads says "at
    least" (here 2 reads of 10, so a session of 25 reads at least 20), and so does the rest of it
    on the older page (it read "5 changes" above an Undo of all 25); a whole one its count."""
    from mesq.web.activity import pages

    monkeypatch.setattr(pages, "MAX_READS", 2)
    monkeypatch.setattr(pages, "READ_SIZE", 10)
    person = browser()
    mine = caller(services, person.user_id, "pat:import", "导入脚本")
    for n in range(25):
        mine("create_memo", content=f"批量笔记 {n}")
    for language, least in (("zh-CN", "至少"), ("en", "at least")):
        first = _main(person.get("/activity", headers={"Accept-Language": language}).text)
        assert f"{least} 20 " in first, first
        older = person.get("/activity", params={"cursor": _older_cursor(person)}, headers={"Accept-Language": language})
        rest = _main(older.text)
        # the rest of the session, on the older page, is no whole session either: its Undo takes all 25
        assert f"{least} 5 " in rest, rest
    # a session that starts and ends on one page says its count
    other = caller(services, person.user_id, "pat:other", "另一个脚本")
    other("create_memo", content="另一次会话")
    assert "1 change:" in _main(person.get("/activity", params={"sessionId": _newest_session(other)}).text)


def _newest_session(call: Callable[..., dict[str, Any]]) -> str:
    return str(call("list_changes", limit=1)["changes"][0]["sessionId"])


def _older_cursor(person: Browser) -> str:
    found = re.search(r'href="/activity\?cursor=([^"&]+)"', person.get("/activity").text)
    assert found, "no Older link"
    return found.group(1)


def test_a_kind_found_nowhere_in_the_changes_read_is_not_said_to_have_none(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
):
    """`?kind=inbox` over an import of thousands of memos: each list_changes reads at most
    SCAN_LIMIT records, so the page's reads found no inbox change and it said "No changes yet."
    above an Older link, while the inbox item's changes were further back. It says none were among
    the changes read and that Older looks further back; Older finds them."""
    from mesq.history import reads
    from mesq.web.activity import pages

    monkeypatch.setattr(reads, "SCAN_LIMIT", 5)
    monkeypatch.setattr(pages, "MAX_READS", 2)
    person = browser()
    mine = caller(services, person.user_id, "pat:import", "导入脚本")
    mine("create_todo_inbox_item", title="想法：写一本书")
    for n in range(12):
        mine("create_memo", content=f"批量笔记 {n}")
    for language, none_read, never in (
        ("zh-CN", "较近的改动里没有找到", "还没有改动"),
        ("en", "None among the most recent changes", "No changes yet"),
    ):
        answer = person.get("/activity?kind=inbox", headers={"Accept-Language": language})
        text = _main(answer.text)
        assert none_read in text and never not in text, text
    older = re.search(r'href="/activity\?([^"]*cursor=[^"]+)"', person.get("/activity?kind=inbox").text)
    assert older, "no Older link"
    further = _main(person.get("/activity?" + older.group(1).replace("&amp;", "&"), headers=ZH_HEADERS).text)
    assert "想法：写一本书" in further, further


ZH_HEADERS = {"Accept-Language": "zh-CN"}


def test_a_redo_in_a_history_panel_is_marked_redo_not_undo(services: Services, browser: Callable[..., Browser]):
    """An agent pins a memo; the person undoes the pin, then undoes that undo (a redo). The History
    panel marked both the undo and the redo "Undo" ("撤销"): "pinned the memo" under an Undo
    badge read as the pin being taken back. A change that undoes an undo is marked "Redo", as
    /activity marks its group."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    memo = agent("create_memo", content="周报")["memo"]
    agent("update_memo", id=memo["id"], expectedRevision=memo["revision"], pinned=True)
    mine = caller(services, person.user_id, "pat:mine", "我的脚本")
    undo = mine("undo_changes", changeIds=_newest(mine, memo["id"]))
    mine("undo_changes", changeIds=[undo["undone"][0]["undoChangeId"]])
    for language, redo_badge, undo_badge in (("zh-CN", "重做", "撤销"), ("en", "Redo", "Undo")):
        html = person.get(f"/activity/history/{memo['id']}", headers={"Accept-Language": language}).text
        whos = [shown_text(part.split("</p>")[0]) for part in html.split('class="version-who"')[1:]]
        assert redo_badge in whos[0] and undo_badge not in whos[0].replace(redo_badge, ""), whos
        assert undo_badge in whos[1] and redo_badge not in whos[1], whos


def _newest(call: Any, record_id: str) -> list[str]:
    return [call("list_changes", recordId=record_id, limit=1)["changes"][0]["id"]]


def test_a_task_history_panel_shows_its_subtasks_changes_among_its_own(
    services: Services, browser: Callable[..., Browser]
):
    """An agent adds two subtasks to a task, completes, renames, reopens and deletes them between
    edits of the task itself. The task page's History panel listed only the task's own changes:
    the subtasks' were at /activity/history/<subtaskId> alone. Now they are there, newest first
    by time among the task's own, in the words /activity uses, with their Undo / undone badges,
    and only the task's own older versions offer "Restore this version"."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="搬家")["task"]
    box = agent("create_todo_subtask", taskId=task["id"], title="打包")["subtask"]
    agent("update_todo_task", id=task["id"], expectedRevision=task["revision"], notes="周六")
    box = agent("complete_todo_subtask", id=box["id"], expectedRevision=box["revision"])["subtask"]
    van = agent("create_todo_subtask", taskId=task["id"], title="租车")["subtask"]
    van = agent("update_todo_subtask", id=van["id"], expectedRevision=van["revision"], title="租货车")["subtask"]
    agent("reopen_todo_subtask", id=box["id"], expectedRevision=box["revision"])
    agent("delete_todo_subtask", id=van["id"], expectedRevision=van["revision"])
    expected = {
        "zh-CN": ["把子任务“租货车”移到了回收站", "重新打开了子任务“打包”", "把子任务“租车”重命名为“租货车”",
                  "添加了子任务“租车”", "完成了子任务“打包”", "编辑了任务“搬家”", "添加了子任务“打包”",
                  "新建了任务“搬家”"],
        "en": ["moved the subtask “租货车” to the trash", "reopened the subtask “打包”",
               "renamed the subtask “租车” to “租货车”", "added the subtask “租车”", "completed the subtask “打包”",
               "edited the task “搬家”", "added the subtask “打包”", "created the task “搬家”"],
    }  # fmt: skip
    for language, sentences in expected.items():
        html = person.get(f"/todos/tasks/{task['id']}", headers={"Accept-Language": language}).text
        panel = html[html.index('class="card history-panel"') :].split("</section>")[0]
        says = [shown_text(part.split("</p>")[0]) for part in panel.split('class="version-says">')[1:]]
        assert [said.replace("“ ", "“").replace(" ”", "”") for said in says] == sentences, says
        whos = [shown_text(part.split("</p>")[0]) for part in panel.split('class="version-who"')[1:]]
        assert len(whos) == len(sentences) and all("Claude Desktop" in who for who in whos), whos
        # one Restore per older version of the task itself (its creation), none on a subtask's line
        assert panel.count('name="changeId"') == 1, panel
    # /activity's summary of the session says the subtasks were added, as the task page's button does
    for language, added in (("zh-CN", "添加了 2 个子任务"), ("en", "added 2 subtasks")):
        assert added in shown_text(person.get("/activity", headers={"Accept-Language": language}).text), language


def test_a_task_history_page_in_activity_shows_its_subtasks_changes(
    services: Services, browser: Callable[..., Browser]
):
    """/activity/history/<taskId> (where /activity links a task's changes) listed only the task's
    own changes, while the task page's panel has its subtasks' too: added, completed, renamed and
    trashed subtasks were missing from the task's history. Now the page reads the task's subtasks
    as the task page does (by key and their index list) and shows their changes, each naming the
    subtask by its title, among the task's own; only the task's own versions restore."""
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="搬家")["task"]
    box = agent("create_todo_subtask", taskId=task["id"], title="打包")["subtask"]
    agent("update_todo_task", id=task["id"], expectedRevision=task["revision"], notes="周六")
    agent("complete_todo_subtask", id=box["id"], expectedRevision=box["revision"])
    van = agent("create_todo_subtask", taskId=task["id"], title="租车")["subtask"]
    van = agent("update_todo_subtask", id=van["id"], expectedRevision=van["revision"], title="租货车")["subtask"]
    agent("delete_todo_subtask", id=van["id"], expectedRevision=van["revision"])
    expected = {
        "zh-CN": ["把子任务“租货车”移到了回收站", "把子任务“租车”重命名为“租货车”", "添加了子任务“租车”",
                  "完成了子任务“打包”", "编辑了任务“搬家”", "添加了子任务“打包”", "新建了任务“搬家”"],
        "en": ["moved the subtask “租货车” to the trash", "renamed the subtask “租车” to “租货车”",
               "added the subtask “租车”", "completed the subtask “打包”", "edited the task “搬家”",
               "added the subtask “打包”", "created the task “搬家”"],
    }  # fmt: skip
    for language, sentences in expected.items():
        html = person.get(f"/activity/history/{task['id']}", headers={"Accept-Language": language}).text
        panel = html[html.index('class="card history-panel"') :].split("</section>")[0]
        says = [shown_text(part.split("</p>")[0]) for part in panel.split('class="version-says">')[1:]]
        assert [said.replace("“ ", "“").replace(" ”", "”") for said in says] == sentences, says
        assert panel.count('name="changeId"') == 1, panel  # the task's creation, no subtask's line
    # a subtask's own page stays its own history
    html = person.get(f"/activity/history/{box['id']}", headers={"Accept-Language": "en"}).text
    panel = html[html.index('class="card history-panel"') :].split("</section>")[0]
    says = [shown_text(part.split("</p>")[0]) for part in panel.split('class="version-says">')[1:]]
    assert [said.replace("“ ", "“").replace(" ”", "”") for said in says] == [
        "completed the subtask “打包”",
        "added the subtask “打包”",
    ], says


def test_a_trashed_task_history_page_in_activity_shows_its_subtasks_changes(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
):
    """A task in the trash: /activity/history/<taskId> (where /activity links its changes) and its
    own page (/todos/tasks/<taskId>, the record gone from the board) listed only the task's own
    changes, since get_todo_task refuses a trashed task: its subtasks' additions, completions,
    renames and trash were missing, while the same task's page showed them the moment before it was
    trashed. They are there now, each naming its subtask, read as the live task's are: by record,
    for its live subtasks and its most recently trashed ones, never the timeline."""
    from mesq.web.kit.framework import Page

    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="搬家")["task"]
    box = agent("create_todo_subtask", taskId=task["id"], title="打包")["subtask"]
    agent("complete_todo_subtask", id=box["id"], expectedRevision=box["revision"])
    van = agent("create_todo_subtask", taskId=task["id"], title="租车")["subtask"]
    van = agent("update_todo_subtask", id=van["id"], expectedRevision=van["revision"], title="租货车")["subtask"]
    agent("delete_todo_subtask", id=van["id"], expectedRevision=van["revision"])
    task = agent("get_todo_task", id=task["id"])["task"]
    agent("delete_todo_task", id=task["id"], expectedRevision=task["revision"])
    expected = {
        "zh-CN": ["把任务“搬家”移到了回收站", "把子任务“租货车”移到了回收站", "把子任务“租车”重命名为“租货车”",
                  "添加了子任务“租车”", "完成了子任务“打包”", "添加了子任务“打包”", "新建了任务“搬家”"],
        "en": ["moved the task “搬家” to the trash", "moved the subtask “租货车” to the trash",
               "renamed the subtask “租车” to “租货车”", "added the subtask “租车”", "completed the subtask “打包”",
               "added the subtask “打包”", "created the task “搬家”"],
    }  # fmt: skip
    read: list[dict[str, Any]] = []
    invoke = Page.invoke

    async def counted(self: Page, operation_id: str, arguments: dict[str, Any], **rest: Any) -> Any:
        if operation_id == "list_changes":
            read.append(arguments)
        return await invoke(self, operation_id, arguments, **rest)

    monkeypatch.setattr(Page, "invoke", counted)
    for url in (f"/activity/history/{task['id']}", f"/todos/tasks/{task['id']}"):
        for language, sentences in expected.items():
            read.clear()
            html = person.get(url, headers={"Accept-Language": language}).text
            panel = html[html.index('class="card history-panel"') :].split("</section>")[0]
            says = [shown_text(part.split("</p>")[0]) for part in panel.split('class="version-says">')[1:]]
            assert [said.replace("“ ", "“").replace(" ”", "”") for said in says] == sentences, (url, says)
            # only the task's own older version (its creation) offers a restore, no subtask's line
            assert panel.count('name="changeId"') == 1, url
            # each read is one record's: the task's and its two subtasks', never the timeline
            assert {str(arguments.get("recordId")) for arguments in read} == {task["id"], box["id"], van["id"]}, read


def test_a_task_history_panel_reads_every_subtask_past_one_round_of_reads(
    services: Services, browser: Callable[..., Browser]
):
    """The panel reads its subtasks' histories a few at a time (pages.SUBTASK_READS_AT_ONCE): a
    task with more subtasks than one round shows each one's change, none twice."""
    from mesq.web.activity.pages import SUBTASK_READS_AT_ONCE

    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="年货")["task"]
    titles = [f"买第{n}样" for n in range(2 * SUBTASK_READS_AT_ONCE + 3)]
    for title in titles:
        agent("create_todo_subtask", taskId=task["id"], title=title)
    html = person.get(f"/todos/tasks/{task['id']}", headers={"Accept-Language": "zh-CN"}).text
    panel = html[html.index('class="card history-panel"') :].split("</section>")[0]
    says = [shown_text(part.split("</p>")[0]) for part in panel.split('class="version-says">')[1:]]
    added = [said.replace("“ ", "“").replace(" ”", "”") for said in says if said.startswith("添加了子任务")]
    assert added == [f"添加了子任务“{title}”" for title in reversed(titles)], says


def test_a_task_history_panel_reads_a_bounded_number_of_trashed_subtasks(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
):
    """A task has at most MAX_SUBTASKS live subtasks, but its trash has no such limit: an agent that
    adds and trashes subtasks leaves hundreds. The panel read the history of every one of them
    (trashedSubtaskIds named them all), one by-record query each, on every view of the task page.
    It now reads the most recently trashed MAX_SUBTASKS (trashedSubtaskIds lists those, newest
    trashed first), whose changes are the newest."""
    from mesq.todos.model import MAX_SUBTASKS
    from mesq.web.kit.framework import Page

    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="年货")["task"]
    trashed = []
    for n in range(MAX_SUBTASKS + 5):
        subtask = agent("create_todo_subtask", taskId=task["id"], title=f"第{n}样")["subtask"]
        agent("delete_todo_subtask", id=subtask["id"], expectedRevision=subtask["revision"])
        trashed.append(subtask["id"])
    live = agent("create_todo_subtask", taskId=task["id"], title="还在")["subtask"]
    context = agent("get_todo_task", id=task["id"], includeContext=True)
    assert context["trashedSubtaskIds"] == list(reversed(trashed))[:MAX_SUBTASKS]
    read: list[str] = []
    invoke = Page.invoke

    async def counted(self: Page, operation_id: str, arguments: dict[str, Any], **rest: Any) -> Any:
        if operation_id == "list_changes" and "cursor" not in arguments:
            read.append(str(arguments.get("recordId")))
        return await invoke(self, operation_id, arguments, **rest)

    monkeypatch.setattr(Page, "invoke", counted)
    html = person.get(f"/todos/tasks/{task['id']}", headers={"Accept-Language": "en"}).text
    assert len(read) <= 1 + 1 + MAX_SUBTASKS, len(read)
    assert set(read) == {task["id"], live["id"], *list(reversed(trashed))[:MAX_SUBTASKS]}
    panel = html[html.index('class="card history-panel"') :].split("</section>")[0]
    assert "还在" in panel and f"第{MAX_SUBTASKS + 4}样" in panel


def test_a_task_history_panel_reads_whether_subtasks_have_older_changes_together(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
):
    """Whether a subtask has changes older than the page of them read (one more by-record read, of
    one change, for a subtask with a full page) was asked one subtask after another, after each
    round of SUBTASK_READS_AT_ONCE: a task whose 50 subtasks each had 100 changes waited for 50
    reads in series. They go with the round's reads now, and the panel still says older ones exist."""
    from mesq.web.activity import pages
    from mesq.web.kit.framework import Page

    monkeypatch.setattr(pages, "READ_SIZE", 3)
    person = browser()
    agent = caller(services, person.user_id, "pat:claude", "Claude Desktop")
    task = agent("create_todo_task", title="年货")["task"]
    for n in range(4):
        subtask = agent("create_todo_subtask", taskId=task["id"], title=f"第{n}样")["subtask"]
        for title in ("甲", "乙", "丙"):
            subtask = agent("update_todo_subtask", id=subtask["id"], expectedRevision=subtask["revision"], title=title)
            subtask = subtask["subtask"]
    in_flight, most = [0], [0]
    invoke = Page.invoke

    async def counted(self: Page, operation_id: str, arguments: dict[str, Any], **rest: Any) -> Any:
        older = operation_id == "list_changes" and "cursor" in arguments
        in_flight[0] += older
        most[0] = max(most[0], in_flight[0])
        try:
            return await invoke(self, operation_id, arguments, **rest)
        finally:
            in_flight[0] -= older

    monkeypatch.setattr(Page, "invoke", counted)
    html = person.get(f"/todos/tasks/{task['id']}", headers={"Accept-Language": "en"}).text
    assert most[0] > 1, most
    assert "Older changes of its subtasks are not listed here" in html


def test_one_apps_connections_page_by_page_show_each_change_once(
    services: Services, browser: Callable[..., Browser], monkeypatch: pytest.MonkeyPatch
):
    """`?actor=A&actor=B` (a connected app's row: its connections before and after reconnecting):
    both connections' changes newest first, another agent's none, and, read in pages of 4 (one
    connection's read ahead of the other's), Older goes on where the page stopped: every change
    once, none skipped."""
    from mesq.web.activity import pages

    monkeypatch.setattr(pages, "MAX_READS", 1)
    monkeypatch.setattr(pages, "READ_SIZE", 4)
    person = browser()
    before = caller(services, person.user_id, "oauth:before", "Claude", kind="oauth")
    after = caller(services, person.user_id, "oauth:after", "Claude", kind="oauth")
    other = caller(services, person.user_id, "pat:other", "别的脚本")
    titles = []
    for n in range(5):
        for call, name in ((before, "旧连接"), (before, "旧连接"), (after, "新连接"), (other, "别的")):
            titles.append(f"{name}笔记{n}-{len(titles)}")
            call("create_memo", content=titles[-1])
    seen: list[str] = []
    query = "actor=oauth%3Abefore&actor=oauth%3Aafter"
    for _page in range(20):
        html = person.get("/activity?" + query, headers=ZH_HEADERS).text
        main = _main(html)
        seen += [title for title in titles if title in main]
        older = re.search(r'href="/activity\?([^"]*cursor=[^"]+)"', html)
        if older is None:
            break
        query = older.group(1).replace("&amp;", "&")
        assert query.startswith("actor=oauth%3Abefore&actor=oauth%3Aafter&cursor="), query
    wanted = [title for title in titles if not title.startswith("别的")]
    assert sorted(seen) == sorted(wanted), (seen, wanted)
    assert "由 Claude" in _main(person.get("/activity?actor=oauth:before&actor=oauth:after", headers=ZH_HEADERS).text)
