"""The MCP Apps views (mesq/mcp/mcp_apps.py) in headless Chromium, fed real tool results from a real
`mesq serve`. The test host page is built on the official SDK's host side, `AppBridge` from
`@modelcontextprotocol/ext-apps` (bundled into .cache/ by infra/apps_bundle.py; the views carry the
SDK's `App`): it loads each `ui://mesq/...` document (read with `resources/read`) into a sandboxed
iframe (`sandbox="allow-scripts"`, an opaque origin: the view can reach nothing but the host),
answers the SDK's `ui/initialize` with a host context (theme, locale), sends the tool result once
the view is initialized, and passes every `tools/call` / `resources/read` the view sends to the
server over `/mcp` (JSON-RPC over HTTP with the account's token — the credential stays in the
host; the view never sees it).

Checked: the board renders its columns and cards; dragging a card (or picking its column in the card's
"Move to" list) sends `tools/call move_todo_task`, the host passes it on, and a fresh `list_todos` shows
the card in its new column; the changes view's Undo reverts a memo edit through `undo_changes`; a host
theme change keeps what Open showed (no needless render) and a locale change renders the view in
Chinese; the results view opens a hit of each search kind (memo, todo_task, inbox_item, reading_note)
through its read tool; the memo view names attachments by `displayName`, shows an image's thumbnail
and draws footnotes as the web memo page does; a stored `<script>` and `onerror` in a memo and a
task title stay text in every view (nothing runs, no element is made, and the view's strict CSP
reports no violation: no eval, no inline handler, no fetch);
axe-core finds no serious or critical violation in any view, light (English) and dark (Chinese: the
heading and `<html lang>`); the board and the changes view show moments in the account's zone (from
the result's `_meta`) in a browser and host of another zone. Every wait is for
a response or a DOM state, never a fixed sleep."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import LiveServer, start_server, stop_server

from ..e2e.test_apps_bundle import apps_bundle
from ..mcp.test_js_schemas import _node_tools
from .chromium import chromium_page

HOST = "http://host.test/"
XSS = "<img src=x onerror=\"parent.postMessage('pwned','*')\"><script>parent.postMessage('pwned','*')</script>"
FAILING_IMPACTS = ("serious", "critical")
#: Each view's heading in the two host locales the axe pass uses (bridge.js STRINGS).
HEADINGS = {
    "board": {"en-US": "Board", "zh-CN": "看板"},
    "memo": {"en-US": "Memo", "zh-CN": "笔记"},
    "results": {"en-US": "Results", "zh-CN": "结果"},
    "changes": {"en-US": "Changes", "zh-CN": "更改"},
}

HOST_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>test host</title>
<script src="/app-bridge.js"></script></head>
<body><script>
const {AppBridge, PostMessageTransport} = McpExtAppsHost;
window.__calls = []; window.__stray = []; window.__sizes = [];
// What is not the SDK's JSON-RPC (a stored payload's postMessage would be) is recorded as stray.
window.addEventListener('message', (event) => {
  const frame = document.getElementById('view');
  if (!frame || event.source !== frame.contentWindow) return;
  if (!event.data || event.data.jsonrpc !== '2.0') window.__stray.push(String(event.data));
});
// tools/call and resources/read from the view go to the server with the host's credential.
const forward = async (method, params) => {
  const entry = {method, name: params.name, arguments: params.arguments, done: false};
  window.__calls.push(entry);
  let answer;
  try { answer = JSON.parse(await window.mcpCall(method, JSON.stringify(params))); }
  catch (failure) { entry.failure = String(failure); entry.done = true; throw failure; }
  entry.result = answer.result; entry.error = answer.error; entry.done = true;
  if (answer.error) throw new Error(answer.error.message);
  return answer.result;
};
window.loadView = async (html, toolResult, context, toolInput) => {
  window.__calls = []; window.__sizes = [];
  if (window.__bridge) await window.__bridge.close();
  const old = document.getElementById('view'); if (old) old.remove();
  const frame = document.createElement('iframe');
  frame.id = 'view'; frame.name = 'view'; frame.title = 'MeSQ view';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.width = '1000px'; frame.style.height = '700px';
  document.body.appendChild(frame);
  const bridge = new AppBridge(null, {name: 'mesq-test-host', version: '1'},
    {serverTools: {}, serverResources: {}}, {hostContext: context});
  bridge.oncalltool = (params) => forward('tools/call', params);
  bridge.onreadresource = (params) => forward('resources/read', params);
  bridge.onsizechange = (size) => window.__sizes.push(size);
  bridge.oninitialized = async () => {
    if (toolInput) await bridge.sendToolInput({arguments: toolInput});  // the arguments the model sent
    await bridge.sendToolResult(toolResult);
  };
  window.__bridge = bridge;
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
};
</script></body></html>"""


class Server:
    """JSON-RPC over `/mcp` with the account's token (the host side of every call)."""

    def __init__(self, live: LiveServer, token: str) -> None:
        self.live = live
        self.url = f"{live.base_url}/mcp"
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}

    def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        response = httpx.post(self.url, json=body, headers=self.headers, timeout=60)
        assert response.headers.get("content-type", "").startswith("application/json"), (response, response.text)
        answer: dict[str, Any] = response.json()
        return answer

    def tail(self) -> str:
        """The server's last log lines (a failed wait names them)."""
        return "\n".join(self.live.output[-20:])

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        answer = self.rpc("tools/call", {"name": name, "arguments": arguments})
        result: dict[str, Any] = answer["result"]
        assert not result.get("isError"), result
        return result

    def data(self, name: str, arguments: dict[str, Any]) -> Any:
        return self.call(name, arguments)["structuredContent"]["data"]

    def view(self, name: str) -> str:
        text: str = self.rpc("resources/read", {"uri": f"ui://mesq/{name}"})["result"]["contents"][0]["text"]
        return text


#: The reading note a results hit opens: past the first page of its book's notes (list_reading_notes
#: pages by 100), so Open has to follow `nextOffset`.
NOTE_POSITION = 120


def _reading_export() -> dict[str, Any]:
    notes = [
        {"id": f"n{n}", "noteType": "highlight", "content": f"plain highlight {n}", "position": n,
         "chapterTitle": "One", "chapterIndex": 0, "createdAt": "2026-01-02T08:00:00+08:00"}
        for n in range(NOTE_POSITION + 10)
    ]  # fmt: skip
    notes[NOTE_POSITION]["content"] = "opencheck the note's own words"
    return {"provider": "wechat-reading", "books": [{"id": "book-1", "title": "Book", "author": "A", "notes": notes}]}


@pytest.fixture(scope="module")
def live() -> Iterator[tuple[LiveServer, Server]]:
    import tempfile
    from pathlib import Path

    live = start_server(Path(tempfile.mkdtemp(prefix="mesq-apps-")) / "data")
    try:
        account = live.account("appsuser", scopes="memo:read,memo:write,todo:read,todo:write,reading:read")
        shelf = Path(tempfile.mkdtemp(prefix="mesq-apps-shelf-")) / "export.json"
        shelf.write_text(json.dumps(_reading_export()), encoding="utf-8")
        imported = live.cli("reading", "import", "appsuser", str(shelf))
        assert imported.returncode == 0, imported.stderr
        server = Server(live, account.token)
        # The first todo call makes the board in its caller's language: made here, in English, so
        # a zh-CN view's call earlier in the module cannot name the columns the tests look for.
        server.data("list_todos", {})
        yield live, server
    finally:
        stop_server(live)


@pytest.fixture(scope="module")
def app_bridge() -> str:
    """The SDK's host side (`AppBridge`), bundled from the locked versions under .cache/."""
    bundle: str = apps_bundle().host_bundle().read_text(encoding="utf-8")
    return bundle


class Host:
    def __init__(self, page: Any, server: Server, app_bridge: str) -> None:
        self.page, self.server = page, server
        self.console: list[str] = []
        page.on("console", lambda message: self.console.append(message.text))
        # In every frame, before its scripts (through the driver, so the view's CSP stays as is):
        # what the view's CSP blocks (an eval, a fetch, an inline handler) is recorded.
        page.add_init_script(
            "window.__violations = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        page.route(HOST, lambda route: route.fulfill(status=200, content_type="text/html", body=HOST_PAGE))
        page.route(
            HOST + "app-bridge.js",
            lambda route: route.fulfill(status=200, content_type="text/javascript", body=app_bridge),
        )
        page.expose_function("mcpCall", lambda method, params: json.dumps(server.rpc(method, json.loads(params))))
        page.goto(HOST)

    def load(
        self,
        view: str,
        result: dict[str, Any],
        theme: str = "light",
        locale: str = "en-US",
        arguments: dict[str, Any] | None = None,
        **context: str,
    ) -> Any:
        context = {"theme": theme, "locale": locale, "displayMode": "inline", **context}
        self.page.evaluate(
            "([h, r, c, a]) => window.loadView(h, r, c, a)", [self.server.view(view), result, context, arguments]
        )
        return self.page.frame_locator("#view")

    def frame(self) -> Any:
        frame = self.page.frame(name="view")
        assert frame is not None
        return frame

    def wait_for_call(self, name: str, count: int = 1) -> dict[str, Any]:
        try:
            self.page.wait_for_function(
                "([n, k]) => window.__calls.filter(c => c.name === n && c.done).length >= k", arg=[name, count]
            )
        except PlaywrightTimeout as timeout:  # say what the host did see, and what the server said
            calls = self.page.evaluate("window.__calls")
            said = self.server.tail()
            raise AssertionError(f"no answered {name} call; host calls: {calls}; server: {said}") from timeout
        done: list[dict[str, Any]] = self.page.evaluate("n => window.__calls.filter(c => c.name === n && c.done)", name)
        assert "failure" not in done[count - 1], (done[count - 1], self.server.tail())
        return done[count - 1]

    def assert_inert(self) -> None:
        frame = self.frame()
        assert frame.locator("img[src=x]").count() == 0
        assert frame.locator("script").count() == 1  # the view's own
        assert self.page.evaluate("window.__stray") == []
        assert frame.evaluate("window.__violations") == []
        assert not [line for line in self.console if "Content Security Policy" in line or "pwned" in line]


@pytest.fixture
def host(live: tuple[LiveServer, Server], app_bridge: str) -> Iterator[Host]:
    with chromium_page(viewport={"width": 1100, "height": 800}) as page:
        yield Host(page, live[1], app_bridge)


def _seed_board(server: Server) -> tuple[str, dict[str, str]]:
    board = server.data("list_todos", {})
    columns = {c["name"]: c["id"] for c in board["columns"]}
    task = server.data("create_todo_task", {"title": "drag me " + XSS, "columnId": columns["To do"], "tags": ["apps"]})
    return task["task"]["id"] if "task" in task else task["id"], columns


def test_board_renders_drags_and_moves_through_the_host(host: Host):
    task_id, columns = _seed_board(host.server)
    view = host.load("board", host.server.call("list_todos", {}))
    for name in columns:
        view.locator(f"section.column[data-column-id='{columns[name]}'] h2", has_text=name).wait_for()
    card = view.locator(f"li.task[data-task-id='{task_id}']")
    card.wait_for()
    assert XSS in card.locator(".title").inner_text()
    assert (
        view.locator(f"section.column[data-column-id='{columns['To do']}'] li[data-task-id='{task_id}']").count() == 1
    )
    host.assert_inert()
    # The SDK's App reports its size itself (autoResize), and the AppBridge hears it.
    host.page.wait_for_function("window.__sizes.some(s => s.height > 0)")

    card.drag_to(view.locator(f"section.column[data-column-id='{columns['Doing']}']"))
    move = host.wait_for_call("move_todo_task")
    assert move["arguments"]["id"] == task_id and move["arguments"]["columnId"] == columns["Doing"]
    assert not move["result"].get("isError"), move["result"]
    host.wait_for_call("list_todos")  # the view reads the board again through the host
    view.locator(f"section.column[data-column-id='{columns['Doing']}'] li[data-task-id='{task_id}']").wait_for()

    # Reload: a fresh list_todos from the server into a fresh view shows the card in its new column.
    view = host.load("board", host.server.call("list_todos", {}))
    view.locator(f"section.column[data-column-id='{columns['Doing']}'] li[data-task-id='{task_id}']").wait_for()
    assert (
        view.locator(f"section.column[data-column-id='{columns['To do']}'] li[data-task-id='{task_id}']").count() == 0
    )
    host.assert_inert()


def test_a_card_moves_without_dragging_and_names_a_due_zone_not_the_readers(host: Host):
    """Cards moved only by dragging: no way by keyboard, screen reader or a finger that cannot
    drag. Each open card now has a "Move to" list of its space's columns (its own chosen), which
    sends the same move. And a due time in the task's own zone was shown with no zone named, so
    9:00 in New York read as 9:00 to a reader in Shanghai: another zone than the reader's is named."""
    task_id, columns = _seed_board(host.server)
    due = {"type": "datetime", "at": "2026-12-08T14:00:00Z"}
    new = {"title": "call Ann", "columnId": columns["To do"], "due": due, "timezone": "America/New_York"}
    elsewhere = host.server.data("create_todo_task", new)
    elsewhere = elsewhere.get("task", elsewhere)
    for locale, named in (("en-US", "9:00 AM EST"), ("zh-CN", "北美东部标准时间 09:00")):
        view = host.load("board", host.server.call("list_todos", {}), locale=locale, timeZone="Asia/Shanghai")
        card = view.locator(f"li.task[data-task-id='{elsewhere['id']}']")
        card.wait_for()
        assert named in card.locator(".due").inner_text().replace("\u202f", " "), card.locator(".due").inner_text()
    # The reader's own zone is not named: the same instant in Shanghai's zone reads 22:00 plainly.
    new = {"title": "local call", "columnId": columns["To do"], "due": due, "timezone": "Asia/Shanghai"}
    local = host.server.data("create_todo_task", new)
    local = local.get("task", local)
    view = host.load("board", host.server.call("list_todos", {}), locale="zh-CN", timeZone="Asia/Shanghai")
    view.locator(f"li.task[data-task-id='{local['id']}']").wait_for()
    assert view.locator(f"li.task[data-task-id='{local['id']}'] .due").inner_text() == "截止 2026年12月8日 22:00"
    # In a 390 px host the card's Complete button and its "移到" list fit inside the card.
    host.page.evaluate("() => { document.getElementById('view').style.width = '390px'; }")
    for row in view.locator("li.task .row").all():
        assert row.evaluate("el => el.scrollWidth <= el.clientWidth"), row.inner_text()

    view = host.load("board", host.server.call("list_todos", {}))
    card = view.locator(f"li.task[data-task-id='{task_id}']")
    picker = card.get_by_role("combobox", name="Move to drag me")
    assert picker.evaluate("select => select.value") == columns["To do"]
    picker.focus()
    host.page.keyboard.press("ArrowDown")  # the next column, by keyboard alone
    move = host.wait_for_call("move_todo_task")
    assert move["arguments"]["id"] == task_id and move["arguments"]["columnId"] == columns["Doing"]
    assert not move["result"].get("isError"), move["result"]
    host.wait_for_call("list_todos")
    view.locator(f"section.column[data-column-id='{columns['Doing']}'] li[data-task-id='{task_id}']").wait_for()
    host.assert_inert()


def test_changes_undo_reverts_a_change(host: Host):
    memo = host.server.data("create_memo", {"content": "first version"})["memo"]
    host.server.call(
        "update_memo", {"id": memo["id"], "expectedRevision": memo["revision"], "content": "second " + XSS}
    )
    changes = host.server.call("list_changes", {"recordId": memo["id"]})
    newest = changes["structuredContent"]["data"]["changes"][0]
    assert newest["operation"] == "update_memo"
    view = host.load("changes", changes)
    row = view.locator(f"li.change[data-change-id='{newest['id']}']")
    row.wait_for()
    assert XSS in row.inner_text()
    host.assert_inert()
    row.get_by_role("button", name="Undo").click()
    undo = host.wait_for_call("undo_changes")
    assert undo["arguments"] == {"changeIds": [newest["id"]]}
    assert [entry["changeId"] for entry in undo["result"]["structuredContent"]["data"]["undone"]] == [newest["id"]]
    row.get_by_role("status").filter(has_text="Undone").wait_for()
    assert host.server.data("get_memo", {"id": memo["id"]})["memo"]["content"] == "first version"


def test_memo_and_results_keep_stored_markup_inert(host: Host):
    memo = host.server.data("create_memo", {"content": "# Title " + XSS + "\n- item " + XSS + "\nxsscheck " + XSS})
    view = host.load("memo", host.server.call("get_memo", {"id": memo["memo"]["id"]}))
    view.locator("article.memo h2").wait_for()
    assert XSS in view.locator("article.memo").inner_text()
    host.assert_inert()
    found = host.server.call("search_everything", {"query": "xsscheck"})
    assert found["structuredContent"]["data"]["items"], found
    view = host.load("results", found)
    # The memo's own hit, wherever it ranks (a closest match by meaning may come with it).
    hit = view.locator(f"li.hit[data-id='{memo['memo']['id']}']")
    hit.locator("button").click()
    host.wait_for_call("get_memo")
    hit.locator(".content p").wait_for()
    assert "xsscheck" in hit.inner_text()
    host.assert_inert()


def test_a_theme_change_keeps_the_view_and_a_locale_change_translates_it(host: Host):
    """A host context change renders the view again only when its language changed: a theme is
    CSS, and a needless render would close what Open showed (or swallow a click in progress)."""
    memo = host.server.data("create_memo", {"content": "themecheck body"})["memo"]
    view = host.load("results", host.server.call("search_everything", {"query": "themecheck"}))
    hit = view.locator(f"li.hit[data-id='{memo['id']}']")
    hit.locator("button").click()
    host.wait_for_call("get_memo")
    hit.locator(".content p", has_text="themecheck body").wait_for()
    host.page.evaluate("window.__bridge.setHostContext({theme: 'dark', locale: 'en-US', displayMode: 'inline'})")
    host.frame().wait_for_function("document.documentElement.getAttribute('data-theme') === 'dark'")
    assert hit.locator(".content p", has_text="themecheck body").count() == 1
    host.page.evaluate("window.__bridge.setHostContext({theme: 'dark', locale: 'zh-CN', displayMode: 'inline'})")
    view.locator("h1", has_text=HEADINGS["results"]["zh-CN"]).wait_for()
    assert hit.locator("button").inner_text() == "打开"
    assert hit.locator(".content p").count() == 0  # rendered anew, in Chinese


def test_a_chinese_host_reads_words_and_times_not_codes(host: Host):
    """Under a zh-CN host the values are words and moments in the host's zone, not the codes and
    UTC timestamps the results carry: a priority, a due, a record kind, an action, a field, a
    search branch."""
    due = {"type": "datetime", "at": "2026-12-08T12:00:00Z"}
    created = host.server.data("create_todo_task", {"title": "写周报", "priority": "high", "due": due})
    task = created.get("task", created)
    view = host.load("board", host.server.call("list_todos", {}), locale="zh-CN", timeZone="Asia/Shanghai")
    card = view.locator(f"li.task[data-task-id='{task['id']}']")
    card.wait_for()
    assert card.locator(".priority").inner_text() == "优先级 高"
    assert card.locator(".due").inner_text() == "截止 2026年12月8日 20:00"  # 12:00 UTC in Shanghai

    edit = {"id": task["id"], "expectedRevision": task["revision"], "title": "写月报", "priority": "urgent"}
    host.server.call("update_todo_task", edit)
    changes = host.server.call("list_changes", {"recordId": task["id"]})
    view = host.load("changes", changes, locale="zh-CN", timeZone="Asia/Shanghai")
    row = view.locator("li.change").first
    row.wait_for()
    assert row.locator(".kind").inner_text() == "任务" and row.locator(".action").inner_text() == "编辑"
    assert row.locator("time").inner_text().startswith("2026年")
    fields = row.locator("tbody th").all_inner_texts()
    assert "标题" in fields and "优先级" in fields, fields
    assert "紧急" in row.locator("td.after").all_inner_texts()

    memo = host.server.data("create_memo", {"content": "zhwordcheck 一条备忘录"})["memo"]
    view = host.load("results", host.server.call("search_everything", {"query": "zhwordcheck"}), locale="zh-CN")
    hit = view.locator(f"li.hit[data-id='{memo['id']}']")
    hit.wait_for()
    assert hit.locator(".kind").inner_text() == "笔记"
    assert "关键词" in hit.locator(".meta").inner_text() and "bm25" not in hit.inner_text()
    # Chinese punctuation in Chinese text: 匹配方式：关键词, not an ASCII colon.
    assert hit.locator(".meta").inner_text().startswith("匹配方式："), hit.locator(".meta").inner_text()


def test_results_show_the_closest_matches_after_a_boundary(host: Host):
    """closestMatches ("less related", below the confidence floor) were not drawn: an answer with
    none confident read "Nothing to show." while the model saw the nearest notes."""
    memo = host.server.data("create_memo", {"content": "closecheck 灯塔看守人的日记"})["memo"]
    found = host.server.call("search_everything", {"query": "closecheck"})
    data = found["structuredContent"]["data"]
    below = [{**item, "score": 0.05} for item in data["items"] if item["id"] == memo["id"]]
    assert below, data
    answer = {
        **found,
        "structuredContent": {**found["structuredContent"], "data": {**data, "items": [], "closestMatches": below}},
    }
    for locale, empty, boundary in (
        ("en-US", "Nothing matches closely.", "Less related"),
        ("zh-CN", "没有高度相关的结果。", "相关性较低"),
    ):
        view = host.load("results", answer, locale=locale)
        view.locator("h2", has_text=boundary).wait_for()
        assert view.locator("p.muted:not(.degraded)").inner_text() == empty
        assert view.locator(f"ul.closest li.hit[data-id='{memo['id']}']").count() == 1


def test_results_open_every_kind_through_its_get_tool(host: Host):
    """search_everything's kinds (SearchKind: memo, todo_task, inbox_item, reading_note) each open
    their record: get_memo, get_todo_task, get_todo_inbox_item, and the hit's book's notes."""
    server = host.server
    memo = server.data("create_memo", {"content": "opencheck memo body"})["memo"]
    task = server.data("create_todo_task", {"title": "opencheck task title"})["task"]
    inbox = server.data("create_todo_inbox_item", {"title": "opencheck inbox title"})["item"]
    found = server.call("search_everything", {"query": "opencheck", "limit": 20})
    hits: dict[str, dict[str, Any]] = {}
    for item in found["structuredContent"]["data"]["items"]:  # best first: the first of each kind
        hits.setdefault(item["kind"], item)
    assert set(hits) == {"memo", "todo_task", "inbox_item", "reading_note"}, hits
    assert "opencheck" in hits["reading_note"]["snippet"], hits["reading_note"]
    assert (hits["memo"]["id"], hits["todo_task"]["id"], hits["inbox_item"]["id"]) == (
        memo["id"], task["id"], inbox["id"]
    )  # fmt: skip
    view = host.load("results", found)
    expected = {
        "memo": ("get_memo", "opencheck memo body"),
        "todo_task": ("get_todo_task", "opencheck task title"),
        "inbox_item": ("get_todo_inbox_item", "opencheck inbox title"),
        "reading_note": ("list_reading_notes", "opencheck the note's own words"),
    }
    for kind, (tool, text) in expected.items():
        row = view.locator(f"li.hit[data-id='{hits[kind]['id']}']")
        assert row.locator(".kind").get_attribute("data-kind") == kind
        button = row.get_by_role("button", name="Open")
        assert button.is_enabled(), kind
        button.click()
        row.locator(".content p", has_text=text).wait_for()
        call = host.wait_for_call(tool)
        assert not call["result"].get("isError"), call["result"]
    pages = host.page.evaluate("window.__calls.filter(c => c.name === 'list_reading_notes')")
    # Followed nextOffset to the note: the pages keep the 25,000-character budget, so where the
    # second page starts is the first page's answer, not the limit.
    offsets = [c["arguments"]["offset"] for c in pages]
    following = [c["result"]["structuredContent"]["data"]["page"].get("nextOffset") for c in pages[:-1]]
    assert len(pages) >= 2 and offsets == [0, *following], (offsets, following)
    assert {c["arguments"]["bookId"] for c in pages} == {hits["reading_note"]["bookId"]}
    host.assert_inert()


def test_memo_names_its_attachments_by_display_name(host: Host):
    import base64

    server = host.server
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    uploads = [
        server.data("upload_memo_resource", {"displayName": name, "mimeType": mime, "content": content})
        for name, mime, content in (
            ("plan notes.txt", "text/plain", base64.b64encode(b"the plan").decode()),
            ("holiday photo.png", "image/png", base64.b64encode(png).decode()),
        )
    ]
    resources = [upload.get("resource", upload) for upload in uploads]
    memo = server.data("create_memo", {"content": "with files", "resources": resources})["memo"]
    assert [r["displayName"] for r in memo["resources"]] == ["plan notes.txt", "holiday photo.png"]
    view = host.load("memo", server.call("get_memo", {"id": memo["id"]}))
    thumbs = view.locator("article.memo .thumbs")
    thumbs.locator("span.tag", has_text="plan notes.txt").wait_for()
    image = thumbs.locator("img")
    image.wait_for()
    assert image.get_attribute("alt") == "holiday photo.png"
    assert (image.get_attribute("src") or "").startswith("data:image/png;base64,")
    host.assert_inert()


def test_the_memo_view_of_a_forty_photo_memo_draws_every_thumbnail(live: tuple[LiveServer, Server], app_bridge: str):
    """The view reads each image of the memo through the host (`resources/read`): 40 photos, a
    person-sized album (a memo holds 100), passed the 30 a minute of `attachment_read` and the
    last ten never drew. A reader of its own (limits count per credential), so the module's other
    views do not share its minute."""
    import base64

    album = Server(live[0], live[0].account("albumowner", scopes="memo:read,memo:write").token)
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    photos = [
        album.data("upload_memo_resource", {"displayName": f"photo {i}.png", "mimeType": "image/png",
                                            "content": base64.b64encode(png + bytes([i])).decode()})
        for i in range(40)
    ]  # fmt: skip
    memo = album.data("create_memo", {"content": "trip", "resources": photos})["memo"]
    with chromium_page(viewport={"width": 1100, "height": 800}) as page:
        host = Host(page, album, app_bridge)
        view = host.load("memo", album.call("get_memo", {"id": memo["id"]}))
        view.locator("article.memo .thumbs img").first.wait_for()
        frame = host.frame()
        try:
            frame.wait_for_function("() => document.querySelectorAll('article.memo .thumbs img').length >= 40")
        except PlaywrightTimeout:
            drawn = frame.evaluate("() => document.querySelectorAll('article.memo .thumbs img').length")
            raise AssertionError(f"{drawn} of 40 thumbnails drawn; server: {album.tail()}") from None
        host.assert_inert()


@pytest.fixture(scope="module")
def axe_source() -> str:
    node_modules = _node_tools().ensure_npm_packages(_node_tools().AXE_PACKAGES)
    return (node_modules / "axe-core" / "axe.min.js").read_text(encoding="utf-8")


def test_every_view_passes_axe_in_both_themes(live: tuple[LiveServer, Server], axe_source: str, app_bridge: str):
    server = live[1]
    _seed_board(server)
    memo = server.data("create_memo", {"content": "axe memo #apps\n- one\n- two axecheck"})
    results = {
        "board": (server.call("list_todos", {}), "li.task"),
        "memo": (server.call("get_memo", {"id": memo["memo"]["id"]}), "article.memo"),
        "results": (server.call("search_everything", {"query": "axecheck"}), "li.hit"),
        "changes": (server.call("list_changes", {}), "li.change"),
    }
    problems: list[str] = []
    with chromium_page(viewport={"width": 1100, "height": 800}) as page:
        host = Host(page, server, app_bridge)
        for view_name, (result, ready) in results.items():
            for theme, locale in (("light", "en-US"), ("dark", "zh-CN")):
                view = host.load(view_name, result, theme=theme, locale=locale)
                view.locator(ready).first.wait_for()
                frame = host.frame()
                assert frame.evaluate("document.documentElement.dataset.theme") == theme
                # The host context's locale picks the language: the heading and <html lang>.
                language = frame.evaluate("document.documentElement.lang")
                assert language.split("-")[0] == locale.split("-")[0], (view_name, language)
                assert view.locator("h1").inner_text() == HEADINGS[view_name][locale], view_name
                # Through the driver (not a <script>): the view's own hash-only CSP stays on.
                frame.evaluate(axe_source + "\n;true")
                found = frame.evaluate(
                    "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                    ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))"
                )
                problems += [
                    f"{view_name} {theme}: {v['impact']} {v['id']} {v['nodes'][:3]}"
                    for v in found
                    if v["impact"] in FAILING_IMPACTS
                ]
    assert problems == []


def test_a_failed_call_is_told_in_the_hosts_language_and_the_button_comes_back(host: Host):
    """A view's call can fail two ways: the server answers an error (a card edited elsewhere since
    the board was read: REVISION_CONFLICT), or the host does not pass the call on (the person
    declined it). A zh-CN host showed the server's English message, and a declined Undo or
    Complete left its button disabled with nothing said."""
    import re

    english = re.compile("[A-Za-z]{3,}")
    task = host.server.data("create_todo_task", {"title": "改过的任务"})["task"]
    board = host.server.call("list_todos", {})
    edit = {"id": task["id"], "expectedRevision": task["revision"], "title": "在别处改过的任务"}
    host.server.call("update_todo_task", edit)
    view = host.load("board", board, locale="zh-CN")
    card = view.locator(f"li.task[data-task-id='{task['id']}']")
    card.get_by_role("button", name="完成").click()
    host.wait_for_call("complete_todo_task")
    host.wait_for_call("list_todos")
    note = view.locator("p[role=status]")
    note.wait_for()
    assert note.inner_text() and not english.search(note.inner_text()), note.inner_text()

    memo = host.server.data("create_memo", {"content": "declined undo"})["memo"]
    host.server.call("update_memo", {"id": memo["id"], "expectedRevision": memo["revision"], "content": "v2"})
    changes = host.server.call("list_changes", {"recordId": memo["id"]})
    for locale, undo in (("zh-CN", "撤销"), ("en-US", "Undo")):
        view = host.load("changes", changes, locale=locale)
        row = view.locator("li.change").first
        row.wait_for()
        refuse = "() => { window.__bridge.oncalltool = () => { throw new Error('declined by the person'); }; }"
        host.page.evaluate(refuse)
        row.get_by_role("button", name=undo).click()
        status = row.get_by_role("status")
        status.filter(has_text=re.compile(".")).wait_for(timeout=5000)
        said = status.inner_text()
        assert locale == "en-US" or not english.search(said.replace("declined by the person", "")), said
        assert row.get_by_role("button", name=undo).is_enabled()
    assert host.server.data("get_memo", {"id": memo["id"]})["memo"]["content"] == "v2"


def test_a_creations_diff_names_every_field_and_value_in_the_hosts_language(host: Host):
    """A creation's change lists every field of the record. A zh-CN host read createdAt, id,
    contentSource, resources, a priority "none" and a memo status "NORMAL" as sent, and `[]` for
    an empty list; an en-US host read the camelCase names."""
    import re

    server = host.server
    task = server.data("create_todo_task", {"title": "字段检查任务", "tags": ["家", "工作"]})["task"]
    memo = server.data("create_memo", {"content": "字段检查笔记"})["memo"]
    for record_id in (task["id"], memo["id"]):
        changes = server.call("list_changes", {"recordId": record_id})
        for locale in ("zh-CN", "en-US"):
            view = host.load("changes", changes, locale=locale)
            row = view.locator("li.change").first
            row.wait_for()
            fields = row.locator("tbody th").all_inner_texts()
            values = dict(zip(fields, row.locator("td.after").all_inner_texts(), strict=True))
            if locale == "zh-CN":
                assert not [name for name in fields if re.search("[A-Za-z]", name)], fields
            else:
                assert not [name for name in fields if re.search("[a-z][A-Z]", name)], fields
            assert "[]" not in values.values(), values
            if record_id == task["id"]:
                priority, tags = ("优先级", "标签") if locale == "zh-CN" else ("Priority", "Tags")
                assert values[priority] == ("无" if locale == "zh-CN" else "none"), values
                assert values[tags] == ("家、工作" if locale == "zh-CN" else "家, 工作"), values
            else:
                status, source = ("状态", "来源") if locale == "zh-CN" else ("Status", "Source")
                assert values[status] == ("正常" if locale == "zh-CN" else "normal"), values
                assert values[source] == "MCP", values


def test_the_board_reads_again_what_the_model_asked_for(host: Host):
    """After Complete or a move the board read list_todos with no arguments: a board the model
    had asked for one space of (spaceId, a page of `limit`) turned into every space, first page.
    It now reads again with the tool's own arguments (the host's tool input), and says when the
    page holds less than the whole board."""
    server = host.server
    space = server.data("create_todo_space", {"name": "另一个空间"})
    space = space.get("space", space)
    board = server.data("list_todos", {"spaceId": space["id"]})
    column = board["columns"][0]["id"]
    for title in ("第一张卡片", "第二张卡片"):
        server.data("create_todo_task", {"title": title, "columnId": column})
    arguments = {"spaceId": space["id"], "includeInbox": False, "limit": 1}
    result = server.call("list_todos", arguments)
    for locale, more in (("en-US", "More tasks"), ("zh-CN", "还有更多任务")):
        view = host.load("board", result, locale=locale, arguments=arguments)
        view.locator("p.more", has_text=more).wait_for()
    assert view.locator("section[aria-label]").count() == 1
    view.locator("li.task").first.get_by_role("button", name="完成").click()
    reread = host.wait_for_call("list_todos")
    assert reread["arguments"] == arguments
    view.locator("li.task").first.wait_for()
    assert view.locator("section[aria-label]").count() == 1  # still the one space the model asked for


def test_a_narrow_host_keeps_lines_and_field_names_whole(host: Host):
    """In a 390 px host the changes diff broke its field names one character a line (字/段, 内/容),
    and an opened memo in the results lost its line breaks (one run-on paragraph)."""
    server = host.server
    edited = server.data("create_memo", {"content": "短"})["memo"]
    server.call("update_memo", {"id": edited["id"], "expectedRevision": edited["revision"], "content": "改过" * 400})
    one_line = "el => { const r = document.createRange(); r.selectNodeContents(el); return r.getClientRects().length; }"
    narrow = "() => { document.getElementById('view').style.width = '390px'; }"
    view = host.load("changes", server.call("list_changes", {"recordId": edited["id"]}), locale="zh-CN")
    host.page.evaluate(narrow)
    row = view.locator("li.change").first
    row.wait_for()
    for cell in row.locator("th").all():
        assert cell.evaluate(one_line) == 1, cell.inner_text()
    memo = server.data("create_memo", {"content": "narrowcheck 第一行\n第二行\n- 第三行"})["memo"]
    view = host.load("results", server.call("search_everything", {"query": "narrowcheck"}), locale="zh-CN")
    host.page.evaluate(narrow)
    hit = view.locator(f"li.hit[data-id='{memo['id']}']")
    hit.get_by_role("button", name="打开").click()
    opened = hit.locator(".content p")
    opened.wait_for()
    assert opened.inner_text() == "narrowcheck 第一行\n第二行\n- 第三行"


def test_results_say_when_the_search_was_degraded(host: Host):
    """`degraded: true` (the index still being built or catching up: hits may be missing) reached
    the model but not the person, who read a short list as the whole answer."""
    server = host.server
    server.data("create_memo", {"content": "degradecheck 索引"})
    found = server.call("search_everything", {"query": "degradecheck"})
    data = found["structuredContent"]["data"]
    whole = {key: value for key, value in data.items() if key != "reason"}
    answer = {**found, "structuredContent": {**found["structuredContent"], "data": {**whole, "degraded": False}}}
    view = host.load("results", answer, locale="zh-CN")
    view.locator("li.hit").first.wait_for()
    assert view.locator("p.degraded").count() == 0
    degraded = {**data, "degraded": True, "reason": "index building"}
    answer = {**found, "structuredContent": {**found["structuredContent"], "data": degraded}}
    for locale, said in (("zh-CN", "部分结果可能缺失"), ("en-US", "Some results may be missing")):
        view = host.load("results", answer, locale=locale)
        view.locator("p.degraded", has_text=said).wait_for()


def test_the_memo_view_says_when_a_memo_is_archived_or_in_the_trash(host: Host):
    """get_memo answers an archived or trashed memo like a live one but for its status: the memo
    view showed it as if it were live."""
    server = host.server
    archived = server.data("create_memo", {"content": "归档的笔记", "status": "ARCHIVED"})["memo"]
    trashed = server.data("create_memo", {"content": "扔掉的笔记"})["memo"]
    server.call("delete_memo", {"id": trashed["id"], "expectedRevision": trashed["revision"]})
    live = server.data("create_memo", {"content": "正常的笔记"})["memo"]
    for memo_id, zh, en in ((archived["id"], "已归档", "archived"), (trashed["id"], "在回收站", "in the trash")):
        for locale, said in (("zh-CN", zh), ("en-US", en)):
            view = host.load("memo", server.call("get_memo", {"id": memo_id}), locale=locale)
            view.locator("article.memo p.status", has_text=said).wait_for()
    view = host.load("memo", server.call("get_memo", {"id": live["id"]}), locale="zh-CN")
    view.locator("article.memo .content p", has_text="正常的笔记").wait_for()
    assert view.locator("article.memo p.status").count() == 0


def test_a_views_document_title_is_in_the_hosts_language(host: Host):
    """The view document's `<title>` (what a host or a screen reader may name the frame by) follows
    the host's language as the view's words do: a zh-CN host's board was titled "MeSQ board"."""
    titles = {"en-US": "MeSQ board", "zh-CN": "MeSQ 看板"}
    for locale in ("zh-CN", "en-US"):
        view = host.load("board", host.server.call("list_todos", {}), locale=locale)
        view.locator("h1", has_text=HEADINGS["board"][locale]).wait_for()
        assert host.frame().title() == titles[locale]
    host.page.evaluate("window.__bridge.setHostContext({theme: 'light', locale: 'zh-CN', displayMode: 'inline'})")
    view.locator("h1", has_text=HEADINGS["board"]["zh-CN"]).wait_for()
    assert host.frame().title() == titles["zh-CN"]


def test_the_views_show_moments_in_the_accounts_zone_not_the_browsers(live: tuple[LiveServer, Server], app_bridge: str):
    """The web pages show every moment in the account's zone (Settings → General); the board and
    changes views showed them in the host's (the browser's) zone, so a person whose account is in
    Shanghai, reading in a Los Angeles browser, saw a 20:00 due as 04:00. The two tools whose
    views show moments now pass the account's zone with their result (`_meta`), and the views use
    it before the host's and the browser's. An account of its own: its zone is set here."""
    owner = Server(live[0], live[0].account("zoneowner", scopes="memo:read,memo:write,todo:read,todo:write").token)
    owner.call("set_time_zone", {"timeZone": "Asia/Shanghai"})
    due = {"type": "datetime", "at": "2026-12-08T12:00:00Z"}  # 20:00 in Shanghai, 04:00 in Los Angeles
    task = owner.data("create_todo_task", {"title": "zone check", "due": due})
    task = task.get("task", task)
    edit = {"id": task["id"], "expectedRevision": task["revision"], "title": "zone check 2"}
    owner.call("update_todo_task", edit)
    board, changes = owner.call("list_todos", {}), owner.call("list_changes", {"recordId": task["id"]})
    assert board["_meta"]["mesq/timeZone"] == changes["_meta"]["mesq/timeZone"] == "Asia/Shanghai"
    edited_at = changes["structuredContent"]["data"]["changes"][0]["at"]
    shown_at = "new Intl.DateTimeFormat(l, {year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit',"
    shown_at += " minute: '2-digit', timeZone: 'Asia/Shanghai'}).format(new Date(a))"
    with chromium_page(viewport={"width": 1100, "height": 800}, timezone_id="America/Los_Angeles") as page:
        host = Host(page, owner, app_bridge)
        # A host that names the browser's zone in its context, and one that names none.
        for zone in ({"timeZone": "America/Los_Angeles"}, {}):
            for locale, said in (("zh-CN", "截止 2026年12月8日 20:00"), ("en-US", "due Dec 8, 2026, 08:00 PM")):
                view = host.load("board", board, locale=locale, **zone)
                card = view.locator(f"li.task[data-task-id='{task['id']}']")
                card.wait_for()
                assert card.locator(".due").inner_text().replace("\u202f", " ") == said, (zone, locale)
                view = host.load("changes", changes, locale=locale, **zone)
                moment = view.locator("li.change time").first
                moment.wait_for()
                expected = host.frame().evaluate(f"([l, a]) => {shown_at}", [locale, edited_at])
                assert moment.inner_text() == expected, (zone, locale, moment.inner_text())


def _account_speaking(live: LiveServer, username: str, language: str) -> Server:
    """A new account whose Settings → Language is `language` (the CLI's `--language`), with a
    board made in it and its zone set to Shanghai."""
    created = live.cli_here("user", "create", username, "--password-stdin", "--language", language,
                       stdin="correct horse battery\n")  # fmt: skip
    assert created.returncode == 0, created.stderr
    server = Server(live, live.token(username, "memo:read,memo:write,todo:read,todo:write"))
    server.call("set_time_zone", {"timeZone": "Asia/Shanghai"})
    return server


def test_the_views_speak_the_accounts_language_not_the_hosts(live: tuple[LiveServer, Server], app_bridge: str):
    """The pages speak the language the account chose (Settings → Language), else the browser's;
    the board and changes views spoke the host's, so an account set to Chinese read English in an
    English host. Their tools now pass the chosen language with the result (`_meta`), and the views
    use it before the host's: a zh-CN account in an en-US host and an en-US account in a zh-CN host
    each read their own language (words, dates, the document's title and `lang`), whatever the
    host later changes its locale to. An account that chose none follows the host (the tests above)."""
    due = {"type": "datetime", "at": "2026-12-08T12:00:00Z"}  # 20:00 in Shanghai
    expected = {
        "zh": {"lang": "zh-CN", "title": "MeSQ 看板", "due": "截止 2026年12月8日 20:00", "action": "编辑",
               "host": "en-US"},
        "en": {"lang": "en", "title": "MeSQ board", "due": "due Dec 8, 2026, 08:00 PM", "action": "edited",
               "host": "zh-CN"},
    }  # fmt: skip
    for language, said in expected.items():
        owner = _account_speaking(live[0], f"speaks{language}", language)
        task = owner.data("create_todo_task", {"title": f"language check {language}", "due": due})
        task = task.get("task", task)
        owner.call("update_todo_task", {"id": task["id"], "expectedRevision": task["revision"], "title": "again"})
        board, changes = owner.call("list_todos", {}), owner.call("list_changes", {"recordId": task["id"]})
        assert board["_meta"]["mesq/language"] == changes["_meta"]["mesq/language"]
        heading = {"en": "en-US", "zh": "zh-CN"}[language]
        with chromium_page(viewport={"width": 1100, "height": 800}) as page:
            host = Host(page, owner, app_bridge)
            view = host.load("board", board, locale=said["host"])
            view.locator("h1", has_text=HEADINGS["board"][heading]).wait_for()
            card = view.locator(f"li.task[data-task-id='{task['id']}']")
            assert card.locator(".due").inner_text().replace("\u202f", " ") == said["due"], language
            assert host.frame().title() == said["title"]
            assert host.frame().evaluate("document.documentElement.lang") == said["lang"]
            # The host switching its own language does not move the view off the account's.
            other = {"en-US": "zh-CN", "zh-CN": "en-US"}[said["host"]]
            switch = f"window.__bridge.setHostContext({{theme: 'dark', locale: '{other}', displayMode: 'inline'}})"
            host.page.evaluate(switch)
            host.frame().wait_for_function("document.documentElement.getAttribute('data-theme') === 'dark'")
            assert view.locator("h1").first.inner_text() == HEADINGS["board"][heading]
            view = host.load("changes", changes, locale=said["host"])
            view.locator("h1", has_text=HEADINGS["changes"][heading]).wait_for()
            row = view.locator("li.change").first
            assert row.locator(".action").inner_text() == said["action"], language


FOOTNOTED = (
    "读书笔记[^1]，又见[^1]，还有[^无]。\n- 要点[^b]\n\n"
    "[^1]:出自《三体》第三章 " + XSS + "\n[^b]: 第二条\n续行\n[^c]: 没人引用"
)


def test_the_memo_view_draws_footnotes_as_the_memo_page_does(host: Host, axe_source: str):
    """`正文[^1]` … `[^1]: 出处` in the memo view: a superscript number linking to a list of the
    notes at the memo's end, each note linking back to each place it is referenced (named
    "返回正文 / Back to the text"), numbered as first referenced, a note no reference names last
    with no link back, a label with no note as typed (web/kit/markdown.py draws the page so). A
    link moves focus in the view itself: the view is a srcdoc document, where a plain #link would
    load the host's address into the frame. Before, the view drew `[^1]` and `[^1]:出自…` as typed."""
    memo = host.server.data("create_memo", {"content": FOOTNOTED})["memo"]
    result = host.server.call("get_memo", {"id": memo["id"]})
    for theme, locale, back in (("light", "en-US", "Back to the text"), ("dark", "zh-CN", "返回正文")):
        view = host.load("memo", result, theme=theme, locale=locale)
        content = view.locator("article.memo .content")
        content.locator("p").first.wait_for()
        text = content.inner_text()
        # `[^无]` names no note: as typed.
        assert content.locator(":scope > p").all_inner_texts() == ["读书笔记1，又见1，还有[^无]。"], text
        assert content.locator(":scope > ul > li").all_inner_texts() == ["要点2"], text
        refs = content.locator("sup.footnote-ref a")
        assert [refs.nth(i).inner_text() for i in range(refs.count())] == ["1", "1", "2"]
        assert [refs.nth(i).get_attribute("href") for i in range(3)] == ["#fn-1", "#fn-1", "#fn-2"]
        notes = content.locator("section.footnotes ol > li")
        assert notes.count() == 3
        assert notes.nth(0).inner_text().startswith("出自《三体》第三章 " + XSS), notes.nth(0).inner_text()
        assert notes.nth(1).inner_text().startswith("第二条\n续行") and notes.nth(2).inner_text() == "没人引用"
        backs = notes.nth(0).locator("a.footnote-back")
        assert backs.count() == 2 and backs.first.get_attribute("aria-label") == back
        assert notes.nth(2).locator("a.footnote-back").count() == 0
        # Into the note and back again, by mouse and keyboard, the view staying where it is.
        refs.nth(1).click()
        assert host.frame().evaluate("document.activeElement.id") == "fn-1"
        backs.nth(1).focus()
        host.page.keyboard.press("Enter")
        assert host.frame().evaluate("document.activeElement.id") == "fnref-1-2"
        assert host.frame().url == "about:srcdoc"
        host.frame().evaluate(axe_source + "\n;true")
        found = host.frame().evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))"
        )
        assert [v for v in found if v["impact"] in FAILING_IMPACTS] == [], (locale, found)
        host.assert_inert()
