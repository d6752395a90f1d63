"""The sandbox worker process: runs one JavaScript program at a time in a fresh V8 isolate
(PyPI `mini-racer`), talking to the server over its stdin/stdout (pool.py starts it).

Run by path (`python worker.py <data limit bytes>`), so it imports nothing of MeSQ but
`cutting.py`, `memory.py` and `confinement.py` beside it, and nothing but the standard library,
V8 and the seccomp binding: no store, no secret, no open file of the server reaches it (a clean
environment, `close_fds`). Once V8 is loaded it confines itself (confinement.py: another user
when started as root, no new privileges, no file writes, a syscall filter). A script that
exhausts memory, crashes V8 or never yields ends this process, never the server's.

Protocol: frames of a 4-byte big-endian length and a UTF-8 JSON object, each side capped.
    worker -> server  {"ready": {pid, user, noNewPrivs, filter, notices}}   once, V8 loaded and confined
    server -> worker  {"run": {source, reach, known, context, timeoutMs, memoryBytes, maxOutputChars}}
    worker -> server  {"calls": [[id, name, argsJSON], ...]}   the script awaits these
    server -> worker  {"answers": [[id, ok, text], ...]}       ok=false rejects with BudgetExceeded
    worker -> server  {"kept": {result, truncated, size} | {thrown}}   each checkpoint, as it is made
    worker -> server  {"end": {result, truncated, size, thrown, stopped, retire}}
After `end` with `retire` (a memory stop: the isolate may be unusable) the worker exits.

What the bridge hands to Python is bounded in V8, before mini-racer converts it: a call's
arguments (MAX_ARGS_CHARS, else the call rejects), the thrown text (MAX_THROWN_CHARS), and the
result and checkpoint, which cross as their JSON's length and at most `crossing_chars` of it
(`cutting.whole_prefix` keeps its complete part, and the cut needs no more). A 50 MB string
converted whole could exhaust the process's data limit inside mini-racer's callback, where the
MemoryError left the evaluation waiting out its timeout; a conversion that fails anyway is an
error of the evaluation (`_guard_conversions`), and a MemoryError anywhere is a memory stop.

The program calls Python only through checkpoint(): the prelude writes the checkpoint's sized
JSON into memory it shares with this process and calls a function of mini-racer's that runs a
handler on V8's thread before it returns (`_synchronous_callback`), which sends it to the server:
the server keeps the last one, so a worker that dies (memory, a crash, SIGKILL) still has one.
A call to `mesq.<tool>(args)` queues `[id, name, argsJSON]` and
returns a promise; this loop polls the queue between evaluations and settles each promise with
the server's answer, which runs the program on to its next `await`. The bridge (`_PRELUDE`)
takes every built-in it uses before the program runs and builds its poll text by hand from
strings, so a program that replaces `JSON`, `Array`, `Object`, `Promise` or a prototype's
methods cannot change what crosses; the poll text is still validated strictly (`_state`).
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import json
import os
import struct
import sys
import threading
import time
from typing import Any, BinaryIO

try:
    from .confinement import confine
    from .cutting import TooDeep, compact, truncate, whole_prefix
    from .memory import map_large_blocks
except ImportError:  # run by path as the worker process: these modules are beside this file
    from confinement import confine  # type: ignore[no-redef]
    from cutting import TooDeep, compact, truncate, whole_prefix  # type: ignore[no-redef]
    from memory import map_large_blocks  # type: ignore[no-redef]

#: Frame caps. A call's arguments are at most MAX_ARGS_CHARS (a memo's 1 MiB long text fits);
#: the worker sends calls in batches of at most that many characters.
MAX_ARGS_CHARS = 2 * 1024 * 1024
MAX_NAME_CHARS = 100
MAX_BATCH = 16
#: A poll's text: a batch's arguments, JSON-escaped (at most 6 characters each: `\\u0001`).
MAX_POLL_CHARS = 6 * MAX_ARGS_CHARS + 64 * 1024
MAX_FROM_WORKER = MAX_POLL_CHARS  # a batch of calls, JSON-escaped, UTF-8
MAX_TO_WORKER = 32 * 1024 * 1024
MAX_THROWN_CHARS = 1_000
#: What of a result's (or checkpoint's) JSON crosses into Python when it is longer: twice what
#: the cut can keep, counted as V8 counts (a character outside the BMP is two units; a number's
#: text is never twice Python's), and some room. Only a lone surrogate is wider (its `\\udXXX`
#: is one U+FFFD after the cut): a result made of them may be cut shorter than its budget.
CROSSING_WIDTH = 2
CROSSING_SLACK = 1024
#: Checkpoints sent to the server at once, then at most this many a second (a token bucket): a
#: script that checkpoints in a tight loop cannot make the server decode a frame for each; the
#: latest held back is sent as soon as a token comes back (a timer), and before the run's `end`.
CHECKPOINT_BURST = 8
CHECKPOINTS_PER_S = 10.0
#: Answers are settled by evaluations whose source holds their text, and V8's compilation cache
#: keeps every source it compiled: past this many characters of answers, the isolate is told
#: memory is low (a full collection that also empties that cache). Without it, answers a script
#: dropped still filled its heap (the 11th 1 MB answer under 16 MB was a memory stop).
SETTLED_CHARS_BEFORE_COLLECTING = 1024 * 1024
_HEADER = struct.Struct(">I")
#: The checkpoint box's text is UTF-16: its codec is imported now, while files can still be opened
#: (the confined worker cannot import it later).
codecs.lookup("utf-16-le")

#: Globals removed before the program runs: timers (mini-racer installs a `setTimeout`) would
#: outlive the run; `WebAssembly`, `Atomics` and every `ArrayBuffer`-backed type keep their memory
#: outside V8's heap, where the hard limit does not stop them (measured: 2 GB under a 64 MB limit).
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

#: The bridge: `mesq` (a Proxy whose own keys are the reachable tools; a known but hidden tool or
#: a name that is no tool is absent from it, yet calling it gets the error tools/call gives, thrown
#: as a ToolError like every failed call unless the script passed `{results: true}`; `mesq.context` is the
#: user's "now", a frozen object that is not one of its keys), `checkpoint(value)` (its
#: JSON is sent to the server before it returns: `_Checkpoints`), and the functions this loop
#: calls, on a global the program cannot replace. Only null-prototype objects and captured
#: built-ins are used after the program starts; the poll text is concatenated from strings and
#: integers. Run before `_HARDEN` (the checkpoint box is a typed array); returns the box.
_PRELUDE = r"""
((reach, known, userContext, maxArgs, maxBatch, maxName, maxThrown, keptCap) => {
  // The checkpoint's box: [its sized text's length (two 16-bit halves), its UTF-16 units], read
  // by the worker's Python in place (no conversion, no V8 call) when `note` says it changed.
  // Made before the typed arrays are removed, and never reachable from the program.
  const box = new ArrayBuffer(4 + 2 * (keptCap + 16)), units = new Uint16Array(box);
  const stringify = JSON.stringify, parse = JSON.parse, apply = Reflect.apply, create = Object.create;
  const sliceText = String.prototype.slice, codeAt = String.prototype.charCodeAt;
  const then = Promise.prototype.then, PromiseCtor = Promise, ErrorCtor = Error, ProxyCtor = Proxy;
  const toText = String, define = Object.defineProperty, freeze = Object.freeze;
  const AsyncFunction = (async () => {}).constructor;
  const pending = create(null), waiters = create(null);
  let head = 0, tail = 0, note, doneJson, doneThrown, done = false;
  const text = (value, otherwise = "?") => {
    try { const t = toText(value); return typeof t === "string" ? t : otherwise; } catch (e) { return otherwise; }
  };
  // A property the script may have made a throwing getter: read without letting it throw.
  const read = (object, key, otherwise) => {
    try { return text(object[key], otherwise); } catch (e) { return otherwise; }
  };
  // An uncaught value as `Name: message`, or as text; a part that cannot be read is named so.
  const describe = (thrown) => {
    let isError = false;
    try { isError = thrown instanceof ErrorCtor; } catch (e) {}
    if (!isError) return text(thrown, "(a value that cannot be shown as text)");
    return read(thrown, "name", "Error") + ": " + read(thrown, "message", "(its message cannot be read)");
  };
  // Own properties, defined rather than assigned: a setter the script put on Error.prototype
  // never runs.
  const own = (object, key, value) =>
    define(object, key, {value, writable: true, enumerable: false, configurable: true});
  const hasOwn = Object.hasOwn;
  // A call answers the tool's envelope; an {error} envelope rejects with a ToolError (its message
  // names the fix, `code`, `details`, `traceId`, `recoverData` ride on it) unless the script
  // asked for result objects: mesq.<tool>(args, {results: true}).
  // A name longer than any tool's crosses cut, ending in an ellipsis no tool name has: the server
  // answers NOT_FOUND for it like for any other unknown name.
  const sendable = (name) => name.length > maxName ? name.slice(0, maxName - 1) + "\u2026" : name;
  const call = (name, args, options) => new PromiseCtor((resolve, reject) => {
    let body, results = false;
    try { results = options !== null && typeof options === "object" && options.results === true; } catch (e) {}
    try { body = stringify(args === undefined ? {} : args); } catch (e) { reject(e); return; }
    if (body === undefined) body = "null";
    if (typeof body !== "string") { reject(new ErrorCtor("arguments are not JSON")); return; }
    if (body.length > maxArgs) { reject(new ErrorCtor(`arguments over ${maxArgs} characters`)); return; }
    const id = tail++;
    waiters[id] = {__proto__: null, ok: resolve, fail: reject, name, results};
    pending[id] = {__proto__: null, name, body};
  });
  const toolError = (name, envelope) => {
    const failure = envelope.error;
    const code = failure !== null && typeof failure === "object" ? text(failure.code) : "ERROR";
    const said = failure !== null && typeof failure === "object" ? text(failure.message) : text(failure);
    const error = new ErrorCtor(`${name}: ${code}: ${said}`);
    own(error, "name", "ToolError");
    own(error, "code", code);
    const detailed = failure !== null && typeof failure === "object" && hasOwn(failure, "details");
    if (detailed) own(error, "details", failure.details);
    if (hasOwn(envelope, "traceId")) own(error, "traceId", envelope.traceId);
    if (hasOwn(envelope, "recoverData")) own(error, "recoverData", envelope.recoverData);
    return error;
  };
  // Names a script reads without calling (await, JSON, inspection): never a tool.
  const notTools = {__proto__: null, then: true, toJSON: true, constructor: true, valueOf: true,
                    toString: true, inspect: true, prototype: true};
  const context = freeze(userContext);  // flat: strings and one boolean
  const tools = create(null), hidden = create(null);
  for (const name of reach) tools[name] = (args, options) => call(name, args, options);
  for (const name of known) if (!(name in tools)) hidden[name] = true;
  // A hidden tool and a name that is no tool still call the server, which answers what
  // tools/call would: FORBIDDEN with the reason, or NOT_FOUND with the nearest name.
  define(globalThis, "mesq", {value: new ProxyCtor(tools, {
    get: (target, name) => name === "context" ? context : name in target ? target[name]
      : (typeof name === "string" && notTools[name] !== true && name !== "__proto__"
         ? (args, options) => call(sendable(name), args, options)
         : undefined),
    set: () => false, defineProperty: () => false, deleteProperty: () => false,
  })});
  // At most `cap` UTF-16 units of `value`, never ending in half a surrogate pair (a lone
  // surrogate cannot cross into Python).
  const first = (value, cap) => {
    if (value.length <= cap) return value;
    const last = apply(codeAt, value, [cap - 1]);
    return apply(sliceText, value, [0, last >= 0xD800 && last <= 0xDBFF ? cap - 1 : cap]);
  };
  // A JSON text as `<its length>:<at most cap characters of it>`: only what the cut can keep
  // crosses into Python, however large the value.
  const sized = (json, cap) => json.length + ":" + first(json, cap);
  // checkpoint(value): its sized JSON goes into the box and `note` (a function of the worker's,
  // called synchronously) sends it to the server before checkpoint returns, so the server holds
  // the last checkpoint whatever happens to this process afterwards.
  globalThis.checkpoint = (value) => {
    let json;
    try { json = stringify(value); } catch (e) { json = undefined; }
    if (typeof json === "string" && note !== undefined) {
      const kept = sized(json, keptCap);
      const length = kept.length;
      for (let i = 0; i < length; i++) units[2 + i] = apply(codeAt, kept, [i]);
      units[0] = length & 0xFFFF;
      units[1] = length >>> 16;
      try { note(); } catch (e) {}
    }
    return value;
  };
  // The worker's `note`, given once before the program runs; later calls change nothing.
  const attach = (given) => { if (note === undefined) note = given; };
  const finish = (json, thrown) => {
    if (done) return;
    done = true; doneJson = json; doneThrown = thrown === undefined ? undefined : first(thrown, maxThrown);
  };
  const run = (source) => {
    let program;
    try { program = new AsyncFunction(source); } catch (e) { finish(undefined, describe(e)); return; }
    apply(then, program(), [
      (value) => {
        let json;
        try { json = value === undefined ? "null" : stringify(value); }
        catch (e) { finish(undefined, text(e)); return; }
        finish(typeof json === "string" ? json : "null", undefined);
      },
      (e) => finish(undefined, describe(e))]);
  };
  const poll = () => {
    let calls = "", size = 0, count = 0;
    while (head < tail && count < maxBatch) {
      const entry = pending[head];
      if (count > 0 && size + entry.body.length > maxArgs) break;
      delete pending[head];
      calls += (count === 0 ? "" : ",") + "[" + head + "," + stringify(entry.name) + "," + stringify(entry.body) + "]";
      size += entry.body.length;
      head++;
      count++;
    }
    return '{"calls":[' + calls + '],"done":' + (done ? "true" : "false") + "}";
  };
  // As JSON: a string with a lone surrogate cannot cross into Python (mini-racer's UTF-8
  // decoding fails and the evaluation never returns); JSON.stringify escapes it.
  const outcome = () => done && doneThrown !== undefined ? stringify(doneThrown) : null;
  const result = (cap) => done && doneThrown === undefined ? sized(doneJson, cap) : null;
  const settle = (id, ok, answer) => {
    const waiter = waiters[id];
    delete waiters[id];
    if (waiter === undefined) return;
    try {
      if (!ok) {
        const error = new ErrorCtor(answer);
        own(error, "name", "BudgetExceeded");
        waiter.fail(error);
        return;
      }
      const envelope = parse(answer);
      if (!waiter.results && envelope !== null && typeof envelope === "object" && hasOwn(envelope, "error")) {
        waiter.fail(toolError(waiter.name, envelope));
      } else waiter.ok(envelope);
    } catch (e) { waiter.fail(e); }  // whatever the script changed, its call settles
  };
  const bridge = {__proto__: null, run, poll, settle, outcome, result, attach};
  define(globalThis, "__mesqBridge", {value: freeze(bridge)});
  return box;
})
"""


class BadState(ValueError):
    """The bridge's poll text is not what the prelude writes."""


def _state(text: Any) -> tuple[list[tuple[int, str, str]], bool]:
    """The poll text, validated strictly: (calls, done)."""
    if not isinstance(text, str) or len(text) > MAX_POLL_CHARS:
        raise BadState("the bridge state is not a bounded string")
    try:
        state = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise BadState("the bridge state is not JSON") from error
    if not isinstance(state, dict) or set(state) != {"calls", "done"}:
        raise BadState("the bridge state has the wrong members")
    calls, done = state["calls"], state["done"]
    if not isinstance(done, bool):
        raise BadState("the bridge state's flag is not a boolean")
    if not isinstance(calls, list) or len(calls) > MAX_BATCH:
        raise BadState("the bridge state's calls are not a short list")
    checked: list[tuple[int, str, str]] = []
    for entry in calls:
        if not (isinstance(entry, list) and len(entry) == 3):
            raise BadState("a call is not [id, name, arguments]")
        call_id, name, arguments = entry
        if not (isinstance(call_id, int) and not isinstance(call_id, bool) and call_id >= 0):
            raise BadState("a call's id is not a count")
        if not (isinstance(name, str) and len(name) <= MAX_NAME_CHARS):  # "" is no tool: NOT_FOUND
            raise BadState("a call's tool name is not a short string")
        if not (isinstance(arguments, str) and len(arguments) <= MAX_ARGS_CHARS):
            raise BadState("a call's arguments are not a bounded string")
        checked.append((call_id, name, arguments))
    return checked, done


def _text_or_none(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise BadState("the bridge answered something that is not text")
    return value


def _thrown(json_text: Any) -> str | None:
    """The uncaught value's description, which the bridge hands over as JSON."""
    if json_text is None:
        return None
    try:
        thrown = json.loads(_text_or_none(json_text) or "")
    except ValueError as error:
        raise BadState("the bridge's thrown text is not JSON") from error
    if not isinstance(thrown, str):
        raise BadState("the bridge's thrown value is not text")
    return thrown


def crossing_chars(max_output_chars: int) -> int:
    """How much of a result's JSON text crosses from V8 for a run with this output budget."""
    return CROSSING_WIDTH * max_output_chars + CROSSING_SLACK


def _sized(answer: Any, cap: int) -> tuple[str, int] | None:
    """The bridge's `<length>:<at most cap characters of the JSON>` -> (the text, the length)."""
    answer = _text_or_none(answer)
    if answer is None:
        return None
    head, colon, text = answer.partition(":")
    if not (colon and head.isascii() and head.isdigit() and len(head) <= 12):
        raise BadState("the bridge's sized text has no length")
    size = int(head)
    # The length is V8's (UTF-16 units, one or two a character); only a text over `cap` was cut.
    if len(text) > min(size, cap):
        raise BadState("the bridge's sized text does not match its length")
    return text, size


def _result(crossed: tuple[str, int], max_output_chars: int) -> dict[str, Any]:
    """What the program returned (or kept), parsed, depth-checked and cut here, in the worker.
    Where only a prefix of a larger JSON text crossed, its complete part is cut like the whole."""
    json_text, size = crossed
    partial = size > crossing_chars(max_output_chars)
    collecting = gc.isenabled()
    gc.disable()  # parsing makes only acyclic containers; the collector's passes cost more than the parse
    try:
        value = whole_prefix(json_text) if partial else json.loads(json_text)
    except (RecursionError, TooDeep):
        return {"thrown": str(TooDeep())}
    except ValueError:
        return {"thrown": "the result is not JSON"}
    finally:
        if collecting:
            gc.enable()
    try:
        cut, truncated = truncate(value, max_output_chars)
    except TooDeep as error:
        return {"thrown": str(error)}
    return {"result": compact(cut), "truncated": truncated or partial, "size": size}


class Channel:
    """The worker's end of the pipe: blocking frames in, frames out."""

    def __init__(self, incoming: BinaryIO, outgoing: BinaryIO) -> None:
        self.incoming = incoming
        self.outgoing = outgoing
        self.sending = threading.Lock()  # checkpoints are sent from V8's thread (`_Checkpoints`)

    def send(self, message: dict[str, Any]) -> None:
        body = compact(message).encode("utf-8")
        with self.sending:
            self.outgoing.write(_HEADER.pack(len(body)) + body)
            self.outgoing.flush()

    def receive(self) -> dict[str, Any] | None:
        header = self.incoming.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return None  # the server closed the pipe
        (length,) = _HEADER.unpack(header)
        if length > MAX_TO_WORKER:
            raise BadState("a frame from the server is over its cap")
        body = self.incoming.read(length)
        message = json.loads(body)
        if not isinstance(message, dict):
            raise BadState("a frame from the server is not an object")
        return message


def _guard_conversions() -> None:
    """Make a value mini-racer cannot convert to Python an error of the evaluation that asked
    for it. The conversion runs in a callback on mini-racer's event loop, which passes on only
    its own errors: a MemoryError there (a string too large for the process's data limit) or
    any other fault never reached the waiting evaluation, which then ran until its timeout and
    read as a time stop. A MemoryError becomes a JSOOMException (a memory stop). Idempotent; a
    mini-racer without this internal is left as it is (the bridge bounds what crosses anyway)."""
    from py_mini_racer import JSEvalException, JSOOMException, _context

    convert = getattr(_context.Context, "_value_handle_to_python", None)
    if convert is None or getattr(convert, "mesq_guarded", False):
        return

    def guarded(self: Any, value_handle: Any) -> Any:
        try:
            return convert(self, value_handle)
        except JSEvalException:
            raise
        except MemoryError:
            raise JSOOMException("a value from V8 did not fit in the worker's memory") from None
        except Exception as error:
            raise JSEvalException("a value from V8 could not be converted") from error

    guarded.mesq_guarded = True  # type: ignore[attr-defined]
    setattr(_context.Context, "_value_handle_to_python", guarded)  # noqa: B010 - a method: mypy refuses the assignment


class _Checkpoints:
    """The script's checkpoints, each sent to the server (`{"kept": ...}`, parsed, depth-checked
    and cut here like a result) when checkpoint() is called: V8's thread runs `noted` before
    checkpoint() returns, so a worker that dies afterwards, of any cause, has already handed
    its last checkpoint over. Bounded: the box holds at most the crossing text; past the
    burst, the latest waits for a token (`CHECKPOINTS_PER_S`, a timer sends it). Nothing is sent
    after `close`, so no checkpoint of this run reaches the server after its `end`."""

    def __init__(self, channel: Channel, box: memoryview, crossing: int, max_output: int) -> None:
        self.channel = channel
        self.box = box
        self.crossing = crossing
        self.max_output = max_output
        self.lock = threading.Lock()
        self.pending: tuple[str, int] | None = None
        self.tokens = float(CHECKPOINT_BURST)
        self.refilled = time.monotonic()
        self.timer: threading.Timer | None = None
        self.closed = False
        self.fault: BaseException | None = None  # BadState or MemoryError: the main loop raises it

    def noted(self) -> None:
        """On V8's thread, the script paused inside checkpoint(): read the box, send or hold."""
        try:
            if self.closed:  # the run has ended (a continuation may still run): nothing is read
                return
            box = self.box
            length = box[0] | box[1] << 8 | box[2] << 16 | box[3] << 24
            if length > (len(box) - 4) // 2:
                raise BadState("the checkpoint's length is past its box")
            crossed = _sized(bytes(box[4 : 4 + 2 * length]).decode("utf-16-le", "replace"), self.crossing)
            with self.lock:
                if self.closed or crossed is None:
                    return
                self.pending = crossed
                self._send_or_wait()
        except (BadState, MemoryError) as fault:
            self.fault = self.fault or fault
        except Exception as fault:  # nothing may escape into mini-racer's callback
            self.fault = self.fault or BadState(f"the checkpoint could not be read ({type(fault).__name__})")

    def _send_or_wait(self) -> None:
        now = time.monotonic()
        self.tokens = min(float(CHECKPOINT_BURST), self.tokens + (now - self.refilled) * CHECKPOINTS_PER_S)
        self.refilled = now
        if self.tokens >= 1:
            self.tokens -= 1
            self._send()
        elif self.timer is None:
            self.timer = threading.Timer((1 - self.tokens) / CHECKPOINTS_PER_S, self._due)
            self.timer.daemon = True
            self.timer.start()

    def _due(self) -> None:
        with self.lock:
            self.timer = None
            if not self.closed and self.pending is not None:
                self._send_or_wait()

    def _send(self) -> None:
        crossed, self.pending = self.pending, None
        if crossed is not None:
            with contextlib.suppress(OSError, ValueError):  # the server went away: nobody waits
                self.channel.send({"kept": _result(crossed, self.max_output)})

    def close(self) -> None:
        """Send the checkpoint still held (the run is ending) and send nothing after it."""
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if not self.closed:
                self._send()
            self.closed = True


#: mini-racer's callbacks from JS that run synchronously on V8's thread, by (context, callback id).
_SYNCHRONOUS: dict[tuple[int, int], Any] = {}


def _synchronous_callback(racer: Any, handler: Any) -> Any:
    """A JS function that runs `handler()` on V8's thread before it returns (the script waits).
    mini-racer passes every callback to its event loop, where a read of the JS arguments would
    wait for the isolate the script holds: this one takes no arguments and its handler reads
    memory the prelude shares (`box`)."""
    from py_mini_racer import _context

    if not getattr(_context.Context.handle_callback_from_v8, "mesq_synchronous", False):
        queued = _context.Context.handle_callback_from_v8

        def dispatch(self: Any, callback_id: int, raw: Any) -> None:
            synchronous = _SYNCHRONOUS.get((id(self), callback_id))
            if synchronous is None:
                queued(self, callback_id, raw)
                return
            self._free(raw)  # the (empty) arguments array
            synchronous()

        dispatch.mesq_synchronous = True  # type: ignore[attr-defined]
        setattr(_context.Context, "handle_callback_from_v8", dispatch)  # noqa: B010 - as in _guard_conversions
    context = racer._ctx
    callback_id = next(context._next_async_callback_id)
    _SYNCHRONOUS[(id(context), callback_id)] = handler
    raw = context._dll.mr_make_js_callback(context._ctx, callback_id)
    return context._value_handle_to_python(context._wrap_raw_handle(raw)), (id(context), callback_id)


def run_one(job: dict[str, Any], channel: Channel) -> dict[str, Any]:
    """One program, start to end -> the `end` message's body."""
    try:
        return _run_one(job, channel)
    except MemoryError:  # anywhere in this process: the run's memory ran out, never its time
        return {"stopped": "memory", "retire": True}


def _run_one(job: dict[str, Any], channel: Channel) -> dict[str, Any]:
    from py_mini_racer import JSOOMException, JSTimeoutException, MiniRacer

    _guard_conversions()
    deadline = time.monotonic() + float(job["timeoutMs"]) / 1000
    max_output = int(job["maxOutputChars"])
    crossing = crossing_chars(max_output)
    end: dict[str, Any] = {"stopped": None, "retire": False}
    racer = MiniRacer()
    racer.set_hard_memory_limit(int(job["memoryBytes"]))
    returned: tuple[str, int] | None = None
    checkpoints: _Checkpoints | None = None
    registered: tuple[int, int] | None = None
    settled = 0  # characters of answers settled since the compilation cache was last emptied

    def evaluate(code: str, left: float | None = None) -> Any:
        left = deadline - time.monotonic() if left is None else left
        if left <= 0:
            raise JSTimeoutException()
        return racer.eval(code, timeout_sec=left)

    def checked(value: Any) -> Any:
        if checkpoints is not None and checkpoints.fault is not None:
            raise checkpoints.fault
        return value

    try:
        reach, known, context = (json.dumps(job[key]) for key in ("reach", "known", "context"))
        limits = f"{MAX_ARGS_CHARS}, {MAX_BATCH}, {MAX_NAME_CHARS}, {MAX_THROWN_CHARS}, {crossing}"
        box = evaluate(f"({_PRELUDE})({reach}, {known}, {context}, {limits})")
        if not isinstance(box, memoryview):
            raise BadState("the checkpoint box is not memory")
        evaluate(_HARDEN)
        checkpoints = _Checkpoints(channel, box, crossing, max_output)
        note, registered = _synchronous_callback(racer, checkpoints.noted)
        evaluate("(note) => __mesqBridge.attach(note)")(note)
        evaluate(f"__mesqBridge.run({json.dumps(job['source'])}); 0")
        while True:
            calls, done = _state(checked(evaluate("__mesqBridge.poll()")))
            if done:
                thrown = _thrown(evaluate("__mesqBridge.outcome()"))
                if thrown is not None:
                    end["thrown"] = thrown
                else:
                    returned = _sized(evaluate(f"__mesqBridge.result({crossing})"), crossing)
                break
            if not calls:
                if racer.was_hard_memory_limit_reached():
                    end["stopped"] = "memory"
                else:
                    end["thrown"] = "the program awaits a promise that never settles (there are no timers)"
                break
            channel.send({"calls": [list(call) for call in calls]})
            for call_id, ok, text in _answers(channel.receive()):
                evaluate(f"__mesqBridge.settle({call_id}, {'true' if ok else 'false'}, {json.dumps(text)}); 0")
                settled += len(text)
            if settled >= SETTLED_CHARS_BEFORE_COLLECTING:
                racer.low_memory_notification()
                settled = 0
        checked(None)
    except (JSTimeoutException, JSOOMException) as stop:
        # The hard limit's stop can surface as a timeout (V8 is terminated while collecting), so
        # the isolate is asked which one it was, whatever the program was awaiting.
        if racer.was_hard_memory_limit_reached() or isinstance(stop, JSOOMException):
            end["stopped"] = "memory"
        else:
            end["stopped"] = "time"
    except BadState as error:
        end["thrown"] = f"the sandbox bridge was tampered with ({error}); the run was stopped"
    except MemoryError:  # in this process, outside V8's heap: still the run's memory, never its time
        end["stopped"] = "memory"
    except Exception:  # a fault in the worker is the run's report, not a crash; no internal name leaks
        end["thrown"] = "the sandbox failed and the run was stopped"
    # Every checkpoint was sent as it was made (the one held back goes now): the server keeps
    # the last, and it is the result wherever nothing was returned (docs/contract.md §11).
    if checkpoints is not None:
        checkpoints.close()
    if registered is not None:
        _SYNCHRONOUS.pop(registered, None)
    if end["stopped"] == "memory" or racer.was_hard_memory_limit_reached():
        end["stopped"] = "memory"  # the isolate is closed with the process (the worker retires)
    else:
        racer.close()
    # After a stop the process is not reused: V8 may still be busy in the stopped code (mini-racer
    # runs promise continuations outside the timed evaluation) or short of memory; a fresh worker
    # is already starting beside this one (pool.py).
    end["retire"] = end["stopped"] is not None
    if returned is not None:
        end.update(_result(returned, max_output))
    if isinstance(end.get("thrown"), str):
        end["thrown"] = end["thrown"][:MAX_THROWN_CHARS]
    return end


def _answers(reply: dict[str, Any] | None) -> list[tuple[int, bool, str]]:
    if reply is None:
        raise SystemExit(0)  # the server closed the pipe: nobody waits for this run
    answers = reply.get("answers")
    if not isinstance(answers, list):
        raise BadState("the server's answers are not a list")
    checked = []
    for entry in answers:
        call_id, ok, text = entry
        checked.append((int(call_id), bool(ok), str(text)))
    return checked


def _limit_process(data_bytes: int) -> None:
    import resource

    # The data segment, not the address space: V8 reserves ~1.5 TB of address space up front
    # (pointer cage, code range), so RLIMIT_AS cannot be used; RLIMIT_DATA counts what is made
    # writable, i.e. what the isolate actually fills.
    resource.setrlimit(resource.RLIMIT_DATA, (data_bytes, data_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.nice(5)  # a runaway script yields the CPU to the server's own threads


def main(argv: list[str]) -> int:
    _limit_process(int(argv[1]))
    map_large_blocks()  # a frame's answers (up to 32 MB) go back to the system when freed
    incoming = os.fdopen(os.dup(0), "rb")
    outgoing = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print cannot corrupt the frames
    channel = Channel(incoming, outgoing)
    from py_mini_racer import MiniRacer

    MiniRacer().close()  # V8 starts before the worker says it is ready: a first isolate costs ~0.1 s
    confined = confine()  # another user, no new privileges, no file writes, the syscall filter

    channel.send({"ready": {"pid": os.getpid(), **confined}})
    while True:
        message = channel.receive()
        if message is None:
            return 0
        end = run_one(message["run"], channel)
        channel.send({"end": end})
        if end["retire"]:
            return 0


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv))  # no V8 teardown: it can abort after a memory stop
