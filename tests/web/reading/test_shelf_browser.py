"""The reading shelf in a real headless Chromium against a real `mesq serve`, the books imported
with `mesq reading import`: the empty shelf points to Reading sync; the list -> a book -> its
highlights and thoughts, told apart; "More notes" through htmx (in place, focus on the first new
note); the note search with its hits marked, the stored markup inert; no CSP violation; every
page fits 390 and 1280 px (screenshots `shelf-*.png`, see docs/screenshots/README.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

from mesq.reading.model import book_id

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_browser import PASSWORD
from ..kit.test_layout import SIZES, check_fits, shots  # noqa: F401  (the screenshot folder fixture)
from ..shelf_seed import many_notes_shelf, sample_shelf, write_export

pytestmark = pytest.mark.shared_server


@pytest.fixture
def page() -> Iterator[Any]:
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}) as opened:
        yield opened


def _import(server: LiveServer, username: str, document: dict[str, Any], tmp_path: Path, name: str) -> None:
    done = server.cli("reading", "import", username, str(write_export(tmp_path / name, document)))
    assert done.returncode == 0, done.stderr


def _sign_in(page: Any, server: LiveServer, username: str) -> None:
    page.goto(server.base_url + "/reading")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    playwright_sync.expect(page).to_have_url(server.base_url + "/reading")


def test_read_a_books_notes_and_search_them(server: LiveServer, page: Any, shots: Path, tmp_path: Path) -> None:  # noqa: F811
    expect, base = playwright_sync.expect, server.base_url
    csp_violations: list[str] = []
    page.on("console", lambda m: csp_violations.append(m.text) if "Content Security Policy" in m.text else None)
    created = server.cli_here("user", "create", "reader", "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr

    # An empty shelf says where books come from.
    _sign_in(page, server, "reader")
    expect(page.get_by_role("heading", name=re.compile("Your shelf is empty"))).to_be_visible()
    expect(page.get_by_role("link", name=re.compile("^Set up Reading sync"))).to_have_attribute(
        "href", "/settings/reading"
    )
    check_fits(page, "shelf-empty", shots)

    _import(server, "reader", sample_shelf(), tmp_path, "shelf.json")
    _import(server, "reader", many_notes_shelf(70, chapters=2), tmp_path, "long.json")
    page.reload()
    book = page.locator("li.book", has_text="置身事内")
    expect(book).to_contain_text("兰小欢")
    expect(book).to_contain_text("3 highlights · 2 thoughts")
    expect(page.locator("img")).to_have_count(0)  # no remote cover under img-src 'self'
    check_fits(page, "shelf", shots)

    # List -> book: chapters in order; the highlight is a quote, the thought on it the reader's own card.
    book.get_by_role("link", name="置身事内").click()
    expect(page).to_have_url(base + f"/reading/books/{book_id('b-1')}")
    expect(page.locator("h1")).to_have_text("置身事内")
    expect(page.locator("h2.chapter")).to_have_text(["第一章 地方政府的权力与事务", "第二章 财税与政府行为"])
    highlight = page.locator("article.highlight", has_text="地方政府是经济发展的重要参与者")
    expect(highlight.locator("blockquote")).to_be_visible()
    thought = highlight.locator(".thought")
    expect(thought).to_contain_text("Your thought")
    expect(thought).to_contain_text("土地财政")
    quote_style = highlight.locator("blockquote").evaluate(
        "e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).borderLeftStyle]"
    )
    thought_style = thought.evaluate("e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).borderLeftStyle]")
    assert quote_style != thought_style and quote_style[1] == "solid"  # told apart at a glance, not only by words
    lone = page.locator("article.lone")
    expect(lone.locator("blockquote.quoted")).to_contain_text("一段没有划线的原文")
    expect(page.locator("article.highlight", has_text="<script>")).to_be_visible()  # stored markup shows as text
    assert page.evaluate("window.pwned") is None
    check_fits(page, "shelf-book", shots)

    # A long book: "More notes" loads the next page in place, focus on its first note.
    page.goto(base + f"/reading/books/{book_id('long')}")
    expect(page.locator("article.note")).to_have_count(50)
    page.get_by_role("link", name=re.compile("^More notes")).focus()
    page.keyboard.press("Enter")
    expect(page.locator("article.note")).to_have_count(70)
    expect(page).to_have_url(base + f"/reading/books/{book_id('long')}")
    expect(page.get_by_role("link", name=re.compile("^More notes"))).to_have_count(0)
    assert page.evaluate("document.activeElement.textContent").strip().startswith("Highlight")
    assert "第50条划线" in page.evaluate("document.activeElement.textContent")
    expect(page.locator("h2.chapter")).to_have_text(["第1章", "第2章"])  # chapter 1 not repeated on page 2

    # Search from the shelf, by keyboard: hits marked, from both books' notes.
    page.goto(base + "/reading")
    page.get_by_label(re.compile("^Search your highlights")).fill("财政")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(re.escape(base) + r"/reading/search\?q="))
    expect(page.locator("#hit-count")).to_have_text("2 notes match.")
    expect(page.locator("li.hit mark")).to_have_text(["财政", "财政"])
    expect(page.locator("li.hit.thought")).to_contain_text("Your thought")
    expect(page.locator("li.hit.highlight")).to_contain_text("Highlight")
    check_fits(page, "shelf-search", shots)
    page.get_by_label(re.compile("^Search your highlights")).fill("<script>")
    page.keyboard.press("Enter")
    expect(page.locator("li.hit mark")).to_have_text(["<script>"])
    assert page.evaluate("window.pwned") is None
    page.locator("li.hit").get_by_role("link", name="置身事内").click()
    expect(page.locator("h1")).to_have_text("置身事内")
    assert csp_violations == []


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_a_search_for_a_books_title_or_author_answers_with_the_book(
    server: LiveServer,
    tmp_path: Path,
    shots: Path,  # noqa: F811
    locale: str,
) -> None:
    """A book's title is in none of its notes: searching 置身事内 said "0 notes match." and nothing
    of the book on the shelf. The search now answers with the book (its title or author marked),
    above the notes that match, in the page's language, and fits 390 and 1280 px."""
    expect, username = playwright_sync.expect, f"titles-{locale.lower()}"
    created = server.cli_here("user", "create", username, "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    _import(server, username, sample_shelf(), tmp_path, "shelf.json")
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale=locale) as page:
        _sign_in(page, server, username)
        search = page.get_by_role("searchbox")
        search.fill("置身事内")
        page.keyboard.press("Enter")
        found = page.locator("#titled li.book")
        expect(found).to_have_count(1)
        expect(found.locator("h3 mark")).to_have_text("置身事内")
        heading = "书名或作者相符的书（1 本）" if locale == "zh-CN" else "1 book by that title or author"
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        expect(page.locator("#hit-count")).to_have_text("0 条阅读笔记匹配。" if locale == "zh-CN" else "0 notes match.")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(path=str(shots / f"shelf-titled-{locale}-{width}.png"), full_page=True)
        search = page.get_by_role("searchbox")
        search.fill("hamming")  # an author, folded as the notes are
        page.keyboard.press("Enter")
        expect(found).to_have_count(1)
        expect(found.locator(".author mark")).to_have_text("Hamming")
        found.get_by_role("link", name="The Art of Doing Science").click()
        expect(page.locator("h1")).to_have_text("The Art of Doing Science")


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_a_search_no_note_holds_offers_the_nearest_in_meaning(
    server: LiveServer,
    tmp_path: Path,
    shots: Path,  # noqa: F811
    locale: str,
) -> None:
    """The note search is exact: "土地财政收入" is in no note, and the page said "0 notes match."
    and nothing more. It now shows the notes nearest in meaning (AI search over reading notes:
    the thought on 土地财政 and the highlight on 财政收入, whole, as hits show them) with their
    books, and a way to the memo search by meaning, in the page's language, at 390 and 1280 px."""
    expect, username = playwright_sync.expect, f"nearest-{locale.lower()}"
    created = server.cli_here("user", "create", username, "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    _import(server, username, sample_shelf(), tmp_path, "shelf.json")
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, locale=locale) as page:
        _sign_in(page, server, username)
        page.get_by_role("searchbox").fill("土地财政收入")
        page.keyboard.press("Enter")
        # The first AI search of a fresh server loads the model and the dictionaries: seconds.
        count = "0 条阅读笔记匹配。" if locale == "zh-CN" else "0 notes match."
        expect(page.locator("#hit-count")).to_have_text(count, timeout=90_000)
        heading = "意思最接近的阅读笔记" if locale == "zh-CN" else "Nearest in meaning"
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        nearest = page.locator("#nearest li.hit")
        expect(nearest).to_have_count(2)  # the confident ones only: not every note of the shelf
        expect(nearest.filter(has_text="土地财政的起点")).to_have_count(1)
        expect(nearest.filter(has_text="财政收入与支出的不匹配")).to_have_count(1)
        expect(nearest.first.get_by_role("link", name="置身事内")).to_have_attribute(
            "href", f"/reading/books/{book_id('b-1')}"
        )
        memos = page.get_by_role(
            "link", name="按意思搜索你的笔记" if locale == "zh-CN" else "Search your memos by meaning"
        )
        expect(memos).to_have_attribute("href", "/?q=%E5%9C%9F%E5%9C%B0%E8%B4%A2%E6%94%BF%E6%94%B6%E5%85%A5&mode=ai")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(path=str(shots / f"shelf-nearest-{locale}-{width}.png"), full_page=True)
