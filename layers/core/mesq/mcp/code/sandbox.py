"""One JavaScript program in a fresh V8 isolate (PyPI `mini-racer`), driven from one thread.

The program never calls Python. A call to `mesq.<tool>(args)` queues `[id, name, argsJSON]` and
returns a promise; this module polls the queue between evaluations, asks `host` for each answer
(synchronously, on this thread) and settles the promise with the answer's JSON text, which runs
the program on to its next `await`. So nothing but JSON strings crosses the boundary, there is no
Python object the program could reach, and the only API used is `eval` with its timeout and hard
memory limit (mini-racer >= 0.14.1, see `MIN_VERSION`).

Before the program runs, the isolate loses what could outlive the run or escape the memory
limit: timers (mini-racer installs a `setTimeout`), `WebAssembly`, `Atomics` and every
`ArrayBuffer`-backed type (their memory is outside V8's heap, so the hard limit would not stop
them; measured: 2 GB resident under a 64 MB limit). V8 itself has no network, file or process
API. The import is lazy: only `run_code` pays for loading V8.
"""

from __future__ import annotations

import contextvars
import functools
import importlib.metadata
import importlib.util
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

#: Globals removed before the program runs (see the module docstring).
_REMOVED = (
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask", "WebAssembly", "Atomics",
    "SharedArrayBuffer", "ArrayBuffer", "DataView", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array",
    "Uint16Array", "Int32Array", "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array",
    "BigUint64Array",
)  # fmt: skip

_HARDEN = (
    f"for (const name of {json.dumps(_REMOVED)}) {{"
    " try { delete globalThis[name]; } catch (e) {}"
    " if (name in globalThis) Object.defineProperty(globalThis, name, {value: undefined, writable: false,"
    " configurable: false}); }"
)

#: The bridge: `mesq` (a Proxy whose own keys are the reachable tools; a known but hidden tool is
#: absent from it, yet calling it returns the error tools/call gives), `checkpoint(value)`, and
#: the three functions this module calls. Internals live in the closure, not on globalThis.
_PRELUDE = r"""
((reach, known) => {
  const pending = [], waiters = new Map();
  let next = 0, kept, done;
  const call = (name, args) => new Promise((resolve, reject) => {
    let text;
    try { text = JSON.stringify(args === undefined ? {} : args); } catch (e) { reject(e); return; }
    const id = next++;
    waiters.set(id, [resolve, reject]);
    pending.push([id, name, text === undefined ? "null" : text]);
  });
  const tools = Object.create(null);
  for (const name of reach) tools[name] = (args) => call(name, args);
  const hidden = new Set(known.filter((name) => !(name in tools)));
  globalThis.mesq = new Proxy(tools, {
    get: (target, name) => name in target ? target[name]
      : (typeof name === "string" && hidden.has(name) ? (args) => call(name, args) : undefined),
    set: () => false, defineProperty: () => false, deleteProperty: () => false,
  });
  globalThis.checkpoint = (value) => { kept = JSON.stringify(value); return value; };
  const finish = (state) => { if (done === undefined) done = state; };
  const run = (source) => {
    const AsyncFunction = (async () => {}).constructor;
    let program;
    try { program = new AsyncFunction(source); } catch (e) { finish({thrown: String(e)}); return; }
    program().then(
      (value) => { try { finish({json: value === undefined ? null : JSON.stringify(value)}); }
                   catch (e) { finish({thrown: String(e)}); } },
      (e) => finish({thrown: e instanceof Error ? `${e.name}: ${e.message}` : String(e)}));
  };
  const poll = () => JSON.stringify({calls: pending.splice(0), done: done ?? null, kept: kept ?? null});
  const settle = (id, ok, text) => {
    const waiter = waiters.get(id);
    waiters.delete(id);
    if (waiter === undefined) return;
    if (ok) waiter[0](JSON.parse(text));
    else { const error = new Error(text); error.name = "BudgetExceeded"; waiter[1](error); }
  };
  return {run, poll, settle};
})
"""

StopKind = Literal["time", "memory"]


class Refused(Exception):
    """Raised by `host` to reject one call instead of answering it (a budget was reached)."""


@dataclass
class Outcome:
    json_text: str | None = None  # what the program returned, as JSON (None: it did not return)
    thrown: str | None = None
    kept: str | None = None  # the last checkpoint(value), as JSON
    stopped: StopKind | None = None


Host = Callable[[str, str], str]  # (tool name, arguments JSON) -> the answer's JSON text


#: The oldest mini-racer whose timeout also stops code after an `await`: 0.12.4 (the last with
#: aarch64 wheels) runs promise continuations outside the timed evaluation, so `await x; for(;;){}`
#: could never be stopped. Without it (aarch64 builds) the code tools are not offered.
MIN_VERSION = (0, 14, 1)

#: Every isolate lives on this one thread: mini-racer 0.12.4 crashed the process (SIGSEGV) when
#: isolates were used from more than one thread, so runs in one process take turns (a tool call
#: from a script runs here too).
_V8_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mesq-v8")


def available() -> bool:
    """Whether a mini-racer that enforces every budget is installed (read without importing V8)."""
    if importlib.util.find_spec("py_mini_racer") is None:
        return False
    try:
        parts = tuple(int(part) for part in importlib.metadata.version("mini-racer").split(".")[:3])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return parts >= MIN_VERSION


def run_program(source: str, *, reach: list[str], known: list[str], host: Host, timeout_s: float,
                memory_bytes: int) -> Outcome:  # fmt: skip
    """Run `source` (the body of an async function) until it settles, throws or hits the wall
    time (`timeout_s`, host calls included) or `memory_bytes`, on the V8 thread (the caller's
    context variables, e.g. log keys, go with it)."""
    context = contextvars.copy_context()
    job = functools.partial(_run, source, reach, known, host, time.monotonic() + timeout_s, memory_bytes)
    return _V8_THREAD.submit(context.run, job).result()


def _run(source: str, reach: list[str], known: list[str], host: Host, deadline: float, memory_bytes: int) -> Outcome:
    from py_mini_racer import JSOOMException, JSTimeoutException, MiniRacer  # lazy: V8 loads here

    outcome = Outcome()
    racer = MiniRacer()
    try:
        racer.set_hard_memory_limit(memory_bytes)

        def evaluate(code: str) -> Any:
            left = deadline - time.monotonic()
            if left <= 0:
                raise JSTimeoutException()
            return racer.eval(code, timeout_sec=left)

        try:
            evaluate(_HARDEN)
            evaluate(f"globalThis.__mesq = ({_PRELUDE})({json.dumps(reach)}, {json.dumps(known)}); 0")
            # Fixed before the program starts: it cannot replace the functions this loop calls.
            evaluate("(() => { const b = Object.freeze(globalThis.__mesq); delete globalThis.__mesq;"
                     " Object.defineProperty(globalThis, '__mesqBridge', {value: b}); return 0; })()")  # fmt: skip
            evaluate(f"__mesqBridge.run({json.dumps(source)}); 0")
            while True:
                state = json.loads(str(evaluate("__mesqBridge.poll()")))
                outcome.kept = state.get("kept")
                done = state.get("done")
                if done is not None:
                    outcome.json_text = done.get("json")
                    outcome.thrown = done.get("thrown")
                    break
                if not state["calls"]:
                    outcome.thrown = "the program awaits a promise that never settles (there are no timers)"
                    break
                for call_id, name, arguments in state["calls"]:
                    try:
                        answer, ok = host(str(name), str(arguments)), "true"
                    except Refused as refused:
                        answer, ok = str(refused), "false"
                    evaluate(f"__mesqBridge.settle({int(call_id)}, {ok}, {json.dumps(answer)}); 0")
        except JSTimeoutException:
            outcome.stopped = "time"
        except JSOOMException:
            outcome.stopped = "memory"
    finally:
        racer.close()
    return outcome
