"""One JavaScript program, run in a sandbox worker process (worker.py, pool.py), driven from the
event loop.

The program runs in a fresh V8 isolate (PyPI `mini-racer`) in a process of its own: a script
that exhausts memory, crashes V8 or never yields ends that process, never the server. Nothing
but length-capped JSON frames crosses the pipe. The worker stops the program at its wall time
and heap limit itself; this side kills the worker at the wall time plus `GRACE_S` in case it
does not, and a worker that dies for any reason answers as a memory stop (V8 aborts the process
only when memory runs out) and is replaced.

The import is lazy on both sides: the server never loads V8, and a worker process is started
only when the first run comes (pool.py).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, Literal

from ...kernel.concurrency import run_sync
from .cutting import compact, well_formed
from .memory import map_large_blocks
from .pool import POOL, Worker, WorkerGone
from .worker import MAX_THROWN_CHARS, MAX_TO_WORKER, crossing_chars

StopKind = Literal["time", "memory"]

#: How long past its wall time a worker may take to report before it is killed.
GRACE_S = 1.5
#: How often a running worker's resident memory is checked, and what it may hold beyond its
#: resident size at start and twice its heap budget.
WATCH_S = 0.25
RSS_SLACK_BYTES = 64 * 1024 * 1024
#: How long a dead worker's exit status is waited for (it names the stop's cause).
EXIT_POLLS = 10
EXIT_POLL_S = 0.01
#: What one batch's answers may add up to (UTF-8 JSON): the frame to the worker, less room for
#: the refusals of the calls left out (at most a batch of short messages) and the frame's braces.
ANSWERS_BYTES = MAX_TO_WORKER - 64 * 1024

#: An answer longer than this is encoded into its frame off the event loop, ENCODE_SLICE_CHARS at
#: a time (each slice one C call: the loop gets the interpreter back between them). A 14 MB
#: read's encoding on the loop held another user's calls ~0.3 s per read.
LARGE_ANSWER_CHARS = 256 * 1024
ENCODE_SLICE_CHARS = 1024 * 1024

#: The oldest mini-racer whose timeout also stops code after an `await`: 0.12.4 (the last with
#: aarch64 wheels) runs promise continuations outside the timed evaluation, so `await x; for(;;){}`
#: could never be stopped. Without it (aarch64 builds) the code tools are not offered.
MIN_VERSION = (0, 14, 1)


class Refused(Exception):
    """Raised by `host` to reject one call instead of answering it (a budget was reached)."""


@dataclass
class Outcome:
    result_json: str | None = None  # what the program returned (or kept), cut to maxOutputChars
    truncated: bool = False
    size: int = 0  # the untruncated result's length
    thrown: str | None = None
    stopped: StopKind | None = None


#: (tool name, arguments JSON) -> the answer's JSON text; raises Refused.
Host = Callable[[str, str], Awaitable[str]]
#: (tool name, the batch's answer bytes with this call's, the cap) -> the refusal's text, when a
#: call's answer would take its batch's answers over the frame cap (the host records the budget).
FrameFull = Callable[[str, int, int], str]
#: (tool name) -> the refusal's text, when a call would start after the run's wall time (the
#: host records the budget).
TimeUp = Callable[[str], str]


def _time_up(name: str) -> str:
    return "the run's time budget ran out before this call started, so it was not run"


def available() -> bool:
    """Whether a mini-racer that enforces every budget is installed (read without importing V8)."""
    if importlib.util.find_spec("py_mini_racer") is None:
        return False
    try:
        parts = tuple(int(part) for part in importlib.metadata.version("mini-racer").split(".")[:3])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return parts >= MIN_VERSION


async def run_program(
    source: str,
    *,
    user: str,
    reach: list[str],
    known: list[str],
    context: dict[str, str | bool],
    host: Host,
    frame_full: FrameFull,
    timeout_s: float,
    time_up: TimeUp = _time_up,
    memory_bytes: int,
    max_output_chars: int,
) -> Outcome:
    """Run `source` (the body of an async function) until it settles, throws or hits the wall
    time (`timeout_s`, host calls included) or `memory_bytes`. The script reads `context` (flat:
    the user's zone, whether they set it, today there, now) as the frozen `mesq.context`. RateLimited if
    `user` already holds their share of the workers past the pool's queue time."""
    map_large_blocks()  # the answers' large buffers go back to the system when freed (memory.py)
    deadline = time.monotonic() + timeout_s + GRACE_S
    # A run queued behind others waits at most half its wall time, and runs for what is left:
    # its answer, a result or a busy refusal, comes within its own time budget.
    worker = await POOL.acquire(user, deadline, max_wait_s=timeout_s / 2)
    timeout_s -= worker.waited_s
    reusable = False
    # No call starts after the wall time: a batch's calls run one after another, and the worker
    # cannot stop the host while it waits for their answers.
    answers = _Answers(host, frame_full, time_up, time.monotonic() + timeout_s)
    try:
        outcome, reusable = await _drive(
            worker,
            {
                "source": source,
                "reach": reach,
                "known": known,
                "context": context,
                "timeoutMs": round(timeout_s * 1000),
                "memoryBytes": memory_bytes,
                "maxOutputChars": max_output_chars,
            },
            answers,
            deadline,
        )
        return outcome
    finally:  # a cancelled run (the client went away) kills its worker too
        POOL.release(worker, user, deadline, reusable=reusable)


async def _drive(worker: Worker, job: dict[str, Any], answers: _Answers, deadline: float) -> tuple[Outcome, bool]:
    # Near its heap limit V8 can collect garbage for seconds without reaching the timeout's
    # check, growing past the heap (measured: 460 MB resident under 16 MB): the worker's resident
    # memory is watched, and past its ceiling the worker is killed as a memory stop.
    ceiling = worker.ready_rss + 2 * int(job["memoryBytes"]) + RSS_SLACK_BYTES
    # The last checkpoint, kept here as the worker sends each one (when checkpoint() is called):
    # the result of a run that returned nothing, however its worker ended (docs/contract.md §11).
    kept = _Kept(int(job["maxOutputChars"]))
    try:
        await worker.send({"run": job})
        while True:
            try:
                message = await worker.receive(min(WATCH_S, deadline - time.monotonic()))
            except TimeoutError:
                if worker.rss_bytes() > ceiling:  # killed when released
                    return kept.into(_ran_out(None)), False
                if time.monotonic() >= deadline:
                    return kept.into(Outcome(stopped="time")), False
                continue
            if "kept" in message:
                kept.take(message["kept"])
                continue
            if "calls" in message:
                await worker.send_parts(await answers.frame(message["calls"]))
                continue
            if "end" in message:
                outcome, retire = _ended(message["end"])
                return kept.into(outcome), not retire
            raise WorkerGone("the worker sent an unknown message")
    except WorkerGone:
        # V8 aborts its process when the heap cannot grow: a worker that dies mid-run is a
        # memory stop, answered with the last checkpoint it sent.
        return kept.into(_ran_out(await _exit_code(worker))), False


async def _exit_code(worker: Worker) -> int | None:
    """A dead worker's exit status, waited for briefly (the pipe's end can come just before it)."""
    code = worker.process.poll()
    for _ in range(EXIT_POLLS):
        if code is not None:
            break
        await asyncio.sleep(EXIT_POLL_S)
        code = worker.process.poll()
    return code


def _ran_out(code: int | None) -> Outcome:
    """A worker that died or was killed mid-run (`code`: its exit status, if known): a memory
    stop, saying how it ended."""
    if code is not None and -code == signal.SIGKILL:
        how = "the sandbox process was killed (SIGKILL: out of memory, or stopped by the system)"
    elif code is not None and -code in (signal.SIGTRAP, signal.SIGABRT):
        how = "the sandbox process ran out of memory (V8 aborted it)"
    else:
        how = "the sandbox process ran out of memory"
    return Outcome(stopped="memory", thrown=f"{how} and was stopped")


class _Kept:
    """The run's last checkpoint as the worker sent it (cut to `maxOutputChars` there), checked
    here: a message that is not what the worker writes ends the run (WorkerGone), and whatever
    a worker sends is this run's only (a `_Kept` lives for one run)."""

    def __init__(self, max_output_chars: int) -> None:
        # What the worker's cut can make of `maxOutputChars`: compact JSON, escapes included.
        self.cap = crossing_chars(max_output_chars)
        self.last: dict[str, Any] | None = None

    def take(self, kept: Any) -> None:
        if not isinstance(kept, dict):
            raise WorkerGone("the worker's checkpoint is not an object")
        if set(kept) == {"thrown"} and isinstance(kept["thrown"], str):
            self.last = {"thrown": kept["thrown"][:MAX_THROWN_CHARS]}
            return
        result, truncated, size = kept.get("result"), kept.get("truncated"), kept.get("size")
        if not (set(kept) == {"result", "truncated", "size"} and isinstance(result, str) and len(result) <= self.cap
                and isinstance(truncated, bool) and isinstance(size, int) and size >= 0):  # fmt: skip
            raise WorkerGone("the worker's checkpoint is malformed")
        self.last = {"result": result, "truncated": truncated, "size": size}

    def into(self, outcome: Outcome) -> Outcome:
        """`outcome` with the last checkpoint as its result where the script returned none."""
        if self.last is None or outcome.result_json is not None:
            return outcome
        if "thrown" in self.last:
            if outcome.thrown is None:
                outcome.thrown = self.last["thrown"]
            return outcome
        outcome.result_json = self.last["result"]
        outcome.truncated = self.last["truncated"]
        outcome.size = self.last["size"]
        return outcome


class _Answers:
    """The frames that answer a run's batches of calls, each built as its answers come in: its
    size is counted answer by answer, and once the next answer would take the frame over its cap
    that call and the rest of the batch are refused (BudgetExceeded in the script, the `output`
    budget in the report) without being run. Sixteen 13 MB reads are never held at once: at most a
    frame's worth is. A call that would start after the run's wall time (`stop_at`) is refused
    unrun too (the `time` budget): a write never lands after the run was due to stop."""

    def __init__(self, host: Host, frame_full: FrameFull, time_up: TimeUp, stop_at: float) -> None:
        self.host = host
        self.frame_full = frame_full
        self.time_up = time_up
        self.stop_at = stop_at

    async def frame(self, calls: Any) -> list[bytes]:
        """The `{"answers": [...]}` frame of one batch, as the parts to write in turn."""
        if not isinstance(calls, list):
            raise WorkerGone("the worker's calls are not a list")
        parts: list[bytes] = [b'{"answers":[']
        size = len(parts[0]) + 2
        full = False
        for call in calls:
            if not (isinstance(call, list) and len(call) == 3 and isinstance(call[0], int)
                    and isinstance(call[1], str) and isinstance(call[2], str)):  # fmt: skip
                raise WorkerGone("the worker sent a malformed call")
            call_id, name, arguments = call
            late = not full and time.monotonic() >= self.stop_at
            answer = None if full or late else await self._answer(call_id, name, arguments)
            if late:
                answer = _encoded([call_id, False, self.time_up(name)])
            elif answer is None or size + len(answer) + 1 > ANSWERS_BYTES:
                used = size + (len(answer) if answer is not None else 0)
                full = True
                answer = _encoded([call_id, False, self.frame_full(name, used, ANSWERS_BYTES)])
            parts.append(answer if len(parts) == 1 else b"," + answer)
            size += len(answer) + 1
        parts.append(b"]}")
        return parts

    async def _answer(self, call_id: int, name: str, arguments: str) -> bytes:
        try:
            text = await self.host(name, arguments)
        except Refused as refused:
            return _encoded([call_id, False, str(refused)])
        if len(text) > LARGE_ANSWER_CHARS:
            return await run_sync(answer_bytes, call_id, text)
        return _encoded([call_id, True, text])


def _encoded(value: Any) -> bytes:
    return compact(value).encode("utf-8")


def answer_bytes(call_id: int, text: str) -> bytes:
    """`_encoded([call_id, True, text])`, built ENCODE_SLICE_CHARS at a time: JSON escapes each
    character on its own, so the slices' escapes joined are the whole text's (and a str slice
    never splits a character; a lone surrogate becomes U+FFFD as in `compact`)."""
    parts = [f'[{call_id},true,"'.encode()]
    for start in range(0, len(text), ENCODE_SLICE_CHARS):
        escaped = encode_basestring(text[start : start + ENCODE_SLICE_CHARS])[1:-1]
        parts.append(well_formed(escaped).encode("utf-8"))
    parts.append(b'"]')
    return b"".join(parts)


def _ended(end: Any) -> tuple[Outcome, bool]:
    if not isinstance(end, dict):
        raise WorkerGone("the worker's end is not an object")
    result, thrown, stopped = end.get("result"), end.get("thrown"), end.get("stopped")
    if not (result is None or isinstance(result, str)) or not (thrown is None or isinstance(thrown, str)):
        raise WorkerGone("the worker's end is malformed")
    if stopped not in (None, "time", "memory"):
        raise WorkerGone("the worker's stop is unknown")
    size = end.get("size", 0)
    outcome = Outcome(
        result_json=result,
        truncated=end.get("truncated") is True,
        size=size if isinstance(size, int) else 0,
        thrown=thrown,
        stopped=stopped,
    )
    return outcome, end.get("retire") is not False
