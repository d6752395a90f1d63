"""The reading sync against a hostile upstream (the loopback fake, never the real service): an
answer without the lists it must hold, a string errcode or a redirect is an error and writes
nothing (never an empty shelf); a book wrongly marked gone comes back whole; odd digits, huge
numbers and deeply nested JSON are recorded as UPSTREAM_MALFORMED, never raised; a cookie no
HTTP header can carry is refused; a trickling upstream is cut by the request's deadline and a
slow one by the sync's, which the lease outlives; a renamed book is renamed here."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesq.adapters.reading import wechat
from mesq.adapters.reading.wechat import CALL_DEADLINE_SECONDS, provider_factory
from mesq.kernel.errors import ValidationError
from mesq.kernel.i18n import Text, Translator
from mesq.kernel.keys import user_partition
from mesq.reading import store
from mesq.reading.credentials import CREDENTIAL_SK, save_credential
from mesq.reading.model import UpstreamBook, UpstreamNote
from mesq.reading.sync import LEASE_SECONDS, SYNC_DEADLINE_SECONDS, sync_status, sync_user
from mesq.wiring.services import build_sealer

from ..conftest import REPO
from .crash_writer import ShelfProvider
from .fake_weread import API_KEY, COOKIE, FakeWeRead, running, sample_shelf

SAVED = "2026-03-01T00:00:00.000000Z"
KINDS = {"api_key": API_KEY, "cookie": COOKIE}
HEALTHY = {"books": 3, "highlightCount": 9, "thoughtCount": 6, "deletedUpstreamCount": 0}


@pytest.fixture
def fake() -> FakeWeRead:
    return sample_shelf(books=3, highlights=3, thoughts=2)


@pytest.fixture
def base_url(fake: FakeWeRead) -> Iterator[str]:
    with running(fake) as url:
        yield url


@pytest.fixture(params=["api_key", "cookie"])
def reader(request: pytest.FixtureRequest, services: Any, make_account: Any) -> str:
    user_id: str = make_account(scopes="reading:read").user_id
    save_credential(
        services.items, build_sealer(services.settings), user_id, request.param, KINDS[request.param], SAVED
    )
    return user_id


_CLOCK = count(1)


def _sync(services: Any, user_id: str, base_url: str, **limits: float) -> dict[str, Any]:
    call = {"call_deadline": limits.pop("call_deadline")} if "call_deadline" in limits else {}
    providers = provider_factory(f"{base_url}/api/agent/gateway", base_url, sleep=lambda _s: None, **call)
    now = next(_CLOCK)
    clock = lambda: f"2026-03-01T{now // 3600:02d}:{now // 60 % 60:02d}:{now % 60:02d}.000000Z"  # noqa: E731
    return sync_user(services.items, build_sealer(services.settings), user_id, providers, clock, **limits)


def _deleted(services: Any, user_id: str) -> int:
    return sum(1 for note in store.every_note(services.items, user_id) if note.get("deletedUpstream"))


def _touch(fake: FakeWeRead) -> None:
    """Every book's notebook entry changes, so the next sync fetches every book's notes."""
    for book in fake.books.values():
        book.sort += 100


@pytest.mark.parametrize(
    ("api", "status", "body", "code"),
    [
        ("notebooks", 200, {}, "UPSTREAM_MALFORMED"),
        ("notebooks", 200, {"hasMore": False}, "UPSTREAM_MALFORMED"),
        ("notebooks", 200, {"errcode": "-2012"}, "CREDENTIAL_EXPIRED"),
        ("notebooks", 200, {"errcode": "-1", "errmsg": "系统繁忙"}, "UPSTREAM_ERROR"),
        ("notebooks", 302, {"books": [], "hasMore": False}, "UPSTREAM_ERROR"),
        ("bookmarklist", 200, {"chapters": []}, None),  # the cookie's case is an expired session
        ("bookmarklist", 200, {"updated": []}, "UPSTREAM_MALFORMED"),
        ("reviews", 200, {"hasMore": 0}, "UPSTREAM_MALFORMED"),
    ],
)
def test_an_answer_without_its_lists_is_an_error_and_changes_nothing(
    services: Any, fake: FakeWeRead, base_url: str, reader: str, api: str, status: int, body: Any, code: str | None
) -> None:
    assert _sync(services, reader, base_url)["counts"] == HEALTHY
    _touch(fake)
    fake.answers[api] = (status, body)
    failed = _sync(services, reader, base_url)
    expected = code or ("CREDENTIAL_EXPIRED" if "cookie" in sync_kind(services, reader) else "UPSTREAM_MALFORMED")
    assert failed["lastError"]["code"] == expected, failed
    assert failed["counts"] == HEALTHY and _deleted(services, reader) == 0
    fake.answers.clear()
    healed = _sync(services, reader, base_url)
    assert "lastError" not in healed and healed["counts"] == HEALTHY


def sync_kind(services: Any, user_id: str) -> str:
    record = services.items.get((user_partition(user_id), CREDENTIAL_SK))
    return str(record["kind"]) if record else ""


def test_a_book_listed_again_after_being_marked_gone_is_fetched(
    services: Any, fake: FakeWeRead, base_url: str, reader: str
) -> None:
    """The state the `{}` notebook list once left (every note marked deleted, the old marks kept)
    is healed by the next healthy sync: the books' unchanged marks do not make them look unchanged."""
    _sync(services, reader, base_url)
    fake.answers["notebooks"] = (200, {"books": [], "hasMore": False})  # a shelf emptied upstream
    emptied = _sync(services, reader, base_url)
    assert emptied["counts"]["deletedUpstreamCount"] == 15 and _deleted(services, reader) == 15
    fake.answers.clear()  # ...and every book back, with the very same entries
    back = _sync(services, reader, base_url)
    assert "lastError" not in back and back["counts"] == HEALTHY and _deleted(services, reader) == 0
    calls = len(fake.calls)
    assert _sync(services, reader, base_url)["lastRun"]["booksChanged"] == 0
    assert fake.calls[calls:] == ["notebooks", "notebooks"]  # settled: no book fetched again


@pytest.mark.parametrize(
    ("api", "body"),
    [
        ("notebooks", "[" * 100_000),  # RecursionError in json.loads
        ("notebooks", {"books": [], "hasMore": False, "errcode": "9" * 5000}),
        ("notebooks", '{"books": [], "hasMore": false, "sort": ' + "9" * 5000 + "}"),  # over int()'s digits
    ],
)
def test_hostile_values_are_recorded_never_raised(
    services: Any, base_url: str, fake: FakeWeRead, reader: str, api: str, body: Any
) -> None:
    fake.answers[api] = (200, body)
    status = _sync(services, reader, base_url)
    assert status["lastError"]["code"] in ("UPSTREAM_MALFORMED", "UPSTREAM_ERROR", "CREDENTIAL_EXPIRED"), status
    assert status["lastAttemptAt"] and sync_status(services.items, reader) == status


#: Items an answer holds that cannot be read: each is skipped and counted, the rest synced.
UNREADABLE_ITEMS = [
    ("bookmarklist", {"updated": [{"bookmarkId": "b1", "markText": "x", "createTime": "²"}], "chapters": []}),
    ("bookmarklist", {"updated": [{"bookmarkId": "b1", "markText": "x", "createTime": "9" * 5000}], "chapters": []}),
    ("bookmarklist", {"updated": [{"bookmarkId": "b", "markText": "x"}], "chapters": []}),
    ("bookmarklist", {"updated": [{"markText": "x", "createTime": 1}], "chapters": []}),
    ("notebooks", {"books": [1]}),
]


@pytest.mark.parametrize(("api", "body"), UNREADABLE_ITEMS)
def test_hostile_items_are_skipped_and_counted_never_raised(
    services: Any, base_url: str, fake: FakeWeRead, reader: str, api: str, body: Any
) -> None:
    fake.answers[api] = (200, body)
    status = _sync(services, reader, base_url)
    assert "lastError" not in status, status
    assert status["lastRun"]["skipped"] == (1 if api == "notebooks" else 3)  # one a book, each of 3 books
    assert status["counts"]["deletedUpstreamCount"] == 0
    assert status["lastAttemptAt"] and sync_status(services.items, reader) == status


def test_unreadable_optional_numbers_are_left_out(services: Any, base_url: str, fake: FakeWeRead, reader: str) -> None:
    """A range or chapter index that is no number (Unicode digits, 5000 digits) is no position, as
    any other unreadable one: the highlight is kept without it."""
    book = fake.books["9000"]
    book.bookmarks[0]["range"] = "²-3"
    book.bookmarks[1]["chapterIdx"] = "9" * 5000
    book.bookmarks[1]["chapterUid"] = 999  # no chapter of the list: its own index counts
    status = _sync(services, reader, base_url)
    assert "lastError" not in status and status["counts"] == HEALTHY
    notes = {note["externalId"]: note for note in store.every_note(services.items, reader)}
    assert "position" not in notes[book.bookmarks[0]["bookmarkId"]]
    assert "chapterIndex" not in notes[book.bookmarks[1]["bookmarkId"]]


@pytest.mark.parametrize("cookie", ["wr_vid=42； wr_skey=good-skey", "wr_vid=42; wr_skey=good-skey # 我的", "a=b\tc"])
def test_a_cookie_no_header_can_carry_is_refused_when_saved(services: Any, make_account: Any, cookie: str) -> None:
    user_id = make_account(scopes="reading:read").user_id
    with pytest.raises(ValidationError, match="copy the cookie again"):
        save_credential(services.items, build_sealer(services.settings), user_id, "cookie", cookie, SAVED)


def test_a_cookie_saved_before_the_check_is_a_recorded_error(services: Any, base_url: str, make_account: Any) -> None:
    user_id = make_account(scopes="reading:read").user_id
    sealer = build_sealer(services.settings)
    save_credential(services.items, sealer, user_id, "cookie", COOKIE, SAVED)
    record = services.items.get((user_partition(user_id), CREDENTIAL_SK))
    context = {"purpose": "reading-credential", "userId": user_id}
    record["sealed"] = sealer.seal("wr_vid=42； wr_skey=good-skey".encode(), context)
    services.items.put(record)  # as an earlier release saved it
    status = _sync(services, user_id, base_url)
    assert status["lastError"]["code"] == "CREDENTIAL_INVALID" and status["lastAttemptAt"]


def test_a_trickling_answer_is_cut_by_the_request_deadline(
    services: Any, fake: FakeWeRead, base_url: str, reader: str
) -> None:
    fake.trickle = "notebooks"
    started = time.monotonic()
    status = _sync(services, reader, base_url, call_deadline=1.0)
    assert time.monotonic() - started < 10
    assert status["lastError"]["code"] == "UPSTREAM_UNAVAILABLE" and "1 s" in status["lastError"]["message"]


def test_a_silent_upstream_is_said_to_be_silent_not_unreachable(
    services: Any, fake: FakeWeRead, base_url: str, reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that takes the request and then says nothing for the read timeout answered
    nothing in time; it was reached ("could not be reached" sent the person to check the wrong
    thing)."""
    monkeypatch.setattr(wechat, "TIMEOUT", httpx.Timeout(10.0, read=0.5))
    fake.delay["notebooks"] = 3.0
    status = _sync(services, reader, base_url)
    assert status["lastError"]["code"] == "UPSTREAM_UNAVAILABLE", status
    assert status["lastError"]["message"] == "WeChat Reading did not answer within 0.5 s; the next sync retries"
    assert "0.5 秒内没有应答" in _in_chinese(status["lastError"]["said"])


def test_the_sync_deadline_cuts_a_request_too(services: Any, fake: FakeWeRead, base_url: str, reader: str) -> None:
    fake.trickle = "bookmarklist"
    started = time.monotonic()
    status = _sync(services, reader, base_url, deadline_seconds=1.0)
    assert time.monotonic() - started < 10
    assert status["lastError"]["code"] == "SYNC_TIMED_OUT", status
    assert services.items.get((user_partition(reader), "READ#SYNCLEASE")) is None  # the lease is given back


@pytest.mark.timing  # a 1 s deadline over 0.6 s calls: on a loaded worker the first book alone missed it
def test_a_slow_sync_stops_at_its_deadline_and_the_next_goes_on(
    services: Any, fake: FakeWeRead, base_url: str, reader: str
) -> None:
    fake.delay["bookmarklist"] = 0.6
    stopped = _sync(services, reader, base_url, deadline_seconds=1.0)
    assert stopped["lastError"]["code"] == "SYNC_TIMED_OUT" and "next sync" in stopped["lastError"]["message"]
    merged = stopped["counts"]["books"]
    assert 1 <= merged < 3 and stopped["counts"]["deletedUpstreamCount"] == 0
    fake.delay.clear()
    calls = len(fake.calls)
    resumed = _sync(services, reader, base_url)
    assert "lastError" not in resumed and resumed["counts"] == HEALTHY
    assert fake.calls[calls:].count("bookmarklist") == 3 - merged  # the merged books are not fetched again


class _SlowShelf(ShelfProvider):
    """A source that takes its time over each book and minds no deadline: the sync keeps its own."""

    def notes(self, book: UpstreamBook) -> list[UpstreamNote]:
        time.sleep(0.6)
        return super().notes(book)


def test_the_sync_keeps_its_deadline_whatever_the_source_does(services: Any, make_account: Any) -> None:
    user_id = make_account(scopes="reading:read").user_id
    sealer = build_sealer(services.settings)
    save_credential(services.items, sealer, user_id, "api_key", API_KEY, SAVED)
    stopped = sync_user(services.items, sealer, user_id, lambda _c, _d: _SlowShelf(1), lambda: SAVED, 0.3)
    assert stopped["lastError"]["code"] == "SYNC_TIMED_OUT" and stopped["counts"]["books"] == 1
    resumed = sync_user(services.items, sealer, user_id, lambda _c, _d: ShelfProvider(1), lambda: SAVED)
    assert "lastError" not in resumed and resumed["lastRun"]["booksChanged"] == 1


def test_the_lease_outlives_the_sync_and_the_function_lets_it_finish() -> None:
    assert LEASE_SECONDS > SYNC_DEADLINE_SECONDS + CALL_DEADLINE_SECONDS + 60
    template = (Path(REPO) / "template.yaml").read_text(encoding="utf-8")
    function = template[template.index("  ReadingSyncFunction:") :]
    timeout = int(re.search(r"\n      Timeout: (\d+)", function).group(1))  # type: ignore[union-attr]
    assert timeout >= SYNC_DEADLINE_SECONDS + 30


def test_a_renamed_book_is_renamed_without_fetching_its_notes(
    services: Any, fake: FakeWeRead, base_url: str, reader: str
) -> None:
    _sync(services, reader, base_url)
    book = fake.books["9001"]
    book.title, book.author = "改名后的书名", "新作者"
    calls = len(fake.calls)
    status = _sync(services, reader, base_url)
    assert "lastError" not in status and status["lastRun"]["booksChanged"] == 1
    stored = {item["externalId"]: item for item in store.all_books(services.items, reader)}
    assert stored["9001"]["title"] == "改名后的书名" and stored["9001"]["author"] == "新作者"
    assert fake.calls[calls:].count("bookmarklist") == 0
    assert _sync(services, reader, base_url)["lastRun"]["booksChanged"] == 0


ZH_ALLOWED = {"HTTP", "Cookie"}


def _in_chinese(said: Any) -> str:
    text = Translator("zh").text(Text.from_stored(said))
    assert not [word for word in re.findall(r"[A-Za-z]+", text) if word not in ZH_ALLOWED], text
    return text


@pytest.mark.parametrize(
    ("api", "body", "limits"),
    [
        ("notebooks", {"books": [{"bookId": "77", "book": {"title": "x"}}], "hasMore": True}, {}),
        ("notebooks", {}, {}),
        ("reviews", {"hasMore": 0}, {}),
        ("notebooks", {"errcode": -1}, {}),  # an errcode without its errmsg
        ("notebooks", {"errcode": -13, "errmsg": ""}, {}),
        ("notebooks", "trickle", {"call_deadline": 0.5}),
        ("bookmarklist", "trickle", {"deadline_seconds": 0.5}),
    ],
)
def test_sync_errors_are_said_in_chinese(
    services: Any, fake: FakeWeRead, base_url: str, reader: str, api: str, body: Any, limits: dict[str, float]
) -> None:
    if body == "trickle":
        fake.trickle = api
    else:
        fake.answers[api] = (200, body)
    status = _sync(services, reader, base_url, **limits)
    assert "lastError" in status
    assert re.search(r"[\u4e00-\u9fff]", _in_chinese(status["lastError"]["said"]))


def test_a_refused_cookie_is_said_in_chinese(services: Any, make_account: Any) -> None:
    user_id = make_account(scopes="reading:read").user_id
    with pytest.raises(ValidationError) as refused:
        save_credential(services.items, build_sealer(services.settings), user_id, "cookie", "a=b；c=d", SAVED)
    assert "全角分号" in _in_chinese(refused.value.text.stored())


def test_a_book_id_outside_ascii_syncs_through_the_cookie_too(
    services: Any, fake: FakeWeRead, base_url: str, reader: str
) -> None:
    """The web route names the book in a Referer header, which takes ASCII only: an odd
    upstream's id `书9` stopped every cookie sync at that book with an unexpected error (the
    gateway sends it in a JSON body)."""
    book = fake.books.pop("9000")
    book.book_id = "书9"
    for item in (*book.bookmarks, *book.reviews):
        item["bookId"] = "书9"
    fake.books["书9"] = book
    status = _sync(services, reader, base_url)
    assert "lastError" not in status and status["counts"] == HEALTHY, status
