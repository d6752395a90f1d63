"""The OAuth function's handler with API Gateway HTTP API v2 events against moto: discovery,
registration, authorize -> consent hand-over, token, a REST call with the issued token through
the API function, revocation; and its routes in template.yaml."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import urlencode

from mesq.auth.oauth.authorization import decide
from mesq.auth.users import create_user
from mesq.http.oauth import oauth_routes
from mesq.web import web_routes
from mesq.wiring.services import build_services
from tests.infra.apigw import LambdaContext, decode_body, http_api_event, load_function
from tests.infra.template_tools import REPO, http_routes, load_template
from tests.oauth.helpers import REDIRECT_URI, Pkce, authorize_params, query_of

INSTANCE = "https://abc123.execute-api.us-east-1.amazonaws.com"
FORM = {"content-type": "application/x-www-form-urlencoded"}


def _form(fields: dict[str, str]) -> bytes:
    return urlencode(fields).encode()


def test_oauth_handler_warm_invocations(aws):
    oauth, api = load_function("oauth"), load_function("api")
    context = LambdaContext()
    services = build_services(aws)
    user = create_user(services.items, "lambda-oauth", "correct horse battery")

    metadata = oauth.handler(http_api_event("GET", "/.well-known/oauth-authorization-server"), context)
    assert metadata["statusCode"] == 200
    document = decode_body(metadata)
    assert document["issuer"] == INSTANCE and document["token_endpoint"] == f"{INSTANCE}/oauth/token"
    resource = decode_body(
        oauth.handler(http_api_event("GET", "/.well-known/oauth-protected-resource/api/toolkit"), context)
    )
    assert resource["resource"] == f"{INSTANCE}/api/toolkit" and resource["authorization_servers"] == [INSTANCE]

    registered = oauth.handler(
        http_api_event("POST", "/oauth/register", body={"client_name": "Lambda", "redirect_uris": [REDIRECT_URI]},
                       base64_body=True),
        context,
    )  # fmt: skip
    assert registered["statusCode"] == 201, registered
    client_id = decode_body(registered)["client_id"]

    pkce = Pkce.new()
    params = authorize_params(client_id, pkce, resource=f"{INSTANCE}/api/toolkit")
    authorized = oauth.handler(http_api_event("GET", "/oauth/authorize", query=params), context)
    assert authorized["statusCode"] == 302, authorized
    request_id = query_of(authorized["headers"]["location"])["request"]
    code = query_of(decide(services.items, user["id"], request_id, True))["code"]

    exchange = {"grant_type": "authorization_code", "code": code, "client_id": client_id,
                "redirect_uri": REDIRECT_URI, "code_verifier": pkce.verifier}  # fmt: skip
    issued = oauth.handler(
        http_api_event("POST", "/oauth/token", headers=FORM, body=_form(exchange), base64_body=True), context
    )
    assert issued["statusCode"] == 200, issued
    tokens = decode_body(issued)
    assert tokens["access_token"].startswith("mesq_at_") and tokens["scope"] == "memo:read memo:write"
    replay = oauth.handler(http_api_event("POST", "/oauth/token", headers=FORM, body=_form(exchange)), context)
    assert replay["statusCode"] == 400 and decode_body(replay)["error"] == "invalid_grant"

    # The replay revoked the first tokens; a fresh authorization gives new ones.
    pkce = Pkce.new()
    params = authorize_params(client_id, pkce, resource=f"{INSTANCE}/api/toolkit")
    request_id = query_of(
        oauth.handler(http_api_event("GET", "/oauth/authorize", query=params), context)["headers"]["location"]
    )["request"]
    code = query_of(decide(services.items, user["id"], request_id, True))["code"]
    exchange.update(code=code, code_verifier=pkce.verifier)
    tokens = decode_body(
        oauth.handler(http_api_event("POST", "/oauth/token", headers=FORM, body=_form(exchange)), context)
    )
    bearer = {"authorization": f"Bearer {tokens['access_token']}"}
    listed = api.handler(http_api_event("GET", "/api/toolkit/memo", headers=bearer), context)
    assert listed["statusCode"] == 200, listed

    revoked = oauth.handler(
        http_api_event("POST", "/oauth/revoke", body={"token": tokens["refresh_token"], "client_id": client_id}),
        context,
    )
    assert revoked["statusCode"] == 200
    assert api.handler(http_api_event("GET", "/api/toolkit/memo", headers=bearer), context)["statusCode"] == 401


def test_the_oauth_function_serves_the_server_card(aws):
    """The Server Card's two routes are the OAuth function's (template test below); through its
    handler the card names the API's URL and validates against the published schema."""
    from tests.mcp.test_server_card import card_errors

    oauth = load_function("oauth")
    for path in ("/.well-known/mcp/server-card.json", "/mcp/server-card"):
        answer = oauth.handler(http_api_event("GET", path), LambdaContext())
        assert answer["statusCode"] == 200, path
        card = decode_body(answer)
        assert card_errors(card) == [] and card["remotes"][0]["url"] == f"{INSTANCE}/mcp"


def test_oauth_routes_are_in_the_template(services):
    routes = http_routes(load_template())
    for route in oauth_routes(services):
        method = "GET" if route.path == "/oauth/authorize" else "ANY"
        assert routes.get((method, route.path)) == "OAuthFunction", route.path
    assert routes[("GET", "/.well-known/oauth-protected-resource/mcp")] == "McpFunction"


def test_browser_pages_are_routed_to_the_oauth_function(services):
    routes = http_routes(load_template())
    for route in web_routes(services):
        path = "/static/{proxy+}" if route.path == "/static" else route.path
        assert routes.get(("ANY", path)) == "OAuthFunction", path


def test_oauth_function_does_not_import_the_mcp_sdk_nor_the_import_readers(tmp_path):
    """Neither the MCP SDK nor BeautifulSoup (flomo's reader: the settings page's import form
    loads the importers, which load a reader only for its import; ~90 ms of a cold start)."""
    probe = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('oauth_app', 'functions/oauth/app.py')\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'bs4', 'soupsieve')))\n"
    )
    env = {**os.environ, "MESQ_STORAGE": "sqlite", "MESQ_DATA_DIR": str(tmp_path), "AWS_DEFAULT_REGION": "us-east-1"}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def _loaded_modules(tmp_path, function: str) -> list[str]:
    probe = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('app', 'functions/{function}/app.py')\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "MESQ_STORAGE": "sqlite", "MESQ_DATA_DIR": str(tmp_path), "AWS_DEFAULT_REGION": "us-east-1"}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_only_the_pages_function_loads_the_calendar_feed(tmp_path):
    # The calendar feed (and its icalendar dependency) is served by the browser-pages function.
    feed = ("icalendar", "mesq.calendar_feed.ics")
    assert all(name in _loaded_modules(tmp_path / "oauth", "oauth") for name in feed)
    for function in ("mcp", "api"):
        loaded = _loaded_modules(tmp_path / function, function)
        assert not [m for m in loaded if m == "icalendar" or m.startswith(("icalendar.", "mesq.calendar_feed"))]
