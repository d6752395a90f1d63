"""The REST function's handler, invoked with API Gateway HTTP API v2 events against moto."""

from __future__ import annotations

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
