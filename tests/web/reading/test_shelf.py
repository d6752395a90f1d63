"""The reading shelf pages in-process (real SQLite store, the real page pipeline, data seeded
through the reading import): the books with their counts and no remote cover, a book's notes in
reading order with chapter headings and the highlight/thought distinction, paging (full pages and
the htmx partials), the literal search with its hits marked as text, bad input and another
user's book."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape

from mesq.reading.model import book_id
from mesq.wiring.services import Services

from ..conftest import Browser
from ..shelf_seed import XSS, many_books_shelf, many_notes_shelf, sample_shelf, seed

HX = {"HX-Request": "true"}


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_empty_shelf_links_to_reading_sync(browser: Callable[..., Browser]) -> None:
    page = browser().get("/reading")
    assert page.status_code == 200
    assert "Your shelf is empty" in page.text
    assert 'href="/settings/reading"' in page.text
    assert 'aria-current="page">Reading' in page.text


def test_books_show_title_author_counts_no_remote_cover(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    seed(services.items, reader.user_id, sample_shelf())
    page = reader.get("/reading")
    assert page.status_code == 200
    text = _text(page.text)
    assert "置身事内" in text and "兰小欢" in text
    assert "3 highlights · 2 thoughts" in text
    assert "Last read 2026-03-" in text
    assert "<img" not in page.text and "covers.example" not in page.text  # CSP img-src 'self': no remote cover
    assert f'href="/reading/books/{book_id("b-1")}"' in page.text
    # Newest note first (the operation's shelf order): 置身事内's notes are later in March.
    assert page.text.index("置身事内") < page.text.index("The Art of Doing Science")


def test_book_page_reading_order_chapters_and_thoughts(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    seed(services.items, reader.user_id, sample_shelf())
    page = reader.get(f"/reading/books/{book_id('b-1')}")
    assert page.status_code == 200
    html = page.text
    chapters = re.findall(r'<h2 class="chapter">([^<]+)</h2>', html)
    assert chapters == ["第一章 地方政府的权力与事务", "第二章 财税与政府行为"]
    # The thought on a highlight is inside that highlight's article, without repeating the passage.
    first = re.search(r'<article class="note highlight"[^>]*>(.*?)</article>', html, re.S)
    assert first is not None
    assert "地方政府是经济发展的重要参与者。" in first.group(1)
    assert 'data-note-type="note"' in first.group(1) and "土地财政" in first.group(1)
    assert "On the passage" not in first.group(1)
    # A thought whose passage is not highlighted stands alone and quotes it.
    lone = re.search(r'<article class="note lone"[^>]*>(.*?)</article>', html, re.S)
    assert lone is not None and "一段没有划线的原文" in lone.group(1) and "On the passage" in lone.group(1)
    # Reading order: chapter 1's notes, then the lone thought (ch. 2, pos 5), then ch. 2's highlight.
    order = [html.index(s) for s in ("第一章", "土地财政", "财政收入", "第二章", "A lone thought", "&lt;script&gt;")]
    assert order == sorted(order)
    assert "<script>window" not in html and 'onerror="window' not in html  # note text is text


def test_book_pages_continue_without_repeating_the_chapter(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    seed(services.items, reader.user_id, many_notes_shelf(120, chapters=2))  # chapter 1: n0..n59
    path = f"/reading/books/{book_id('long')}"
    first = reader.get(path)
    assert re.findall(r'<h2 class="chapter">([^<]+)</h2>', first.text) == ["第1章"]
    assert f'href="{path}?offset=50"' in first.text and "第49条划线" in first.text and "第50条划线" not in first.text
    second = reader.get(path + "?offset=50", headers=HX)  # the htmx "More": entries only
    assert "<html" not in second.text and "<h1>" not in second.text
    assert re.findall(r'<h2 class="chapter">([^<]+)</h2>', second.text) == ["第2章"]  # 第1章 continues: no repeat
    assert second.text.index("第59条划线") < second.text.index("第2章") < second.text.index("第60条划线")
    assert "autofocus" in second.text.split("第50条划线")[0]  # the first new entry takes the focus
    assert '?offset=100"' in second.text
    last = reader.get(path + "?offset=100")  # without htmx: the whole page at that offset
    assert "<h1>长篇</h1>" in last.text and "第119条划线" in last.text and "More notes" not in last.text
    assert "Back to the start of the book" in last.text


def test_shelf_pages_of_books(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    seed(services.items, reader.user_id, many_books_shelf(35))
    first = reader.get("/reading")
    assert first.text.count('class="card book"') == 30 and "35 books" in first.text
    assert 'href="/reading?offset=30"' in first.text
    more = reader.get("/reading?offset=30", headers=HX)
    assert more.text.count('class="card book"') == 5 and "<html" not in more.text and "More books" not in more.text


def test_search_marks_hits_as_text(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    seed(services.items, reader.user_id, sample_shelf())
    page = reader.get("/reading/search", params={"q": "财政"})
    assert page.status_code == 200
    assert "2 notes match." in _text(page.text)  # the thought 土地财政 and the highlight 财政收入
    assert "土地<mark>财政</mark>的起点" in page.text and "<mark>财政</mark>收入" in page.text
    assert page.text.count('data-note-type="note"') == 1 and page.text.count('data-note-type="highlight"') == 1
    chapter = reader.get("/reading/search", params={"q": "财税"})  # the chapter title matches too
    assert "<mark>财税</mark>与政府行为" in chapter.text
    assert 'value="财政"' in page.text  # the query stays in the box
    markup = reader.get("/reading/search", params={"q": "<script>"})
    assert "<mark>&lt;script&gt;</mark>window.pwned=1" in markup.text
    assert "<script>window" not in markup.text
    folded = reader.get("/reading/search", params={"q": "THE KEY"})
    assert "<mark>the key</mark>" in folded.text
    assert XSS not in markup.text


def test_search_bad_input_is_a_message_not_a_fault(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    long_query = "长" * 201
    page = reader.get("/reading/search", params={"q": long_query})
    assert page.status_code == 200 and "at most 200 characters" in page.text and long_query in page.text
    empty = reader.get("/reading/search", params={"q": "  "})
    assert empty.status_code == 200 and 'id="hit-count"' not in empty.text
    for bad in ("/reading?offset=-1", "/reading?offset=abc", "/reading/search?q=x&offset=1e3"):
        answer = reader.get(bad)
        assert answer.status_code == 400, bad
        assert "offset: a whole number" in answer.text and "Traceback" not in answer.text


def test_another_users_book_is_not_found(services: Services, browser: Callable[..., Browser]) -> None:
    owner, other = browser(), browser()
    seed(services.items, owner.user_id, sample_shelf())
    path = f"/reading/books/{book_id('b-1')}"
    assert owner.get(path).status_code == 200
    answer = other.get(path)
    assert answer.status_code == 404 and "置身事内" not in answer.text
    assert "置身事内" not in other.get("/reading/search", params={"q": "财政"}).text
    assert other.get("/reading/books/" + "x" * 41).status_code == 400  # the operation's own id rule


def test_pages_need_a_session(new_client: Callable[[], object]) -> None:
    client = new_client()
    for path in ("/reading", "/reading/search?q=a", f"/reading/books/{book_id('b-1')}"):
        answer = client.get(path, follow_redirects=False)  # type: ignore[attr-defined]
        assert answer.status_code == 303 and answer.headers["location"].startswith("/login?next="), path


def test_notes_removed_upstream_are_labelled(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    shelf = sample_shelf()
    seed(services.items, reader.user_id, shelf)
    shelf["books"][0]["notes"] = [n for n in shelf["books"][0]["notes"] if n["id"] != "h2"]  # gone at the source
    seed(services.items, reader.user_id, shelf)
    page = reader.get(f"/reading/books/{book_id('b-1')}")
    removed = re.search(
        r'<article class="note highlight"[^>]*>((?:(?!</article>).)*财政收入.*?)</article>', page.text, re.S
    )
    assert removed is not None and "removed in WeChat Reading" in removed.group(1)
    assert page.text.count("removed in WeChat Reading") == 2  # the note, and the book's count line
    assert "1 removed in WeChat Reading" in _text(page.text)


def test_book_pages_of_long_notes_walk_every_note_once(services: Services, browser: Callable[..., Browser]) -> None:
    """The notes list keeps the 25,000-character budget (reading/operations.py): "More notes"
    follows the last note shown, and a page whose note before it (the chapter context) alone fills
    the budget is read without it, instead of leading back to itself."""
    reader = browser()
    shelf = many_notes_shelf(120)
    for note in shelf["books"][0]["notes"]:
        number = int(note["id"][1:])
        if number % 10 == 3 or number in (48, 49):  # long highlights, two in a row
            note["content"] += " " + "长" * 20_000
    seed(services.items, reader.user_id, shelf)
    path, seen, pages = f"/reading/books/{book_id('long')}", [], 0
    link: str | None = path
    while link is not None:
        page = reader.get(link, headers=HX)
        assert page.status_code == 200 and pages < 60, link
        seen += [int(n) for n in re.findall(r"第(\d+)条划线", page.text)]
        found = re.search(r'href="(/reading/books/[^"?]+\?offset=\d+)"', page.text)
        link, pages = (found.group(1) if found else None), pages + 1
    assert seen == list(range(120)), seen


def test_chinese_reading_pages_never_call_notes_memos(services: Services, browser: Callable[..., Browser]) -> None:
    """In Chinese 笔记 is the Memos app (the top bar's 笔记, the timeline's 搜索笔记): the reading
    pages name their highlights and thoughts 阅读笔记, so the shelf's search is not the memo search
    by another door (it was headed 搜索笔记, the memo timeline's own heading, and counted 条笔记)."""
    reader = browser()
    seed(services.items, reader.user_id, sample_shelf())
    zh = {"Accept-Language": "zh-CN"}
    memo_heading = re.search(r'<label for="memo-search">([^<]+)</label>', reader.get("/", headers=zh).text)
    assert memo_heading is not None and memo_heading.group(1) == "搜索笔记"
    found = reader.get("/reading/search?q=%E5%9C%9F%E5%9C%B0", headers=zh)  # 土地
    assert found.status_code == 200
    heading = re.search(r"<h1[^>]*>([^<]+)</h1>", found.text)
    assert heading is not None and heading.group(1).strip() == "搜索阅读笔记"
    assert "1 条阅读笔记匹配。" in _text(found.text)
    nothing = reader.get("/reading/search?q=%E4%B8%8D%E5%9C%A8", headers=zh)  # 不在
    assert "0 条阅读笔记匹配。" in _text(nothing.text)
    for path in ("/reading", f"/reading/books/{book_id('b-1')}", f"/reading/books/{book_id('b-2')}"):
        text = _text(reader.get(path, headers=zh).text)
        bare = [line.strip() for line in text.splitlines() if re.search(r"(?<!阅读)笔记", line)]
        assert [line for line in bare if line != "笔记"] == [], path  # 笔记 alone: the top bar's Memos


def test_a_heading_made_for_an_untitled_chapter_is_in_the_readers_language(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A note with a chapter number but no chapter title (the import's `chapterTitle` is optional;
    a sync whose chapter list lacks the chapter), and one with neither: the page makes their
    headings, and on a Chinese page they were English ("Chapter 2", "Elsewhere in the book")."""
    reader = browser()
    notes = [
        {"id": "a", "noteType": "highlight", "content": "有章节号的划线", "chapterIndex": 2, "position": 1,
         "createdAt": "2026-03-01T21:00:00+08:00"},
        {"id": "b", "noteType": "highlight", "content": "不知道在哪一章的划线",
         "createdAt": "2026-03-02T21:00:00+08:00"},
    ]  # fmt: skip
    book = {"id": "u", "title": "无题", "notes": notes}
    seed(services.items, reader.user_id, {"provider": "wechat-reading", "books": [book]})
    path = f"/reading/books/{book_id('u')}"
    headings = {}
    for language in ("zh-CN", "en-US"):
        html = reader.get(path, headers={"Accept-Language": language}).text
        headings[language] = re.findall(r'<h2 class="chapter">([^<]+)</h2>', html)
    assert headings == {"zh-CN": ["第 2 章", "书中其他位置"], "en-US": ["Chapter 2", "Elsewhere in the book"]}


def test_a_search_hit_removed_in_wechat_reading_says_so(services: Services, browser: Callable[..., Browser]) -> None:
    """The book page marks a note deleted upstream ("removed in WeChat Reading"); the search page
    showed the same note as a plain hit, as if it were still in the book."""
    reader = browser()
    shelf = sample_shelf()
    seed(services.items, reader.user_id, shelf)
    book = shelf["books"][0]
    book["notes"] = [note for note in book["notes"] if note["id"] != "h2"]  # 财政收入… removed upstream
    seed(services.items, reader.user_id, shelf)
    for language, gone in (("en-US", "removed in WeChat Reading"), ("zh-CN", "已在微信读书中删除")):
        headers = {"Accept-Language": language}
        found = reader.get("/reading/search?q=%E8%B4%A2%E6%94%BF%E6%94%B6%E5%85%A5", headers=headers)  # 财政收入
        hits = re.findall(r'<li class="card hit[^"]*"[^>]*>(.*?)</li>', found.text, re.S)
        assert len(hits) == 1 and gone in _text(hits[0]), found.text
        kept = reader.get("/reading/search?q=%E5%9C%9F%E5%9C%B0", headers=headers)  # 土地
        assert gone not in _text(kept.text)


def test_a_books_time_is_said_as_its_last_change_not_a_sync(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A book's `syncedAt` is when it last changed in MeSQ (docs/contract.md §6): a sync or an
    import that changes nothing of it leaves it. The shelf said "synced" (同步于), which read as
    the last sync; it says "last changed" (最近变动)."""
    reader = browser()
    seed(services.items, reader.user_id, sample_shelf())
    for language, said, wrong in (("en-US", "· last changed 20", "synced"), ("zh-CN", "· 最近变动 20", "同步于")):
        text = _text(reader.get("/reading", headers={"Accept-Language": language}).text)
        assert said in text and wrong not in text, text
