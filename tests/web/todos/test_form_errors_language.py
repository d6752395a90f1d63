"""Every refusal a todo or settings form can show is in the page's language (sweep F8): bad values
posted to each form as a Chinese reader (Settings → Language: 中文), the message beside the form
(or the error page) read like the one-language crawl reads a page (tests/web/kit/
test_one_language.py `foreign_runs`): no run of Latin letters but the allowed names and what the
person typed. Schema validation (minLength, maxLength, pattern, enum, type, ...) and the domain's
own checks alike, each field named as the form labels it (标题, 时区, 列名)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest

from mesq.todos.recurrence import UNTIL_DATE_EXAMPLE, UNTIL_TIME_EXAMPLE
from mesq.wiring.services import Services, reminder_reach

from ..conftest import Browser
from ..kit.test_one_language import foreign_runs
from .test_todos_pages import columns, new_task, run

#: What a page says when a form is refused: the message beside the form, a flash, the error page.
SAID = re.compile(
    r'<(?:p|div|span|output)[^>]*(?:class="[^"]*\b(?:error|flash)\b[^"]*"|role="alert")[^>]*>(.*?)</(?:p|div|span|output)>',
    re.S,
)
TAG = re.compile(r"<[^>]+>")
#: Literal text (code, a command, an identifier): any letters, as the crawl allows.
LITERAL = re.compile(r"<(code|kbd|samp)\b[^>]*>.*?</\1>", re.S)


def messages(answer: Any) -> list[str]:
    """The refusals an answer shows, literal text left out."""
    found = (html.unescape(TAG.sub("", LITERAL.sub(" ", said))).strip() for said in SAID.findall(answer.text))
    return [text for text in found if text]


@pytest.fixture
def lin(browser: Callable[..., Browser], services: Services) -> Browser:
    person = browser()
    assert person.post("/settings/language", {"language": "zh"}).status_code == 303
    assert "语言" in person.get("/settings").text  # its notice shown (and gone from the next page)
    run(services, person.user_id, "set_time_zone", {"timeZone": "Asia/Shanghai"})
    return person


def refused(person: Browser, path: str, data: dict[str, Any], typed: tuple[str, ...] = ()) -> list[str]:
    """The Chinese page's messages after posting `data` to `path`: at least one, none foreign."""
    answer = person.post(path, data)
    if answer.status_code in (302, 303):
        answer = person.get(answer.headers["location"])
    said = messages(answer)
    assert said, f"{path}: no message shown ({answer.status_code})"
    foreign = {text: runs for text in said if (runs := foreign_runs(text, "zh", set(typed)))}
    assert foreign == {}, f"{path} {data}: English on a Chinese page"
    return said


LONG = "长" * 501


def test_the_board_forms_refuse_in_chinese_naming_the_field_as_labelled(services: Services, lin: Browser) -> None:
    todo, _doing, _done = columns(services, lin.user_id)
    space = run(services, lin.user_id, "list_todo_spaces", {})["spaces"][0]
    assert "列名：不能为空" in refused(lin, "/todos/columns", {"space": space["id"], "name": "   "})
    assert any(
        m.startswith("列名：") for m in refused(lin, "/todos/columns", {"space": space["id"], "name": "列" * 101})
    )
    assert "列名：不能为空" in refused(lin, f"/todos/columns/{todo['id']}/rename", {"revision": 1, "name": " "})
    assert "空间名称：不能为空" in refused(lin, f"/todos/spaces/{space['id']}/rename", {"revision": 1, "name": " "})
    assert "空间名称：不能为空" in refused(lin, "/todos/spaces", {"name": "  "})
    refused(lin, f"/todos/spaces/{space['id']}/delete", {"revision": 1})  # the default space
    new_task(services, lin.user_id, "留着", columnId=todo["id"])
    refused(lin, f"/todos/columns/{todo['id']}/delete", {"revision": 1})  # a column with tasks
    said = refused(lin, "/todos/tasks", {"column": todo["id"], "title": LONG})
    assert any(m.startswith("标题：最多 500 个字符") for m in said), said
    refused(lin, "/todos/columns/nothing-here/move", {"revision": 1, "index": "x"})


def test_the_task_page_refuses_in_chinese(services: Services, lin: Browser) -> None:
    task = new_task(services, lin.user_id, "表单校验")
    page = f"/todos/tasks/{task['id']}"
    form = {"revision": task["revision"], "title": "表单校验", "priority": "none", "repeat": ""}
    assert "标题：不能为空" in refused(lin, page, {**form, "title": "   "})
    assert any(m.startswith("标题：") for m in refused(lin, page, {**form, "title": LONG}))
    said = refused(lin, page, {**form, "timezone": "北京"}, ("北京",))
    assert any(m.startswith("时区：") for m in said), said
    refused(lin, page, {**form, "timezone": "Mars/Olympus"}, ("Mars/Olympus",))
    refused(lin, page, {**form, "tags": "工作, 家 务"}, ("家 务",))
    refused(lin, page, {**form, "due_date": "2026-13-40"}, ("2026-13-40",))
    refused(lin, page, {**form, "due_time": "09:00"})
    refused(lin, page, {**form, "due_date": "2026-12-10", "due_time": "25:99"}, ("25:99",))
    refused(lin, page, {**form, "repeat": "custom", "rule": "FREQ=SOMETIMES"}, ("FREQ=SOMETIMES",))
    refused(lin, page, {**form, "repeat": "custom", "rule": "FREQ=DAILY;COUNT=0", "due_date": "2026-12-10"},
            ("FREQ=DAILY;COUNT=0",))  # fmt: skip
    refused(lin, page, {**form, "repeat": "FREQ=DAILY"})  # a repeat without a due
    refused(lin, page, {**form, "notes": "长" * 50_001})
    reminders = f"{page}/reminders"
    refused(lin, reminders, {"revision": task["revision"], "offset": "-PT15M"})  # a relative one without a due
    refused(lin, reminders, {"revision": task["revision"], "at": "明天早上"}, ("明天早上",))
    refused(lin, reminders, {"revision": task["revision"], "offset": "-PT7M"})
    refused(lin, f"{page}/subtasks", {"title": "  "})
    refused(lin, f"{page}/subtasks", {"title": LONG})
    sub = run(services, lin.user_id, "create_todo_subtask", {"taskId": task["id"], "title": "子任务"})["subtask"]
    refused(lin, f"/todos/subtasks/{sub['id']}/rename", {"revision": sub["revision"], "title": " ", "task": task["id"]})


def test_a_rule_dateutil_refuses_is_explained_in_chinese(services: Services, lin: Browser) -> None:
    """A rule that passes the RRULE pattern but not dateutil (an UNTIL of the wrong form for the
    due, an unknown part, a value a part cannot take): the page said dateutil's English reason
    ("RRULE UNTIL values must be specified in UTC when DTSTART is timezone-aware"), and a
    date-only due with a UTC UNTIL was told about a "timezone-aware DTSTART" it does not have."""
    task = new_task(services, lin.user_id, "重复规则")
    page = f"/todos/tasks/{task['id']}"
    form = {"revision": task["revision"], "title": "重复规则", "priority": "none", "repeat": "custom"}
    timed = {**form, "due_date": "2026-12-10", "due_time": "10:00"}
    # the example of what to write is a value of the rule's language, as literal as the rule typed
    said = refused(lin, page, {**timed, "rule": "FREQ=DAILY;UNTIL=20261220"},
                   ("FREQ=DAILY;UNTIL=20261220", UNTIL_TIME_EXAMPLE))  # fmt: skip
    assert any("UNTIL" in m and UNTIL_TIME_EXAMPLE in m for m in said), said  # a UTC time, ending in Z
    dated = {**form, "due_date": "2026-12-10"}
    said = refused(lin, page, {**dated, "rule": "FREQ=DAILY;UNTIL=20261220T000000Z"},
                   ("FREQ=DAILY;UNTIL=20261220T000000Z",))  # fmt: skip
    assert any("UNTIL" in m and UNTIL_DATE_EXAMPLE in m for m in said), said  # a date, as the due is
    refused(lin, page, {**dated, "rule": "FREQ=DAILY;COLOR=RED"}, ("FREQ=DAILY;COLOR=RED",))
    refused(lin, page, {**dated, "rule": "FREQ=WEEKLY;BYDAY=XX"}, ("FREQ=WEEKLY;BYDAY=XX",))
    refused(lin, page, {**timed, "rule": "FREQ=DAILY;BYHOUR=25"}, ("FREQ=DAILY;BYHOUR=25",))
    said = refused(lin, page, {**dated, "rule": "FREQ=DAILY;BYHOUR=9,15"}, ("FREQ=DAILY;BYHOUR=9,15",))
    assert any(m.startswith("重复：BYHOUR 需要") for m in said), said  # a date-only due repeats in whole days
    assert run(services, lin.user_id, "get_todo_task", {"id": task["id"]})["task"]["recurrence"] is None


def test_the_inbox_and_today_forms_refuse_in_chinese(services: Services, lin: Browser) -> None:
    assert any(m.startswith("标题：") for m in refused(lin, "/todos/inbox", {"title": LONG}))
    refused(lin, "/todos/today", {"title": LONG})
    item = run(services, lin.user_id, "create_todo_inbox_item", {"title": "收集"})["item"]
    page = f"/todos/inbox/{item['id']}"
    form = {"revision": item["revision"], "title": "收集", "priority": "none"}
    assert "标题：不能为空" in refused(lin, page, {**form, "title": " "})
    refused(lin, page, {**form, "timezone": "北京"}, ("北京",))
    refused(lin, page, {**form, "due_date": "明天"}, ("明天",))
    refused(lin, f"{page}/subtasks", {"revision": item["revision"], "title": " "})
    refused(lin, f"{page}/subtasks", {"title": "没带版本号的旧表单"}, ("没带版本号的旧表单",))


def test_a_zone_name_settings_cannot_read_is_said_beside_its_field(services: Services, lin: Browser) -> None:
    """Settings again, the reason beside the field and the name kept as typed (it was the whole
    error page "操作未成功" with a trace id); a known name in another case is that zone."""
    answer = lin.post("/settings/time-zone", {"timeZone": "北京"})
    assert answer.status_code == 400
    assert 'id="time-zone-error"' in answer.text and "操作未成功" not in answer.text
    assert 'value="北京"' in answer.text and 'aria-invalid="true"' in answer.text
    assert 'id="board-names"' not in answer.text and "<h1>设置</h1>" in answer.text
    saved = lin.post("/settings/time-zone", {"timeZone": "asia/shanghai"})
    assert saved.status_code == 303
    assert "时区已设为 Asia/Shanghai。" in lin.get(saved.headers["location"]).text


def test_the_settings_forms_refuse_in_chinese(services: Services, lin: Browser) -> None:
    said = refused(lin, "/settings/time-zone", {"timeZone": "北京"}, ("北京",))
    assert any(m.startswith("时区：") for m in said), said
    refused(lin, "/settings/time-zone", {"timeZone": "Mars/Olympus"}, ("Mars/Olympus",))
    refused(lin, "/settings/tokens", {"name": "脚本", "expiry": "30"})  # no scope
    refused(lin, "/settings/tokens", {"name": "脚本", "scopes": "memo:read", "expiry": "一年"}, ("一年",))
    refused(lin, "/settings/tokens", {"name": "", "scopes": "memo:read", "expiry": "30"})
    refused(lin, "/settings/tokens", {"name": "名" * 200, "scopes": "memo:read", "expiry": "30"})
    refused(
        lin, "/settings/reminders/channels", {"kind": "ntfy", "url": "ftp://example.com/x"}, ("ftp://example.com/x",)
    )
    refused(lin, "/settings/reminders/webhooks", {"kind": "webhook", "url": "不是网址"}, ("不是网址",))
    mail = {"kind": "email", "host": "", "port": "587", "security": "starttls", "from": "a@example.org",
            "to": "b@example.org"}  # fmt: skip
    refused(lin, "/settings/reminders/channels", mail, ("a@example.org", "b@example.org"))
    refused(lin, "/settings/reminders/channels", {**mail, "host": "smtp.example.org", "port": "七"},
            ("smtp.example.org", "a@example.org", "b@example.org", "七"))  # fmt: skip
    refused(lin, "/settings/reminders/channels", {"kind": "telegram", "token": "abc", "chat": "1"}, ("abc",))
    refused(lin, "/settings/language", {"language": "klingon"}, ("klingon",))
    # A URL httpx cannot parse: its English reason ("Invalid port: ':1'") was said inside the sentence.
    refused(lin, "/settings/reminders/webhooks", {"kind": "webhook", "url": "https://[::1"}, ("https://[::1",))
    # Web Push on a server without an https:// public URL: the refusal was one English sentence.
    push = {"kind": "webpush", "endpoint": "https://push.example/x", "p256dh": "k", "auth": "a"}
    literal = ("MESQ_PUBLIC_URL", reminder_reach(services.settings).public_url)  # a setting's name, the URL
    said = refused(lin, "/settings/reminders/channels", push, literal)
    assert any("MESQ_PUBLIC_URL" in m for m in said), said  # the setting to change is named


def test_an_english_page_names_the_field_as_labelled_and_rest_keeps_the_argument(
    services: Services, browser: Callable[..., Browser], client: Any, make_account: Callable[..., Any]
) -> None:
    """The same refusal: REST and MCP name the argument (`title: …`, English whatever the
    client's language); an English page names it as its form labels it (`Title: …`)."""
    ada = browser()
    task = new_task(services, ada.user_id, "check")
    answer = ada.post(f"/todos/tasks/{task['id']}", {"revision": task["revision"], "title": "长" * 501, "repeat": ""})
    assert answer.status_code == 400 and "Title: at most 500 characters" in html.unescape(answer.text)
    account = make_account(scopes="todo:read,todo:write")
    rest = client.post("/api/toolkit/todo/tasks", json={"title": "长" * 501},
                       headers={**account.headers, "Accept-Language": "zh-CN"})  # fmt: skip
    assert rest.status_code == 400 and rest.json()["error"]["message"] == "title: at most 500 characters"


@pytest.mark.parametrize(("language", "words"), [("zh", "追踪编号"), ("en", "quote traceId")])
def test_a_fault_is_told_in_the_pages_language(
    browser: Callable[..., Browser], services: Services, language: str, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault in a page, and in a page script's request (a card dropped on the board), says the
    trace id in the reader's words: a Chinese page read "internal error; quote traceId … when
    reporting it", a template the catalog did not have."""
    from mesq.web.settings import calendar
    from mesq.web.todos import board

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals")

    person = browser()
    assert person.post("/settings/language", {"language": language}).status_code == 303
    person.get("/settings")  # its notice shown (and gone from the next page)
    task = new_task(services, person.user_id, "浇花")
    monkeypatch.setattr(calendar, "_page", broken)
    monkeypatch.setattr(board, "_move_arguments", broken)
    page = person.get("/settings/calendar")
    assert page.status_code == 500 and "secret internals" not in page.text
    said = " ".join(messages(page))
    trace = {page.headers["x-trace-id"]}
    assert words in said and foreign_runs(said, language, trace) == [], said
    drop = person.client.post(
        f"/todos/tasks/{task['id']}/drop", json={"revision": task["revision"], "index": 0},
        headers={"X-CSRF-Token": person.csrf},
    )  # fmt: skip
    assert drop.status_code == 500 and drop.json()["error"]["code"] == "INTERNAL"
    message, trace = drop.json()["error"]["message"], {drop.headers["x-trace-id"]}
    assert words in message and "secret" not in message and foreign_runs(message, language, trace) == [], message


@pytest.mark.parametrize(("language", "words"), [("zh", "回收站"), ("en", "in the trash")])
def test_a_missing_tasks_page_points_to_the_trash_not_a_tool(
    browser: Callable[..., Browser], services: Services, language: str, words: str
) -> None:
    """A task link that names no task (mistyped, or deleted for good): the page names the trash in
    the reader's words. The English page read "(trashed tasks are listed by list_todo_trash)", a
    tool's name no reader can follow; REST and MCP keep naming the tool for the agents."""
    person = browser()
    assert person.post("/settings/language", {"language": language}).status_code == 303
    person.get("/settings")  # its notice shown (and gone from the next page)
    answer = person.get("/todos/tasks/NoSuchTask0000000")
    assert answer.status_code == 404
    said = " ".join(messages(answer))
    assert words in said and "list_todo_trash" not in answer.text, said
    assert foreign_runs(said, language, set()) == [], said
    with pytest.raises(Exception, match="list_todo_trash"):  # the same miss over REST and MCP
        run(services, person.user_id, "get_todo_task", {"id": "NoSuchTask0000000"})
