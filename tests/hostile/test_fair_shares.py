"""Fair shares (issue 38 findings 6, 14, 15): no user, or pair of users, can take a bounded
resource from everyone else.

- archive slots: two users each holding one (an export or import running) leave a third user's
  export answering; neither can take a second;
- the throttles answer 429 with Retry-After and a message naming the limit: the quick-add
  preview, the reminder test send, an import (the page and `mesq import`);
- the in-process index updates: a user who queued thousands of keys (an import) delays another
  user's next search by about one batch, not by the whole queue.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.application.ratelimit import PROFILES, RateLimiter, counted_import, user_subject
from mesq.archive.format import ArchiveError
from mesq.asgi.account_archive import USER_SLOTS, archive_slot
from mesq.auth.users import create_user
from mesq.kernel.errors import RateLimited
from mesq.kernel.ports.storage import Put
from mesq.runtime import cli
from mesq.search import follow
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings
from tests.web.conftest import FAR_AHEAD, Browser, sign_in

LIMITS = PROFILES["normal"]


def _refused(answer: Any, limit: int, name: str, per: str) -> None:
    assert answer.status_code == 429, answer.text[:300]
    assert 1 <= int(answer.headers["retry-after"]) <= (3600 if per == "hour" else 60)
    assert f"rate limit of {limit} {name} requests per {per} reached; retry after" in answer.text


def test_two_users_holding_archive_slots_leave_a_third_users_export(browser: Callable[..., Browser]) -> None:
    first, second, third = browser(), browser(), browser()
    with contextlib.ExitStack() as running:
        for holder in (first, second):  # each user's share, as a long export or import holds it
            for _slot in range(USER_SLOTS):
                running.enter_context(archive_slot(holder.user_id))
        for holder in (first, second):
            busy = holder.post("/settings/export")
            assert busy.status_code == 503 and "of yours is already running" in busy.text
        answer = third.post("/settings/export")
        assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"


def test_the_quick_add_preview_is_throttled_per_user(
    browser: Callable[..., Browser], new_client: Callable[..., TestClient]
) -> None:
    person = browser()
    other_session = new_client()
    assert sign_in(other_session, person.username).status_code == 303
    agenda = person.get("/todos/today").text
    assert 'hx-get="/todos/quick-add" hx-trigger="input changed delay:' in agenda  # asked once typing pauses
    limit = LIMITS["quick_add_preview"]
    for number in range(limit):
        client = person.client if number % 2 else other_session  # every session of the user counts together
        assert client.get(f"/todos/quick-add?title=milk+{number}+tomorrow&form=today-add").status_code == 200
    _refused(person.get("/todos/quick-add?title=milk&form=today-add"), limit, "quick add preview", "minute")
    added = person.post("/todos/today", {"title": "milk tomorrow"})  # adding never waits for the preview
    assert added.status_code == 303


def test_reminder_test_sends_are_throttled(browser: Callable[..., Browser]) -> None:
    person = browser()
    limit = LIMITS["reminder_test"]
    for _number in range(limit):  # no such channel: nothing is sent, every attempt counts
        assert person.post("/settings/reminders/test", {"channel": "nope"}).status_code == 404
    _refused(person.post("/settings/reminders/test", {"channel": "nope"}), limit, "reminder test", "hour")


def _import(person: Browser, language: str = "en") -> Any:
    return person.client.post(
        "/settings/import",
        data={"csrf": person.csrf, "kind": "archive"},
        files={"file": ("mesq-export.zip", b"PK not really", "application/zip")},
        headers={"accept-language": language},
        follow_redirects=False,
    )


def test_refused_imports_count_apart_and_never_lock_out_an_import(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A file refused before anything is written gives its `import` back: a person trying the
    wrong file was locked out of importing for an hour after 6 tries. Refusals count in their own
    bucket (30 an hour), which stops hostile files."""
    person = browser()
    for _number in range(LIMITS["import_refused"] + 1):
        assert _import(person).status_code == 400, "refused, and still no 429"
    _refused(_import(person), LIMITS["import_refused"], "import refused", "hour")
    limited = _import(person, "zh-CN")  # the limit in the page's words: no English on a Chinese page
    assert limited.status_code == 429 and f"每小时 {LIMITS['import_refused']} 次被拒绝的导入请求" in limited.text
    limiter = RateLimiter(services.items, services.settings)
    assert limiter.remaining(user_subject(person.user_id), "import") == LIMITS["import"]


def test_imports_count_against_the_rate_limit(services: Services) -> None:
    """Imports that run count; the one past the limit is stopped before it reads its file."""
    limiter, user_id, ran = RateLimiter(services.items, services.settings), "counted-importer", []
    for _number in range(LIMITS["import"]):
        with counted_import(limiter, user_id, ArchiveError):
            ran.append(True)
    stopped = pytest.raises(RateLimited, match=f"rate limit of {LIMITS['import']} import requests per hour")
    with stopped, counted_import(limiter, user_id, ArchiveError):
        ran.append(False)
    assert ran == [True] * LIMITS["import"]


def test_a_refusal_gives_back_only_its_own_windows_count(monkeypatch: pytest.MonkeyPatch, services: Services) -> None:
    """The hour turned while the file was read: the new hour's counter is not lowered for it."""
    now = [FAR_AHEAD]
    limiter = RateLimiter(services.items, services.settings, clock=lambda: now[0])
    subject = user_subject("hour-turner")
    window = limiter.hit(subject, "import")
    now[0] += 3600
    limiter.hit(subject, "import")
    limiter.give_back(subject, "import", window)
    assert limiter.remaining(subject, "import") == LIMITS["import"] - 1
    now[0] -= 3600
    assert limiter.remaining(subject, "import") == LIMITS["import"]


def test_mesq_import_counts_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setattr("mesq.application.ratelimit.wall_clock", lambda: FAR_AHEAD)
    data = tmp_path / "data"
    services = build_services(inprocess_settings(data_dir=data))
    create_user(services.items, "importer", "correct horse battery")
    services.items.close()
    bogus = tmp_path / "not-an-archive.zip"
    bogus.write_bytes(b"PK not really")
    for _number in range(LIMITS["import"]):
        assert cli.main(["import", "importer", str(bogus), "--data-dir", str(data)]) == 1
        assert "nothing imported" in capsys.readouterr().err
    assert cli.main(["import", "importer", str(bogus), "--data-dir", str(data)]) == 1
    assert f"rate limit of {LIMITS['import']} import requests per hour reached" in capsys.readouterr().err


def test_a_big_index_queue_delays_another_users_search_by_one_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follower's worker is held on the importer's first batch while the importer queues
    2,000 more keys and another user writes one memo; released, the other user's update runs
    after at most one more of the importer's batches, and their search waits for no more."""
    services = build_services(
        inprocess_settings(data_dir=tmp_path / "data", search_provider="none", search_index_updates="inprocess")
    )
    from mesq.search import indexer

    real, ran, hold = indexer.refresh, [], threading.Event()

    def refresh(services: Services, user_id: str, sort_keys: Any, **options: Any) -> list[str]:
        keys = list(sort_keys)
        if not ran:
            hold.wait(30)  # the first batch: the queue fills meanwhile
        ran.append((user_id, len(keys)))
        return real(services, user_id, keys, **options)

    monkeypatch.setattr(indexer, "refresh", refresh)
    try:
        memo = {"status": "NORMAL", "content": "imported", "pinned": False, "tags": [], "resources": [],
                "createdAt": "2026-01-01T00:00:00.000000Z", "updatedAt": "2026-01-01T00:00:00.000000Z"}  # fmt: skip
        services.items.put({"pk": "U#importer", "sk": "MEMO#first", "id": "first", **memo})
        for batch in range(20):  # an import: 20 transactions of 100 records
            ids = [f"m{batch}-{n}" for n in range(100)]
            services.items.transact([Put({"pk": "U#importer", "sk": f"MEMO#{i}", "id": i, **memo}) for i in ids])
        services.items.put({"pk": "U#other", "sk": "MEMO#mine", "id": "mine", **memo})
        hold.set()
        services.search.settle("other")
        order = [user for user, _count in ran]
        assert "other" in order  # its update ran before its search went on
        importer_before = sum(count for user, count in ran[: order.index("other")])
        assert importer_before <= 1 + 2 * follow.INDEX_BATCH, f"{importer_before} of the importer's keys ran first"
    finally:
        hold.set()
        services.items.close()
