"""Running the synchronous stores and operations off the event loop.

One process-wide thread pool instead of anyio's per-loop workers: Mangum drives every Lambda
invocation with its own `run_until_complete`, and anyio stops its worker threads when that run
ends, so each invocation paid for a new thread (measured: ~0.9 ms of a ~2.5 ms warm call). These
threads outlive the loop; under `mesq serve` they give the same concurrency as before.

A Lambda execution environment serves one invocation at a time, so there the hop to a worker
thread buys no concurrency and costs a thread wake-up and a loop wake-up per call (measured:
about half of a warm REST `get_memo`). `one_request_at_a_time()` marks the invocation it wraps
(lambda_entry.py): inside it `run_sync` calls the function on the loop's own thread. The mark is
a context variable, so it reaches exactly the tasks that invocation starts and nothing else in
the process (a local server in the same process keeps its worker threads).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

# Sized like anyio's default limiter: enough for a local server's concurrent requests.
_EXECUTOR = ThreadPoolExecutor(max_workers=40, thread_name_prefix="mesq")
#: Set when the process was asked to stop (`mesq serve` on SIGTERM or Ctrl-C): long work in a
#: worker thread (an import's writes) ends at its next step boundary instead of holding the
#: shutdown, whose wait for the thread would otherwise last as long as the work.
_STOP = threading.Event()
_INLINE: contextvars.ContextVar[bool] = contextvars.ContextVar("mesq_inline_sync_calls", default=False)
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("mesq_work_deadline", default=None)


def request_stop() -> None:
    _STOP.set()


def stop_requested() -> bool:
    return _STOP.is_set()


@contextlib.contextmanager
def finish_within(seconds: float | None) -> Iterator[None]:
    """Within this block (one Lambda invocation, whose timeout ends it abruptly) long work that
    asks `out_of_time()` between its steps (an import's writes) ends at the first step past
    `seconds` from now, with its report, instead of being killed mid-run without one. A context
    variable, like `one_request_at_a_time`: it reaches only the tasks this block starts."""
    token = _DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def invocation_clock(context: object) -> Callable[[], int] | None:
    """The Lambda invocation's clock, from its context (as the handler gets it, or as Mangum puts
    it in the ASGI scope, `aws.context`): the milliseconds left of its timeout; None where there is
    none (`mesq serve`, a test). The one place it is read: the HTTP functions' `finish_within`, a
    stream consumer's time left, the MCP endpoint's Code Mode budget."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    return remaining if callable(remaining) else None


def out_of_time() -> bool:
    deadline = _DEADLINE.get()
    return deadline is not None and time.monotonic() >= deadline


@contextlib.contextmanager
def one_request_at_a_time() -> Iterator[None]:
    """Within this block (one Lambda invocation) `run_sync` runs its function on the calling
    thread: nothing else can be waiting for the loop."""
    token = _INLINE.set(True)
    try:
        yield
    finally:
        _INLINE.reset(token)


async def run_sync(function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    # Like asyncio.to_thread: the call sees the caller's context variables (log keys, etc.), and
    # what it sets stays in its copy (inline too, so the caller's logs are the same either way).
    context = contextvars.copy_context()
    if _INLINE.get():
        return context.run(function, *args, **kwargs)
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_EXECUTOR, functools.partial(context.run, function, *args, **kwargs))


def in_worker_thread(function: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """`function` as a coroutine function that runs it in the pool (same arguments, same result)."""

    @functools.wraps(function)
    async def in_worker(*args: P.args, **kwargs: P.kwargs) -> R:
        return await run_sync(functools.partial(function, *args, **kwargs))

    return in_worker
