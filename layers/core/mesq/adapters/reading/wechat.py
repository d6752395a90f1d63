"""The WeChat Reading provider over httpx, in its two ways in (docs/contract.md §13):

- `GatewayProvider`: the official agent gateway, `POST <gateway>` with `Authorization: Bearer wrk-…`
  and a JSON body `{"api_name": ..., "skill_version": ..., <parameters>}`; notebooks are paged by
  the `lastSort` cursor (the last entry's `sort`), reviews by `synckey`.
- `WebCookieProvider`: the web reader's own endpoints with the browser's cookie.

Both read bounded answers (size cap, timeouts, a page cap), retry a 429 briefly, and turn every
failure into a ProviderError: `errcode` -2012 / -2010 and HTTP 401/403 are CredentialExpired. An
`upgrade_info` on any answer is kept in `notices` for the settings page.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx

from ...reading.credentials import Credential
from ...reading.model import UpstreamBook, UpstreamNote
from ...reading.provider import (
    CredentialExpired,
    ProviderError,
    ReadingProvider,
    UpstreamMalformed,
    UpstreamRateLimited,
    UpstreamUnavailable,
)
from .wechat_shapes import bookmark_note, chapter_map, list_field, notebook_book, review_note

SKILL_VERSION = "1.0.4"
PAGE_SIZE = 100
MAX_PAGES = 500
MAX_ANSWER_BYTES = 4 * 1024 * 1024
RATE_LIMIT_RETRIES = 2
MAX_RETRY_WAIT_SECONDS = 5.0
EXPIRED_CODES = frozenset({-2012, -2010})
TIMEOUT = httpx.Timeout(10.0, read=20.0)
Sleep = Callable[[float], None]


def _retry_after(response: httpx.Response) -> float:
    raw = response.headers.get("retry-after", "")
    return min(float(raw), MAX_RETRY_WAIT_SECONDS) if raw.isdigit() else 1.0


class _Client:
    """What both ways in share: bounded requests, error mapping, notices."""

    def __init__(self, http: httpx.Client | None, sleep: Sleep) -> None:
        self.http = http or httpx.Client(timeout=TIMEOUT, trust_env=False, follow_redirects=False)
        self.sleep = sleep
        self.notices: list[str] = []

    def close(self) -> None:
        self.http.close()

    def _send(self, request: httpx.Request) -> dict[str, Any]:
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            try:
                response = self.http.send(request, stream=True)
                try:
                    body = self._bounded(response)
                finally:
                    response.close()
            except httpx.HTTPError:
                raise UpstreamUnavailable("WeChat Reading could not be reached; the next sync retries") from None
            if response.status_code == 429:
                if attempt < RATE_LIMIT_RETRIES:
                    self.sleep(_retry_after(response))
                    continue
                raise UpstreamRateLimited("WeChat Reading is limiting requests; the next sync continues")
            return self._answer(response.status_code, body)
        raise AssertionError("unreachable")  # the loop returns or raises

    @staticmethod
    def _bounded(response: httpx.Response) -> bytes:
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise UpstreamMalformed(
                    "WeChat Reading sent an answer over %(max_answer_bytes)s bytes", max_answer_bytes=MAX_ANSWER_BYTES
                )
            chunks.append(chunk)
        return b"".join(chunks)

    def _answer(self, status: int, body: bytes) -> dict[str, Any]:
        try:
            answer = json.loads(body)
        except ValueError:
            answer = None
        if isinstance(answer, dict):
            self._note_upgrade(answer.get("upgrade_info"))
            code = answer.get("errcode", answer.get("errCode", 0))
            if code in EXPIRED_CODES:
                raise CredentialExpired(
                    "the WeChat Reading credential has expired (errcode %(code)s); save a new one to resume syncing",
                    code=code,
                )
            if status in (401, 403):
                raise CredentialExpired(
                    "WeChat Reading refused the credential (HTTP %(status)s); save a new one", status=status
                )
            if isinstance(code, int) and code != 0:
                message = str(answer.get("errmsg") or answer.get("message") or "no message")[:200]
                raise ProviderError(
                    "WeChat Reading answered errcode %(code)s: %(upstream)s", code=code, upstream=message
                )
        if status in (401, 403):
            raise CredentialExpired(
                "WeChat Reading refused the credential (HTTP %(status)s); save a new one", status=status
            )
        if status >= 500:
            raise UpstreamUnavailable("WeChat Reading failed (HTTP %(status)s); the next sync retries", status=status)
        if status >= 400:
            raise ProviderError("WeChat Reading refused the request (HTTP %(status)s)", status=status)
        if not isinstance(answer, dict):
            raise UpstreamMalformed("WeChat Reading sent an answer that is not a JSON object")
        return answer

    def _note_upgrade(self, info: Any) -> None:
        if isinstance(info, dict):
            message = str(info.get("message") or "an upgrade is available")[:300]
            url = info.get("upgrade_url")
            notice = f"{message} ({str(url)[:300]})" if url else message
            if notice not in self.notices:
                self.notices.append(notice)

    def _paged_books(self, fetch: Callable[[int | None], dict[str, Any]], what: str) -> list[UpstreamBook]:
        books: list[UpstreamBook] = []
        cursor: int | None = None
        seen: set[int] = set()
        for _page in range(MAX_PAGES):
            answer = fetch(cursor)
            entries = list_field(answer, "books", what)
            books.extend(notebook_book(entry) for entry in entries)
            if not answer.get("hasMore"):
                return books
            last = entries[-1].get("sort") if entries and isinstance(entries[-1], dict) else None
            if not isinstance(last, int) or isinstance(last, bool) or last in seen:
                raise UpstreamMalformed(
                    "WeChat Reading's %(what)s paging cursor (lastSort) is missing or repeats", what=what
                )
            seen.add(last)
            cursor = last
        raise UpstreamMalformed(
            "WeChat Reading's %(what)s did not end after %(max_pages)s pages", what=what, max_pages=MAX_PAGES
        )

    def _paged_reviews(self, fetch: Callable[[int], dict[str, Any]]) -> list[Any]:
        reviews: list[Any] = []
        synckey, seen = 0, {0}
        for _page in range(MAX_PAGES):
            answer = fetch(synckey)
            reviews.extend(list_field(answer, "reviews", "review list"))
            if not answer.get("hasMore"):
                return reviews
            following = answer.get("synckey", answer.get("syncKey"))
            if not isinstance(following, int) or isinstance(following, bool) or following in seen:
                raise UpstreamMalformed("WeChat Reading's review list paging cursor (synckey) is missing or repeats")
            seen.add(following)
            synckey = following
        raise UpstreamMalformed(
            "WeChat Reading's review list did not end after %(max_pages)s pages", max_pages=MAX_PAGES
        )

    @staticmethod
    def _notes(bookmarks: dict[str, Any], reviews: list[Any]) -> list[UpstreamNote]:
        chapters = chapter_map(bookmarks)
        notes = [bookmark_note(item, chapters) for item in list_field(bookmarks, "updated", "bookmark list")]
        notes += [review_note(item, chapters) for item in reviews]
        return [note for note in notes if note is not None]


class GatewayProvider(_Client):
    def __init__(self, api_key: str, url: str, http: httpx.Client | None = None, sleep: Sleep = time.sleep) -> None:
        super().__init__(http, sleep)
        self.url = url
        self.api_key = api_key

    def _call(self, api_name: str, **parameters: Any) -> dict[str, Any]:
        body = {**parameters, "api_name": api_name, "skill_version": SKILL_VERSION}
        headers = {"Authorization": f"Bearer {self.api_key}", "Accept": "application/json"}
        return self._send(self.http.build_request("POST", self.url, json=body, headers=headers))

    def books(self) -> list[UpstreamBook]:
        def page(cursor: int | None) -> dict[str, Any]:
            extra = {} if cursor is None else {"lastSort": cursor}
            return self._call("/user/notebooks", count=PAGE_SIZE, **extra)

        return self._paged_books(page, "notebook list")

    def notes(self, book: UpstreamBook) -> list[UpstreamNote]:
        bookmarks = self._call("/book/bookmarklist", bookId=book.external_id)
        reviews = self._paged_reviews(
            lambda synckey: self._call("/review/list/mine", bookid=book.external_id, synckey=synckey, count=PAGE_SIZE)
        )
        return self._notes(bookmarks, reviews)


class WebCookieProvider(_Client):
    def __init__(self, cookie: str, base_url: str, http: httpx.Client | None = None, sleep: Sleep = time.sleep) -> None:
        super().__init__(http, sleep)
        self.base_url = base_url.rstrip("/")
        self.cookie = cookie

    def _get(self, path: str, params: dict[str, Any], referer: str | None = None) -> dict[str, Any]:
        headers = {"Cookie": self.cookie, "Accept": "application/json, text/plain, */*"}
        if referer:
            headers["Referer"] = referer
        return self._send(self.http.build_request("GET", self.base_url + path, params=params, headers=headers))

    def books(self) -> list[UpstreamBook]:
        def page(cursor: int | None) -> dict[str, Any]:
            return self._get("/api/user/notebook", {} if cursor is None else {"lastSort": cursor})

        return self._paged_books(page, "notebook list")

    def notes(self, book: UpstreamBook) -> list[UpstreamNote]:
        reader = f"{self.base_url}/web/reader/{book.external_id}"
        bookmarks = self._get("/web/book/bookmarklist", {"bookId": book.external_id}, referer=reader)
        if "updated" not in bookmarks:
            # A stale web session answers the bookmark list with a bare `{}` instead of an error.
            raise CredentialExpired("the WeChat Reading cookie no longer reads highlights; save a fresh cookie")
        reviews = self._paged_reviews(
            lambda synckey: self._get(
                "/web/review/list",
                {"bookId": book.external_id, "listType": 11, "mine": 1, "synckey": synckey, "count": PAGE_SIZE},
                referer=reader,
            )
        )
        return self._notes(bookmarks, reviews)


def provider_factory(
    gateway_url: str, web_url: str, http: httpx.Client | None = None, sleep: Sleep = time.sleep
) -> Callable[[Credential], ReadingProvider]:
    """The provider for a stored credential: the gateway for an API key, the web reader for a cookie."""

    def build(credential: Credential) -> ReadingProvider:
        if credential.kind == "api_key":
            return GatewayProvider(credential.secret, gateway_url, http, sleep)
        return WebCookieProvider(credential.secret, web_url, http, sleep)

    return build
