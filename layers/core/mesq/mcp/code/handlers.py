"""What `search_tools` and `run_code` do for one connection (catalog + request state).

Both run in the worker thread `adapter.run_tool` gives every tool, after the same argument
validation. A script's `mesq.<tool>(args)` goes through `adapter.run_tool` too, so it meets the
caller's scopes, the read-only mode, the URL/header filters (`Visibility.code_reach`), argument
validation, its rate-limit bucket (each call is counted, on top of the run_code message) and the
output-schema check, and answers the same `{data}` / `{error}` envelope as tools/call.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

from ...asgi.body import parse_json_object
from ...context import Call, new_run_id
from ...errors import Forbidden, MesqError
from ...operations import OperationFn
from ...ratelimit import Bucket, RateLimiter
from ..adapter import hidden_tool, run_tool, unknown_tool
from ..catalog import Catalog
from ..state import RequestState
from .budgets import Budgets, truncate
from .sandbox import Refused, run_program
from .search import rank, summary
from .signatures import signature

#: Buckets a script's calls are counted in (the run_code message itself was counted at the endpoint).
COUNTED: tuple[Bucket, ...] = ("tool_call", "attachment_read")
MAX_THROWN_CHARS = 1_000


def search_tools_function(catalog: Catalog, state: RequestState) -> OperationFn:
    def search_tools(call: Call, arguments: dict[str, Any]) -> dict[str, Any]:
        reach = [catalog.tools[name] for name in state.visibility.code_reach(catalog)]
        named: dict[str, str] = {}
        found = []
        for tool in rank(reach, arguments["query"], arguments.get("limit", 5)):
            text, shapes = signature(tool.input_schema, tool.output_schema)
            named.update(shapes)
            found.append({"name": tool.name, "summary": summary(tool), "signature": text, "write": tool.is_write})
        return {"tools": found, "types": named}

    return search_tools


def run_code_function(catalog: Catalog, state: RequestState) -> OperationFn:
    def run_code(call: Call, arguments: dict[str, Any]) -> dict[str, Any]:
        return Run(catalog, state, Budgets.from_arguments(arguments, state.remaining_ms)).run(arguments["code"])

    return run_code


class Run:
    """One run: the host side of the sandbox's calls, the call budget and the log."""

    def __init__(self, catalog: Catalog, state: RequestState, budgets: Budgets) -> None:
        self.catalog = catalog
        self.state = state
        self.budgets = budgets
        self.reach = state.visibility.code_reach(catalog)
        self.limiter = RateLimiter(state.services.items, state.services.settings)
        self.calls = 0
        # Every write of this run shares one change-history runId: it rides on the principal of
        # the script's calls (the per-call context, in this process), and the result names it.
        self.run_id = new_run_id()
        self.principal = replace(state.principal, run_id=self.run_id)
        self.log: list[str] = []
        self.budget: dict[str, Any] | None = None

    def run(self, source: str) -> dict[str, Any]:
        started = time.monotonic()
        outcome = run_program(
            source,
            reach=list(self.reach),
            known=list(self.catalog.names),
            host=self.host,
            timeout_s=self.budgets.timeout_ms / 1000,
            memory_bytes=self.budgets.memory_mb * 1024 * 1024,
        )
        elapsed = round((time.monotonic() - started) * 1000)
        if outcome.stopped == "time":
            self.reached("time", elapsed, self.budgets.timeout_ms)
        elif outcome.stopped == "memory":
            self.reached("memory", self.budgets.memory_mb, self.budgets.memory_mb)
        data: dict[str, Any] = {"log": self.log, "ms": elapsed, "runId": self.run_id}
        if outcome.thrown is not None:
            data["thrown"] = outcome.thrown[:MAX_THROWN_CHARS]
        complete = outcome.json_text if outcome.json_text is not None else outcome.kept
        if complete is not None:
            value = json.loads(complete)
            data["result"], truncated = truncate(value, self.budgets.max_output_chars)
            if truncated:
                data["truncated"] = True
                self.reached("output", len(complete), self.budgets.max_output_chars)
        if self.budget is not None:
            data["budget"] = self.budget
        return data

    def reached(self, kind: str, used: int, limit: int) -> None:
        if self.budget is None:  # the first budget reached is the one that stopped the run
            self.budget = {"kind": kind, "used": used, "limit": limit}

    def host(self, name: str, arguments: str) -> str:
        if self.calls >= self.budgets.max_calls:
            self.reached("calls", self.calls, self.budgets.max_calls)
            self.log.append(f"{name} refused: call budget")
            raise Refused(
                f"call budget of {self.budgets.max_calls} calls per run reached; "
                "return what you have and continue in a new run"
            )
        self.calls += 1
        started = time.monotonic()
        envelope = self.envelope(name, arguments)
        ms = round((time.monotonic() - started) * 1000)
        status = "ok" if "data" in envelope else envelope["error"]["code"]
        tool = self.catalog.get(name)
        self.log.append(f"{name} {status} {ms}ms" + (" write" if tool is not None and tool.is_write else ""))
        return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))

    def envelope(self, name: str, arguments: str) -> dict[str, Any]:
        trace_id = self.state.trace_id
        tool = self.catalog.get(name)
        if tool is None:
            return unknown_tool(name).envelope(trace_id)
        if name not in self.reach:
            # What tools/call says about a hidden tool; a code tool is visible but not reachable.
            error = hidden_tool(self.state.visibility, tool)
            return (error or Forbidden(f"tool {name!r} cannot be called from run_code")).envelope(trace_id)
        try:
            parsed = parse_json_object(arguments.encode("utf-8"))
        except MesqError as error:
            return error.envelope(trace_id)
        return run_tool(
            self.catalog, self.state, tool, parsed, limiter=self.limiter, counted=COUNTED, principal=self.principal
        )
