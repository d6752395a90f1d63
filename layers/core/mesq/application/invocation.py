"""The one invocation seam every adapter calls, over the operation registry (operationId -> the
plain function that implements it: `REGISTRY`, registries.OPERATIONS).

Both adapters dispatch through that table; `check_registry` runs at construction so a spec
operation no module is named for fails at start-up, not on first call (the table imports a
domain on the first call of one of its operations; `prepare_registry` imports and checks them
all at once, for an init that runs ahead of requests, and the tests).
`invoke` is the part of a call that is the same on every channel: validate the arguments,
count the call in its rate-limit bucket, build the `Call`, run the operation (`invoke_sync`; `invoke`
runs it in a worker thread, stores are synchronous). Reading the arguments off the wire and mapping errors to the
channel's answer (REST envelope, MCP tool result) stay with the adapter.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ..kernel.answer_urls import answered
from ..kernel.concurrency import in_worker_thread
from ..kernel.context import Call, Channel, Principal, Services
from ..kernel.ports.call_metrics import outcome_of
from ..kernel.recorded import Recorded
from ..kernel.spec import Operation, Spec, SpecError
from .ratelimit import Bucket, RateLimiter, call_bucket
from .registries import OPERATIONS, OperationFn, OperationRegistry
from .validation import validate_arguments

AsyncOperationFn = Callable[[Call, dict[str, Any]], Awaitable[dict[str, Any]]]

REGISTRY: Mapping[str, OperationFn] = OPERATIONS

__all__ = [
    "REGISTRY", "AsyncOperationFn", "OperationFn", "check_registry", "invoke", "invoke_async", "invoke_sync",
    "prepare_registry",
]  # fmt: skip


def check_registry(spec: Spec, registry: Mapping[str, OperationFn] = REGISTRY) -> None:
    missing = sorted(set(spec.operations) - set(registry))
    if missing:
        raise SpecError(f"operations without an implementation: {', '.join(missing)}")
    unknown = sorted(set(registry) - set(spec.operations))
    if unknown:
        raise SpecError(f"implementations without an operation in openapi.yaml: {', '.join(unknown)}")


def prepare_registry(registry: Mapping[str, OperationFn] = REGISTRY) -> None:
    """Import every operation's implementation now and check each is where the registry says
    (`Settings.prepare_at_init`: SnapStart snapshots them; elsewhere the first call imports its domain)."""
    if isinstance(registry, OperationRegistry):
        registry.verify()


def invoke_sync(
    operation: Operation,
    arguments: dict[str, Any],
    *,
    principal: Principal,
    services: Services,
    trace_id: str,
    channel: Channel,
    function: OperationFn | None = None,
    limiter: RateLimiter | None = None,
    counted: Collection[Bucket] = (),
    language: str = "",
    recorded: Recorded | None = None,
    base_url: str = "",
    noted: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run one operation for `principal`: validation -> rate limit -> `Call` -> the operation,
    all on the calling thread. `recorded`: where the call keeps the change records its writes
    commit (`Call.recorded`), for a caller that wants them beside the data (the web's Undo).

    `function` defaults to the registry's (the MCP catalog passes the one it was built with).
    The call is counted in its bucket (`call_bucket`) when that bucket is one the channel counts
    per call (`counted`); MCP counts every message at its endpoint before the SDK parses it, so it
    passes none. Errors propagate unchanged: the adapter maps them. Every call, whatever its end,
    is recorded once in `services.call_metrics` (operation, outcome, ms). The operation gets the
    validated arguments in their normal form (integral floats as ints, values.py). `base_url`: the
    request's own base URL (`Call.base_url`); the answer's bare REST routes start with it when no
    public URL is configured (kernel/answer_urls.py). `noted`: where the operation notes what it
    read that the caller would otherwise read again (`Call.noted`)."""
    with _recorded(services, operation.operation_id):
        call, arguments = _prepared(operation, arguments, principal, services, trace_id, channel, limiter, counted,
                                    language, recorded, base_url, noted)  # fmt: skip
        return answered(call, (function or REGISTRY[operation.operation_id])(call, arguments))


async def invoke_async(
    operation: Operation,
    arguments: dict[str, Any],
    *,
    principal: Principal,
    services: Services,
    trace_id: str,
    channel: Channel,
    function: AsyncOperationFn,
    language: str = "",
    base_url: str = "",
) -> dict[str, Any]:
    """`invoke_sync` for an operation that waits on something other than a store (Code Mode's
    sandbox process): the same validation, `Call` and metrics, on the event loop, so no worker
    thread is held while it waits. Its own store calls go through `concurrency.run_sync`."""
    with _recorded(services, operation.operation_id):
        call, arguments = _prepared(operation, arguments, principal, services, trace_id, channel, None, (), language,
                                    None, base_url, None)  # fmt: skip
        return answered(call, await function(call, arguments))


@contextmanager
def _recorded(services: Services, operation_id: str) -> Iterator[None]:
    """Every call, whatever its end, recorded once in `services.call_metrics` (operation,
    outcome, ms): one rule for the sync and the async invocation."""
    started = time.perf_counter()
    error: BaseException | None = None
    try:
        yield
    except BaseException as exc:
        error = exc
        raise
    finally:
        services.call_metrics.record(operation_id, outcome_of(error), (time.perf_counter() - started) * 1000)


def _prepared(
    operation: Operation,
    arguments: dict[str, Any],
    principal: Principal,
    services: Services,
    trace_id: str,
    channel: Channel,
    limiter: RateLimiter | None,
    counted: Collection[Bucket],
    language: str,
    recorded: Recorded | None,
    base_url: str,
    noted: dict[str, Any] | None,
) -> tuple[Call, dict[str, Any]]:
    """Validated arguments, the call counted in its bucket where the channel counts it, the `Call`."""
    arguments = validate_arguments(operation, arguments)
    bucket = call_bucket(operation.operation_id)
    if limiter is not None and limiter.enabled and bucket in counted:
        limiter.hit(principal.credential_id, bucket)
    call = Call(
        principal=principal, services=services, trace_id=trace_id, channel=channel,
        operation_id=operation.operation_id, language=language, arguments=arguments,
        recorded=recorded if recorded is not None else Recorded(), base_url=base_url,
        noted=noted if noted is not None else {},
    )  # fmt: skip
    call.recorded.run_id = call.run_id
    return call, arguments


#: `invoke_sync` in a worker thread (stores are synchronous; within a Lambda invocation on its own
#: thread, `concurrency.one_request_at_a_time`), for the async adapters.
invoke = in_worker_thread(invoke_sync)
