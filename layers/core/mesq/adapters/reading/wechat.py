"""The WeChat Reading provider over httpx, in its two ways in (docs/contract.md §13):

- `GatewayProvider`: the official agent gateway, `POST <gateway>` with `Authorization: Bearer wrk-…`
  and a JSON body `{"api_name": ..., "skill_version": ..., <parameters>}`; notebooks are paged by
  the `lastSort` cursor (the last entry's `sort`), reviews by `synckey`.
- `WebCookieProvider`: the web reader's own endpoints with the browser's cookie.

Both read bounded answers (size cap, a total deadline per request and the sync's own, a page cap),
retry a 429 briefly, and turn every failure into a ProviderError: `errcode` -2012 / -2010 (a
number or a string) and HTTP 401/403 are CredentialExpired; a redirect, or an answer without the
lists it must hold, is an error, never an empty shelf. An `upgrade_info` on any answer is kept in
`notices` for the settings page.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import anyio
import httpx
from anyio.from_thread import start_blocking_portal
from aws_lambda_powertools import Logger

from ...kernel.i18n import Text
from ...reading.credentials import Credential
from ...reading.model import Skipped, UpstreamBook, UpstreamNote
from ...reading.provider import (
    CredentialExpired,
    ProviderError,
    ReadingProvider,
    SyncOutOfTime,
    UpstreamMalformed,
    UpstreamRateLimited,
    UpstreamUnavailable,
)
from .wechat_shapes import (
    BOOKMARK_LIST,
    NOTEBOOK_LIST,
    REVIEW_LIST,
    UnreadableItem,
    bookmark_note,
    chapter_map,
    digits,
    list_field,
    notebook_book,
    review_note,
)

logger = Logger(child=True)

SKILL_VERSION = "1.0.4"
PAGE_SIZE = 100
MAX_PAGES = 500
MAX_ANSWER_BYTES = 4 * 1024 * 1024
RATE_LIMIT_RETRIES = 2
MAX_RETRY_WAIT_SECONDS = 5.0
EXPIRED_CODES = frozenset({-2012, -2010})
TIMEOUT = httpx.Timeout(10.0, read=20.0)
#: One request's total time (connect, send, every byte of the answer).
CALL_DEADLINE_SECONDS = 30.0
Sleep = Callable[[float], None]


async def _new_client() -> httpx.AsyncClient:
    """Made on the provider's event loop, the one it is used and closed on."""
    return httpx.AsyncClient(timeout=TIMEOUT, trust_env=False, follow_redirects=False)


def _retry_after(headers: httpx.Headers) -> float:
    seconds = digits(headers.get("retry-after", ""))
    return 1.0 if seconds is None else min(float(seconds), MAX_RETRY_WAIT_SECONDS)


def _errcode(answer: dict[str, Any]) -> int | str:
    """The answer's errcode as a number (0: none). The gateway sometimes sends it as a string
    ("-2012"), which is the same error; anything else that is not 0 is an error of its own."""
    code = answer.get("errcode", answer.get("errCode", 0))
    if isinstance(code, str):
        number = digits(code.strip().removeprefix("-"))
        if number is not None:
            return -number if code.strip().startswith("-") else number
        return code[:40] or 0
    if code is None:
        return 0
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    if isinstance(code, float) and code.is_integer():
        return int(code)
    return str(code)[:40]


class _Client:
    """What both ways in share: bounded requests, error mapping, notices.

    Every request runs under a total deadline (connect, send, every byte of the answer; httpx's
    own timeouts are per socket read, so a server trickling a byte every few seconds would hold
    a sync for hours): `call_deadline`, cut to what is left of the sync's own deadline. The cut
    needs cancellation, so the requests go through httpx's async client on an event loop of the
    provider's own (an anyio blocking portal), which `close` ends; the provider's methods stay
    plain calls for the synchronous sync."""

    def __init__(self, deadline: float, sleep: Sleep, call_deadline: float) -> None:
        self.deadline = deadline  # time.monotonic() at which the whole sync must stop
        self.call_deadline = call_deadline
        self.sleep = sleep
        self.notices: list[str] = []
        self.skipped: list[Skipped] = []
        self._loop = start_blocking_portal()
        self._portal = self._loop.__enter__()
        try:
            self.http: httpx.AsyncClient = self._portal.call(_new_client)
        except BaseException:  # no provider to close: end the portal's thread here
            self._loop.__exit__(None, None, None)
            raise

    def close(self) -> None:
        try:
            self._portal.call(self.http.aclose)
        finally:
            self._loop.__exit__(None, None, None)

    def _send(self, request: httpx.Request) -> dict[str, Any]:
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            status, headers, body = self._exchange(request)
            if status == 429:
                if attempt < RATE_LIMIT_RETRIES:
                    self.sleep(min(_retry_after(headers), max(self._left(), 0.0)))
                    continue
                raise UpstreamRateLimited("WeChat Reading is limiting requests; the next sync continues")
            return self._answer(status, body)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _left(self) -> float:
        return self.deadline - time.monotonic()

    def _exchange(self, request: httpx.Request) -> tuple[int, httpx.Headers, bytes]:
        """One request under its deadline; a deadline that is the sync's ends the sync."""
        left = self._left()
        if left <= 0:
            raise SyncOutOfTime()
        limit = min(self.call_deadline, left)
        try:
            return self._portal.call(self._exchange_within, request, limit)
        except TimeoutError:
            if limit < self.call_deadline:
                raise SyncOutOfTime() from None
            raise UpstreamUnavailable(
                "WeChat Reading did not answer within %(seconds)s s; the next sync retries",
                seconds=format(self.call_deadline, "g"),
            ) from None
        except httpx.ReadTimeout:
            # Reached, then silent for the read timeout: not "could not be reached".
            raise UpstreamUnavailable(
                "WeChat Reading did not answer within %(seconds)s s; the next sync retries",
                seconds=format(TIMEOUT.read or 0, "g"),
            ) from None
        except httpx.HTTPError:
            raise UpstreamUnavailable("WeChat Reading could not be reached; the next sync retries") from None

    async def _exchange_within(self, request: httpx.Request, seconds: float) -> tuple[int, httpx.Headers, bytes]:
        with anyio.fail_after(seconds):
            response = await self.http.send(request, stream=True)
            try:
                return response.status_code, response.headers, await self._bounded(response)
            finally:
                with anyio.CancelScope(shield=True):  # a cut answer still gives its connection back
                    await response.aclose()

    @staticmethod
    async def _bounded(response: httpx.Response) -> bytes:
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
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
        except (ValueError, RecursionError):  # RecursionError: thousands of nested brackets
            answer = None
        if isinstance(answer, dict):
            self._note_upgrade(answer.get("upgrade_info"))
            code = _errcode(answer)
            if code in EXPIRED_CODES:
                raise CredentialExpired(
                    "the WeChat Reading credential has expired (errcode %(code)s); save a new one to resume syncing",
                    code=code,
                )
            if status in (401, 403):
                raise CredentialExpired(
                    "WeChat Reading refused the credential (HTTP %(status)s); save a new one", status=status
                )
            if code != 0:
                message = str(answer.get("errmsg") or answer.get("message") or "")[:200]
                if not message:  # said in the reader's language, not a stock English "no message"
                    raise ProviderError("WeChat Reading answered errcode %(code)s without saying why", code=code)
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
        if not 200 <= status < 300:
            # Redirects are not followed (a login page or a captive portal is no shelf), and
            # whatever body came with one is not an answer either.
            raise ProviderError(
                "WeChat Reading answered HTTP %(status)s instead of the data; the next sync retries", status=status
            )
        if not isinstance(answer, dict):
            raise UpstreamMalformed("WeChat Reading sent an answer that is not a JSON object")
        return answer

    def _note_upgrade(self, info: Any) -> None:
        """Keep WeChat Reading's own words: its message (with the link), the link alone, or ""
        when it sent neither; the settings page says what is missing in the reader's language."""
        if isinstance(info, dict):
            message = str(info.get("message") or "")[:300]
            url = str(info.get("upgrade_url") or "")[:300]
            notice = f"{message} ({url})" if message and url else (message or url)
            if notice not in self.notices:
                self.notices.append(notice)

    def _paged_books(self, fetch: Callable[[int | None], dict[str, Any]], what: Text) -> list[UpstreamBook]:
        books: list[UpstreamBook] = []
        cursor: int | None = None
        seen: set[int] = set()
        for _page in range(MAX_PAGES):
            answer = fetch(cursor)
            entries = list_field(answer, "books", what)
            for entry in entries:
                try:
                    books.append(notebook_book(entry))
                except UnreadableItem as unreadable:
                    self._skip(Skipped("book", unreadable.book_id, unreadable.title), unreadable)
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
            reviews.extend(list_field(answer, "reviews", REVIEW_LIST))
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

    def _skip(self, skipped: Skipped, unreadable: UnreadableItem) -> None:
        logger.info("reading sync skipped an unreadable item", extra={"kind": skipped.kind, "why": unreadable.message})
        self.skipped.append(skipped)

    def _notes(self, book: UpstreamBook, bookmarks: dict[str, Any], reviews: list[Any]) -> list[UpstreamNote]:
        """The book's notes; one that cannot be read is skipped (and said), the others kept."""
        updated = list_field(bookmarks, "updated", BOOKMARK_LIST)
        chapters = chapter_map(bookmarks)
        notes: list[UpstreamNote | None] = []
        for item in updated:
            try:
                notes.append(bookmark_note(item, chapters))
            except UnreadableItem as unreadable:
                self._skip(Skipped("highlight", book.external_id, book.title), unreadable)
        for item in reviews:
            try:
                notes.append(review_note(item, chapters))
            except UnreadableItem as unreadable:
                self._skip(Skipped("thought", book.external_id, book.title), unreadable)
        return [note for note in notes if note is not None]


class GatewayProvider(_Client):
    def __init__(
        self,
        api_key: str,
        url: str,
        deadline: float,
        sleep: Sleep = time.sleep,
        call_deadline: float = CALL_DEADLINE_SECONDS,
    ) -> None:
        super().__init__(deadline, sleep, call_deadline)
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

        return self._paged_books(page, NOTEBOOK_LIST)

    def notes(self, book: UpstreamBook) -> list[UpstreamNote]:
        bookmarks = self._call("/book/bookmarklist", bookId=book.external_id)
        reviews = self._paged_reviews(
            lambda synckey: self._call("/review/list/mine", bookid=book.external_id, synckey=synckey, count=PAGE_SIZE)
        )
        return self._notes(book, bookmarks, reviews)


class WebCookieProvider(_Client):
    def __init__(
        self,
        cookie: str,
        base_url: str,
        deadline: float,
        sleep: Sleep = time.sleep,
        call_deadline: float = CALL_DEADLINE_SECONDS,
    ) -> None:
        super().__init__(deadline, sleep, call_deadline)
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

        return self._paged_books(page, NOTEBOOK_LIST)

    def notes(self, book: UpstreamBook) -> list[UpstreamNote]:
        # Percent-encoded: an id outside ASCII (an odd upstream's) cannot go into a header as it is.
        reader = f"{self.base_url}/web/reader/{quote(book.external_id, safe='')}"
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
        return self._notes(book, bookmarks, reviews)


def provider_factory(
    gateway_url: str, web_url: str, sleep: Sleep = time.sleep, call_deadline: float = CALL_DEADLINE_SECONDS
) -> Callable[[Credential, float], ReadingProvider]:
    """The provider for a stored credential and the sync's deadline (a `time.monotonic()` value):
    the gateway for an API key, the web reader for a cookie."""

    def build(credential: Credential, deadline: float) -> ReadingProvider:
        if credential.kind == "api_key":
            return GatewayProvider(credential.secret, gateway_url, deadline, sleep, call_deadline)
        return WebCookieProvider(credential.secret, web_url, deadline, sleep, call_deadline)

    return build
