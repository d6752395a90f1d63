"""The sandbox worker processes (worker.py) of this server process, and who may use them.

A small pool, started lazily and reused: a run takes an idle worker (or starts one), and a spare
is started beside it so the next run finds one warm. Each user holds at most `PER_USER` workers
at once and the pool has `SIZE`, so one user cannot take them all: another user's run finds a
worker even while the first user's runaway scripts burn their wall time. A user's run beyond
their share waits up to `QUEUE_S`, then answers RATE_LIMITED with `retryAfterSeconds`.

Nothing here holds a thread: the pipes are read and written from the event loop
(`loop.add_reader`/`add_writer` for the one await, so any loop works, Mangum's per-invocation ones
included), waiting for a share is a future, and killing a worker does not wait for it (dead
workers are reaped on the next pool operation). A worker is retired after `RUNS_PER_WORKER`
runs, when its RSS passes `MAX_WORKER_RSS` or has grown `MAX_WORKER_GROWTH` since it was ready, after a
memory stop, or when it misbehaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import struct
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aws_lambda_powertools import Logger

from ...kernel.concurrency import run_sync
from ...kernel.errors import RateLimited, ServiceUnavailable
from .worker import MAX_FROM_WORKER, MAX_TO_WORKER

SIZE = 4
PER_USER = 2
QUEUE_S = 3.0
#: Free workers a user's second run may not take: they are kept for users with no run, so two
#: users holding their whole share still leave a worker for a third.
KEPT_FREE = 1
RUNS_PER_WORKER = 50
MAX_WORKER_RSS = 256 * 1024 * 1024
#: A worker that ends a run this much larger than when it was ready is replaced, so whatever a
#: run left behind (V8's or the allocator's) is returned with the process.
MAX_WORKER_GROWTH = 48 * 1024 * 1024
#: The worker's data-segment limit (RLIMIT_DATA): V8's largest heap (128 MB) with its overshoot
#: and what the isolate needs besides (measured: 640 MB is the least V8 starts under, ~556 MB is
#: writable at rest, and a script stopped at a 128 MB heap took it to ~790 MB: under 768 MB V8
#: aborted the process before its own limit stopped the script). What a worker holds is bounded
#: by the resident-memory watch (sandbox.py), not by this.
WORKER_DATA_BYTES = 1024 * 1024 * 1024
START_TIMEOUT_S = 15.0
_WORKER = Path(__file__).with_name("worker.py")
#: All the worker needs to import V8 (no secret of the server's environment).
_ENVIRONMENT = ("PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "TMPDIR", "HOME")
_HEADER = struct.Struct(">I")
#: A frame from the worker longer than this is decoded off the event loop.
LARGE_FRAME_BYTES = 256 * 1024
logger = Logger(child=True)


class WorkerGone(Exception):
    """The worker closed its pipe, died, or sent what the protocol does not allow."""


class Worker:
    """One worker process and its two pipe ends, read and written from the event loop."""

    def __init__(self) -> None:
        environment = {name: os.environ[name] for name in _ENVIRONMENT if name in os.environ}
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and worker file
            [sys.executable, str(_WORKER), str(WORKER_DATA_BYTES)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=environment,
            close_fds=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buffer = bytearray()
        self._eof = False
        self.ready = False
        self.ready_rss = 0
        self.runs = 0
        self.waited_s = 0.0  # how long the current run queued for this worker
        self.confinement: dict[str, Any] = {}  # what the worker gave up (confinement.confine)
        self.started = time.monotonic()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    async def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """Wait for the worker's `ready` (V8 loaded)."""
        if self.ready:
            return
        message = await self.receive(timeout_s)
        if not isinstance(message.get("ready"), dict):
            raise WorkerGone("the worker did not say it is ready")
        self.ready = True
        self.ready_rss = self.rss_bytes()
        self.confinement = message["ready"]
        _notice_once(self.confinement)

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_parts([json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")])

    async def send_parts(self, parts: list[bytes]) -> None:
        """One frame whose body is `parts` in turn (written as they are: a large frame is never
        copied into one buffer)."""
        length = sum(len(part) for part in parts)
        if length > MAX_TO_WORKER:
            raise ValueError("a frame to the worker is over its cap")
        for part in (_HEADER.pack(length), *parts):
            data = memoryview(part)
            while data:
                try:
                    written = os.write(self._in, data)
                except BlockingIOError:
                    await self._wait(writable=True, timeout_s=None)
                    continue
                except OSError as error:  # BrokenPipeError: the worker is gone
                    raise WorkerGone(str(error)) from error
                data = data[written:]

    async def receive(self, timeout_s: float) -> dict[str, Any]:
        """The next frame; asyncio.TimeoutError after `timeout_s`, WorkerGone if it ends first."""
        deadline = time.monotonic() + timeout_s
        while True:
            body = self._frame()
            if body is not None:
                # A batch of calls can be megabytes (2 Mi characters of arguments each, escaped):
                # decoded off the event loop.
                return await run_sync(_message, body) if len(body) > LARGE_FRAME_BYTES else _message(body)
            if self._eof:
                raise WorkerGone("the worker ended")
            await self._wait(writable=False, timeout_s=deadline - time.monotonic())
            try:
                chunk = os.read(self._out, 1 << 20)
            except BlockingIOError:
                continue
            except OSError as error:
                raise WorkerGone(str(error)) from error
            if not chunk:
                self._eof = True
            self._buffer += chunk

    def _frame(self) -> bytes | None:
        if len(self._buffer) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack_from(self._buffer)
        if length > MAX_FROM_WORKER:
            raise WorkerGone("a frame from the worker is over its cap")
        if len(self._buffer) < _HEADER.size + length:
            return None
        body = bytes(self._buffer[_HEADER.size : _HEADER.size + length])
        del self._buffer[: _HEADER.size + length]
        return body

    async def _wait(self, *, writable: bool, timeout_s: float | None) -> None:
        if timeout_s is not None and timeout_s <= 0:
            raise TimeoutError()
        loop = asyncio.get_running_loop()
        ready = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        fd = self._in if writable else self._out
        (loop.add_writer if writable else loop.add_reader)(fd, wake)
        try:
            await asyncio.wait_for(ready, timeout_s)
        finally:
            (loop.remove_writer if writable else loop.remove_reader)(fd)

    def rss_bytes(self) -> int:
        try:
            pages = int(Path(f"/proc/{self.process.pid}/statm").read_text().split()[1])
        except (OSError, ValueError, IndexError):
            return 0
        return pages * os.sysconf("SC_PAGE_SIZE")

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


@dataclass(eq=False)
class _Waiter:
    """A run waiting for a worker; `granted` once the pool has counted it in (see `Pool._grant`)."""

    user: str
    run_deadline: float
    arrived: float
    future: asyncio.Future[None]
    granted: bool = False


class Pool:
    def __init__(
        self, size: int = SIZE, per_user: int = PER_USER, queue_s: float = QUEUE_S, kept_free: int = KEPT_FREE
    ) -> None:
        self.size = size
        self.per_user = per_user
        self.queue_s = queue_s
        self.kept_free = kept_free
        self._idle: list[Worker] = []
        self._busy = 0
        self._holders: Counter[str] = Counter()
        self._deadlines: dict[str, list[float]] = {}
        self._queue: list[_Waiter] = []
        self._dying: list[Worker] = []

    @property
    def live(self) -> int:
        return self._busy + len(self._idle)

    def stats(self) -> dict[str, int]:
        return {"idle": len(self._idle), "busy": self._busy, "dying": len(self._dying), "queued": len(self._queue)}

    async def acquire(self, user: str, run_deadline: float, max_wait_s: float | None = None) -> Worker:
        """A ready worker for one of `user`'s runs (it may run until `run_deadline`, monotonic).
        A run that cannot have one now queues for at most `queue_s` (and `max_wait_s`), then is
        refused (RateLimited); the worker's `waited_s` is how long it queued."""
        self._reap()
        arrived = time.monotonic()
        if self._may_take(user):  # no queued run could take it: each release grants them first
            self._take(user, run_deadline)
        else:
            waiter = _Waiter(user, run_deadline, arrived, asyncio.get_running_loop().create_future())
            self._queue.append(waiter)
            wait_s = self.queue_s if max_wait_s is None else max(0.0, min(self.queue_s, max_wait_s))
            try:
                await asyncio.wait_for(asyncio.shield(waiter.future), wait_s)
            except TimeoutError:
                pass
            except BaseException:  # cancelled: a worker granted meanwhile goes to the next in line
                self._leave(waiter)
                raise
            self._leave(waiter, keep_grant=True)
            if not waiter.granted:
                raise self._refusal(user)
        waited_s = time.monotonic() - arrived
        try:
            worker = await self._ready_worker()
        except BaseException:
            self._let_go(user, run_deadline)
            raise
        worker.runs += 1
        worker.waited_s = waited_s
        return worker

    def _may_take(self, user: str) -> bool:
        """Within the user's share, a worker is free, and a run beyond the user's first leaves
        `kept_free` workers for users with none running."""
        held, free = self._holders[user], self.size - self._busy
        return held < self.per_user and free > 0 and (held == 0 or free > self.kept_free)

    def _take(self, user: str, run_deadline: float) -> None:
        self._holders[user] += 1
        self._busy += 1
        self._deadlines.setdefault(user, []).append(run_deadline)

    def _grant(self) -> None:
        """Hand freed workers to queued runs: users holding the fewest first, then by arrival."""
        while True:
            ready = [w for w in self._queue if not w.granted and self._may_take(w.user)]
            if not ready:
                return
            waiter = min(ready, key=lambda w: (self._holders[w.user], w.arrived))
            self._take(waiter.user, waiter.run_deadline)
            waiter.granted = True
            self._queue.remove(waiter)
            waiter.future.get_loop().call_soon_threadsafe(_wake, waiter.future)

    def _leave(self, waiter: _Waiter, *, keep_grant: bool = False) -> None:
        if waiter in self._queue:
            self._queue.remove(waiter)
        if waiter.granted and not keep_grant:
            waiter.granted = False
            self._let_go(waiter.user, waiter.run_deadline)

    def release(self, worker: Worker, user: str, run_deadline: float, *, reusable: bool) -> None:
        """Give `worker` back (or retire it, and start its replacement) after a run."""
        if (
            reusable
            and worker.alive
            and worker.runs < RUNS_PER_WORKER
            and worker.rss_bytes() < min(MAX_WORKER_RSS, worker.ready_rss + MAX_WORKER_GROWTH)
            and len(self._idle) + self._busy <= self.size
        ):
            self._idle.append(worker)
        else:
            self._retire(worker)
        self._let_go(user, run_deadline)
        self._start_spare()

    def _let_go(self, user: str, run_deadline: float) -> None:
        self._busy -= 1
        self._holders[user] -= 1
        if self._holders[user] <= 0:
            del self._holders[user]
        deadlines = self._deadlines.get(user, [])
        if run_deadline in deadlines:
            deadlines.remove(run_deadline)
        if not deadlines:
            self._deadlines.pop(user, None)
        self._grant()

    def _refusal(self, user: str) -> RateLimited:
        held = self._holders[user]
        mine = held >= self.per_user or (held > 0 and self._busy < self.size)
        ends = self._deadlines.get(user, []) if mine else [d for ds in self._deadlines.values() for d in ds]
        wait = max(1, math.ceil(min(ends) - time.monotonic())) if ends else 1
        if held >= self.per_user:
            reason = f"at most {self.per_user} run_code runs per user at once"
        elif mine:
            reason = "your other run holds a sandbox, and the last free one is kept for users with no run"
        else:
            reason = "every sandbox is busy"
        return RateLimited(f"{reason}; retry after {wait} s", retry_after_seconds=wait)

    async def _ready_worker(self) -> Worker:
        while self._idle:
            worker = self._idle.pop()
            if not worker.alive:
                self._retire(worker)
                continue
            try:
                await worker.start()
            except (TimeoutError, WorkerGone):
                self._retire(worker)
                continue
            self._start_spare()
            return worker
        worker = Worker()
        try:
            await worker.start()
        except (TimeoutError, WorkerGone, OSError) as error:
            self._retire(worker)
            raise ServiceUnavailable("the Code Mode sandbox could not be started; try again") from error
        self._start_spare()
        return worker

    def _start_spare(self) -> None:
        """One idle worker starting beside the busy ones (it boots while nobody waits for it)."""
        if not self._idle and self.live < self.size:
            with contextlib.suppress(OSError):  # the next run starts one itself, or says it cannot
                self._idle.append(Worker())

    def _retire(self, worker: Worker) -> None:
        worker.kill()
        self._dying.append(worker)

    def _reap(self) -> None:
        self._dying = [worker for worker in self._dying if worker.process.poll() is None]

    def close(self) -> None:
        for worker in self._idle:
            self._retire(worker)
        self._idle.clear()


_noticed: list[str] = []


def _message(body: bytes) -> dict[str, Any]:
    """A frame's body as the one message it must be."""
    try:
        message = json.loads(body)
    except ValueError as error:
        raise WorkerGone("a frame from the worker is not JSON") from error
    if not isinstance(message, dict) or len(message) != 1:
        raise WorkerGone("a frame from the worker is not one message")
    return message


def _notice_once(confinement: dict[str, Any]) -> None:
    """Log, once per process, each confinement step the platform did not allow (on AWS Lambda:
    no libseccomp, no root to change user from)."""
    notices = confinement.get("notices")
    for notice in notices if isinstance(notices, list) else []:
        text = str(notice)[:300]
        if text not in _noticed:
            _noticed.append(text)
            logger.warning("Code Mode worker confinement reduced", extra={"notice": text})


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


#: This process's pool (one per server or Lambda process; a worker serves one run at a time).
POOL = Pool()
