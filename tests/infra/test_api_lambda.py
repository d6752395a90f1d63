"""The REST function's handler, invoked with API Gateway HTTP API v2 events against moto."""

from __future__ import annotations

import json
from typing import Any

from tests.infra.apigw import LambdaContext, decode_body, http_api_event, load_function


def test_api_handler_warm_invocations(aws_auth):
    auth = aws_auth
    module = load_function("api")
    context = LambdaContext()

    health = module.handler(http_api_event("GET", "/healthz"), context)
    assert health["statusCode"] == 200

    created = module.handler(
        http_api_event(
            "POST",
            "/api/toolkit/memo",
            headers={**auth, "idempotency-key": "k1"},
            body={"content": "from lambda #aws"},
            base64_body=True,
        ),
        context,
    )
    assert created["statusCode"] == 201, created
    memo = decode_body(created)["data"]["memo"]
    assert memo["contentSource"] == "api" and memo["tags"] == ["aws"]

    replay = module.handler(
        http_api_event(
            "POST", "/api/toolkit/memo", headers={**auth, "idempotency-key": "k1"}, body={"content": "from lambda #aws"}
        ),
        context,
    )
    assert decode_body(replay)["data"]["memo"]["id"] == memo["id"]

    listed = module.handler(
        http_api_event("GET", "/api/toolkit/memo", headers=auth, query={"includeContext": "true"}), context
    )
    data = decode_body(listed)["data"]
    assert [m["id"] for m in data["timelineItems"]] == [memo["id"]] and data["filters"]["tags"] == {"aws": 1}

    updated = module.handler(
        http_api_event(
            "PATCH", f"/api/toolkit/memo/{memo['id']}", headers=auth, body={"content": "changed", "expectedRevision": 1}
        ),
        context,
    )
    assert decode_body(updated)["data"]["memo"]["revision"] == 2
    conflict = module.handler(
        http_api_event("DELETE", f"/api/toolkit/memo/{memo['id']}", headers=auth, body={"expectedRevision": 1}),
        context,
    )
    assert conflict["statusCode"] == 409 and decode_body(conflict)["recoverData"]["memo"]["revision"] == 2

    unauthenticated = module.handler(http_api_event("GET", "/api/toolkit/memo"), context)
    assert unauthenticated["statusCode"] == 401
    assert decode_body(unauthenticated)["traceId"]

    bad = module.handler(
        http_api_event("POST", "/api/toolkit/memo", headers={**auth, "content-type": "text/plain"}, body=b"hello"),
        context,
    )
    assert bad["statusCode"] == 400 and decode_body(bad)["error"]["code"] == "VALIDATION_ERROR"


def test_lambda_function_refuses_a_host_api_gateway_did_not_route(aws) -> None:
    module = load_function("api")
    event = http_api_event("GET", "/healthz")
    assert module.handler(event, LambdaContext())["statusCode"] == 200
    event["headers"]["host"] = "evil.example"
    refused = module.handler(event, LambdaContext())
    assert refused["statusCode"] == 421 and decode_body(refused)["error"]["code"] == "MISDIRECTED_REQUEST"


#: What one Lambda answer can carry (the runtime's JSON of Mangum's response, UTF-8): past it
#: there is no answer at all, API Gateway says 500 Internal Server Error.
LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024


def _response_bytes(response: dict[str, Any]) -> int:
    return len(json.dumps(response, ensure_ascii=False).encode())


def test_a_page_of_long_memos_fits_one_lambda_answer_and_the_walk_sees_each_once(aws_auth):
    """45 memos at the content limit in Chinese (150 KB of UTF-8 each, 6.7 MB together) asked for
    with limit=100: the page stops before Lambda's cap, says hasMore with the nextOffset to go on
    from, and following nextOffset lists every memo once; search_memos and the insight selection
    (by scope and by ids) page the same way; a batch get of them all is refused, naming the ids
    that fit, and those come in one answer."""
    module, context = load_function("api"), LambdaContext()
    made = []
    for number in range(45):
        created = module.handler(
            http_api_event("POST", "/api/toolkit/memo", headers={**aws_auth, "idempotency-key": f"long-{number}"},
                           body={"content": f"{number} " + "长" * 49_990}),
            context,
        )  # fmt: skip
        assert created["statusCode"] == 201, created
        made.append(decode_body(created)["data"]["memo"]["id"])
    walks = (
        ("/api/toolkit/memo", {}),
        ("/api/toolkit/memo/search", {"query": "长长"}),
        ("/api/toolkit/memo/insight-selection", {}),
        ("/api/toolkit/memo/insight-selection", {"memoIds": ",".join(made)}),
    )
    for path, query in walks:
        seen: list[str] = []
        offset, pages = 0, 0
        while True:
            answer = module.handler(
                http_api_event("GET", path, headers=aws_auth, query={**query, "limit": "100", "offset": str(offset)}),
                context,
            )
            assert answer["statusCode"] == 200, answer["statusCode"]
            assert _response_bytes(answer) < LAMBDA_RESPONSE_BYTES
            data = decode_body(answer)["data"]
            listed = data.get("memos") or data["pinnedItems"] + data["timelineItems"]
            seen += [memo["id"] for memo in listed]
            pages += 1
            if not data["page"]["hasMore"]:
                break
            assert data["page"]["returned"] >= 1
            offset = data["page"]["nextOffset"]
        assert sorted(seen) == sorted(made) and len(seen) == len(made) and pages > 1, (path, pages)

    refused = module.handler(
        http_api_event("POST", "/api/toolkit/memo/batch-get", headers=aws_auth, body={"ids": made}), context
    )
    assert refused["statusCode"] == 400 and _response_bytes(refused) < LAMBDA_RESPONSE_BYTES
    error = decode_body(refused)["error"]
    fitting = error["details"]["hints"]["ids"]
    assert error["code"] == "RESPONSE_TOO_LARGE" and 1 <= len(fitting) < len(made) and fitting == made[: len(fitting)]
    got = module.handler(
        http_api_event("POST", "/api/toolkit/memo/batch-get", headers=aws_auth, body={"ids": fitting}), context
    )
    assert got["statusCode"] == 200 and _response_bytes(got) < LAMBDA_RESPONSE_BYTES
    assert [memo["id"] for memo in decode_body(got)["data"]["memos"]] == fitting


def test_a_page_of_changes_to_long_memos_fits_one_lambda_answer_and_the_cursor_walks_them_all(aws_auth):
    """24 edits of a memo at the content limit (each change: 300 KB of before and after, stored
    packed, answered whole) asked for with limit=100: the page stops before Lambda's cap with a
    nextCursor, and following it lists every change once."""
    module, context = load_function("api"), LambdaContext()
    created = module.handler(
        http_api_event("POST", "/api/toolkit/memo", headers=aws_auth, body={"content": "长" * 49_990}), context
    )
    memo = decode_body(created)["data"]["memo"]
    for number in range(24):
        edit = {"content": ("短" if number % 2 == 0 else "长") * 49_990, "expectedRevision": memo["revision"]}
        updated = module.handler(
            http_api_event("PATCH", f"/api/toolkit/memo/{memo['id']}", headers=aws_auth, body=edit), context
        )
        assert updated["statusCode"] == 200, updated["statusCode"]
        memo = decode_body(updated)["data"]["memo"]
    seen: list[str] = []
    query: dict[str, str] = {"limit": "100"}
    while True:
        answer = module.handler(http_api_event("GET", "/api/toolkit/changes", headers=aws_auth, query=query), context)
        assert answer["statusCode"] == 200 and _response_bytes(answer) < LAMBDA_RESPONSE_BYTES
        data = decode_body(answer)["data"]
        assert data["changes"]
        seen += [change["changeId"] for change in data["changes"]]
        if "nextCursor" not in data:
            break
        query["cursor"] = data["nextCursor"]
    assert len(seen) == len(set(seen)) == 25


class _ShortContext(LambdaContext):
    """An invocation with `millis` left of its timeout."""

    def __init__(self, millis: int) -> None:
        self.millis = millis

    def get_remaining_time_in_millis(self) -> int:
        return self.millis


def test_an_import_longer_than_its_invocation_stops_in_time_with_its_report(aws_auth):
    """An import ran in its request until Lambda's timeout ended the process: no report, no
    answer but API Gateway's 503, and nothing said of what was written. It now stops a few seconds
    before the timeout, between two writes, and answers what it wrote and its run id; the same
    file imported again completes it. (Here: 4.1 s left, so 0.1 s for 40 memos.)"""
    import io
    import zipfile

    card = '<div class="memo"><div class="time">2024-03-05 09:{:02d}:{:02d}</div>'
    card += '<div class="content"><p>card {}</p></div></div>'
    page = "<html><body>" + "".join(card.format(n // 60, n % 60, n) for n in range(40)) + "</body></html>"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("flomo@x/index.html", page)
    module = load_function("api")

    def imported(context: LambdaContext) -> dict[str, Any]:
        event = http_api_event(
            "POST", "/api/toolkit/import", headers={**aws_auth, "content-type": "application/zip"},
            query={"kind": "flomo", "filename": "flomo.zip"}, body=buffer.getvalue(), base64_body=True,
        )  # fmt: skip
        return module.handler(event, context)

    cut = imported(_ShortContext(4_100))
    body = decode_body(cut)
    assert cut["statusCode"] == 400, body
    message = body["error"]["message"]
    assert "the import stopped after writing" in message and "this request's time on the server was up" in message
    report = body["error"]["details"]["report"]
    written = report["imported"].get("memos", 0)
    assert written < 40, report
    again = decode_body(imported(LambdaContext()))["data"]
    assert again["imported"].get("memos", 0) == 40 - written, again
    assert again["existing"].get("memos", 0) == written, (again, report)
