"""A Lambda invocation runs the synchronous store and operation calls on the thread that
drives it (one invocation at a time per execution environment: a worker hop buys nothing and
cost about half of a warm REST call); outside an invocation they still go to the worker pool."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mesq.kernel.concurrency import one_request_at_a_time, run_sync
from mesq.runtime.lambda_entry import lambda_handler
from tests.infra.apigw import LambdaContext, decode_body, http_api_event


async def _thread_of_a_sync_call(request: Request) -> JSONResponse:
    return JSONResponse({"thread": await run_sync(threading.get_ident)})


def test_a_lambda_invocation_runs_sync_calls_on_its_own_thread() -> None:
    app = Starlette(routes=[Route("/thread", _thread_of_a_sync_call)])
    handler = lambda_handler(app, service="mesq-test")
    answer = handler(http_api_event("GET", "/thread"), LambdaContext())
    assert answer["statusCode"] == 200, answer
    assert decode_body(answer)["thread"] == threading.get_ident()


def test_outside_an_invocation_sync_calls_go_to_a_worker_thread() -> None:
    async def thread_of_call() -> int:
        return await run_sync(threading.get_ident)

    assert asyncio.run(thread_of_call()) != threading.get_ident()
    with one_request_at_a_time():
        assert asyncio.run(thread_of_call()) == threading.get_ident()
    assert asyncio.run(thread_of_call()) != threading.get_ident()  # the mark ends with the block


def test_what_an_inline_call_sets_in_context_variables_stays_in_its_copy() -> None:
    key: contextvars.ContextVar[str] = contextvars.ContextVar("probe", default="caller")

    def sets() -> str:
        key.set("operation")
        return key.get()

    async def call() -> tuple[str, str]:
        return await run_sync(sets), key.get()

    with one_request_at_a_time():
        assert asyncio.run(call()) == ("operation", "caller")
