"""A quick add never stalls the server (issue 38 finding 5: one 16,000-character title stalled
every request for 43.5 s). On a real `mesq serve`, one user sends 16,000-character quick adds
(Today's add box) and the slowest line a preview can be asked about (500 characters of numbers,
each a candidate date phrase), four of each at once; meanwhile another user's `/healthz` and REST
`list_memos` each answer in under a second. A `timing` test (tests/conftest.py `_TIMING_FILES`):
it runs alone, so no neighbour's CPU decides its bound.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server

BOUND_SECONDS = 1.0
ATTACKS = 4
LONG_TITLE = "1 " * 8000  # 16,000 characters, a number at every other one
SLOW_PREVIEW = "1 " * 250  # the preview's own cap, the worst words it can hold


@pytest.fixture
def served(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path / "live")
    yield live
    stop_server(live)


def _signed_in(live: LiveServer, username: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=live.base_url, timeout=60)
    page = client.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf
    form = {"csrf": csrf.group(1), "username": username, "password": "correct horse battery"}
    assert client.post("/login", data=form).status_code == 303
    today = client.get("/todos/today")
    token = re.search(r'name="csrf" value="([^"]+)"', today.text)
    assert token
    return client, token.group(1)


def test_a_long_quick_add_does_not_stall_other_users(served: LiveServer) -> None:
    victim = served.account("victim")
    served.account("attacker")
    attacker, csrf = _signed_in(served, "attacker")
    answers: list[int] = []

    def attack(kind: str) -> None:
        try:
            if kind == "add":
                answer = attacker.post("/todos/today", data={"csrf": csrf, "title": LONG_TITLE})
            else:
                answer = attacker.get("/todos/quick-add", params={"title": SLOW_PREVIEW, "form": "today-add"})
            answers.append(answer.status_code)
        except httpx.HTTPError:
            answers.append(0)

    threads = [threading.Thread(target=attack, args=(kind,)) for kind in ("add", "preview") * ATTACKS]
    for thread in threads:
        thread.start()
    slow: list[str] = []
    with httpx.Client(base_url=served.base_url, timeout=10, headers=victim.headers) as other:
        deadline = time.monotonic() + 30
        while any(thread.is_alive() for thread in threads) and time.monotonic() < deadline:
            for path in ("/healthz", "/api/toolkit/memo"):
                begun = time.perf_counter()
                try:
                    status = other.get(path).status_code
                except httpx.TimeoutException:
                    status = 0
                took = time.perf_counter() - begun
                if status != 200 or took >= BOUND_SECONDS:
                    slow.append(f"{path}: {status} in {took:.2f}s")
    for thread in threads:
        thread.join(60)
    attacker.close()
    assert not slow, f"another user waited on the quick adds: {slow}"
    assert sorted(answers) == [200] * ATTACKS + [400] * ATTACKS  # previews answered; a 16,000-char title refused
