"""The sandbox worker processes (mesq/mcp/code/pool.py, sandbox.py, worker.py) driven directly:
a tampered bridge, checkpoints at a time stop, memory stops, a killed worker, the per-user
share, runs from different event loops (Mangum gives each Lambda invocation its own), and the
linear, depth-limited cut. Real V8 in real worker processes; the host is a plain function."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mesq.kernel.errors import RateLimited
from mesq.kernel.ports.storage import Update
from mesq.mcp.code import cutting, sandbox
from mesq.mcp.code import pool as pool_module
from mesq.mcp.code.cutting import MAX_DEPTH, TooDeep, compact, truncate
from mesq.mcp.code.sandbox import Refused, run_program
from mesq.todos import keys as todo_keys

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch):
    fresh = pool_module.Pool(size=4, per_user=2, queue_s=0.5)
    monkeypatch.setattr(sandbox, "POOL", fresh)
    yield fresh
    fresh.close()


async def echo(name: str, arguments: str) -> str:
    if name == "refuse":
        raise Refused("no more")
    if name == "broken":
        return json.dumps({"error": {"code": "NOT_FOUND", "message": "no such record"}, "traceId": "t"})
    return json.dumps({"data": {"tool": name, "args": json.loads(arguments)}})


CONTEXT = {"timeZone": "Asia/Shanghai", "timeZoneSet": True, "today": "2026-12-04", "now": "2026-12-03T16:30:00Z"}


async def go(code: str, user: str = "u1", timeout_s: float = 5, memory_mb: int = 32, out: int = 25_000):
    return await run_program(
        code, user=user, reach=["x", "refuse"], known=["x", "refuse", "hidden"], context=CONTEXT, host=echo,
        frame_full=lambda name, used, limit: f"{name}: over {limit} bytes", timeout_s=timeout_s,
        memory_bytes=memory_mb << 20, max_output_chars=out,
    )  # fmt: skip


def test_a_script_calls_tools_and_returns_json(pool):
    outcome = asyncio.run(go("const r = await mesq.x({a: 1}); return [r, Object.keys(mesq)]"))
    assert json.loads(outcome.result_json) == [{"data": {"tool": "x", "args": {"a": 1}}}, ["x", "refuse"]]
    assert outcome.stopped is None and outcome.thrown is None


def test_a_script_reads_the_users_now_from_a_frozen_mesq_context(pool):
    code = """
      const c = mesq.context;
      const before = c.timeZone;
      try { c.timeZone = "UTC"; } catch (e) {}
      let replaced = true;
      try { mesq.context = {timeZone: "UTC"}; } catch (e) {}
      replaced = mesq.context.timeZone !== before;
      return [c, Object.isFrozen(c), replaced, Object.keys(mesq), "context" in mesq, typeof mesq.hidden];
    """
    outcome = asyncio.run(go(code))
    context, frozen, replaced, keys, listed, hidden = json.loads(outcome.result_json)
    # The user's zone, today there (already the 4th in Shanghai) and the instant, as given;
    # the script can change neither the object nor which one mesq.context is; not a tool name.
    assert context == CONTEXT and frozen is True and replaced is False
    assert keys == ["x", "refuse"] and listed is False and hidden == "function"


def test_run_code_gives_the_script_the_users_zone_and_today_there(mcp, mcp_services, fresh_user):
    # Through tools/call: the zone comes from the user's todo settings, "today" is the date there.
    user = fresh_user()
    client = mcp(scopes="todo:read", user=user)
    client.ok("list_todos")  # the first todo call creates the user's todo settings
    mcp_services.items.update(Update(key=todo_keys.settings_key(user["id"]), set={"timezone": "Pacific/Kiritimati"}))
    data = client.ok("run_code", {"code": "return mesq.context"})
    context = data["result"]
    assert set(context) == {"timeZone", "timeZoneSet", "today", "now"} and context["timeZone"] == "Pacific/Kiritimati"
    assert context["timeZoneSet"] is True  # a boolean, as get_context gives it
    now = datetime.fromisoformat(context["now"].replace("Z", "+00:00"))
    # UTC+14: the date there is a day ahead of UTC for 14 hours of every day
    assert context["today"] == now.astimezone(ZoneInfo("Pacific/Kiritimati")).date().isoformat()
    assert client.ok("get_context")["timeZone"] == context["timeZone"]  # the same source
    assert "context" not in {tool["name"] for tool in client.tools()}  # mesq.context shadows no tool


def test_run_code_says_what_a_call_answers_as_a_script_gets_it(mcp):
    # "gives that tool's {data}" beside search_tools' `(args) => {memo: ...}` read as the data
    # itself: an agent wrote `(await mesq.create_memo(...)).memo.id`, and its batch stopped with a
    # TypeError after the first write. The description names the envelope's keys, the real ones.
    client = mcp(scopes="memo:read")
    described = next(tool for tool in client.tools() if tool["name"] == "run_code")["description"]
    said = re.search(r"`await mesq\.<tool>\(args\)` answers \{([\w, ]+)\}", described)
    assert said is not None, described
    keys = client.ok("run_code", {"code": "return Object.keys(await mesq.list_tags({}))"})["result"]
    assert sorted(said.group(1).split(", ")) == sorted(keys) == ["data", "traceId"]
    assert "(data: as search_tools' signature says)" in described


def test_a_batch_logs_one_line_per_run_of_like_calls_not_one_per_call(mcp):
    # A 110-call batch answered 110 lines of `create_memo ok 1ms write`: ~3 KB the model reads for
    # nothing, out of the quarter of maxOutputChars the log may take from the result.
    client = mcp(scopes="memo:read,memo:write")
    code = """
      for (let i = 0; i < 40; i++) await mesq.list_tags({});
      await mesq.get_memo({id: 'gone'}, {results: true});
      for (let i = 0; i < 3; i++) await mesq.list_tags({});
      return 1
    """
    data = client.ok("run_code", {"code": code, "maxCalls": 50})
    assert len(data["log"]) == 3, data["log"]
    assert re.fullmatch(r"list_tags ok \d+(-\d+)?ms x40", data["log"][0]), data["log"]
    assert data["log"][1].startswith("get_memo NOT_FOUND ") and " x" not in data["log"][1]
    assert re.fullmatch(r"list_tags ok \d+(-\d+)?ms x3", data["log"][2]) and "logDropped" not in data


def test_run_code_answers_unknown_names_as_not_found_and_serialises_lone_surrogates(mcp):
    """Through tools/call: a name too long for a tool, an empty one and one with a lone surrogate
    are each NOT_FOUND like a short unknown name, and a lone surrogate sent to a tool, thrown or
    returned comes back as U+FFFD in an answer that serialises."""
    client = mcp(scopes="memo:read")
    code = """
      const codes = [];
      for (const name of ['x'.repeat(101), '', '\\ud800', 'xyz']) {
        try { await mesq[name]({}); codes.push('ok'); } catch (e) { codes.push(e.code); }
      }
      const lookup = await mesq.get_memo({id: 'm\\ud800'}, {results: true});
      return {codes, lookup: lookup.error.code, odd: '\\udc00'};
    """
    data = client.ok("run_code", {"code": code})
    assert data["result"]["codes"] == ["NOT_FOUND"] * 4 and data["result"]["odd"] == "\ufffd", data
    assert "thrown" not in data and "budget" not in data
    thrown = client.ok("run_code", {"code": "throw new Error('\\ud800')"})
    assert thrown["thrown"] == "Error: \ufffd" and "budget" not in thrown


@pytest.mark.timing
def test_run_code_reports_a_50_mb_result_as_the_output_budget_at_once(mcp):
    """Through tools/call, as the outside sweep sent it (before: the whole 10 s, then `budget.kind:
    "time"` and no result)."""
    client = mcp(scopes="memo:read")
    started = time.monotonic()
    data = client.ok("run_code", {"code": "return 'x'.repeat(50_000_000)", "timeoutMs": 10_000, "memoryMb": 128})
    took = time.monotonic() - started
    assert data["budget"] == {"kind": "output", "used": 50_000_002, "limit": 25_000} and took < 5, (data, took)
    assert data["truncated"] is True and data["result"] is None and "thrown" not in data
    assert client.ok("run_code", {"code": "return 'after'"})["result"] == "after"


def test_runs_from_different_event_loops_reuse_one_worker(pool):
    pids = []
    for _ in range(3):  # asyncio.run: a new loop each time, like Mangum's invocations
        asyncio.run(go("return 1"))
        pids.append(next(iter(w.process.pid for w in pool._idle if w.ready)))
    assert len(set(pids)) == 1


def test_replacing_json_array_object_and_promise_cannot_forge_the_bridge(pool):
    code = """
      JSON.stringify = () => '{"calls":[[0,"' + 'x'.repeat(1e6) + '","{}"]],"done":false,"kept":false}';
      JSON.parse = () => ({forged: true});
      Array.prototype.push = () => { throw new Error('no'); };
      Object.defineProperty(Object.prototype, 'toJSON', {value: () => 'forged', configurable: true});
      Promise.prototype.then = function () { return this; };
      const r = await mesq.x({n: 2});
      return r.data.tool + "|" + r.data.args;
    """
    outcome = asyncio.run(go(code))
    # The script's own toJSON still shapes its own values (its arguments); the frames stay genuine.
    assert outcome.thrown is None and outcome.result_json == '"x|forged"'


def test_a_checkpoint_before_a_cpu_loop_survives_the_time_stop(pool):
    first = asyncio.run(go("checkpoint({step: 1}); for (;;) {}", timeout_s=0.5))
    assert first.stopped == "time" and json.loads(first.result_json) == {"step": 1}
    # Its calls must start within the wall time (none starts after it): room for a loaded machine.
    later = asyncio.run(go("await mesq.x({}); checkpoint({step: 2}); await mesq.x({}); for (;;) {}", timeout_s=2))
    assert later.stopped == "time" and json.loads(later.result_json) == {"step": 2}


def test_a_memory_stop_after_an_await_is_a_memory_stop(pool):
    code = "await mesq.x({}); const a = []; for (;;) a.push(new Array(10000).fill(1.5));"
    outcome = asyncio.run(go(code, memory_mb=16))
    assert outcome.stopped == "memory"
    huge = asyncio.run(go("const a = new Array(2**27); a.fill(0.5); return a.length", memory_mb=16, timeout_s=3))
    assert huge.stopped == "memory" and huge.result_json is None
    assert asyncio.run(go("return 'after'")).result_json == '"after"'  # a fresh worker answers


def test_a_worker_killed_mid_run_answers_cleanly_and_is_replaced(pool):
    # Other tests' servers and pools are children of this process too: only this run's new worker counts.
    before = set(_children_pids())

    async def body() -> Any:
        task = asyncio.create_task(go("for (;;) {}", timeout_s=10))
        for _ in range(200):
            await asyncio.sleep(0.05)
            if pool._busy == 1 and pool._idle:
                break
        spare = {worker.process.pid for worker in pool._idle}
        killed = [pid for pid in _children_pids() if pid not in spare and pid not in before]
        assert len(killed) == 1  # the worker running the loop
        os.kill(killed[0], signal.SIGKILL)
        started = time.monotonic()
        outcome = await task
        return outcome, time.monotonic() - started

    outcome, waited = asyncio.run(body())
    assert outcome.stopped == "memory" and "sandbox process" in outcome.thrown and waited < 5
    assert asyncio.run(go("return 3")).result_json == "3"


def _children_pids() -> list[int]:
    me = os.getpid()
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                pids.append(int(entry))
    return pids


def test_a_user_beyond_their_share_waits_then_is_rate_limited_while_another_user_runs(pool):
    async def body() -> tuple[list[Any], float, Any]:
        mine = [asyncio.create_task(go("for (;;) {}", timeout_s=3)) for _ in range(3)]
        await asyncio.sleep(0.1)
        started = time.monotonic()
        other = await go("return 1", user="u2")
        other_s = time.monotonic() - started
        results = await asyncio.gather(*mine, return_exceptions=True)
        return results, other_s, other

    results, other_s, other = asyncio.run(body())
    refused = [r for r in results if isinstance(r, RateLimited)]
    assert len(refused) == 1 and refused[0].retry_after_seconds >= 1
    assert "at most 2 run_code runs per user" in refused[0].message
    assert sum(1 for r in results if not isinstance(r, BaseException) and r.stopped == "time") == 2
    assert other.result_json == "1" and other_s < 3


def test_cutting_is_depth_limited_and_linear_on_large_results(monkeypatch: pytest.MonkeyPatch):
    """Linear, counted rather than timed (a wall-clock bound fails on a loaded machine): the
    characters the cut measures stay within a small multiple of the value's own JSON, where
    re-measuring each subtree would cost depth x size on the deep value. The depth limit holds
    over what the cut walks (what is cut away is never returned)."""
    deep: Any = 1
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(TooDeep):
        truncate(deep, 25_000)
    shallow: Any = "leaf"
    for _ in range(MAX_DEPTH - 1):
        shallow = {"k": shallow, "pad": "p" * 50}
    wide = [{"i": i, "text": "x" * 40} for i in range(200_000)]
    measured = [0]
    scalar_size = cutting._scalar_size

    def counting(value: Any) -> int:
        size = scalar_size(value)
        measured[0] += size
        return size

    monkeypatch.setattr(cutting, "_scalar_size", counting)
    for value, limit in ((shallow, 1000), (wide, 25_000)):
        measured[0] = 0
        cut, truncated = truncate(value, limit)
        assert truncated and len(compact(cut)) <= limit
        assert measured[0] <= 3 * min(limit, len(compact(value))), (measured[0], len(compact(value)))


def test_lone_surrogates_leave_the_worker_as_replacement_characters(pool):
    """JavaScript strings may hold a lone surrogate, which UTF-8 cannot carry: it arrives as
    U+FFFD in a result, a checkpoint, a thrown value and a tool name, and the run is reported for
    what it did (before: a memory stop, a time stop at the full budget, `UnicodeEncodeError`)."""
    returned = asyncio.run(go("return ['\\ud800', {k: 'a\\udc00'}, '\\ud83d\\ude00']"))
    assert returned.stopped is None and json.loads(returned.result_json) == ["\ufffd", {"k": "a\ufffd"}, "\U0001f600"]
    started = time.monotonic()
    thrown = asyncio.run(go("throw '\\ud800'", timeout_s=10))
    assert thrown.thrown == "\ufffd" and thrown.stopped is None and time.monotonic() - started < 5
    error = asyncio.run(go("throw new Error('\\udc00')"))
    assert error.thrown == "Error: \ufffd" and error.stopped is None
    kept = asyncio.run(go("checkpoint({k: '\\ud800'}); for (;;) {}", timeout_s=0.5))
    assert kept.stopped == "time" and json.loads(kept.result_json) == {"k": "\ufffd"}
    named = asyncio.run(go("return (await mesq['\\ud800']({a: '\\udc00'})).data"))
    assert named.thrown is None and json.loads(named.result_json) == {"tool": "\ufffd", "args": {"a": "\ufffd"}}


def test_an_unknown_tool_name_of_any_length_reaches_the_server_as_unknown(pool):
    """A name too long for a tool (or empty) is simply no tool: the server answers NOT_FOUND for
    it like any other, never a tampered bridge. A long name crosses cut, ending in an ellipsis no
    tool name has."""
    outcome = asyncio.run(go("return [(await mesq['x'.repeat(1e5)]({})).data.tool, (await mesq['']({})).data.tool]"))
    long_name, empty = json.loads(outcome.result_json)
    assert outcome.thrown is None and empty == ""
    assert long_name == "x" * 99 + "\u2026"


def test_an_error_whose_properties_throw_is_reported_as_thrown(pool):
    name_throws = "const e = new Error('m'); Object.defineProperty(e, 'name', {get() { throw 1; }}); throw e"
    assert asyncio.run(go(name_throws)).thrown == "Error: m"
    both_throw = "const e = new Error('m'); Object.defineProperty(e, 'message', {get() { throw 1; }}); throw e"
    assert asyncio.run(go(both_throw)).thrown == "Error: (its message cannot be read)"
    to_string_throws = "throw {toString() { throw 1; }}"
    assert asyncio.run(go(to_string_throws)).thrown == "(a value that cannot be shown as text)"


def test_setters_on_error_prototype_do_not_break_a_failed_call(pool):
    """The bridge gives a ToolError and a BudgetExceeded their own properties: a setter the script
    put on Error.prototype never runs (before: `the sandbox failed: JSEvalException`)."""
    code = """
      for (const key of ['code', 'name', 'details', 'traceId']) {
        Object.defineProperty(Error.prototype, key, {set() { throw new Error('x'); }, get() { return 'p'; }});
      }
      const seen = [];
      try { await mesq.broken({}); } catch (e) { seen.push(e.name, e.code, e.message, e.traceId); }
      try { await mesq.refuse({}); } catch (e) { seen.push(e.name, e.message); }
      return seen;
    """
    outcome = asyncio.run(go(code))
    assert outcome.thrown is None, outcome.thrown
    assert json.loads(outcome.result_json) == [
        "ToolError", "NOT_FOUND", "broken: NOT_FOUND: no such record", "t", "BudgetExceeded", "no more",
    ]  # fmt: skip


def test_a_large_result_is_cut_quickly_and_reported_whole(pool):
    """A million integers returned under a 5 s budget: the cut walks only what it keeps (before:
    ~2 us a scalar over the whole array, past the budget: a time stop with no result)."""
    outcome = asyncio.run(go("return Array.from({length: 1e6}, (_, i) => i)", timeout_s=5, out=250))
    assert outcome.stopped is None and outcome.truncated
    assert json.loads(outcome.result_json) == list(range(len(json.loads(outcome.result_json))))
    assert outcome.size > 6_000_000


def test_an_oversize_result_thrown_value_or_checkpoint_is_bounded_in_v8_and_answers_at_once(pool):
    """50 MB returned, thrown or checkpointed: only its length and what the cut can keep leave V8
    (before: converting the whole string in the worker, under its 768 MB data limit, raised a
    MemoryError inside mini-racer's callback and the run waited out its 10 s as a time stop).
    Each run is timed alone, on a worker already up and with no spare booting beside it (`_warm`)."""
    alone, took = _timed(pool, "return 'x'.repeat(50_000_000)", timeout_s=10, memory_mb=128)
    assert alone.stopped is None and alone.truncated and alone.size == 50_000_002 and took < 4, (alone, took)
    assert alone.result_json == "null"  # a lone scalar over the budget, as the cut says
    # Under 64 MB the string and its JSON (100 MB) pass the heap limit: a memory stop, never time.
    small, small_took = _timed(pool, "return 'x'.repeat(50_000_000)", timeout_s=10, memory_mb=64)
    assert small.stopped in (None, "memory") and small_took < 4, (small, small_took)
    rows = "return {head: 1, rows: ['r1', 'r2', 'x'.repeat(50_000_000)], tail: 2}"
    kept, kept_took = _timed(pool, rows, timeout_s=10, memory_mb=128, out=1000)
    assert json.loads(kept.result_json) == {"head": 1, "rows": ["r1", "r2"]} and kept.truncated
    assert kept.stopped is None and kept.size > 50_000_000
    thrown, thrown_took = _timed(pool, "throw new Error('y'.repeat(50_000_000))", timeout_s=10, memory_mb=128)
    assert thrown.stopped is None and thrown.thrown.startswith("Error: yyy") and len(thrown.thrown) <= 1_000
    code = "checkpoint(['k', 'x'.repeat(30_000_000)]); await mesq.x({}); for (;;) {}"
    stopped, stopped_took = _timed(pool, code, timeout_s=1, memory_mb=128)
    assert stopped.stopped == "time" and json.loads(stopped.result_json) == ["k"] and stopped.truncated
    assert took + small_took + kept_took + thrown_took + stopped_took < 15
    assert asyncio.run(go("return 'after'")).result_json == '"after"'
    assert pool.stats()["busy"] == 0


def _timed(pool: pool_module.Pool, code: str, **limits: Any) -> tuple[sandbox.Outcome, float]:
    """One run of `code` and its wall time, started once `_warm` has the pool ready."""
    asyncio.run(_warm(pool))
    started = time.monotonic()
    outcome = asyncio.run(go(code, **limits))
    return outcome, time.monotonic() - started


async def _warm(pool: pool_module.Pool) -> None:
    """Two idle workers with V8 loaded: the timed run takes one and, one still idle, the pool
    starts no spare beside it. Before, the first run's time held a worker's start (V8 loaded
    from disk) and every run shared the CPU with the spare booting beside it: 4.3 s for a run
    that takes ~1 s on a loaded 2-core machine."""
    await asyncio.gather(go("return 1"), go("return 1"))
    for worker in list(pool._idle):
        await worker.start()


#: Runs worker.run_one in a process of its own (V8 never loads into the test process) with a
#: MemoryError injected where mini-racer converts the result for Python, then where the worker
#: parses a poll; prints each end and how long it took.
_MEMORY_ERROR_PROBE = """
import json, sys, time
from mesq.mcp.code import worker
from py_mini_racer import _objects

convert = _objects.ObjectFactoryImpl.value_handle_to_python

def failing(self, context, handle):
    value = convert(self, context, handle)
    if isinstance(value, str) and value[:1].isdigit():  # the result, as the bridge sizes it
        raise MemoryError
    return value

class Channel:
    def send(self, message): pass
    def receive(self): return {"answers": []}

job = {"timeoutMs": 5000, "maxOutputChars": 1000, "memoryBytes": 32 << 20, "reach": [], "known": [],
       "context": {}, "source": "return 42"}
_objects.ObjectFactoryImpl.value_handle_to_python = failing
started = time.monotonic()
print(json.dumps([worker.run_one(job, Channel()), time.monotonic() - started]))
_objects.ObjectFactoryImpl.value_handle_to_python = convert

def no_memory(text):
    raise MemoryError
worker._state = no_memory
started = time.monotonic()
print(json.dumps([worker.run_one(job, Channel()), time.monotonic() - started]))
"""


@pytest.mark.timing
def test_a_memory_error_in_the_worker_is_a_memory_stop_at_once():
    """A MemoryError while mini-racer converts a value (before: raised in its event loop's
    callback, the evaluation waited out the 5 s and read as a time stop) or in the worker's own
    Python (before: `the sandbox failed`) is a memory stop, answered at once, and retires the
    worker."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "layers" / "core"), str(REPO)])}
    result = subprocess.run(
        [sys.executable, "-c", _MEMORY_ERROR_PROBE], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (converting, converting_s), (parsing, parsing_s) = (json.loads(line) for line in result.stdout.splitlines()[-2:])
    assert converting == {"stopped": "memory", "retire": True} and converting_s < 2.5, (converting, converting_s)
    assert parsing == {"stopped": "memory", "retire": True} and parsing_s < 2.5, (parsing, parsing_s)


def test_only_the_complete_part_of_a_prefix_is_kept_and_cut_like_the_whole():
    """`whole_prefix`: what crosses of a too-large result is cut to what the whole would give,
    whatever character the prefix ends at, once it is as long as the sandbox lets it be."""
    import random

    from mesq.mcp.code.cutting import whole_prefix
    from mesq.mcp.code.worker import crossing_chars

    assert whole_prefix('{"a":1,"rows":[1,2,{"x":"y') == {"a": 1, "rows": [1, 2]}
    assert whole_prefix("[[1,2],[3") == [[1, 2]] and whole_prefix('["a\\"]","b') == ['a"]']
    assert whole_prefix("[1,2,34") == [1, 2]  # 34 may go on
    assert whole_prefix('{"a":"b') == {} and whole_prefix('{"a":[1],"b":1') == {"a": [1]}
    assert whole_prefix('"abc') is None

    def value(rng: random.Random, depth: int = 0) -> Any:
        pick = rng.random()
        if depth > 3 or pick < 0.4:
            return rng.choice([1, -2.5, 1e-7, 123456, 's"x\\', "长文", None, True, "\U0001f600", "\x01"])
        if pick < 0.7:
            return [value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
        return {f"k{i}": value(rng, depth + 1) for i in range(rng.randint(0, 5))}

    def like_v8(whole: Any) -> str:  # JSON.stringify's text
        return json.dumps(whole, ensure_ascii=False, separators=(",", ":")).replace("1e-07", "1e-7")

    rng = random.Random(7)
    checked = 0
    for _ in range(20):
        whole = {"head": value(rng), "rows": [value(rng) for _ in range(rng.randint(20, 80))], "tail": value(rng)}
        text = like_v8(whole)
        for limit in (100, 250):
            expected, _ = truncate(whole, limit)
            for end in range(crossing_chars(limit), min(len(text), crossing_chars(limit) + 1_000), 7):
                cut, _ = truncate(whole_prefix(text[:end]), limit)
                assert cut == expected, (text, end, limit)
                checked += 1
    assert checked > 1_000
    # Lone surrogates are wider in V8's text than after the cut: cut shorter, never wrongly.
    lone = ["\ud800" * 40] * 50
    text = json.dumps(lone, separators=(",", ":"))
    kept = whole_prefix(text[: crossing_chars(300)])
    assert kept and kept == lone[: len(kept)]


def test_the_cut_walks_only_what_it_keeps(monkeypatch: pytest.MonkeyPatch):
    """Counted rather than timed: the cut measures at most one scalar a kept character (and one
    past the cap), whatever the size of what it leaves out."""
    measured = [0]
    scalar_size = cutting._scalar_size

    def counting(value: Any) -> int:
        measured[0] += 1
        return scalar_size(value)

    monkeypatch.setattr(cutting, "_scalar_size", counting)
    many = list(range(1_000_000))
    keyed = {f"k{i}": i for i in range(300_000)}
    nested = {"page": {"n": 1}, "rows": [{"id": i, "tags": ["a", "b"]} for i in range(200_000)]}
    for value in (many, keyed, nested):
        measured[0] = 0
        cut, truncated = truncate(value, 25_000)
        assert truncated and 24_000 < len(compact(cut)) <= 25_000
        assert measured[0] <= 25_000, measured[0]


def test_a_too_deep_result_is_a_clean_report(pool):
    deep = "let a = []; let x = a; for (let i = 0; i < 1000; i++) { x.push([]); x = x[0]; } return a"
    outcome = asyncio.run(go(deep))
    assert outcome.result_json is None and "nests deeper than" in outcome.thrown


class _Stub:
    """Stands in for a worker process where only the pool's bookkeeping is under test."""

    runs = 0
    waited_s = 0.0
    alive = True
    ready_rss = 0

    def rss_bytes(self) -> int:
        return 0

    def kill(self) -> None:
        self.alive = False


def test_a_freed_worker_goes_to_the_queued_user_holding_the_fewest(monkeypatch: pytest.MonkeyPatch):
    """Two workers: u1 and u2 hold one each; u1 queues for a second, then u3 for a first. When u2
    lets go the worker goes to u3 (none held), though u1 asked first; u1 is refused when its queue
    time ends (the pool is full). No process is started: `_ready_worker` hands out stubs."""
    fair = pool_module.Pool(size=2, per_user=2, queue_s=0.3, kept_free=1)

    async def stub() -> _Stub:
        return _Stub()

    monkeypatch.setattr(fair, "_ready_worker", stub)
    monkeypatch.setattr(fair, "_start_spare", lambda: None)

    async def body() -> tuple[list[str], Any]:
        order: list[str] = []
        first = await fair.acquire("u1", time.monotonic() + 10)
        second = await fair.acquire("u2", time.monotonic() + 10)

        async def wants(user: str) -> Any:
            try:
                worker = await fair.acquire(user, time.monotonic() + 10)
            except RateLimited as refused:
                return refused
            order.append(user)
            return worker

        u1_again = asyncio.create_task(wants("u1"))
        await asyncio.sleep(0.01)
        u3 = asyncio.create_task(wants("u3"))
        await asyncio.sleep(0.01)
        fair.release(second, "u2", 0.0, reusable=True)
        await u3
        refused = await u1_again
        fair.release(first, "u1", 0.0, reusable=True)
        return order, refused

    order, refused = asyncio.run(body())
    assert order == ["u3"]
    assert isinstance(refused, RateLimited) and refused.message.startswith("every sandbox is busy; retry after")


def test_no_call_starts_after_the_runs_wall_time(pool):
    """A batch of slow calls awaited together: the calls left when the wall time runs out are
    refused unrun, and the checkpoint stands. Before: every call of the batch ran, one after the
    other, past the wall time and past the kill's grace (a 1 s run took 4.8 s and started 12 of
    its 16 calls late), and the checkpoint was lost."""
    starts: list[float] = []

    async def slow(name: str, arguments: str) -> str:
        starts.append(time.monotonic())
        await asyncio.sleep(0.3)
        return json.dumps({"data": 1})

    async def body() -> tuple[sandbox.Outcome, float]:
        await _warm(pool)
        started = time.monotonic()
        outcome = await run_program(
            "checkpoint('before'); await Promise.all(Array.from({length: 16}, () => mesq.x({}))); return 'all'",
            user="u1", reach=["x"], known=["x"], context=CONTEXT, host=slow,
            frame_full=lambda name, used, limit: "full", timeout_s=1, memory_bytes=32 << 20, max_output_chars=1000,
        )  # fmt: skip
        assert all(start - started < 1.0 for start in starts), [round(start - started, 2) for start in starts]
        return outcome, time.monotonic() - started

    outcome, took = asyncio.run(body())
    assert len(starts) <= 4 and took < 1.0 + sandbox.GRACE_S, (len(starts), took)
    assert outcome.stopped == "time" and outcome.result_json == '"before"', outcome


def test_a_checkpoint_read_before_a_memory_stop_is_the_result(pool):
    """docs/contract.md §11: on a memory stop `result` is the last checkpoint. The worker had read
    it at the call (it was already in Python) and dropped it at the stop: no result at all."""
    code = "checkpoint({step: 1}); await mesq.x({}); const a = []; for (;;) a.push(new Array(10000).fill(1.5));"
    outcome = asyncio.run(go(code, memory_mb=16))
    assert outcome.stopped == "memory" and outcome.result_json is not None, outcome
    assert json.loads(outcome.result_json) == {"step": 1}
    assert asyncio.run(go("return 'after'")).result_json == '"after"'  # a fresh worker answers


def test_a_checkpoint_made_after_the_last_call_is_the_result_of_a_memory_stop(pool):
    """docs/contract.md §11: on a memory stop `result` is the last checkpoint the script made,
    also one made after its last call (or with no call at all), which the worker had not read
    yet. Before: the worker read checkpoints only at a call, so the result was the previous one
    (`{step: 1}`) or none."""
    grow = "const a = []; for (;;) a.push(new Array(10000).fill(1.5));"
    code = "checkpoint({step: 1}); await mesq.x({}); checkpoint({step: 2}); " + grow
    after_a_call = asyncio.run(go(code, memory_mb=16))
    assert after_a_call.stopped == "memory" and after_a_call.result_json == '{"step":2}', after_a_call
    no_call = asyncio.run(go("checkpoint({step: 'only'}); " + grow, memory_mb=16))
    assert no_call.stopped == "memory" and no_call.result_json == '{"step":"only"}', no_call
    # Memory the script still holds (a global) when it is stopped: the checkpoint is read all the same.
    held = "globalThis.kept = []; await mesq.x({}); checkpoint({step: 3}); "
    holding = asyncio.run(go(held + "for (;;) kept.push(new Array(10000).fill(1.5));", memory_mb=16))
    assert holding.stopped == "memory" and holding.result_json == '{"step":3}', holding
    assert asyncio.run(go("return 'after'")).result_json == '"after"'  # a fresh worker answers


def test_answers_a_script_does_not_keep_do_not_use_up_its_memory(pool):
    """Forty 1 MB answers awaited one after another and dropped fit a 16 MB heap. Before, each
    answer was compiled into the source of the evaluation that settles it, and V8's compilation
    cache kept every such source: the 11th answer was a memory stop (the 8th of 5 MB under 64 MB;
    on `mesq serve`, a loop reading one 10 MB attachment stopped at its 6th read under 128 MB)."""
    answer = json.dumps({"data": {"content": "y" * 1_000_000}})

    async def large(name: str, arguments: str) -> str:
        return answer

    code = "let n = 0; for (let i = 0; i < 40; i++) n += (await mesq.x({})).data.content.length; return n"

    async def body() -> sandbox.Outcome:
        return await run_program(
            code, user="u1", reach=["x"], known=["x"], context=CONTEXT, host=large,
            frame_full=lambda name, used, limit: "full", timeout_s=20, memory_bytes=16 << 20, max_output_chars=1000,
        )  # fmt: skip

    outcome = asyncio.run(body())
    assert outcome.stopped is None and outcome.result_json == str(40 * 1_000_000), outcome


def test_a_large_answer_is_encoded_in_slices_as_a_whole_would_be(monkeypatch):
    """`answer_bytes` (a large answer's frame entry, built off the event loop a slice at a time)
    is byte for byte what the frame's compact JSON of `[id, true, text]` is: quotes, backslashes,
    controls, non-ASCII, characters outside the BMP at a slice's edge, a lone surrogate."""
    monkeypatch.setattr(sandbox, "ENCODE_SLICE_CHARS", 7)
    text = 'a"b\\c\n\x01é中😀' * 5 + "\ud800" + json.dumps({"data": {"blob": "QUJD" * 10, "t": "x😀y"}})
    for cut in range(len(text)):
        sample = text[cut:]
        assert sandbox.answer_bytes(12, sample) == compact([12, True, sample]).encode("utf-8"), cut


_GROW_HELD = "for (;;) kept.push(new Array(10000).fill(1.5));"


@pytest.mark.parametrize("memory_mb", [16, 64, 128])
def test_the_last_checkpoint_is_the_result_of_a_memory_stop_at_every_budget(pool, memory_mb):
    """docs/contract.md §11: a memory stop's result is the last checkpoint, at every budget,
    made before the last call or after it, while the script holds its memory. Before: at 128 MB
    the worker died (V8 passed the process's 768 MB data limit before its own heap limit stopped
    the script, and the checkpoint lived only in the worker): `the sandbox process ran out of
    memory` with no result. Now the server keeps each checkpoint as it is made, and the data limit
    leaves V8 room to stop the script itself (no `thrown`: the worker reported the stop)."""
    before = asyncio.run(
        go("globalThis.kept = []; checkpoint({step: 1}); await mesq.x({}); " + _GROW_HELD, memory_mb=memory_mb)
    )
    assert before.stopped == "memory" and before.result_json == '{"step":1}', before
    after = asyncio.run(
        go("globalThis.kept = []; await mesq.x({}); checkpoint({step: 2}); " + _GROW_HELD, memory_mb=memory_mb)
    )
    assert after.stopped == "memory" and after.result_json == '{"step":2}', after
    assert before.thrown is None and after.thrown is None, (before, after)
    assert asyncio.run(go("return 'after'")).result_json == '"after"'  # a fresh worker answers


def test_a_worker_killed_with_sigkill_still_answers_its_last_checkpoint(pool):
    """The server keeps each checkpoint as the script makes it, so a worker that dies of any
    cause still yields the last one, here one made after the last call and before a CPU loop
    (which the worker itself could not read: the loop holds V8), with a stop that says so.
    Before: no result at all."""
    before = set(_children_pids())
    calls: list[float] = []

    async def noting(name: str, arguments: str) -> str:
        calls.append(time.monotonic())
        return json.dumps({"data": 1})

    async def body() -> sandbox.Outcome:
        task = asyncio.create_task(
            run_program(
                "checkpoint({step: 1}); await mesq.x({}); checkpoint({step: 2, big: 'y'.repeat(500)}); for (;;) {}",
                user="u1",
                reach=["x"],
                known=["x"],
                context=CONTEXT,
                host=noting,
                frame_full=lambda name, used, limit: "full",
                timeout_s=10,
                memory_bytes=32 << 20,
                max_output_chars=1000,
            )
        )
        for _ in range(200):
            await asyncio.sleep(0.05)
            if calls and time.monotonic() - calls[0] > 0.5:
                break
        spare = {worker.process.pid for worker in pool._idle}
        killed = [pid for pid in _children_pids() if pid not in spare and pid not in before]
        assert len(killed) == 1
        os.kill(killed[0], signal.SIGKILL)
        return await asyncio.wait_for(task, 5)

    outcome = asyncio.run(body())
    assert outcome.stopped == "memory" and json.loads(outcome.result_json) == {"step": 2, "big": "y" * 500}, outcome
    assert outcome.thrown is not None and "SIGKILL" in outcome.thrown, outcome
    assert asyncio.run(go("return 3")).result_json == "3"


def test_checkpoints_in_a_tight_loop_reach_the_server_rate_limited_and_the_last_one_wins(pool, monkeypatch):
    """A script that checkpoints 20,000 times sends a burst, then at most CHECKPOINTS_PER_S a
    second (the server never decodes a frame per call), and the last one is the result."""
    from mesq.mcp.code import worker as worker_module

    taken: list[Any] = []
    take = sandbox._Kept.take

    def counting(self: Any, kept: Any) -> None:
        taken.append(kept)
        take(self, kept)

    monkeypatch.setattr(sandbox._Kept, "take", counting)
    started = time.monotonic()
    outcome = asyncio.run(go("for (let i = 0; i < 20000; i++) checkpoint(i); for (;;) {}", timeout_s=1))
    took = time.monotonic() - started
    assert outcome.stopped == "time" and outcome.result_json == "19999", outcome
    most = worker_module.CHECKPOINT_BURST + took * worker_module.CHECKPOINTS_PER_S + 2
    assert len(taken) <= most, (len(taken), most)


def test_the_server_takes_only_a_well_formed_bounded_checkpoint_for_this_run():
    """What a worker sends as a checkpoint is checked on the server: anything but the worker's
    cut result (or its too-deep report), or a result longer than the crossing cap, ends the run
    as a misbehaving worker; a checkpoint is kept per run only."""
    kept = sandbox._Kept(100)
    kept.take({"result": "[1]", "truncated": False, "size": 3})
    too_long = {"result": "x" * (2 * 100 + 1025), "truncated": True, "size": 9}
    for forged in (
        [], {"result": 1, "truncated": False, "size": 3}, too_long,
        {"result": "1", "truncated": False, "size": 1, "user": "u2"}, {"thrown": 5}, {"result": "1"},
    ):  # fmt: skip
        with pytest.raises(pool_module.WorkerGone):
            kept.take(forged)
    assert kept.into(sandbox.Outcome(stopped="memory")).result_json == "[1]"
    assert kept.into(sandbox.Outcome(result_json='"returned"')).result_json == '"returned"'
    assert sandbox._Kept(100).into(sandbox.Outcome(stopped="memory")).result_json is None  # another run's is not there


def test_a_script_cannot_replace_the_checkpoint_channel(pool):
    """The bridge takes the worker's note function once, before the program runs: a script
    that attaches its own, or calls the bridge, changes nothing that is sent."""
    code = (
        "try { __mesqBridge.attach(() => { throw new Error('x'); }); } catch (e) {} "
        "checkpoint({mine: true}); globalThis.kept = []; " + _GROW_HELD
    )
    outcome = asyncio.run(go(code, memory_mb=16))
    assert outcome.stopped == "memory" and outcome.result_json == '{"mine":true}', outcome


def test_a_checkpoint_after_an_await_before_a_cpu_loop_survives_the_time_stop(pool):
    """The case docs/MCP/code-mode.md called lost: after an `await`, mini-racer runs the rest of
    the script outside the timed evaluation, so the worker cannot read anything from V8 after the
    stop. The checkpoint reached the server when it was made. Before: no result."""
    outcome = asyncio.run(go("await mesq.x({}); checkpoint({step: 3}); for (;;) {}", timeout_s=1))
    assert outcome.stopped == "time" and outcome.result_json == '{"step":3}', outcome
