"""Every browser page of the app, checked by axe-core (Deque's rules engine, pinned in
infra/node_tools.py) in a real headless Chromium against a real `mesq serve`, signed out and
signed in, at a phone and a desktop size, in the light and the dark theme: no serious or critical
violation. The pages come from
the route table (`web_routes`), so a page added later is checked without touching this test;
a route that is not a page must be listed in NOT_PAGES, and a path parameter must have a seeded
value in PATH_VALUES, or the test fails saying so.

Also by keyboard, on the reading shelf's pages: Tab reaches every interactive element, each with a
visible focus indicator.

axe is injected as an inline script, which the pages' CSP (`script-src 'self'`) refuses, so this
test alone uses a context with `bypass_csp=True` (the CSP itself is checked by the other Chromium
tests, which watch for violations).

With $MESQ_SCREENSHOTS set, each signed-in page is also photographed at both sizes, in both themes
and in both languages (`pages/<route>-<width>-<lang>-<theme>.png`): the English ones on the way
(no extra page load), the Chinese ones on the second pass. That pass always runs: after the
account's language is switched to zh, every signed-in page is visited and checked by axe again, so
every page passes in both languages and both themes."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright import sync_api as playwright_sync
from starlette.routing import Route

from mesq.reading.model import book_id
from mesq.web import web_routes
from mesq.wiring.services import build_services
from tests.settings import inprocess_settings

from ...conftest import LiveServer
from ...mcp.test_js_schemas import _node_tools
from ..chromium import chromium_page
from ..shelf_seed import sample_shelf, write_export
from .test_browser import CALLBACK, PASSWORD
from .test_layout import SIZES, _connect_app

#: GET routes that are not pages, and why (an unlisted non-page fails the test).
NOT_PAGES = {
    "/calendar/{feed}": "the calendar feed is text/calendar for calendar apps, not a page",
    "/memos/attachment": "an attachment download (the stored bytes), not a page",
    "/todos/attachment": "a todo attachment download (the stored bytes), not a page",
    "/memos/{memo_id}/card": "one memo card, an htmx fragment swapped into the timeline (checked there)",
    "/todos/more": "the board's next cards, an htmx fragment (without script the link opens /todos?offset=...)",
    "/todos/quick-add": "the quick-add chips under an add box, an htmx fragment (checked on the board below)",
    "/settings/reminders-sw.js": "the Web Push service worker script (JavaScript), not a page",
}
#: Pages that redirect once an account exists (`/setup` -> `/login`; axe checks where it lands).
GONE_AFTER_SETUP = {"/setup"}
FAILING_IMPACTS = ("serious", "critical")
SCHEMES = ("light", "dark")  # each page is checked in both themes
FOCUSABLE = (
    "a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), "
    "textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])"
)

#: The focused element: its probe number, whether its focus shows (an outline or a shadow), its start.
FOCUSED = """() => {
    const e = document.activeElement, style = e ? getComputedStyle(e) : null;
    const outline = style && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const ring = style && (outline || style.boxShadow !== 'none') && e.matches(':focus-visible');
    return [e && e.getAttribute('data-tab-probe'), !!ring, e ? e.outerHTML.slice(0, 80) : ''];
}"""


@dataclass(frozen=True)
class Seeds:
    """Records the signed-in user owns, one per kind a page path names."""

    token_id: str
    grant_id: str
    memo_id: str
    trashed_memo_id: str
    book_id: str
    task_id: str
    inbox_item_id: str
    import_run_id: str


#: path parameter -> its value; ROUTE_VALUES overrides it for one route.
PATH_VALUES: dict[str, Callable[[Seeds], str]] = {
    "token_id": lambda s: s.token_id,
    "grant_id": lambda s: s.grant_id,
    "memo_id": lambda s: s.memo_id,
    "book_id": lambda s: s.book_id,
    "task_id": lambda s: s.task_id,
    "item_id": lambda s: s.inbox_item_id,
    "record_id": lambda s: s.memo_id,  # a memo's History page
    "run_id": lambda s: s.import_run_id,  # an import's report page
}
ROUTE_VALUES: dict[str, dict[str, Callable[[Seeds], str]]] = {
    "/trash/{memo_id}/delete": {"memo_id": lambda s: s.trashed_memo_id},
}


def page_routes() -> list[str]:
    """Every GET route of the browser pages, as its path template."""
    with tempfile.TemporaryDirectory(prefix="mesq-routes-") as data:
        services = build_services(inprocess_settings(data_dir=Path(data)))
        try:
            routes = [r for r in web_routes(services) if isinstance(r, Route) and "GET" in (r.methods or ())]
        finally:
            services.items.close()
    return [route.path for route in routes if route.path not in NOT_PAGES]


def fill(path: str, seeds: Seeds | None) -> str:
    """The path with its parameters filled from the seeds (signed out: any value, the page asks to sign in)."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if seeds is None:
            return "x"
        getter = ROUTE_VALUES.get(path, {}).get(name) or PATH_VALUES.get(name)
        if getter is None:
            pytest.fail(f"{path}: no seeded value for {{{name}}}; add it to PATH_VALUES (or NOT_PAGES)")
        return getter(seeds)

    return re.sub(r"\{(\w+)(?::\w+)?\}", value, path)


@pytest.fixture(scope="module")
def axe_source() -> str:
    node_modules = _node_tools().ensure_npm_packages(_node_tools().AXE_PACKAGES)
    return (node_modules / "axe-core" / "axe.min.js").read_text(encoding="utf-8")


@pytest.fixture
def page() -> Iterator[Any]:
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, bypass_csp=True) as opened:
        yield opened


def shot_name(path: str) -> str:
    """`/memos/{memo_id}/edit` -> `memos-memo_id-edit`; `/` -> `home`."""
    return re.sub(r"[^a-z0-9_]+", "-", path.lower()).strip("-") or "home"


class Audit:
    """axe on each distinct page reached, at both sizes; violations collected, reported at the end."""

    def __init__(self, page: Any, source: str) -> None:
        self.page, self.source = page, source
        self.checked: list[str] = []
        self.problems: list[str] = []
        #: With $MESQ_SCREENSHOTS set, each signed-in page is photographed at both sizes and in both
        #: themes into its `pages/` folder (`docs/screenshots/pages/` holds every page's, named by
        #: route, width, language and theme).
        shots = os.environ.get("MESQ_SCREENSHOTS")
        self.shots = Path(shots) / "pages" if shots else None
        #: The language the signed-in account's pages are in (named in the screenshots' file names).
        self.language = "en"

    def visit(self, url: str, *, expect_ok: bool, shot: str | None = None) -> None:
        response = self.page.goto(url)
        assert response is not None, url
        if expect_ok:
            assert response.ok, f"{url}: HTTP {response.status} (is the seeded value right?)"
        kind = response.headers.get("content-type", "")
        body = response.text()
        assert kind.startswith("text/html") and body.lstrip().lower().startswith("<!doctype html"), (
            f"{url} ({kind}) is not an HTML page; if the route is not a page, list it in NOT_PAGES"
        )
        landed = self.page.url.split("?")[0]
        if landed not in self.checked:
            self.checked.append(landed)
            self.check(landed)
        if self.shots is not None and shot and landed == url.split("?")[0]:  # not when redirected
            self.photograph(shot)

    def photograph(self, name: str) -> None:
        """`<name>-<width>-<language>-<theme>.png` at both sizes, light and dark (no reload: the
        theme follows `prefers-color-scheme` unless the person chose one)."""
        assert self.shots is not None
        self.shots.mkdir(parents=True, exist_ok=True)
        for scheme in SCHEMES:
            self.page.emulate_media(color_scheme=scheme)
            for width, height in SIZES:
                self.page.set_viewport_size({"width": width, "height": height})
                shot = self.shots / f"{name}-{width}-{self.language}-{scheme}.png"
                self.page.screenshot(path=str(shot), full_page=True)
        self.page.emulate_media(color_scheme="light")
        self.page.set_viewport_size({"width": SIZES[1][0], "height": SIZES[1][1]})

    def check(self, label: str) -> None:
        """axe at both sizes, in the light and the dark theme (`prefers-color-scheme`)."""
        for scheme in SCHEMES:
            self.page.emulate_media(color_scheme=scheme)
            for width, height in SIZES:
                self.page.set_viewport_size({"width": width, "height": height})
                if not self.page.evaluate("typeof window.axe === 'object'"):
                    self.page.add_script_tag(content=self.source)
                found = self.page.evaluate(
                    "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                    ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
                    " nodes: v.nodes.map(n => n.target.join(' '))}))"
                )
                for violation in found:
                    if violation["impact"] in FAILING_IMPACTS:
                        where = ", ".join(violation["nodes"][:4])
                        self.problems.append(
                            f"{label} at {width}px, {scheme}: {violation['impact']} {violation['id']} "
                            f"({violation['help']}): {where}"
                        )
        self.page.emulate_media(color_scheme="light")
        self.page.set_viewport_size({"width": SIZES[1][0], "height": SIZES[1][1]})


def _seed(server: LiveServer, page: Any, tmp_path: Path) -> Seeds:
    base = server.base_url
    token = server.token("admin", "memo:read,memo:write,todo:read,todo:write", "a11y 无障碍")
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as rest:
        memos = [
            rest.post("/api/toolkit/memo", json={"content": text}).json()["data"]["memo"]
            for text in ("留 #keep", "丢 #gone")
        ]
        gone = rest.request(
            "DELETE", f"/api/toolkit/memo/{memos[1]['id']}", json={"expectedRevision": memos[1]["revision"]}
        )
        assert gone.status_code == 200, gone.text
        task = rest.post("/api/toolkit/todo/tasks", json={"title": "读完第一章"})
        assert task.status_code in (200, 201), task.text
        # Today, Upcoming and Overdue with something to show (their rows' chips too): one late (red),
        # one due within the hour, one due tomorrow; an inbox item with a due, a priority and a tag.
        for title, hours, priority, tags in (("交房租", -48, "urgent", ["家"]), ("开周会", 1, "none", []),
                                             ("给银行打电话", 24, "high", ["工作"])):  # fmt: skip
            at = (datetime.now(UTC) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")
            fields = {"title": title, "priority": priority, "tags": tags, "due": {"type": "datetime", "at": at}}
            dated = rest.post("/api/toolkit/todo/tasks", json=fields)
            assert dated.status_code in (200, 201), dated.text
        item = rest.post("/api/toolkit/todo/inbox", json={"title": "买牛奶"})
        assert item.status_code in (200, 201), item.text
        parcel = {
            "title": "取快递",
            "priority": "high",
            "tags": ["家"],
            "due": {"type": "date", "date": f"{datetime.now(UTC) + timedelta(days=2):%Y-%m-%d}"},
        }
        assert rest.post("/api/toolkit/todo/inbox", json=parcel).status_code in (200, 201)
        subtask = rest.post(
            f"/api/toolkit/todo/inbox/{item.json()['data']['item']['id']}/subtasks",
            json={"parentRevision": item.json()["data"]["item"]["revision"], "title": "全脂"},
        )
        assert subtask.status_code in (200, 201), subtask.text
        todoist = "TYPE,CONTENT,PRIORITY,INDENT,DATE,DATE_LANG,TIMEZONE\nsection,采购,,,,,\n"
        todoist += "task,买菜 @家,4,1,每周五,zh,Asia/Shanghai\ntask,someday,1,1,after the rains,en,UTC\n"
        ran = rest.post("/api/toolkit/import?kind=todoist", content=todoist.encode())
        assert ran.status_code == 200, ran.text
        import_run_id = ran.json()["data"]["runId"]
    imported = server.cli("reading", "import", "admin", str(write_export(tmp_path / "shelf.json", sample_shelf())))
    assert imported.returncode == 0, imported.stderr
    _connect_app(server, page, tmp_path)
    page.goto(base + "/settings/tokens")
    token_id = page.locator("tr[data-token-id]").first.get_attribute("data-token-id")
    page.goto(base + "/settings/apps")
    revoke = page.locator("a[href^='/settings/apps/'][href$='/revoke']").first.get_attribute("href")
    assert token_id and revoke
    return Seeds(
        token_id,
        revoke.split("/")[3],
        memos[0]["id"],
        memos[1]["id"],
        book_id("b-1"),
        task.json()["data"]["task"]["id"],
        item.json()["data"]["item"]["id"],
        import_run_id,
    )


def _visit_signed_in(server: LiveServer, audit: Audit, routes: list[str], seeds: Seeds) -> None:
    """Every page as the signed-in user sees it, photographed (with $MESQ_SCREENSHOTS) by route."""
    for path in routes:
        if path == "/oauth/consent":
            audit.visit(_consent_url(server), expect_ok=True, shot=shot_name(path))
        else:
            gone = path in GONE_AFTER_SETUP
            url = server.base_url + fill(path, seeds)
            audit.visit(url, expect_ok=not gone, shot=None if gone else shot_name(path))


def _choose_language(server: LiveServer, page: Any, language: str) -> None:
    """Settings → Language: `zh`, `en`, or `""` (as the browser asks)."""
    page.goto(server.base_url + "/settings")
    page.locator(f"#language-form input[name=language][value='{language}']").check()
    page.locator("#language-form button[type=submit]").click()
    playwright_sync.expect(page.locator(f"#language-form input[value='{language}']")).to_be_checked()
    expected = {"zh": "zh-Hans", "en": "en"}.get(language, "en")  # Chromium here asks for en-US
    playwright_sync.expect(page.locator("html")).to_have_attribute("lang", expected)


def _consent_url(server: LiveServer) -> str:
    """An authorization request whose consent page stays open (never approved)."""
    registered = httpx.post(
        server.base_url + "/oauth/register", json={"client_name": "Checker", "redirect_uris": [CALLBACK]}, timeout=10
    )
    query = {
        "response_type": "code", "client_id": registered.json()["client_id"], "redirect_uri": CALLBACK,
        "scope": "memo:read", "state": "s", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256", "resource": server.base_url + "/mcp",
    }  # fmt: skip
    return server.base_url + "/oauth/authorize?" + urlencode(query)


def _set_up_admin(server: LiveServer, page: Any) -> None:
    """The first account through the set-up page (it lands on the timeline)."""
    base = server.base_url
    page.goto(base + "/setup")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=confirm]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page).to_have_url(base + "/")


def _states(server: LiveServer, page: Any, audit: Audit) -> None:
    """The signed-in pages in the states a person brings about: chips, menus, refusals, toasts."""
    base = server.base_url
    audit.visit(base + "/reading/search?q=" + "财政", expect_ok=True)
    # The board with the quick-add chips shown (issue 30).
    page.goto(base + "/todos")
    page.locator("form.add-task input[name=title]").first.press_sequentially("明天下午5点 !high #家", delay=10)
    playwright_sync.expect(page.locator(".quick-chip").first).to_be_visible()
    playwright_sync.expect(page.locator(".quick-chip")).to_have_count(3)
    audit.check("/todos with quick-add chips")
    # Shaping the board: a refused column delete (it holds the seeded task) shows its message in
    # the column's open menu; every other menu opened too.
    page.goto(base + "/todos")
    page.get_by_label("Edit column To do").click()
    page.locator("section.todo-column").first.get_by_role("button", name="Delete column").click()
    playwright_sync.expect(page.locator(".column-menu[open] .error")).to_contain_text("live task")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    audit.check("/todos with its menus open and a refusal")
    # In-place writes (issue 30): a toast with Undo showing and a card's ⋯ menu open, then the
    # board with a completed card's toast (each toast held for 10 minutes: none expires meanwhile).
    page.goto(base + "/")
    _hold_toasts(page)
    card = page.locator(".memos-timeline > li.memo").first
    card.get_by_role("button", name="More actions").click()
    card.get_by_role("menuitem", name="Pin").click()
    playwright_sync.expect(page.locator("#toasts [data-toast]")).to_have_count(1)
    card.get_by_role("button", name="More actions").click()
    playwright_sync.expect(card.get_by_role("menu")).to_be_visible()
    shown = "#toasts [data-toast], [role=menu]:visible"
    _check_showing(page, audit, "/ with a toast and an action menu open", shown, 2)
    page.goto(base + "/todos")
    _hold_toasts(page)
    page.locator("li.todo-card .card-done button").first.click()
    playwright_sync.expect(page.locator("#toasts [data-toast]")).to_have_count(1)
    _check_showing(page, audit, "/todos with a toast", "#toasts [data-toast]", 1)
    # Issue 41: an agenda row's menu open; the phone header's menu open.
    page.goto(base + "/todos/today")
    page.locator(".todo-row .menu-button").first.click()
    _check_showing(page, audit, "/todos/today with a row's menu open", "[role=menu]:visible", 1)
    page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
    page.locator("#site-menu-button").click()
    _check_showing(page, audit, "/todos/today with the header's menu open", "header.menu-open", 1)
    audit.visit(base + "/no/such/page", expect_ok=False)


#: The sweep in three parts, each on its own server and account, so that xdist's workers share
#: it (it was one test of ~125 s at the end of `make test`, which set the run's wall time):
#: signed out (before and after the first account) then the signed-in pages' states; every
#: signed-in page in English; every signed-in page in Chinese. Each part keeps its checks.
SWEEP_PARTS = ("signed-out-and-states", "en", "zh")


@pytest.mark.parametrize("part", SWEEP_PARTS)
def test_every_page_passes_axe(server: LiveServer, page: Any, axe_source: str, tmp_path: Path, part: str) -> None:
    base, routes = server.base_url, page_routes()
    audit = Audit(page, axe_source)

    if part == "signed-out-and-states":
        # Signed out, before the first account (the set-up page), then every route as a stranger sees it.
        for path in ["/setup", *routes, "/no/such/page"]:
            audit.visit(base + fill(path, None), expect_ok=False)
    _set_up_admin(server, page)
    seeds = _seed(server, page, tmp_path)
    audit.checked.clear()

    if part == "signed-out-and-states":
        _states(server, page, audit)
    elif part == "en":
        # Signed in: every page, its parameters filled from the seeded records.
        _visit_signed_in(server, audit, routes, seeds)
    else:
        # The same pages in Chinese, axe again on each (issue 30: every page in both languages and
        # both themes; with $MESQ_SCREENSHOTS their zh pictures too); then back to the browser's language.
        _choose_language(server, page, "zh")
        audit.language = "zh"
        _visit_signed_in(server, audit, routes, seeds)
        _choose_language(server, page, "")
        audit.language = "en"

    if part != "en":
        # Signed out again, with an account: the sign-in page and the set-up page that is gone.
        page.goto(base + "/reading")
        page.locator("header").get_by_role("button", name=re.compile("^Sign out")).click()
        audit.checked.clear()
        for path in ("/login", "/setup"):
            audit.visit(base + path, expect_ok=False)

    assert "/reading/books/{book_id}" in routes and "/settings/tokens/{token_id}/revoke" in routes
    assert audit.problems == [], "axe found serious/critical violations:\n" + "\n".join(audit.problems)


def _hold_toasts(page: Any) -> None:
    page.evaluate("document.getElementById('toasts').dataset.toastSeconds = '600'")


def _check_showing(page: Any, audit: Audit, label: str, shown: str, count: int) -> None:
    """axe, and what it was to see (`count` of `shown`) still there after it."""
    audit.check(label)
    assert page.locator(shown).count() == count, label


def _tab_through(page: Any) -> tuple[set[int], int, list[str]]:
    """Press Tab from the top until focus leaves the page's elements or comes round again: which
    interactive elements it reached (of how many), and those whose focus was not visible."""
    total = page.evaluate(
        """selector => {
            const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
            const all = [...document.querySelectorAll(selector)].filter(shown);
            all.forEach((e, i) => e.setAttribute('data-tab-probe', String(i)));
            if (document.activeElement) document.activeElement.blur();
            return all.length;
        }""",
        FOCUSABLE,
    )
    reached: set[int] = set()
    unseen: list[str] = []
    for _ in range(total + 3):
        page.keyboard.press("Tab")
        probe, visible, name = page.evaluate(FOCUSED)
        if probe is None or int(probe) in reached:
            if reached:
                break
            continue
        reached.add(int(probe))
        if not visible:
            unseen.append(name)
    return reached, total, unseen


def test_shelf_pages_work_by_keyboard(server: LiveServer, page: Any, tmp_path: Path) -> None:
    base = server.base_url
    created = server.cli_here("user", "create", "reader", "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    imported = server.cli("reading", "import", "reader", str(write_export(tmp_path / "shelf.json", sample_shelf())))
    assert imported.returncode == 0, imported.stderr
    page.goto(base + "/reading")
    page.fill("input[name=username]", "reader")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page).to_have_url(base + "/reading")
    for path in ("/reading", f"/reading/books/{book_id('b-1')}", "/reading/search?q=%E8%B4%A2%E6%94%BF"):
        page.goto(base + path)
        reached, total, unseen = _tab_through(page)
        assert total > 5, path  # the nav, the search form, the books or notes are there to reach
        assert reached == set(range(total)), f"{path}: Tab reached {len(reached)} of {total} interactive elements"
        assert unseen == [], f"{path}: no visible focus on {unseen}"
    # The first Tab offers to skip the navigation; after it the next Tab is in the search box,
    # where Enter searches and the result page keeps the words typed.
    page.goto(base + "/reading")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    playwright_sync.expect(page.locator("a.skip")).to_be_in_viewport()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "shelf-query"
    page.keyboard.type("想法")
    page.keyboard.press("Enter")
    # The count only; the query stays in its own box.
    playwright_sync.expect(page.locator("#hit-count")).to_contain_text("1 note matches.")
    playwright_sync.expect(page.locator("#shelf-query")).to_have_value("想法")


def test_memo_composer_with_preview_and_suggestions_passes_axe(server: LiveServer, page: Any, axe_source: str) -> None:
    """Issue 30: the timeline with the composer's Preview tab open (task boxes, tag links), then
    with its `#` suggestions listed, and cards with a task box and an image thumbnail: no serious
    or critical violation at either size or theme."""
    base = server.base_url
    page.goto(base + "/setup")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=confirm]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page).to_have_url(base + "/")
    token = server.token("admin", "memo:read,memo:write", "a11y")
    csrf = page.locator("#composer input[name=csrf]").get_attribute("value")
    relayed = page.request.post(
        base + "/memos/uploads/relay?displayName=photo.png&mimeType=image/png",
        data=bytes.fromhex("89504e470d0a1a0a"),
        headers={"X-CSRF-Token": csrf or "", "Content-Type": "image/png"},
    )
    assert relayed.ok, relayed.text()
    resource = relayed.json()
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as rest:
        fields = ("path", "displayName", "fileSize", "mimeType", "type")
        memo = {
            "content": "清单 #home/garden\n- [ ] seeds\n- [x] soil",
            "resources": [{k: resource[k] for k in fields}],
        }
        assert rest.post("/api/toolkit/memo", json=memo).status_code == 201
    page.reload()
    playwright_sync.expect(page.locator(".memo .memo-thumb img")).to_have_attribute("alt", "photo.png")
    audit = Audit(page, axe_source)
    text = page.locator("#composer-text")
    text.fill("**Preview** #home\n\n- [ ] a task\n\n<script>alert(1)</script>")
    page.get_by_role("tab", name="Preview").click()
    playwright_sync.expect(page.locator("#composer-preview strong")).to_have_text("Preview")
    audit.check("/ with the composer's preview open")
    page.get_by_role("tab", name="Write").click()
    text.fill("")
    text.press_sequentially("#ho", delay=10)
    playwright_sync.expect(page.locator("#composer-tag-list [role=option]").first).to_be_visible()
    audit.check("/ with # suggestions listed")
    text.press("Escape")
    # The in-place editor: its own `#` suggestions, then the dialog Escape opens on an edited text.
    page.locator(".memo [data-edit]").first.click()
    editor = page.locator("li.memo.editing textarea[data-editor]")
    playwright_sync.expect(editor).to_be_focused()
    editor.press_sequentially(" #ho", delay=10)
    playwright_sync.expect(page.locator("li.memo.editing [role=option]").first).to_be_visible()
    audit.check("/ with the editor's # suggestions listed")
    editor.press("Escape")
    editor.press("Escape")
    playwright_sync.expect(page.get_by_role("dialog")).to_be_visible()
    audit.check("/ asking before an edit is discarded")
    assert audit.problems == [], "axe found serious/critical violations:\n" + "\n".join(audit.problems)


# -- one language at a time (issue 30) ------------------------------------------------------------

#: The pages checked in each language: the timeline, the board, the settings index.
LANGUAGE_PAGES = ("/", "/todos", "/settings")
#: What the person wrote, or a name the system gave a record (a column, a space): user data, in
#: whatever language it was written, so not a label.
USER_DATA = (
    ".memo-body, .memo-tags, .memos-tags, .memos-days li, .todo-column h2, nav.spaces a, .todo-page > h1, "
    ".brand, .who, a.title, .tag, option, textarea, code, [lang]:not(html)"
)
#: Names that are the same in both languages.
SAME_IN_BOTH = {"MeSQ", "UTC", "Markdown", "AI", "OAuth", "MCP", "ntfy", "Telegram", "Webhook", "RRULE", "iCalendar"}
#: The labels a person reads: visible text inside links, buttons, labels, headings, navigation,
#: legends, summaries and table headers, and the title, placeholder and aria-label of visible elements.
LABELS = """userData => {
    const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const labelled = 'a, button, label, h1, h2, h3, h4, legend, summary, th, nav, title';
    const found = [];
    const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement, text = node.textContent.trim();
        if (!text || !parent || parent.closest(userData) || !parent.closest(labelled)) continue;
        if (parent.closest('title') ? true : shown(parent)) found.push(text);
    }
    for (const e of document.querySelectorAll('[title], [placeholder], [aria-label]')) {
        if (e.closest(userData) || !shown(e)) continue;
        for (const name of ['title', 'placeholder', 'aria-label']) {
            const value = e.getAttribute(name);
            if (value) found.push(value);
        }
    }
    const data = [...document.querySelectorAll(userData)].map(e => e.textContent.trim()).filter(t => t);
    return [found, data];
}"""
HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def foreign_labels(labels: list[str], language: str, user_data: list[str] | None = None) -> list[str]:
    """The labels that are not in `language`: any Chinese in an English page; any English word
    (not a name that is the same in both) in a Chinese page. User data shown inside a label (a
    column's name in "New task in To do") is taken out first."""
    for data in sorted(user_data or [], key=len, reverse=True):
        labels = [label.replace(data, " ") for label in labels]
    if language == "en":
        return [label for label in labels if HAN.search(label)]
    return [label for label in labels if set(LATIN_WORD.findall(label)) - SAME_IN_BOTH]


def test_foreign_labels_are_told_apart_from_names_and_user_data() -> None:
    assert foreign_labels(["Save", "保存", "Memos · 笔记"], "en") == ["保存", "Memos · 笔记"]
    assert foreign_labels(["保存", "MeSQ", "（Markdown；#标签）", "Save · 保存", "设置 Settings"], "zh") == [
        "Save · 保存",
        "设置 Settings",
    ]
    assert foreign_labels(["在 To do 中新建任务", "待办 · Default · MeSQ"], "zh", ["To do", "Default"]) == []


def _seed_for_languages(server: LiveServer, page: Any) -> None:
    """The account, a memo and a task, written in Chinese (user data; excluded from the check anyway)."""
    base = server.base_url
    page.goto(base + "/setup")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=confirm]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page).to_have_url(base + "/")
    page.fill("#composer-text", "第一条笔记 #读书")
    page.click("#composer-save")
    playwright_sync.expect(page.locator(".memo").first).to_contain_text("第一条笔记")
    page.goto(base + "/todos")
    page.locator("form.add-task input[name=title]").first.fill("读完第一章")
    page.locator("form.add-task button[type=submit]").first.click()
    playwright_sync.expect(page.locator(".todo-card").first).to_contain_text("读完第一章")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_each_language_shows_only_its_own_labels_and_passes_axe(
    server: LiveServer, axe_source: str, language: str
) -> None:
    header = {"zh": "zh-CN,zh;q=0.9", "en": "en-US,en;q=0.9"}[language]
    viewport = {"width": SIZES[1][0], "height": SIZES[1][1]}
    with chromium_page(
        viewport=viewport, bypass_csp=True, locale=header.split(",")[0], extra_http_headers={"Accept-Language": header}
    ) as page:
        _seed_for_languages(server, page)
        audit = Audit(page, axe_source)
        for path in LANGUAGE_PAGES:
            audit.visit(server.base_url + path, expect_ok=True)
            assert page.locator("html").get_attribute("lang") == {"zh": "zh-Hans", "en": "en"}[language]
            for width, height in SIZES:  # the phone layout shows other controls (the Filters button)
                page.set_viewport_size({"width": width, "height": height})
                labels, user_data = page.evaluate(LABELS, USER_DATA)
                assert len(labels) > 10, (path, width, labels)  # the check sees the page's labels
                assert foreign_labels(labels, language, user_data) == [], f"{path} in {language} at {width}px"
    assert audit.problems == [], "axe found serious/critical violations:\n" + "\n".join(audit.problems)
