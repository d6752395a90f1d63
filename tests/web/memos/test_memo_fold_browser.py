"""A long memo in the timeline is folded, as memos (the app MeSQ follows) folds it: its first lines
and "展开 / Show more", a button that unfolds it in place ("收起 / Show less" folds it again), by
mouse or keyboard, with no reload; a short memo is never folded; a footnote link into the hidden
part unfolds it, and so does the browser's find (Ctrl+F) reaching words in it. In headless
Chromium against a real `mesq serve`, at 390 and 1280 px, in zh-CN and en-US, and axe stays clean
with a memo folded and unfolded. Before, a long memo took the whole screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright import sync_api as playwright_sync

from ...conftest import LiveServer
from ...mcp.test_js_schemas import _node_tools
from ..chromium import chromium_page
from ..kit.test_accessibility import Audit
from ..kit.test_layout import SIZES, shots
from ..todos.test_todos_browser import PROBLEMS, sign_in_page

pytestmark = pytest.mark.shared_server

expect = playwright_sync.expect
__all__ = ["shots"]  # the fixture
LONG = "读书笔记[^1]：\n\n" + "\n\n".join(f"第{n}段：今天读了很多很多页，记下这一段想法。" for n in range(1, 41))
LONG += "\n\n[^1]: 出自《三体》第三章"
SHORT = "短笔记 #日常\n两行而已"
WORDS = {"zh-CN": ("展开", "收起"), "en-US": ("Show more", "Show less")}


def _memos(server: LiveServer, username: str) -> tuple[dict[str, Any], dict[str, Any]]:
    account = server.account(username, scopes="memo:read,memo:write")
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {account.token}"}) as rest:
        made = [rest.post("/api/toolkit/memo", json={"content": text}).json()["data"]["memo"] for text in (LONG, SHORT)]
    return made[0], made[1]


def _looks(server: LiveServer, username: str, memo: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
    """The timeline signed in as `username` in each language at each width: (locale, the fold
    button's two labels, the viewport, the page, `memo`'s card, its body, its fold button)."""
    for locale, labels in WORDS.items():
        for width, height in SIZES:
            with chromium_page(viewport={"width": width, "height": height}, locale=locale) as page:
                sign_in_page(page, server.base_url, username)
                card = page.locator(f"#memo-{memo['id']}")
                yield (
                    locale,
                    labels,
                    (width, height),
                    page,
                    card,
                    card.locator(".memo-body"),
                    card.locator("button.memo-fold"),
                )


def _height(body: Any) -> tuple[int, int]:
    return body.evaluate("e => [e.clientHeight, e.scrollHeight]")  # type: ignore[no-any-return]


def test_a_long_memo_folds_in_the_timeline_and_unfolds_in_place(server: LiveServer, shots: Path) -> None:
    long, short = _memos(server, "fold")
    for look in _looks(server, "fold", long):
        locale, (more, less), (width, height), page, card, body, button = look
        where = f"{locale} at {width}px"
        expect(button).to_be_visible()
        expect(button).to_have_text(more)
        expect(button).to_have_attribute("aria-expanded", "false")
        shown, whole = _height(body)
        assert shown < whole / 2 and shown < height, (where, shown, whole)
        expect(page.locator(f"#memo-{short['id']} button.memo-fold")).to_be_hidden()
        assert _height(page.locator(f"#memo-{short['id']} .memo-body"))[0] > 0
        card.screenshot(path=str(shots / f"memos-folded-{locale}-{width}.png"))

        # By keyboard: Enter unfolds, Space folds again; no reload in between.
        page.evaluate("window.notReloaded = true")
        button.focus()
        page.keyboard.press("Enter")
        expect(button).to_have_text(less)
        expect(button).to_have_attribute("aria-expanded", "true")
        shown, whole = _height(body)
        assert shown == whole, (where, shown, whole)
        page.keyboard.press("Space")
        expect(button).to_have_text(more)
        assert _height(body)[0] < whole / 2, where
        assert page.evaluate("window.notReloaded") is True

        # The footnote's link at the top leads into the folded part: it unfolds there.
        card.locator("sup.footnote-ref a").click()
        expect(button).to_have_attribute("aria-expanded", "true")
        expect(card.locator(".footnotes li")).to_be_in_viewport()
        card.locator(".footnotes").screenshot(path=str(shots / f"memos-footnotes-{locale}-{width}.png"))
        assert page.evaluate("window.notReloaded") is True
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, (where, scroll_width, inner_width)
        assert PROBLEMS[page] == [], (where, PROBLEMS[page])


def test_a_search_match_past_the_fold_shows_the_memo_open(server: LiveServer) -> None:
    """An exact-text search whose match lies in the folded part: the memo is shown open with its
    match, "Show less" offered; a match in the first lines leaves it folded."""
    long, _short = _memos(server, "fold-search")
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}, locale="zh-CN") as page:
        sign_in_page(page, server.base_url, "fold-search")
        button = page.locator(f"#memo-{long['id']} button.memo-fold")
        page.goto(server.base_url + "/?q=" + "第39段")
        expect(page.locator(f"#memo-{long['id']} mark")).to_have_text("第39段")
        expect(button).to_have_text("收起")
        expect(button).to_have_attribute("aria-expanded", "true")
        page.goto(server.base_url + "/?q=" + "第1段")
        expect(button).to_have_text("展开")
        assert PROBLEMS[page] == [], PROBLEMS[page]


def test_the_timeline_with_a_folded_memo_passes_axe(server: LiveServer) -> None:
    long, _short = _memos(server, "fold-axe")
    source = (_node_tools().ensure_npm_packages(_node_tools().AXE_PACKAGES) / "axe-core" / "axe.min.js").read_text()
    for locale, (more, _less) in WORDS.items():
        with chromium_page(
            viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale=locale, bypass_csp=True
        ) as page:
            sign_in_page(page, server.base_url, "fold-axe")
            audit = Audit(page, source)
            button = page.locator(f"#memo-{long['id']} button.memo-fold")
            expect(button).to_have_text(more)
            audit.check(f"/ ({locale}) with a memo folded")
            button.click()
            expect(button).to_have_attribute("aria-expanded", "true")
            audit.check(f"/ ({locale}) with the memo unfolded")
            assert audit.problems == [], "\n".join(audit.problems)


def test_find_in_page_reaches_the_folded_part_and_the_memo_says_it_is_open(server: LiveServer) -> None:
    """The browser's find (Ctrl+F) reaches words in a folded memo's hidden part: the part shows and
    the button says the memo is open ("收起 / Show less", aria-expanded). A text fragment
    (`#:~:text=`) runs the same find-in-page reveal as Ctrl+F. Before, the folded part was only
    clipped, and stayed folded: the find scrolled the clipped text inside the card, "展开" still
    offered."""
    long, _short = _memos(server, "fold-find")
    for look in _looks(server, "fold-find", long):
        locale, (_more, less), (width, _height_px), page, card, body, button = look
        words = card.locator("p", has_text="第39段")
        expect(button).to_have_attribute("aria-expanded", "false")
        expect(words).to_be_hidden()  # the folded part is hidden (until found), not only clipped
        page.goto("about:blank")  # then the page loads anew, as from a link holding the fragment
        page.goto(server.base_url + "/#:~:text=" + quote("第39段：今天读了"))
        expect(button).to_have_text(less)
        expect(button).to_have_attribute("aria-expanded", "true")
        expect(words).to_be_visible()
        expect(words).to_be_in_viewport()
        shown, whole = _height(body)
        assert shown == whole, (locale, width, shown, whole)
        assert PROBLEMS[page] == [], (locale, width, PROBLEMS[page])


def test_find_in_the_clipped_end_of_one_long_paragraph_unfolds_the_memo(server: LiveServer) -> None:
    """A memo of one long paragraph (common in Chinese, written without breaks) cannot be cut
    between blocks: the find reaches its clipped end, the card unfolds and the match stays in view.
    Before, the find scrolled the clipped paragraph inside the folded card, "展开" still offered."""
    account = server.account("fold-clipped", scopes="memo:read,memo:write")
    text = "一整段：" + "今天读了很多页，想到很多事情，" * 80 + "最后一句在折叠之下。"
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {account.token}"}) as rest:
        memo = rest.post("/api/toolkit/memo", json={"content": text}).json()["data"]["memo"]
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}, locale="zh-CN") as page:
        sign_in_page(page, server.base_url, "fold-clipped")
        card = page.locator(f"#memo-{memo['id']}")
        button = card.locator("button.memo-fold")
        expect(button).to_have_attribute("aria-expanded", "false")
        page.goto("about:blank")
        page.goto(server.base_url + "/#:~:text=" + quote("最后一句在折叠之下"))
        expect(button).to_have_text("收起")
        expect(button).to_have_attribute("aria-expanded", "true")
        shown, whole = _height(card.locator(".memo-body"))
        assert shown == whole, (shown, whole)
        end = page.evaluate(
            """id => { const body = document.getElementById(id); const range = document.createRange();
            range.setStart(body.firstElementChild.lastChild, body.firstElementChild.lastChild.length - 3);
            range.setEnd(body.firstElementChild.lastChild, body.firstElementChild.lastChild.length);
            const box = range.getBoundingClientRect(); return [box.top, box.bottom, innerHeight]; }""",
            f"memo-body-{memo['id']}",
        )
        assert end[0] >= 0 and end[1] <= end[2], end
        assert PROBLEMS[page] == [], PROBLEMS[page]


def test_without_script_a_long_memo_reads_whole(server: LiveServer) -> None:
    """The fold and its hidden part are the script's: without it the memo shows whole, with no
    button and nothing hidden, in the page as served."""
    long, _short = _memos(server, "fold-noscript")
    with chromium_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]}, java_script_enabled=False) as page:
        sign_in_page(page, server.base_url, "fold-noscript")
        card = page.locator(f"#memo-{long['id']}")
        expect(card.locator("p", has_text="第39段")).to_be_visible()
        expect(card.locator(".footnotes li")).to_be_visible()
        expect(card.locator("button.memo-fold")).to_be_hidden()
        assert card.locator(".memo-body [hidden]").count() == 0
        shown, whole = _height(card.locator(".memo-body"))
        assert shown == whole, (shown, whole)
