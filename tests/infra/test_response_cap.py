"""An HTTP function's answer past the 6 MB a synchronous Lambda invocation may return: without a
check, the invocation fails and API Gateway says 500 with nothing for the client. It becomes a
400 RESPONSE_TOO_LARGE in the contract's envelope, with the request's trace id, and is logged."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from mesq.runtime.lambda_entry import RESPONSE_PAYLOAD_BYTES, lambda_handler, payload_bytes
from tests.infra.apigw import LambdaContext, http_api_event


async def _answer(request: Request) -> Response:
    size = int(request.query_params["chars"])
    text = request.query_params.get("char", "a") * size
    return PlainTextResponse(text, headers={"x-trace-id": "t-cap"})


APP = Starlette(routes=[Route("/big", _answer)])


def _invoke(chars: int, char: str = "a") -> dict[str, Any]:
    handler = lambda_handler(APP, "cap-test")
    event = http_api_event("GET", "/big", headers={"host": "example.test"})
    event["rawQueryString"] = f"chars={chars}&char={char}"
    return handler(event, LambdaContext())


def test_an_answer_past_the_lambda_cap_is_a_clear_400() -> None:
    answer = _invoke(7 * 1024 * 1024)
    assert answer["statusCode"] == 400, answer["statusCode"]
    body = json.loads(answer["body"])
    assert body["error"]["code"] == "RESPONSE_TOO_LARGE" and body["traceId"] == "t-cap"
    assert "7.0 MB" in body["error"]["message"] and "fewer records" in body["error"]["message"]
    assert len(json.dumps(answer)) < 2048


def test_characters_count_as_the_runtime_sends_them() -> None:
    """The python3.12 runtime writes UTF-8 (`ensure_ascii=False`): 1.8 million Chinese characters
    are 5.4 MB and go; 2.2 million are 6.6 MB and do not. A quote is written \\" (two bytes)."""
    assert _invoke(1_800_000, "%E4%B8%AD")["statusCode"] == 200
    assert _invoke(2_200_000, "%E4%B8%AD")["statusCode"] == 400
    assert _invoke(3_300_000, "%22")["statusCode"] == 400  # 3.3 million quotes: 6.6 MB written


def test_an_answer_under_the_cap_is_untouched() -> None:
    answer = _invoke(5 * 1024 * 1024)
    assert answer["statusCode"] == 200 and len(answer["body"]) == 5 * 1024 * 1024
    assert payload_bytes(answer) is not None and payload_bytes(answer) < RESPONSE_PAYLOAD_BYTES  # type: ignore[operator]
    small = _invoke(1000)
    assert small["statusCode"] == 200 and payload_bytes(small) is None
