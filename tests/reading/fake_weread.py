"""A loopback fake of WeChat Reading, answering the shapes the public open-source exporters rely on:
the agent gateway (`POST /api/agent/gateway` with `api_name`, Bearer `wrk-…`) and the web reader
(`GET /api/user/notebook`, `/web/book/bookmarklist`, `/web/review/list` with a cookie). Notebooks
are paged by `lastSort` (page size `notebook_page`), reviews by `synckey` (`review_page`).
Switches: `expired` (errcode -2012 or -2010), `rate_limited` (429s to send), `malformed` (an api
or path answered with garbage), `upgrade_info`, `stale_cookie` (bookmark list answers `{}`),
`answers` (an api answered with a given status and body), `delay` (seconds an api waits before
answering), `trickle` (an api that sends its head, then a byte every `TRICKLE_EVERY` seconds)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.support.http_stub import QuietHandler, serving

API_KEY = "wrk-test-key-0123456789"
COOKIE = "wr_vid=42; wr_skey=good-skey"
TRICKLE_EVERY = 0.25


@dataclass
class FakeBook:
    book_id: str
    title: str
    author: str
    sort: int
    bookmarks: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    chapters: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class FakeWeRead:
    books: dict[str, FakeBook] = field(default_factory=dict)
    notebook_page: int = 2
    review_page: int = 3
    expired: int | None = None
    rate_limited: int = 0
    malformed: str | None = None
    upgrade_info: dict[str, str] | None = None
    stale_cookie: bool = False
    stuck_paging: bool = False  # notebooks ignore lastSort and always say hasMore
    answers: dict[str, tuple[int, Any]] = field(default_factory=dict)
    delay: dict[str, float] = field(default_factory=dict)
    trickle: str | None = None
    calls: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # --- the data ---------------------------------------------------------------------------
    def notebook_entries(self) -> list[dict[str, Any]]:
        ordered = sorted(self.books.values(), key=lambda b: b.sort, reverse=True)
        return [
            {
                "bookId": b.book_id,
                "book": {"bookId": b.book_id, "title": b.title, "author": b.author, "cover": f"https://img/{b.book_id}.jpg"},
                "noteCount": len(b.bookmarks), "bookmarkCount": 0, "reviewCount": len(b.reviews), "sort": b.sort,
            }
            for b in ordered
        ]  # fmt: skip

    def notebooks(self, last_sort: int | None) -> dict[str, Any]:
        entries = self.notebook_entries()
        if self.stuck_paging:
            return {"books": entries[: self.notebook_page], "hasMore": True}
        if last_sort is not None:
            entries = [e for e in entries if e["sort"] < last_sort]
        page = entries[: self.notebook_page]
        return {"books": page, "hasMore": len(entries) > len(page), "totalBookCount": len(self.books)}

    def bookmarks(self, book_id: str) -> dict[str, Any]:
        book = self.books.get(book_id)
        if book is None:
            return {"updated": [], "chapters": []}
        return {"updated": list(book.bookmarks), "chapters": list(book.chapters), "book": {"bookId": book_id}}

    def reviews(self, book_id: str, synckey: int) -> dict[str, Any]:
        book = self.books.get(book_id)
        reviews = book.reviews if book else []
        page = reviews[synckey : synckey + self.review_page]
        following = synckey + len(page)
        return {
            "reviews": [{"review": r} for r in page],
            "hasMore": 1 if following < len(reviews) else 0,
            "synckey": following,
            "totalCount": len(reviews),
        }

    # --- the protocol -----------------------------------------------------------------------
    def answer(self, name: str, params: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        with self.lock:
            self.calls.append(name)
            if self.rate_limited > 0:
                self.rate_limited -= 1
                return 429, {"errcode": -1, "errmsg": "too many requests"}, {"Retry-After": "0"}
        if name in self.delay:
            time.sleep(self.delay[name])
        if name in self.answers:
            return *self.answers[name], {}
        if self.expired is not None:
            return 200, {"errcode": self.expired, "errmsg": "登录超时"}, {}
        if self.malformed == name:
            return 200, "<html>not json</html>", {}
        if name == "notebooks":
            body: dict[str, Any] = self.notebooks(_int(params.get("lastSort")))
        elif name == "bookmarklist":
            body = {} if self.stale_cookie else self.bookmarks(str(params.get("bookId") or params.get("bookid")))
        elif name == "reviews":
            book_id = str(params.get("bookid") or params.get("bookId"))
            body = self.reviews(book_id, _int(params.get("synckey")) or 0)
        else:
            return 404, {"errcode": -1, "errmsg": "unknown api"}, {}
        if self.upgrade_info:
            body["upgrade_info"] = self.upgrade_info
        return 200, body, {}


def _int(value: Any) -> int | None:
    if isinstance(value, list):
        value = value[0]
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else None


GATEWAY_APIS = {"/user/notebooks": "notebooks", "/book/bookmarklist": "bookmarklist", "/review/list/mine": "reviews"}
WEB_PATHS = {"/api/user/notebook": "notebooks", "/web/book/bookmarklist": "bookmarklist", "/web/review/list": "reviews"}


def _handler(fake: FakeWeRead) -> type[BaseHTTPRequestHandler]:
    class Handler(QuietHandler):
        def _answer(self, name: str, params: dict[str, Any]) -> None:
            if fake.trickle == name:
                return self._trickle()
            self._send(*fake.answer(name, params))

        def _trickle(self) -> None:
            """A head promising 100 000 bytes, then one every TRICKLE_EVERY s (for at most a minute)."""
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _byte in range(int(60 / TRICKLE_EVERY)):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(TRICKLE_EVERY)
            except OSError:
                pass  # the client gave up: what the test wants
            self.close_connection = True

        def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
            data = body.encode() if isinstance(body, str) else json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if urlparse(self.path).path != "/api/agent/gateway":
                return self._send(404, {"errcode": -1}, {})
            if self.headers.get("Authorization") != f"Bearer {API_KEY}":
                return self._send(401, {"errcode": -2010, "errmsg": "invalid key"}, {})
            if body.get("skill_version") is None or body.get("api_name") not in GATEWAY_APIS:
                return self._send(400, {"errcode": -1, "errmsg": "bad request"}, {})
            self._answer(GATEWAY_APIS[body["api_name"]], body)

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path not in WEB_PATHS:
                return self._send(404, {"errcode": -1}, {})
            # Read as a server reads a Cookie header: name=value pairs, the session in wr_vid + wr_skey.
            pairs = [part.strip().split("=", 1) for part in (self.headers.get("Cookie") or "").split(";")]
            cookies = {pair[0]: pair[1] for pair in pairs if len(pair) == 2}
            if cookies.get("wr_skey") != "good-skey" or "wr_vid" not in cookies:
                return self._send(401, {"errcode": -2012, "errmsg": "登录超时"}, {})
            params = {name: values[0] for name, values in parse_qs(url.query).items()}
            self._answer(WEB_PATHS[url.path], params)

    return Handler


@contextmanager
def running(fake: FakeWeRead) -> Iterator[str]:
    """Serve `fake` on a loopback port; yields the base URL."""
    with serving(_handler(fake)) as base_url:
        yield base_url


def sample_shelf(books: int = 3, highlights: int = 4, thoughts: int = 4) -> FakeWeRead:
    fake = FakeWeRead()
    for number in range(books):
        book_id = f"{9000 + number}"
        book = FakeBook(book_id, f"书名 {number}", f"作者 {number}", sort=1_700_000_000 + number)
        book.chapters = [{"chapterUid": 10 + c, "chapterIdx": c + 1, "title": f"第{c + 1}章"} for c in range(3)]
        for n in range(highlights):
            book.bookmarks.append({
                "bookmarkId": f"{book_id}_{10 + n % 3}_{n * 100}-{n * 100 + 20}", "bookId": book_id,
                "markText": f"Highlight {n} of {book_id}", "chapterUid": 10 + n % 3,
                "range": f"{n * 100}-{n * 100 + 20}", "createTime": 1_700_000_000 + n, "type": 1,
            })  # fmt: skip
        for n in range(thoughts):
            book.reviews.append({
                "reviewId": f"r{book_id}-{n}", "bookId": book_id, "content": f"My thought {n} on {book_id}",
                "abstract": f"Quoted passage {n}", "chapterUid": 10 + n % 3, "range": f"{n * 100 + 5}-{n * 100 + 9}",
                "createTime": 1_700_001_000 + n, "type": 1,
            })  # fmt: skip
        fake.books[book_id] = book
    return fake
