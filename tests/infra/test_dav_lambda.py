"""The CalDAV function's handler, invoked with the payload its Lambda function URL sends (format
2.0, the HTTP API's own) against moto: WebDAV methods arrive as they are, the host is the URL's."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.wiring.services import build_services
from tests.infra.apigw import LambdaContext, http_api_event, load_function

URL_HOST = "abcdefghij0123456789abcdefghij01.lambda-url.us-east-1.on.aws"
TASK = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//T//T//EN\r\nBEGIN:VTODO\r\nUID:lambda-task\r\n"
    "DTSTAMP:20261201T000000Z\r\nSUMMARY:Through the function URL\r\nDUE;TZID=Asia/Shanghai:20261207T090000\r\n"
    "PRIORITY:1\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
)


def _event(method: str, path: str, auth: str, body: str | None = None, **headers: str) -> dict[str, Any]:
    event = http_api_event(
        method, path, headers={"host": URL_HOST, "authorization": auth, **headers},
        body=None if body is None else body.encode(), base64_body=body is not None,
    )  # fmt: skip
    event["requestContext"]["domainName"] = URL_HOST
    event["requestContext"]["domainPrefix"] = URL_HOST.split(".")[0]
    if body is not None:
        event["headers"]["content-type"] = headers.get("content-type", "text/calendar")
    return event


def test_dav_handler_serves_webdav_methods_through_the_function_url(aws):
    services = build_services(aws)
    user = create_user(services.items, "urluser", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="iPad", scopes="todo:read,todo:write")
    auth = "Basic " + base64.b64encode(f"urluser:{token}".encode()).decode()
    module, context = load_function("dav"), LambdaContext()

    home = module.handler(_event("PROPFIND", "/dav/urluser/", auth, depth="1"), context)
    assert home["statusCode"] == 207, home
    assert "<D:displayname>Default</D:displayname>" in home["body"] and "/dav/urluser/inbox/" in home["body"]
    space = re.findall(r"<D:href>/dav/urluser/([A-Za-z0-9_-]{16})/</D:href>", home["body"])[0]

    made = module.handler(
        _event("PUT", f"/dav/urluser/{space}/lambda-task.ics", auth, TASK, **{"if-none-match": "*"}), context
    )
    assert made["statusCode"] == 201, made
    got = module.handler(_event("GET", f"/dav/urluser/{space}/lambda-task.ics", auth), context)
    assert got["statusCode"] == 200 and got["headers"]["etag"] == made["headers"]["etag"]
    assert "SUMMARY:Through the function URL" in got["body"]

    sync = '<D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:prop><D:getetag/></D:prop></D:sync-collection>'
    answer = module.handler(
        _event("REPORT", f"/dav/urluser/{space}/", auth, sync, depth="1", **{"content-type": "application/xml"}),
        context,
    )
    assert answer["statusCode"] == 207 and "lambda-task.ics" in answer["body"] and "urn:x-mesq:sync:" in answer["body"]

    gone = module.handler(_event("DELETE", f"/dav/urluser/{space}/lambda-task.ics", auth), context)
    assert gone["statusCode"] == 204
    assert module.handler(_event("GET", f"/dav/urluser/{space}/lambda-task.ics", auth), context)["statusCode"] == 404

    redirected = module.handler(_event("PROPFIND", "/.well-known/caldav", auth), context)
    assert redirected["statusCode"] == 301 and redirected["headers"]["location"] == "/dav/"
    refused = module.handler(
        _event("PROPFIND", "/dav/urluser/", "Basic " + base64.b64encode(b"urluser:nope").decode()), context
    )
    assert refused["statusCode"] == 401 and refused["headers"]["www-authenticate"].startswith("Basic")


def test_the_function_url_host_is_served_beside_a_configured_public_url(aws, monkeypatch):
    """A deployment with PublicUrl still answers CalDAV on its function URL (Lambda routes only that
    host there); a Host that names neither is 421."""
    monkeypatch.setenv("MESQ_PUBLIC_URL", "https://mesq.example.com")
    services = build_services(aws)
    user = create_user(services.items, "hostuser", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="iPad", scopes="todo:read")
    auth = "Basic " + base64.b64encode(f"hostuser:{token}".encode()).decode()
    module, context = load_function("dav"), LambdaContext()
    assert module.handler(_event("PROPFIND", "/dav/hostuser/", auth), context)["statusCode"] == 207
    other = _event("PROPFIND", "/dav/hostuser/", auth)
    other["headers"]["host"] = "evil.example"
    assert module.handler(other, context)["statusCode"] == 421


def test_a_cut_answer_through_the_function_url_is_within_the_budget_as_lambda_sends_it(aws, monkeypatch):
    """The budget counts what Lambda's runtime sends: Mangum passes the XML as text (never base64),
    the runtime writes it as a JSON string (ensure_ascii=False), escaping each quote, backslash and
    line break once more. A calendar-query past the (lowered) budget is cut with a 507."""
    from mesq.dav import budget

    monkeypatch.setattr(budget, "ANSWER_BUDGET", budget.CLOSING_RESERVE + 3000)
    services = build_services(aws)
    user = create_user(services.items, "bigcal", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="iPad", scopes="todo:read,todo:write")
    auth = "Basic " + base64.b64encode(f"bigcal:{token}".encode()).decode()
    module, context = load_function("dav"), LambdaContext()
    home = module.handler(_event("PROPFIND", "/dav/bigcal/", auth, depth="1"), context)
    space = re.findall(r"<D:href>/dav/bigcal/([A-Za-z0-9_-]{16})/</D:href>", home["body"])[0]
    notes = 'DESCRIPTION:第一行 "引号" \\\\ 反斜杠\\n第二行 "再引" \\\\ 完\r\n'
    for number in range(12):
        ical = TASK.replace("UID:lambda-task", f"UID:big-{number}").replace("PRIORITY:1\r\n", notes)
        made = module.handler(_event("PUT", f"/dav/bigcal/{space}/big-{number}.ics", auth, ical), context)
        assert made["statusCode"] == 201, made
    query = (
        '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/>'
        '<C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"/>'
        "</C:comp-filter></C:filter></C:calendar-query>"
    )
    answer = module.handler(
        _event("REPORT", f"/dav/bigcal/{space}/", auth, query, depth="1", **{"content-type": "application/xml"}),
        context,
    )
    assert answer["statusCode"] == 207 and answer["isBase64Encoded"] is False
    body = answer["body"]
    assert "HTTP/1.1 507 Insufficient Storage" in body and "number-of-matches-within-limits" in body
    assert 1 <= body.count("<C:calendar-data>") < 12
    as_sent = len(json.dumps(body, ensure_ascii=False).encode()) - 2  # the string's quotes
    assert as_sent == budget.sent_bytes(body.encode()) <= budget.ANSWER_BUDGET
    assert as_sent > len(body.encode())  # the escapes were there to count
