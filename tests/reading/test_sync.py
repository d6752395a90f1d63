"""The WeChat Reading sync against the loopback fake (never the real service): through the
gateway (API key) and the web cookie; idempotent across runs; incremental; upstream deletions
marked; paging by lastSort / synckey; expired credentials, rate limits, malformed answers and
upgrade_info reported in the sync status, never raised."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mesq.adapters.reading.wechat import provider_factory
from mesq.reading.credentials import save_credential
from mesq.reading.sync import sync_user
from mesq.wiring.services import build_sealer

from .fake_weread import API_KEY, COOKIE, FakeWeRead, running, sample_shelf
from .test_import import stored

CLOCK = iter(f"2026-03-01T00:00:{s:02d}.000000Z" for s in range(60))
KINDS = {"api_key": API_KEY, "cookie": COOKIE}


@pytest.fixture
def fake() -> FakeWeRead:
    return sample_shelf(books=3, highlights=4, thoughts=7)


@pytest.fixture
def base_url(fake: FakeWeRead) -> Iterator[str]:
    with running(fake) as url:
        yield url


def _sync(services: Any, user_id: str, base_url: str) -> dict[str, Any]:
    providers = provider_factory(f"{base_url}/api/agent/gateway", base_url, sleep=lambda _seconds: None)
    return sync_user(services.items, build_sealer(services.settings), user_id, providers, lambda: next(CLOCK))


def _notes(services: Any, user_id: str) -> list[dict[str, Any]]:
    return [item for item in stored(services, user_id) if item["sk"].startswith("READ#NOTE#")]


@pytest.fixture(params=["api_key", "cookie"])
def reader(request, services, make_account) -> tuple[str, str]:
    account = make_account(scopes="reading:read")
    save_credential(services.items, build_sealer(services.settings), account.user_id, request.param,
                    KINDS[request.param], "2026-03-01T00:00:00.000000Z")  # fmt: skip
    return account.user_id, request.param


def test_sync_is_idempotent_and_marks_upstream_deletions(services, fake, base_url, reader):
    user_id, kind = reader
    status = _sync(services, user_id, base_url)
    assert "lastError" not in status, status
    assert status["lastRun"]["added"] == 3 * (4 + 7) and status["lastRun"]["source"] == kind
    assert status["counts"] == {"books": 3, "highlightCount": 12, "thoughtCount": 21, "deletedUpstreamCount": 0}
    notes = _notes(services, user_id)
    assert len(notes) == 33 and len({n["externalId"] for n in notes}) == 33
    thought = next(n for n in notes if n["externalId"] == "r9001-2")
    assert thought["noteType"] == "note" and thought["quotedText"] == "Quoted passage 2"
    assert thought["chapterTitle"] == "第3章" and thought["chapterIndex"] == 3 and thought["position"] == 205
    # Paging was followed: 3 books over notebook pages of 2, 7 reviews over pages of 3.
    assert fake.calls.count("notebooks") == 2 and fake.calls.count("reviews") == 3 * 3

    before = stored(services, user_id)
    calls = len(fake.calls)
    again = _sync(services, user_id, base_url)
    assert again["lastRun"]["added"] == again["lastRun"]["updated"] == 0
    assert [i for i in stored(services, user_id) if i["sk"] != "READ#SYNCSTATUS"] == [
        i for i in before if i["sk"] != "READ#SYNCSTATUS"
    ]
    # Incremental: unchanged notebooks are not fetched again.
    assert fake.calls[calls:] == ["notebooks", "notebooks"]

    # Upstream: one highlight deleted, one thought edited, one book gone entirely.
    book = fake.books["9000"]
    deleted = book.bookmarks.pop(2)
    book.reviews[0]["content"] = "Edited thought"
    book.sort += 10
    gone = fake.books.pop("9002")
    third = _sync(services, user_id, base_url)
    assert "lastError" not in third
    assert third["lastRun"]["updated"] == 1 and third["lastRun"]["markedDeleted"] == 1 + 11
    notes = {n["externalId"]: n for n in _notes(services, user_id)}
    assert len(notes) == 33  # nothing dropped
    assert notes[deleted["bookmarkId"]]["deletedUpstream"] is True
    assert notes[deleted["bookmarkId"]]["content"] == deleted["markText"]
    assert notes["r9000-0"]["content"] == "Edited thought" and not notes["r9000-0"].get("deletedUpstream")
    assert all(notes[b["bookmarkId"]]["deletedUpstream"] for b in gone.bookmarks)
    assert third["counts"] == {"books": 3, "highlightCount": 7, "thoughtCount": 14, "deletedUpstreamCount": 12}
    # ...and the same state once more is again a no-op.
    settled = stored(services, user_id)
    _sync(services, user_id, base_url)
    assert [i for i in stored(services, user_id) if i["sk"] != "READ#SYNCSTATUS"] == [
        i for i in settled if i["sk"] != "READ#SYNCSTATUS"
    ]


@pytest.mark.parametrize("code", [-2012, -2010])
def test_expired_credential_is_a_sync_error(services, fake, base_url, reader, code):
    user_id, _kind = reader
    fake.expired = code
    status = _sync(services, user_id, base_url)
    assert status["lastError"]["code"] == "CREDENTIAL_EXPIRED" and str(code) in status["lastError"]["message"]
    assert "lastSuccessAt" not in status and _notes(services, user_id) == []


def test_wrong_api_key_or_cookie_is_an_expired_credential(services, make_account, base_url):
    account = make_account(scopes="reading:read")
    sealer = build_sealer(services.settings)
    for kind, secret in (("api_key", "wrk-someone-elses-key"), ("cookie", "wr_skey=stale")):
        save_credential(services.items, sealer, account.user_id, kind, secret, "2026-03-01T00:00:00.000000Z")
        assert _sync(services, account.user_id, base_url)["lastError"]["code"] == "CREDENTIAL_EXPIRED"


@pytest.mark.parametrize("pasted", [f"Cookie: {COOKIE}", f"cookie:{COOKIE}", f"  COOKIE:  {COOKIE}  "])
def test_a_cookie_pasted_with_its_header_name_syncs(services, make_account, base_url, pasted):
    """A cookie copied as the DevTools request-header line ("Cookie: wr_vid=…; wr_skey=…") was kept
    as typed and sent as `Cookie: Cookie: wr_vid=…`: the first pair's name became "Cookie: wr_vid",
    the session lost its wr_vid, and the freshly copied cookie synced as "expired"."""
    account = make_account(scopes="reading:read")
    sealer = build_sealer(services.settings)
    save_credential(services.items, sealer, account.user_id, "cookie", pasted, "2026-03-01T00:00:00.000000Z")
    status = _sync(services, account.user_id, base_url)
    assert "lastError" not in status and status["lastRun"]["added"] > 0, status


def test_stale_cookie_empty_bookmark_answer_is_an_expired_credential(services, fake, base_url, make_account):
    account = make_account(scopes="reading:read")
    save_credential(
        services.items,
        build_sealer(services.settings),
        account.user_id,
        "cookie",
        COOKIE,
        "2026-03-01T00:00:00.000000Z",
    )
    fake.stale_cookie = True
    assert _sync(services, account.user_id, base_url)["lastError"]["code"] == "CREDENTIAL_EXPIRED"


def test_rate_limit_is_retried_then_reported(services, fake, base_url, reader):
    user_id, _kind = reader
    fake.rate_limited = 2  # within the client's retries: the sync succeeds
    assert "lastError" not in _sync(services, user_id, base_url)
    fake.books["9000"].sort += 1
    fake.rate_limited = 1000
    status = _sync(services, user_id, base_url)
    assert status["lastError"]["code"] == "UPSTREAM_RATE_LIMITED"
    assert status["lastSuccessAt"]  # the earlier success is kept


@pytest.mark.parametrize("api", ["notebooks", "bookmarklist", "reviews"])
def test_malformed_answer_is_reported_and_writes_nothing(services, fake, base_url, reader, api):
    user_id, _kind = reader
    fake.malformed = api
    status = _sync(services, user_id, base_url)
    assert status["lastError"]["code"] == "UPSTREAM_MALFORMED"
    assert _notes(services, user_id) == []


def test_unreadable_items_are_skipped_said_and_the_rest_synced(services, fake, base_url, reader):
    """One item the sync cannot read (a book without a title, a note without an id or a time) is
    skipped and counted, named by its book; everything else is synced, and nothing of the skipped
    is taken for deleted upstream. A whole answer that cannot be read still fails the run."""
    user_id, _kind = reader
    assert "lastError" not in _sync(services, user_id, base_url)
    fake.books["9002"].title = ""  # a book without a title
    fake.books["9001"].bookmarks.append({"markText": "no id", "createTime": 1})  # a highlight without an id
    fake.books["9001"].reviews[0]["createTime"] = "soon"  # a thought without a time
    fake.books["9000"].reviews.append({"reviewId": "r-new", "content": "New thought", "createTime": 1_700_002_000})
    status = _sync(services, user_id, base_url)
    assert "lastError" not in status, status["lastError"]
    assert status["lastRun"]["added"] == 1 and status["lastRun"]["markedDeleted"] == 0
    assert status["lastRun"]["skipped"] == 3
    assert status["lastRun"]["skippedItems"] == [
        {"kind": "book", "book": "", "bookId": "9002", "count": 1},
        {"kind": "notes", "book": "书名 1", "bookId": "9001", "count": 2},
    ]
    assert status["counts"] == {"books": 3, "highlightCount": 12, "thoughtCount": 22, "deletedUpstreamCount": 0}

    calls = len(fake.calls)
    again = _sync(services, user_id, base_url)  # nothing changed upstream: the skipped are skipped again
    assert again["lastRun"]["skipped"] == 3 and again["counts"] == status["counts"]
    assert fake.calls[calls:].count("bookmarklist") == 1  # the book with unread notes is fetched again

    fake.books["9002"].title, fake.books["9002"].book_id = (
        "书名 2",
        "",
    )  # a book without an id may be any of ours: none is taken for gone
    fake.books.pop("9000")
    gone = _sync(services, user_id, base_url)
    assert "lastError" not in gone and gone["counts"]["deletedUpstreamCount"] == 0
    assert {"kind": "book", "book": "书名 2", "bookId": "", "count": 1} in gone["lastRun"]["skippedItems"]


def test_repeating_lastsort_cursor_stops(services, fake, base_url, reader):
    user_id, _kind = reader
    fake.stuck_paging = True
    status = _sync(services, user_id, base_url)
    assert status["lastError"]["code"] == "UPSTREAM_MALFORMED" and "lastSort" in status["lastError"]["message"]


def test_upgrade_info_is_recorded(services, fake, base_url, reader):
    user_id, _kind = reader
    fake.upgrade_info = {"message": "请升级 Skill", "upgrade_url": "https://example.invalid/upgrade"}
    status = _sync(services, user_id, base_url)
    assert "lastError" not in status
    assert status["notices"] == ["请升级 Skill (https://example.invalid/upgrade)"]
    fake.upgrade_info = {"upgrade_url": "https://example.invalid/upgrade"}  # no words of its own
    assert _sync(services, user_id, base_url)["notices"] == ["https://example.invalid/upgrade"]
    fake.upgrade_info = {"message": ""}
    assert _sync(services, user_id, base_url)["notices"] == [""]  # the page says it (never stored English)


def test_no_credential_is_reported(services, make_account, base_url):
    account = make_account(scopes="reading:read")
    assert _sync(services, account.user_id, base_url)["lastError"]["code"] == "NO_CREDENTIAL"


def test_a_book_imported_from_a_file_is_not_marked_deleted_by_a_sync(services, fake, base_url, reader):
    """A book only a file import brought in is not on the WeChat shelf, and that is no deletion;
    a book the sync brought in and no longer finds is (imported since or not)."""
    from mesq.reading.importer import import_snapshots, parse_document

    from .export_files import export

    user_id, _kind = reader
    import_snapshots(services.items, user_id, parse_document(export(books=2, notes=10)), "2026-02-01T00:00:00.000000Z")
    assert "lastError" not in _sync(services, user_id, base_url)
    imported = [n for n in _notes(services, user_id) if not n["externalId"].startswith(("r9", "9"))]
    assert len(imported) == 10 and not any(n.get("deletedUpstream") for n in imported)
    fake.books.pop("9000")  # the sync's own book, imported again from a file, then gone upstream
    synced = parse_document({"provider": "wechat-reading", "books": [
        {"id": "9000", "title": "书名 0", "notes": [{"id": "extra", "noteType": "highlight", "content": "x",
                                                   "createdAt": "2026-01-01T00:00:00Z"}]}]})  # fmt: skip
    import_snapshots(services.items, user_id, synced, "2026-02-02T00:00:00.000000Z")
    status = _sync(services, user_id, base_url)
    assert "lastError" not in status and status["lastRun"]["markedDeleted"] == 1  # the file marked the rest
    gone = {n["externalId"] for n in _notes(services, user_id) if n.get("deletedUpstream")}
    assert gone == {"extra", *(f"9000_{10 + n % 3}_{n * 100}-{n * 100 + 20}" for n in range(4))} | {
        f"r9000-{n}" for n in range(7)
    }
