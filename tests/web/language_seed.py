"""One account with every state a signed-in page can show, for the one-language crawl
(tests/web/kit/test_one_language.py): memos pinned, archived, trashed, with a file and an image,
a task list and tags; tasks overdue, due today, tomorrow, next week and next month, of every
priority, recurring, with subtasks and reminders, completed; inbox items; an empty board; a
failed reminder channel of each kind; a failed reading sync; an import; history with every
operation (create, edit, move, trash, restore, delete, undone); an OAuth app, tokens live,
expired and revoked, a calendar feed.

Everything the person writes is written in Chinese, and each string typed is kept in `typed`
(what a page may show in any language: the crawl takes it out before it reads a page). The
few typed strings that cannot be Chinese (the username, a file's extension, the addresses of
the channels) are there too, and kept short and few."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from playwright import sync_api as playwright_sync

from mesq.reading.model import book_id
from tests.conftest import LiveServer

PASSWORD = "correct horse battery"
USERNAME = "ada"
ZONE = "Asia/Shanghai"
#: A loopback port nothing listens on: a channel or a sync aimed there fails at once.
CLOSED_PORT_HOST = "127.0.0.1"


@dataclass
class Seeded:
    """What the crawl needs: the path values, the extra addresses, and what the person typed."""

    typed: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    #: Pages worth reading besides the routes' own (filters, searches, the empty board).
    urls: list[str] = field(default_factory=list)
    memo_ids: dict[str, str] = field(default_factory=dict)
    task_ids: dict[str, str] = field(default_factory=dict)
    space_ids: dict[str, str] = field(default_factory=dict)
    token: str = ""

    def type(self, *texts: str) -> str:
        """Note each text as the person's own (returns the first)."""
        self.typed.update(text for text in texts if text)
        return texts[0]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind((CLOSED_PORT_HOST, 0))
        return int(probe.getsockname()[1])


def shelf_document(seeded: Seeded) -> dict[str, Any]:
    """A Chinese shelf in the export format (docs/reading-import.md): chapters, a thought on a
    highlight, a lone thought."""
    passage = seeded.type("给岁月以文明，而不是给文明以岁月。")

    def note(note_id: str, kind: str, content: str, chapter: int, position: int, **extra: Any) -> dict[str, Any]:
        seeded.type(content, *(v for v in extra.values() if isinstance(v, str)))
        return {"id": note_id, "noteType": kind, "content": content, "position": position, "chapterIndex": chapter,
                "createdAt": f"2026-03-{1 + position:02d}T21:00:00+08:00", **extra}  # fmt: skip

    notes = [
        note("h1", "highlight", passage, 1, 1, chapterTitle="第一部 危机纪元"),
        note("t1", "note", "我的想法：黑暗森林是一种假设。", 1, 2, quotedText=passage, chapterTitle="第一部 危机纪元"),
        note("h2", "highlight", "弱小和无知不是生存的障碍，傲慢才是。", 2, 3, chapterTitle="第二部 威慑纪元"),
    ]
    books = [{"id": "b-1", "title": seeded.type("三体"), "author": seeded.type("刘慈欣"), "notes": notes}]
    return {"provider": "wechat-reading", "books": books}


class Rest:
    """The REST API with the seed's token: each answer checked, its `data` returned."""

    def __init__(self, server: LiveServer, token: str) -> None:
        self.client = httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30)

    def __call__(self, method: str, path: str, body: Any = None, **kwargs: Any) -> dict[str, Any]:
        answer = self.client.request(method, path, json=body, **kwargs)
        assert answer.status_code in (200, 201), f"{method} {path}: {answer.status_code} {answer.text}"
        data: dict[str, Any] = answer.json()["data"]
        return data


def _at(now: datetime, days: int, hour: int, minute: int = 0) -> str:
    local = (now.astimezone(ZoneInfo(ZONE)) + timedelta(days=days)).replace(hour=hour, minute=minute, second=0)
    return local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _day(now: datetime, days: int) -> str:
    return (now.astimezone(ZoneInfo(ZONE)).date() + timedelta(days=days)).isoformat()


def sign_up(server: LiveServer, page: Any) -> None:
    base = server.base_url
    page.goto(base + "/setup")
    page.fill("input[name=username]", USERNAME)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=confirm]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page).to_have_url(base + "/")


def seed_memos(rest: Rest, seeded: Seeded) -> None:
    t = seeded.type
    file = rest.client.post("/api/toolkit/memo/resources/upload",
                            files={"file": (t("会议纪要.txt", "txt"), "纪要".encode(), "text/plain")})  # fmt: skip
    png = (t("照片.png", "png"), bytes.fromhex("89504e470d0a1a0a"), "image/png")
    image = rest.client.post("/api/toolkit/memo/resources/upload", files={"file": png})
    assert file.status_code == 201 and image.status_code == 201, (file.text, image.text)
    fields = ("path", "displayName", "fileSize", "mimeType", "type")
    resources = [{k: r.json()["data"][k] for k in fields} for r in (file, image)]
    texts = {
        "files": "周会的纪要和照片 #工作",
        "pinned": "置顶：本周读完《三体》 #读书",
        "list": "购物清单 #生活\n- [ ] 牛奶\n- [x] 面包",
        "archived": "去年的计划 #旧事",
        "trashed": "写错了的一条 #草稿",
        "edited": "初稿：关于黑暗森林",
        "plain": "今天下雨，在家看书。",
    }
    for name, text in texts.items():
        t(text, *text.split("#")[1:], *(line.strip("- []x") for line in text.splitlines()))
        body: dict[str, Any] = {"content": text}
        if name == "files":
            body["resources"] = resources
        memo = rest("POST", "/api/toolkit/memo", body)["memo"]
        seeded.memo_ids[name] = memo["id"]
        if name == "pinned":
            rest("PATCH", f"/api/toolkit/memo/{memo['id']}", {"expectedRevision": memo["revision"], "pinned": True})
        elif name == "archived":
            archive = {"expectedRevision": memo["revision"], "status": "ARCHIVED"}
            rest("PATCH", f"/api/toolkit/memo/{memo['id']}", archive)
        elif name == "trashed":
            rest("DELETE", f"/api/toolkit/memo/{memo['id']}", {"expectedRevision": memo["revision"]})
        elif name == "edited":  # edited twice: its History has versions to restore
            draft = {"expectedRevision": memo["revision"], "content": t("二稿：关于黑暗森林 #读书")}
            second = rest("PATCH", f"/api/toolkit/memo/{memo['id']}", draft)["memo"]
            rest("PATCH", f"/api/toolkit/memo/{memo['id']}",
                 {"expectedRevision": second["revision"], "content": t("定稿：关于黑暗森林 #读书")})  # fmt: skip
    # Trashed then restored: the history has a restore.
    restored = rest("POST", "/api/toolkit/memo", {"content": t("删了又找回来的一条")})["memo"]
    gone = rest("DELETE", f"/api/toolkit/memo/{restored['id']}", {"expectedRevision": restored["revision"]})["memo"]
    rest("POST", f"/api/toolkit/memo/{restored['id']}/restore", {"expectedRevision": gone["revision"]})
    seeded.values["memo_id"] = seeded.memo_ids["edited"]
    seeded.values["trashed_memo_id"] = seeded.memo_ids["trashed"]


def seed_todos(rest: Rest, seeded: Seeded, now: datetime) -> None:
    t = seeded.type
    spaces = rest("GET", "/api/toolkit/todo/spaces")
    seeded.space_ids["default"] = spaces["defaultSpaceId"]
    columns = [c for c in spaces["columns"] if c["spaceId"] == spaces["defaultSpaceId"]]
    tasks = [  # title, priority, due, extra
        ("交房租", "urgent", {"type": "date", "date": _day(now, -2)}, {}),
        ("回复编辑的邮件", "high", {"type": "datetime", "at": _at(now, -1, 9, 30)}, {}),
        ("整理书架", "medium", {"type": "date", "date": _day(now, 0)}, {"tags": [t("家务")]}),
        ("给妈妈打电话", "low", {"type": "datetime", "at": _at(now, 1, 17)}, {}),
        ("准备季度汇报", "none", {"type": "datetime", "at": _at(now, 5, 10)}, {"recurrence": "FREQ=WEEKLY;BYDAY=MO"}),
        ("体检", "high", {"type": "date", "date": _day(now, 20)}, {"recurrence": "FREQ=MONTHLY"}),
        ("明年的旅行", "none", {"type": "date", "date": _day(now, 400)}, {}),
        ("读完第一章", "medium", None, {"notes": t("在地铁上读")}),
    ]
    for title, priority, due, extra in tasks:
        body = {"title": t(title), "priority": priority, **({"due": due, "timezone": ZONE} if due else {}), **extra}
        task = rest("POST", "/api/toolkit/todo/tasks", body)["task"]
        seeded.task_ids[title] = task["id"]
    main = seeded.task_ids["准备季度汇报"]
    first = rest("POST", f"/api/toolkit/todo/tasks/{main}/subtasks", {"title": t("收集数据")})["subtask"]
    rest("POST", f"/api/toolkit/todo/tasks/{main}/subtasks", {"title": t("做幻灯片")})
    rest("POST", f"/api/toolkit/todo/subtasks/{first['id']}/complete", {"expectedRevision": first["revision"]})
    call = rest("GET", f"/api/toolkit/todo/tasks/{seeded.task_ids['给妈妈打电话']}")["task"]
    rest("PUT", f"/api/toolkit/todo/tasks/{call['id']}/reminders", {"expectedRevision": call["revision"],
         "reminders": [{"type": "relative", "offset": "-PT15M"}, {"type": "relative", "offset": "-P1D"}]})  # fmt: skip
    # Moved to the second column, then completed (the done column), one trashed, one trashed and restored.
    moved = rest("GET", f"/api/toolkit/todo/tasks/{seeded.task_ids['整理书架']}")["task"]
    rest("POST", f"/api/toolkit/todo/tasks/{moved['id']}/move",
         {"expectedRevision": moved["revision"], "columnId": columns[1]["id"]})  # fmt: skip
    done = rest("POST", "/api/toolkit/todo/tasks", {"title": t("交水电费"), "priority": "low"})["task"]
    rest("POST", f"/api/toolkit/todo/tasks/{done['id']}/complete", {"expectedRevision": done["revision"]})
    for title, restore in (("过期的优惠券", False), ("差点删掉的任务", True)):
        made = rest("POST", "/api/toolkit/todo/tasks", {"title": t(title)})["task"]
        gone = rest("DELETE", f"/api/toolkit/todo/tasks/{made['id']}", {"expectedRevision": made["revision"]})
        if restore:
            rest("POST", f"/api/toolkit/todo/tasks/{made['id']}/restore",
                 {"expectedRevision": gone["task"]["revision"]})  # fmt: skip
    # The inbox: an item with a due and a priority and a subtask, one plain, one trashed.
    item = rest("POST", "/api/toolkit/todo/inbox", {"title": t("取快递"), "priority": "high",
                "due": {"type": "date", "date": _day(now, 2)}, "tags": [t("家")]})["item"]  # fmt: skip
    rest("POST", f"/api/toolkit/todo/inbox/{item['id']}/subtasks",
         {"parentRevision": item["revision"], "title": t("带上身份证")})  # fmt: skip
    rest("POST", "/api/toolkit/todo/inbox", {"title": t("买牛奶")})
    bin_item = rest("POST", "/api/toolkit/todo/inbox", {"title": t("不要了的想法")})["item"]
    rest("DELETE", f"/api/toolkit/todo/inbox/{bin_item['id']}", {"expectedRevision": bin_item["revision"]})
    # A second, empty board, and a column renamed, added and removed (shape changes in the history).
    empty = rest("POST", "/api/toolkit/todo/spaces", {"name": t("空白看板")})["space"]
    seeded.space_ids["empty"] = empty["id"]
    extra_column = rest("POST", "/api/toolkit/todo/columns", {"spaceId": empty["id"], "name": t("稍后")})["column"]
    rest("DELETE", f"/api/toolkit/todo/columns/{extra_column['id']}", {"expectedRevision": extra_column["revision"]})
    seeded.values["task_id"] = main
    seeded.values["item_id"] = item["id"]
    seeded.urls.append(f"/todos?space={empty['id']}")


def seed_undo(rest: Rest, seeded: Seeded) -> None:
    """An undone change: the history shows the undo and the change it undid."""
    made = rest("POST", "/api/toolkit/memo", {"content": seeded.type("撤销过的一次修改")})["memo"]
    edited = rest("PATCH", f"/api/toolkit/memo/{made['id']}",
                  {"expectedRevision": made["revision"], "content": seeded.type("改过的内容")})  # fmt: skip
    changes = rest("GET", "/api/toolkit/changes", params={"recordId": made["id"]})["changes"]
    newest = [c["id"] for c in changes if c["revisions"]["after"] == edited["memo"]["revision"]]
    answer = rest("POST", "/api/toolkit/changes/undo", {"changeIds": newest})
    assert answer["undone"], answer


def seed_import(rest: Rest, seeded: Seeded) -> None:
    """A Todoist import (its report page)."""
    t = seeded.type
    csv = "TYPE,CONTENT,PRIORITY,INDENT,DATE,DATE_LANG,TIMEZONE\nsection,采购,,,,,\n"
    csv += "task,买菜 @家,4,1,每周五,zh,Asia/Shanghai\ntask,换灯泡,1,1,,zh,Asia/Shanghai\n"
    t("采购", "买菜 @家", "买菜", "换灯泡", "每周五")
    before = {space["id"] for space in rest("GET", "/api/toolkit/todo/spaces")["spaces"]}
    ran = rest.client.post("/api/toolkit/import?kind=todoist", content=csv.encode())
    assert ran.status_code == 200, ran.text
    seeded.values["run_id"] = ran.json()["data"]["runId"]
    # A CSV sent without a file name makes a space named in the account's language with the day
    # (`Todoist 导入（2026年12月5日）`); from then on the name is the person's data, as a new
    # board's names are (seed_todos).
    t(*(space["name"] for space in rest("GET", "/api/toolkit/todo/spaces")["spaces"] if space["id"] not in before))


@contextmanager
def failing_gateway() -> Iterator[str]:
    """A loopback address where the reading sync's gateway refuses the credential (401)."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Refuse(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self._refuse()

        def do_GET(self) -> None:
            self._refuse()

        def _refuse(self) -> None:
            body = json.dumps({"errcode": -2010, "errmsg": "auth failed"}).encode()
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    http = HTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{http.server_address[1]}/api/agent/gateway"
    finally:
        http.shutdown()
        http.server_close()


def seed_settings(server: LiveServer, page: Any, seeded: Seeded) -> None:
    """Through the settings pages, as the person does: channels that fail, a reading credential
    whose sync fails, a calendar feed, tokens."""
    base = server.base_url
    port = closed_port()
    page.goto(base + "/settings/reminders")
    channels = [
        ("#add-ntfy", {"url": seeded.type(f"http://{CLOSED_PORT_HOST}:{port}/提醒")}),
        ("#add-ntfy", {"url": seeded.type("https://提醒.invalid/通知")}),
        ("#add-email", {"host": seeded.type(CLOSED_PORT_HOST), "port": str(port), "security": "none",
                        "from": seeded.type("ada@example.com"), "to": seeded.type("ada@example.com")}),
        ("#add-webhook", {"url": seeded.type(f"http://{CLOSED_PORT_HOST}:{port}/钩子")}),
    ]  # fmt: skip
    for form, values in channels:
        page.goto(base + "/settings/reminders")
        for name, value in values.items():
            field_ = page.locator(f"{form} [name={name}]")
            if name == "security":
                field_.select_option(value)
            else:
                field_.fill(value)
        page.locator(f"{form} button[type=submit]").click()
        playwright_sync.expect(page.locator("#channels")).to_be_visible()
    seeded.type("example", "com", "invalid")  # the parts of the addresses typed above
    page.goto(base + "/settings/reminders")
    for index in range(page.locator("#channels tbody tr").count()):
        page.goto(base + "/settings/reminders")
        page.locator("#channels tbody tr").nth(index).get_by_role("button").first.click()
        playwright_sync.expect(page.locator("#channels")).to_be_visible()
    # A reading credential, and a sync the gateway refuses.
    page.goto(base + "/settings/reading")
    page.fill("#credential-secret", "wrk-" + "s" * 30)
    page.locator("#credential-form button[type=submit]").click()
    page.locator("#sync-now").click()
    playwright_sync.expect(page.locator("#sync-error")).to_be_visible()
    # A calendar feed.
    page.goto(base + "/settings/calendar")
    page.locator("form[action='/settings/calendar'] button[type=submit]").first.click()
    # Tokens: one used, one never used, one revoked.
    page.goto(base + "/settings/tokens")
    for name in ("笔记同步", "旧电脑"):
        page.fill("input[name=name]", seeded.type(name))
        page.locator("form[action='/settings/tokens'] button[type=submit]").click()
        playwright_sync.expect(page.locator("#token-value")).to_be_visible()
        page.goto(base + "/settings/tokens")
    revoke = page.locator("tr[data-token-id]", has_text="旧电脑").locator("a[href$='/revoke']").get_attribute("href")
    assert revoke
    page.goto(base + revoke)
    page.locator("form button[type=submit]").last.click()
    page.goto(base + "/settings/tokens")
    token_id = page.locator("tr[data-token-id]").first.get_attribute("data-token-id")
    assert token_id
    seeded.values["token_id"] = token_id


def seed_account(server: LiveServer, page: Any, gateway: str) -> Seeded:
    """The whole account (`gateway`: where its reading sync goes, failing_gateway's)."""
    del gateway  # the server was started with it
    seeded = Seeded()
    seeded.type(USERNAME, "MeSQ")
    sign_up(server, page)
    # The account reads Chinese before its first todo page: its board is made in Chinese
    # (默认 / 待办 / 进行中 / 已完成), and from then on the board's names are the person's own data.
    page.goto(server.base_url + "/settings")
    page.locator("#language-form input[name=language][value='zh']").check()
    page.locator("#language-form button[type=submit]").click()
    playwright_sync.expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    seeded.type("默认", "待办", "进行中", "已完成")
    seeded.token = server.token(USERNAME, "memo:read,memo:write,todo:read,todo:write", seeded.type("读书助手"))
    rest = Rest(server, seeded.token)
    now = datetime.now(UTC)
    try:
        seed_memos(rest, seeded)
        seed_todos(rest, seeded, now)
        seed_undo(rest, seeded)
        seed_import(rest, seeded)
    finally:
        rest.client.close()
    shelf = Path(server.data_dir).parent / "shelf.json"
    shelf.write_text(json.dumps(shelf_document(seeded), ensure_ascii=False), encoding="utf-8")
    imported = server.cli("reading", "import", USERNAME, str(shelf))
    assert imported.returncode == 0, imported.stderr
    seeded.values["book_id"] = book_id("b-1")
    seed_settings(server, page, seeded)
    today = date.today().isoformat()
    seeded.urls += [
        "/?status=ARCHIVED", "/?pinned=1", "/?untagged=1", "/?tag=%E8%AF%BB%E4%B9%A6", f"/?day={today}",
        "/?q=%E4%B8%89%E4%BD%93", "/?q=%E6%B2%A1%E6%9C%89%E8%BF%99%E4%B8%AA",  # 三体, 没有这个 (no hit)
        "/reading/search?q=%E9%BB%91%E6%9A%97", "/reading/search?q=%E6%B2%A1%E6%9C%89",  # 黑暗, 没有
        f"/activity?recordId={seeded.memo_ids['edited']}", "/activity?kind=task",
    ]  # fmt: skip
    return seeded


__all__ = ["PASSWORD", "USERNAME", "ZONE", "Seeded", "failing_gateway", "seed_account"]
