"""Settings → Reading sync says what the last sync skipped (items WeChat Reading sent that the
sync cannot read, reading/sync.py `_skipped`): counted, each book named where it could be read,
in the page's language."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape

import pytest

from mesq.kernel.keys import user_partition
from mesq.wiring.services import Services

from ..conftest import Browser

AT = "2026-03-01T00:00:00.000000Z"
RUN = {"added": 1, "updated": 0, "markedDeleted": 0, "unchanged": 0, "booksChanged": 1, "source": "api_key"}
SKIPPED = [
    {"kind": "book", "book": "", "bookId": "9002", "count": 1},
    {"kind": "notes", "book": "书名 1", "bookId": "9001", "count": 2},
    {"kind": "book", "book": "Untitled? No: 无 ID 的书", "bookId": "", "count": 1},
    {"kind": "book", "book": "", "bookId": "", "count": 1},
]


def _skipped(services: Services, reader: Browser, language: str) -> str:
    status = {"pk": user_partition(reader.user_id), "sk": "READ#SYNCSTATUS", "lastAttemptAt": AT, "lastSuccessAt": AT,
              "counts": {"books": 2}, "lastRun": {**RUN, "skipped": 5, "skippedItems": SKIPPED}}  # fmt: skip
    services.items.put(status)
    page = reader.get("/settings/reading", headers={"Accept-Language": language})
    assert page.status_code == 200
    found = re.search(r'<div id="sync-skipped">(.*?)</div>', page.text, re.S)
    assert found is not None, page.text
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("zh-CN", ["跳过了 5 项", "其余均已同步", "没有书名的书（编号 9002）", "《书名 1》中的 2 条笔记",
                   "《Untitled? No: 无 ID 的书》", "一本没有可用编号的书"]),
        ("en-US", ["skipped 5 items", "everything else was synced", "a book without a title (id 9002)",
                   "2 notes of “书名 1”", "the book “Untitled? No: 无 ID 的书”", "a book without a usable id"]),
    ],
)  # fmt: skip
def test_what_a_sync_skipped_is_said_counted_and_named(
    services: Services, browser: Callable[..., Browser], language: str, said: list[str]
) -> None:
    text = _skipped(services, browser(), language)
    for words in said:
        assert words in text, text
    if language == "zh-CN":
        assert not re.search(r"[A-Za-z]{3,}", text.replace("Untitled? No:", "")), text


def test_a_sync_that_skipped_nothing_says_nothing_of_it(services: Services, browser: Callable[..., Browser]) -> None:
    reader = browser()
    status = {"pk": user_partition(reader.user_id), "sk": "READ#SYNCSTATUS", "lastAttemptAt": AT, "lastSuccessAt": AT,
              "counts": {"books": 2}, "lastRun": {**RUN, "skipped": 0, "skippedItems": []}}  # fmt: skip
    services.items.put(status)
    page = reader.get("/settings/reading", headers={"Accept-Language": "en-US"})
    assert page.status_code == 200 and 'id="last-run"' in page.text and "sync-skipped" not in page.text


@pytest.mark.parametrize(
    ("language", "said", "wrong"),
    [
        ("zh-CN", "重新获取的书中未变 7 条", "，未变 7。"),
        ("en-US", "7 unchanged in the books it fetched again", "7 unchanged."),
    ],
)
def test_unchanged_says_it_counts_the_notes_of_books_fetched_again(
    services: Services, browser: Callable[..., Browser], language: str, said: str, wrong: str
) -> None:
    """`unchanged` counts the notes of the books a sync fetched again, not the shelf: a sync in
    which nothing changed fetches no book and says 0, so the words say what is counted."""
    reader = browser()
    status = {"pk": user_partition(reader.user_id), "sk": "READ#SYNCSTATUS", "lastAttemptAt": AT, "lastSuccessAt": AT,
              "counts": {"books": 2}, "lastRun": {**RUN, "unchanged": 7}}  # fmt: skip
    services.items.put(status)
    page = reader.get("/settings/reading", headers={"Accept-Language": language})
    found = re.search(r'<p class="muted" id="last-run">(.*?)</p>', page.text, re.S)
    assert found is not None, page.text
    text = unescape(found.group(1))
    assert said in text and wrong not in text, text
