"""A PUT without If-Match or If-None-Match replaces what is there, whatever wrote it a moment
before: losing a race with another write (two devices syncing the same task, an agent's edit
committing between the read and the write) is not a failed precondition the client never set.
Before, such a PUT answered 412 ("changed meanwhile") though it named no ETag; Thunderbird and
DAVx⁵ then re-read and ask or drop the change. A conditional PUT still answers 412."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import mesq.todos.writes as writes
from mesq.kernel.ports.storage import ConditionFailed
from tests.dav.conftest import Dav, vtodo


@pytest.fixture
def lost_race(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], None]]:
    """`lose(n)`: the next n commits fail their conditions, as when another write committed
    between the read and this one."""
    real = writes.commit
    left = [0]

    def commit(items: Any, ops: Any) -> None:
        if left[0] > 0:
            left[0] -= 1
            raise ConditionFailed("another write committed first", None)
        real(items, ops)

    monkeypatch.setattr(writes, "commit", commit)

    def lose(times: int) -> None:
        left[0] = times

    yield lose


def _title(dav: Dav, name: str) -> str:
    etag = dav.get(name).headers["etag"].strip('"')
    return str(dav.rest("GET", f"/api/toolkit/todo/tasks/{etag.rsplit('-', 1)[0]}")["task"]["title"])


def test_an_unconditional_put_that_lost_a_race_is_written(dav: Dav, lost_race: Callable[[int], None]) -> None:
    assert dav.put("t.ics", vtodo("t", summary="first")).status_code == 201
    lost_race(1)
    answer = dav.put("t.ics", vtodo("t", summary="second"))
    assert answer.status_code == 204, answer.text
    assert _title(dav, "t.ics") == "second"

    lost_race(1)
    made = dav.put("new.ics", vtodo("new", summary="fresh"))
    assert made.status_code == 201, made.text
    assert _title(dav, "new.ics") == "fresh"


def test_a_conditional_put_that_lost_a_race_is_still_412(dav: Dav, lost_race: Callable[[int], None]) -> None:
    assert dav.put("t.ics", vtodo("t", summary="first")).status_code == 201
    etag = dav.get("t.ics").headers["etag"]
    lost_race(1)
    answer = dav.put("t.ics", vtodo("t", summary="second"), If_Match=etag)
    assert answer.status_code == 412, answer.text
    lost_race(1)
    answer = dav.put("n.ics", vtodo("n", summary="second"), If_None_Match="*")
    assert answer.status_code == 412, answer.text
    assert _title(dav, "t.ics") == "first"


def test_an_unconditional_delete_that_lost_a_race_deletes(dav: Dav, lost_race: Callable[[int], None]) -> None:
    """DELETE without If-Match names the task, not a revision of it: a write committing between
    its read and its delete does not make it 412 (with If-Match it still does)."""
    assert dav.put("d.ics", vtodo("d")).status_code == 201
    etag = dav.get("d.ics").headers["etag"]
    lost_race(1)
    assert dav.request("DELETE", dav.calendar + "d.ics", If_Match=etag).status_code == 412
    lost_race(1)
    answer = dav.request("DELETE", dav.calendar + "d.ics")
    assert answer.status_code == 204, answer.text
    assert dav.get("d.ics").status_code == 404
