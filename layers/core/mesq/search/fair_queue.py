"""A background queue that serves users in turn: the in-process index updates of `mesq serve`
(follow.py) run here, so one user's burst of writes (an import of thousands of records) can
never hold another user's updates back for more than one batch.

- Work is a user's set of pending items (sort keys, or a rebuild marker): an item queued again
  before it ran is queued once (its run re-reads the store, so it covers both writes).
- One worker thread takes at most `batch` items of one user, runs them, then goes to the next
  user with work (round robin). Another user's update therefore waits for at most one batch of
  each busy user, however much that user queued.
- `settle(user)` waits until everything queued for that user before the call has run (a query
  sees every write before it), and never for other users' work.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


class _UserWork(Generic[T]):
    def __init__(self) -> None:
        self.pending: OrderedDict[T, int] = OrderedDict()  # item -> the earliest submission it answers
        self.running: list[int] = []  # the submissions of the batch being run
        self.submitted = 0
        self.done_through = 0  # every submission up to this one has run

    def outstanding(self) -> int | None:
        seqs = [*self.pending.values(), *self.running]
        return min(seqs) if seqs else None


class FairQueue(Generic[T]):
    def __init__(self, run: Callable[[str, list[T]], None], *, batch: int, name: str, nice: int = 0) -> None:
        """`run(user, items)` does one batch; an exception it raises is its own business (the
        queue goes on): log it there. `nice` lowers the worker thread's CPU priority (Linux keeps
        a nice value per thread): background builds give the CPU to requests first."""
        self._run = run
        self._nice = nice
        self._batch = batch
        self._users: dict[str, _UserWork[T]] = {}
        self._turns: deque[str] = deque()  # users with pending work, in the order they are served
        self._changed = threading.Condition()
        self._closed = False
        self._stopped = False  # closed without draining: nothing more is taken
        self._busy = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def submit(self, user: str, items: Sequence[T]) -> None:
        if not items:
            return
        with self._changed:
            work = self._users.setdefault(user, _UserWork())
            work.submitted += 1
            for item in items:
                work.pending.setdefault(item, work.submitted)
            if user not in self._turns:
                self._turns.append(user)
            self._changed.notify_all()

    def settle(self, user: str, timeout: float | None = None) -> bool:
        """Wait until every item queued for `user` so far has run (at most `timeout` seconds):
        True when it has."""
        with self._changed:
            work = self._users.get(user)
            if work is None:
                return True
            target = work.submitted
            return bool(self._changed.wait_for(lambda: work.done_through >= target or self._closed, timeout))

    def pending(self, user: str) -> int:
        """Items queued for `user` and not yet taken (tests, metrics)."""
        with self._changed:
            work = self._users.get(user)
            return len(work.pending) if work is not None else 0

    def wait_idle(self) -> None:
        """Wait until nothing is queued or running for anyone."""
        with self._changed:
            self._changed.wait_for(lambda: (not self._turns and not self._busy) or self._closed)

    def close(self, drain: bool = True) -> None:
        """Run what is queued (`drain`; else only the batch running now), then stop the worker."""
        if drain:
            self.wait_idle()
        with self._changed:
            self._stopped = not drain
            self._closed = True
            self._changed.notify_all()
        self._thread.join()

    def _take(self) -> tuple[str, list[T]] | None:
        with self._changed:
            self._changed.wait_for(lambda: bool(self._turns) or self._closed)
            if not self._turns or self._stopped:
                return None
            user = self._turns.popleft()
            work = self._users[user]
            taken: list[T] = []
            while work.pending and len(taken) < self._batch:
                item, seq = work.pending.popitem(last=False)
                taken.append(item)
                work.running.append(seq)
            if work.pending:
                self._turns.append(user)  # the rest waits for everyone else's turn
            self._busy = True
            return user, taken

    def _finish(self, user: str) -> None:
        with self._changed:
            work = self._users[user]
            work.running = []
            oldest = work.outstanding()
            work.done_through = work.submitted if oldest is None else oldest - 1
            if oldest is None:
                del self._users[user]  # nothing kept for a user without work
            self._busy = False
            self._changed.notify_all()

    def _serve(self) -> None:
        if self._nice:
            with contextlib.suppress(OSError):  # not allowed here: the work runs at normal priority
                os.nice(self._nice)  # this thread only (Linux: a nice value per thread)
        while (turn := self._take()) is not None:
            user, items = turn
            try:
                self._run(user, items)
            except Exception:  # noqa: S110 (`run` logs its own failures; the queue must go on)
                pass
            finally:
                self._finish(user)


__all__ = ["FairQueue"]
