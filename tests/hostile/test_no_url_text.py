"""No page shows text taken from its URL (issue 38 finding 11): a link someone else made
(`/activity?report=Your session expired, sign in at evil.example`) must never put words on a
MeSQ page. The only exception is a search box showing what was searched for.

Every signed-in GET page (the web routes, their path parameters filled with real records), and
the signed-out ones, is asked for with a marker in every query parameter any page reads or links to (the names read in
`mesq/web`'s code, the names in the crawled pages' links, and names a forger would try), and the
text a person sees (text nodes, and the attributes that are read or heard) must not hold it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.routing import Route

from mesq.application.invocation import REGISTRY
from mesq.asgi.app_imports import import_upload
from mesq.auth.tokens import create_token
from mesq.kernel.context import Call, Principal
from mesq.memos.writes import create_memo, delete_memo
from mesq.web import web_routes
from mesq.wiring.imports import ImportOptions
from mesq.wiring.services import Services
from tests.web.conftest import Browser, grant_for, memo_call
from tests.web.shelf_seed import sample_shelf, seed

MARKER = "Zqxv7 phish"
WEB_CODE = Path(__file__).parents[2] / "layers" / "core" / "mesq" / "web"
#: Names a forged link would try, whether or not a page reads them today.
FORGED = ("report", "message", "msg", "notice", "flash", "error", "status", "info", "success", "next", "return")
#: Attributes a person reads or hears.
SHOWN_ATTRIBUTES = ("title", "alt", "placeholder", "aria-label", "aria-description", "data-label", "label")
_READ = re.compile(r"""(?:get|getlist)\(\s*["']([A-Za-z_]\w{0,30})["']|params, ["']([A-Za-z_]\w{0,30})["']""")
_FILTER_TUPLE = re.compile(r"""_FILTERS\s*=\s*\(([^)]*)\)""")


class ShownText(HTMLParser):
    """The text a person sees on a page: text nodes outside scripts and styles, the attributes in
    SHOWN_ATTRIBUTES, and the values of inputs other than hidden ones and search boxes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template"):
            self._skip += 1
        found = dict(attrs)
        self.parts += [str(found[name]) for name in SHOWN_ATTRIBUTES if found.get(name)]
        kind = (found.get("type") or "text").lower()
        if tag in ("input", "button") and kind not in ("hidden", "search") and found.get("value"):
            self.parts.append(str(found["value"]))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def shown_text(html: str) -> str:
    parser = ShownText()
    parser.feed(html)
    return " ".join(parser.parts)


def names_read_by_the_pages() -> set[str]:
    names: set[str] = set()
    for source in WEB_CODE.rglob("*.py"):
        for line in source.read_text(encoding="utf-8").splitlines():
            if "query" in line or "params" in line:
                names |= {name for pair in _READ.findall(line) for name in pair if name}
        for listed in _FILTER_TUPLE.findall(source.read_text(encoding="utf-8")):
            names |= set(re.findall(r"""["'](\w+)["']""", listed))
    return names


def _principal(user_id: str) -> Principal:
    scopes = frozenset({"memo:read", "memo:write", "todo:read", "todo:write", "reading:read"})
    return Principal(user_id=user_id, scopes=scopes, credential_id="pat:seed", kind="pat")


def _seed(services: Services, person: Browser) -> dict[str, str]:
    """One record of each kind a page shows by id: the path parameters of every GET page."""
    call = Call(principal=_principal(person.user_id), services=services, trace_id="seed", channel="api")
    memo = create_memo(memo_call(services, person.user_id), {"content": "a memo #work"})["memo"]
    gone = create_memo(memo_call(services, person.user_id), {"content": "to the trash"})["memo"]
    delete_memo(memo_call(services, person.user_id), {"id": gone["id"], "expectedRevision": gone["revision"]})
    task = REGISTRY["create_todo_task"](call, {"title": "a task"})["task"]
    item = REGISTRY["create_todo_inbox_item"](call, {"title": "an inbox item"})["item"]
    seed(services.items, person.user_id, sample_shelf())
    book = REGISTRY["list_reading_books"](call, {})["books"][0]
    create_token(services.items, person.user_id, name="a token", scopes="memo:read")
    tokens = person.get("/settings/tokens").text
    grant_for(services, person)
    apps = person.get("/settings/apps").text
    token_id = re.search(r"/settings/tokens/([\w-]+)/revoke", tokens)
    grant_id = re.search(r"/settings/apps/([\w-]+)/revoke", apps)
    assert token_id and grant_id, "the seeded token and app are listed"
    todoist = b"TYPE,CONTENT,PRIORITY,INDENT,DATE,DATE_LANG,TIMEZONE\ntask,imported,1,1,,en,UTC\n"
    imported = import_upload(services, call.principal, "todoist", io.BytesIO(todoist), ImportOptions(), "web")
    return {
        "memo_id": memo["id"], "record_id": memo["id"], "task_id": task["id"], "run_id": imported.run_id,
        "item_id": item["id"], "book_id": book["id"], "token_id": token_id.group(1), "grant_id": grant_id.group(1),
        "feed": "nothing-here",
    }  # fmt: skip


def _pages(services: Services, ids: dict[str, str]) -> Iterator[str]:
    for route in web_routes(services):
        if not isinstance(route, Route) or "GET" not in (route.methods or ()):
            continue
        params = re.findall(r"{(\w+)}", route.path)
        missing = [name for name in params if name not in ids]
        assert not missing, f"{route.path}: give the test a record for {missing}"
        path = route.path
        for name in params:
            path = path.replace("{" + name + "}", ids[name])
        yield path


def _linked_names(html: str) -> set[str]:
    names: set[str] = set()
    for href in re.findall(r'(?:href|hx-get|action)="([^"]*)"', html):
        names |= {name for name, _ in parse_qsl(urlsplit(href.replace("&amp;", "&")).query, keep_blank_values=True)}
    return names


def _ask(client: Any, path: str, names: list[str]) -> Any:
    return client.get(path + "?" + urlencode({name: MARKER for name in names}), follow_redirects=True)


def _shown_by(client: Any, pages: list[str], names: list[str]) -> list[str]:
    shown: list[str] = []
    for path in pages:
        answer = _ask(client, path, names)
        attempts = [(names, answer)]
        if answer.status_code != 200:  # one name refused the request: each alone, so none hides another
            attempts += [([name], _ask(client, path, [name])) for name in names]
        for asked, reply in attempts:
            if "text/html" in reply.headers.get("content-type", "") and MARKER in shown_text(reply.text):
                shown.append(f"{path}?{','.join(asked)} ({reply.status_code})")
    return shown


def test_no_page_shows_text_from_its_url(
    services: Services, browser: Callable[..., Browser], new_client: Callable[..., Any]
) -> None:
    person = browser()
    ids = _seed(services, person)
    pages = list(_pages(services, ids))
    names = names_read_by_the_pages() | set(FORGED)
    for path in pages:  # the names the pages link with
        names |= _linked_names(person.get(path).text)
    names -= {"csrf"}
    ordered = sorted(names)
    shown = _shown_by(person.client, pages, ordered)
    shown += _shown_by(new_client(), ["/login", "/setup", "/"], ordered)  # and signed out
    assert not shown, f"pages showing text from their URL: {shown}"
    assert "report" in names and len(pages) > 30  # the crawl saw the pages and the forged names


def test_the_marker_is_found_where_a_page_shows_it() -> None:
    """The detector itself: text and read attributes count; hidden fields, scripts and links do not."""
    shown = f'<p>{MARKER}</p><input type="hidden" value="{MARKER}"><a href="/?q={MARKER}">x</a>'
    assert MARKER in shown_text(shown)
    hidden = f'<input type="hidden" value="{MARKER}"><script>"{MARKER}"</script><a href="/?q={MARKER}">x</a>'
    assert MARKER not in shown_text(hidden)
    assert MARKER in shown_text(f'<button title="{MARKER}">x</button>')
    assert MARKER not in shown_text(f'<input type="search" value="{MARKER}">')  # a search box's own value
