"""What `search_tools` and `run_code` do for one connection (catalog + request state).

`search_tools` runs in the worker thread `adapter.run_tool` gives every tool; `run_code` on the
event loop (`adapter.run_tool_async`), after the same argument validation, waiting on its sandbox
process without holding a thread (sandbox.py). A script's `mesq.<tool>(args)` goes through
`adapter.run_tool` in a worker thread (held for that call only), so it meets the
caller's scopes, the read-only mode, the URL/header filters (`Visibility.code_reach`), argument
validation, its rate-limit bucket (each call is counted, on top of the run_code message) and the
output-schema check, and answers the same `{data}` / `{error}` envelope as tools/call.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...application.invocation import REGISTRY, AsyncOperationFn, OperationFn
from ...application.ratelimit import Bucket, RateLimiter
from ...asgi.body import parse_json_object
from ...kernel.concurrency import run_sync
from ...kernel.context import Call, new_run_id
from ...kernel.errors import Forbidden, MesqError, ValidationError
from ...kernel.messages import quoted
from ..adapter import hidden_tool, run_tool, unknown_tool
from ..catalog import Catalog, CatalogTool
from ..connection_context import CONTEXT_TOOL
from ..request_state import RequestState
from .budgets import Budgets
from .cutting import TooDeep, compact, truncate
from .sandbox import Outcome, Refused, run_program
from .search import elsewhere, rank, summary
from .signatures import brief_signature, signature
from .tool_vectors import ToolVectors

#: Buckets a script's calls are counted in (the run_code message itself was counted at the endpoint).
COUNTED: tuple[Bucket, ...] = ("tool_call", "attachment_read")
MAX_THROWN_CHARS = 1_000
MAX_LOG_LINES = 200
MAX_LOG_CHARS = 16 * 1024
#: How long a run waits for the start-up warm-up before its clock starts anyway.
WARM_UP_WAIT_S = 20.0
#: An unknown tool's name is shown this far (a script can make one up of any length).
MAX_LOGGED_NAME = 100
#: A failed call's log line carries its error message up to this length.
MAX_LOGGED_MESSAGE = 300
#: What a script reads as `mesq.context`: get_context's "now" for the user, so a script works out
#: "today" in the user's zone rather than in the sandbox's UTC clock, and `timeZoneSet` so a UTC
#: that is only the default never looks like the user's choice.
CONTEXT_FIELDS = ("timeZone", "timeZoneSet", "today", "now")


def user_context(call: Call) -> dict[str, str | bool]:
    """The user's zone, whether they set it, today's date there and the instant: get_context's
    answer (one read)."""
    answer = REGISTRY[CONTEXT_TOOL](call, {})
    return {name: answer[name] if name == "timeZoneSet" else str(answer[name]) for name in CONTEXT_FIELDS}


#: How many hits `detail: full` writes in full (with their named shapes); the rest stay brief.
FULL_HITS = 3


def search(
    reach: Sequence[CatalogTool],
    query: str,
    limit: int = 5,
    detail: str = "compact",
    vectors: ToolVectors | None = None,
) -> dict[str, Any]:
    """`search_tools`' answer: each hit's name, summary and one-line signature; with `detail:
    full` the first FULL_HITS in full, with the shapes they name in `types`; `notInMcp` when the
    query asks for what no tool does (the REST route or page that does it). A search's answer
    is read into the model's context, so by default it is the short one (docs/MCP/code-mode.md
    has the measured difference)."""
    named: dict[str, str] = {}
    found = []
    for position, tool in enumerate(rank(reach, query, limit, vectors)):
        # The checked schema: its required fields are what a script may count on.
        if detail == "full" and position < FULL_HITS:
            text, shapes = signature(tool.input_schema, tool.result_schema)
            named.update(shapes)
        else:
            text = brief_signature(tool.input_schema, tool.result_schema)
        found.append({"name": tool.name, "summary": summary(tool), "signature": text, "write": tool.is_write})
    answer: dict[str, Any] = {"tools": found, "types": named} if detail == "full" else {"tools": found}
    if away := elsewhere(query, reach):
        answer["notInMcp"] = away
    return answer


#: Per embedding model: the tools' vectors (shipped, or embedded on first use) for this process.
_TOOL_VECTORS: dict[str, ToolVectors] = {}


def tool_vectors(call: Call) -> ToolVectors | None:
    embedder = call.services.search.tool_embedder
    if embedder is None:
        return None
    if embedder.name not in _TOOL_VECTORS:
        _TOOL_VECTORS[embedder.name] = ToolVectors(embedder)
    return _TOOL_VECTORS[embedder.name]


def search_tools_function(catalog: Catalog, state: RequestState) -> OperationFn:
    def search_tools(call: Call, arguments: dict[str, Any]) -> dict[str, Any]:
        if not arguments["query"].strip():  # the schema's minLength lets blanks through: they rank anything
            raise ValidationError("%(field)s: must not be empty or only whitespace", field="query")
        reach = [catalog.tools[name] for name in state.visibility.code_reach(catalog)]
        return search(
            reach, arguments["query"], arguments.get("limit", 5), arguments.get("detail", "compact"), tool_vectors(call)
        )

    return search_tools


def run_code_function(catalog: Catalog, state: RequestState) -> AsyncOperationFn:
    async def run_code(call: Call, arguments: dict[str, Any]) -> dict[str, Any]:
        run = Run(catalog, state, Budgets.from_arguments(arguments, state.remaining_ms))
        await run_sync(run.limit_calls_to_rate_share)
        context = await run_sync(user_context, call)
        return await run.run(arguments["code"], context)

    return run_code


class Run:
    """One run: the host side of the sandbox's calls, the call budget, the log, the report."""

    def __init__(self, catalog: Catalog, state: RequestState, budgets: Budgets) -> None:
        self.catalog = catalog
        self.state = state
        self.budgets = budgets
        self.reach = state.visibility.code_reach(catalog)
        self.limiter = RateLimiter(state.services.items, state.services.settings)
        self.calls = 0
        self.max_calls = budgets.max_calls
        self.rate_share: int | None = None  # set when the rate limit, not maxCalls, bounds the calls
        self.log = RunLog()
        # Every write of this run shares one change-history runId: it rides on the principal of
        # the script's calls, and the result names it.
        self.run_id = new_run_id()
        self.principal = replace(state.principal, run_id=self.run_id)
        self.budget: dict[str, Any] | None = None
        self.started = time.monotonic()

    def limit_calls_to_rate_share(self) -> None:
        """At most half of what the credential has left of this minute's tool calls (one read)."""
        left = self.limiter.remaining(self.state.principal.credential_id, "tool_call")
        if left is not None and left // 2 < self.max_calls:
            self.max_calls = self.rate_share = left // 2

    async def run(self, source: str, context: dict[str, str | bool]) -> dict[str, Any]:
        # A script sent while `mesq serve` warms search up waits for it first: the warm-up's
        # loads are the server's start, not the script's wall time (a no-op otherwise).
        await run_sync(self.state.services.search.wait_until_warm, WARM_UP_WAIT_S)
        started = self.started = time.monotonic()
        outcome = await run_program(
            source,
            user=self.state.principal.user_id,
            reach=list(self.reach),
            known=list(self.catalog.names),
            context=context,
            host=self.host,
            frame_full=self.frame_full,
            time_up=self.time_up,
            timeout_s=self.budgets.timeout_ms / 1000,
            memory_bytes=self.budgets.memory_mb * 1024 * 1024,
            max_output_chars=self.budgets.max_output_chars,
        )
        elapsed = round((time.monotonic() - started) * 1000)
        if outcome.stopped == "time":
            self.reached("time", elapsed, self.budgets.timeout_ms)
        elif outcome.stopped == "memory":
            self.reached("memory", self.budgets.memory_mb, self.budgets.memory_mb)
        return self.report(outcome, elapsed)

    def report(self, outcome: Outcome, elapsed: int) -> dict[str, Any]:
        """`data`, every part of it within maxOutputChars: the thrown text and the log take at
        most a quarter each, the result what is left (cut at a whole element)."""
        limit = self.budgets.max_output_chars
        # A run is one session of its own (history/sessions.py): its sessionId is its runId.
        data: dict[str, Any] = {"ms": elapsed, "runId": self.run_id, "sessionId": self.run_id}
        if outcome.thrown is not None:
            data["thrown"] = outcome.thrown[: min(MAX_THROWN_CHARS, limit // 4)]
        data["log"], dropped = self.log.lines(limit // 4)
        if dropped:
            data["logDropped"] = dropped
        if outcome.result_json is not None:
            left = limit - len(compact(data)) - len(',"result":')
            try:
                data["result"], cut = truncate(json.loads(outcome.result_json), max(0, left))
            except (TooDeep, ValueError, RecursionError):
                data["thrown"] = str(TooDeep())[: limit // 4]
            else:
                if cut or outcome.truncated:
                    data["truncated"] = True
                    self.reached("output", max(outcome.size, len(outcome.result_json)), limit)
        if self.budget is not None:
            data["budget"] = self.budget
        return data

    def reached(self, kind: str, used: int, limit: int) -> None:
        if self.budget is None:  # the first budget reached is the one that stopped the run
            self.budget = {"kind": kind, "used": used, "limit": limit}

    async def host(self, name: str, arguments: str) -> str:
        if self.calls >= self.max_calls:
            self.reached("calls", self.calls, self.max_calls)
            self.log.add(f"{name[:MAX_LOGGED_NAME]} refused: call budget")
            if self.rate_share is not None:
                raise Refused(
                    f"this run may use at most half of the tool calls left in this minute's rate limit "
                    f"({self.rate_share} calls); return what you have and continue in a new run"
                )
            raise Refused(
                f"call budget of {self.max_calls} calls per run reached; return what you have and continue in a new run"
            )
        self.calls += 1
        started = time.monotonic()
        # Encoded in the worker thread too: a read's answer can be ~14 MB of JSON.
        envelope, text = await run_sync(self.encoded_envelope, name, arguments)
        ms = round((time.monotonic() - started) * 1000)
        tool = self.catalog.get(name)
        shown = name if tool is not None else name[:MAX_LOGGED_NAME]
        line = f"{shown} {'ok' if 'data' in envelope else envelope['error']['code']} {ms}ms"
        line += " write" if tool is not None and tool.is_write else ""
        if "error" in envelope:  # the message names the fix: the log keeps it even if the script drops it
            line += f": {envelope['error']['message'][:MAX_LOGGED_MESSAGE]}"
        self.log.add(line)
        return text

    def frame_full(self, name: str, used: int, limit: int) -> str:
        """A call left out of its batch: the batch's answers would pass the sandbox's frame cap."""
        self.reached("output", used, limit)
        self.log.add(f"{name[:MAX_LOGGED_NAME]} refused: output budget")
        return (
            f"the answers of the calls awaited together would pass {round(limit / 2**20)} MB, so this call and "
            f"the rest of its batch were not run; await fewer large reads at once and return what you need"
        )

    def time_up(self, name: str) -> str:
        """A call left unrun: the run's wall time ran out before it could start."""
        self.reached("time", round((time.monotonic() - self.started) * 1000), self.budgets.timeout_ms)
        self.log.add(f"{name[:MAX_LOGGED_NAME]} refused: time budget")
        return (
            f"the time budget of {self.budgets.timeout_ms} ms per run ran out before this call started, so it was not "
            f"run; return what you have and continue in a new run"
        )

    def encoded_envelope(self, name: str, arguments: str) -> tuple[dict[str, Any], str]:
        envelope = self.envelope(name, arguments)
        return envelope, compact(envelope)

    def envelope(self, name: str, arguments: str) -> dict[str, Any]:
        trace_id = self.state.trace_id
        tool = self.catalog.get(name)
        if tool is None:
            return unknown_tool(name[:MAX_LOGGED_NAME], self.reach).envelope(trace_id)
        if name not in self.reach:
            # What tools/call says about a hidden tool; a code tool is visible but not reachable.
            error = hidden_tool(self.state.visibility, tool)
            return (error or Forbidden(f"tool {quoted(name)} cannot be called from run_code")).envelope(trace_id)
        try:
            parsed = parse_json_object(arguments.encode("utf-8"))
        except MesqError as error:
            return (not_an_object(name, arguments) or error).envelope(trace_id)
        return run_tool(
            self.catalog, self.state, tool, parsed, limiter=self.limiter, counted=COUNTED, principal=self.principal
        )


#: What a script passed instead of an object of arguments, as the error names it.
_PASSED = ((type(None), "null"), (list, "an array"), (str, "a string"), (bool, "a boolean"), ((int, float), "a number"))


def not_an_object(name: str, arguments: str) -> ValidationError | None:
    """The error for JSON arguments that are not an object (`mesq.list_memos(null)`): what to pass
    and what was passed, in a script's terms. The bridge sends `null` for `null` and for what
    JSON cannot carry (a function, a symbol); `mesq.<tool>()` sends `{}`. None for text that is
    not JSON, or an object: parse_json_object's own error says what is wrong there."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        return None
    got = next((words for kind, words in _PASSED if isinstance(value, kind)), None)
    if got is None:
        return None
    return ValidationError(
        "mesq.%(tool)s(args) takes one object of arguments: pass {} for none, as in mesq.%(tool)s({}); got %(got)s",
        tool=name,
        got=got,
    )


#: A call's log line: tool, outcome, time; what follows (` write`, `: message`) is `rest`.
_TIMED = re.compile(r"(?P<head>\S+ \S+) (?P<ms>\d+)ms(?P<rest>.*)", re.DOTALL)


@dataclass
class _Entry:
    """One log line: a call, or consecutive calls whose lines differ only in their time."""

    key: str
    line: str
    count: int = 1
    fastest: int | None = None
    slowest: int | None = None

    def text(self) -> str:
        if self.count == 1:
            return self.line
        timed = _TIMED.fullmatch(self.line)
        if timed is None or self.fastest is None or self.slowest is None:
            return f"{self.line} x{self.count}"
        took = f"{self.fastest}ms" if self.fastest == self.slowest else f"{self.fastest}-{self.slowest}ms"
        return f"{timed['head']} {took}{timed['rest']} x{self.count}"


class RunLog:
    """One line per call, a run of consecutive calls with the same line but their time folded into
    one (`create_memo ok 1-4ms write x150`: a batch's log says what it did in one line, not 150
    that fill the answer); at most MAX_LOG_LINES lines and MAX_LOG_CHARS, the calls of the rest
    counted."""

    def __init__(self) -> None:
        self._entries: list[_Entry] = []
        self._chars = 0
        self.dropped = 0

    def add(self, line: str) -> None:
        timed = _TIMED.fullmatch(line)
        key = f"{timed['head']}{timed['rest']}" if timed else line
        ms = int(timed["ms"]) if timed else None
        last = self._entries[-1] if self._entries else None
        if last is not None and last.key == key:
            last.count += 1
            if ms is not None and last.fastest is not None and last.slowest is not None:
                last.fastest, last.slowest = min(last.fastest, ms), max(last.slowest, ms)
            return
        if len(self._entries) >= MAX_LOG_LINES or self._chars + len(line) > MAX_LOG_CHARS:
            self.dropped += 1
            return
        self._entries.append(_Entry(key=key, line=line, fastest=ms, slowest=ms))
        self._chars += len(line)

    def lines(self, limit: int) -> tuple[list[str], int]:
        """The first lines whose JSON fits in `limit` characters, and how many calls were left out."""
        kept, _ = truncate([entry.text() for entry in self._entries], limit)
        return kept, self.dropped + sum(entry.count for entry in self._entries[len(kept) :])
