"""DNS rebinding: a Host that does not name the instance is 421 on every route of every app, and
"Origin equals Host" no longer passes a rebinding page (its Host is refused first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from mesq.asgi.hosts import HostPolicy
from mesq.runtime.app_factories import create_api_app, create_mcp_app, create_oauth_app
from mesq.runtime.server import create_local_app
from mesq.wiring.config import Settings
from mesq.wiring.services import Services

EVIL = "evil.example"
ROUTES = [
    ("GET", "/healthz"),
    ("GET", "/api/toolkit/memo"),
    ("POST", "/mcp"),
    ("POST", "/oauth/token"),
    ("GET", "/oauth/authorize"),
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
    ("GET", "/login"),
    ("GET", "/no/such/route"),
]


def _with(services: Services, **changes: object) -> Services:
    return Services(settings=services.settings.with_overrides(**changes), items=services.items, blobs=services.blobs)


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_every_route_of_the_local_app_refuses_a_foreign_host(services: Services, method: str, path: str) -> None:
    with TestClient(create_local_app(services), raise_server_exceptions=False) as client:
        answer = client.request(method, path, headers={"Host": EVIL, "Origin": f"http://{EVIL}"})
    assert answer.status_code == 421, answer.text
    body = answer.json()
    assert body["error"]["code"] == "MISDIRECTED_REQUEST" and EVIL in body["error"]["message"]
    assert body["traceId"] == answer.headers["x-trace-id"]


@pytest.mark.parametrize("build", [create_api_app, create_mcp_app, create_oauth_app])
def test_every_function_app_has_the_host_check(services: Services, build: object) -> None:
    assert callable(build)
    app: Starlette = build(services)
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/healthz", headers={"Host": EVIL}).status_code == 421
        assert client.get("/healthz").status_code in (200, 404)  # testserver is configured for the tests


def test_rebinding_page_no_longer_reaches_mcp(services: Services, make_account) -> None:
    account = make_account(scopes="memo:read")
    headers = {
        **account.headers,
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    with TestClient(create_local_app(services), raise_server_exceptions=False) as client:
        attack = client.post("/mcp", json=message, headers={**headers, "Host": EVIL, "Origin": f"http://{EVIL}"})
        assert attack.status_code == 421
        # The loopback address the conformance suite uses: served, with its own origin.
        local = client.post(
            "/mcp", json=message, headers={**headers, "Host": "127.0.0.1:8787", "Origin": "http://127.0.0.1:8787"}
        )
        assert local.status_code == 200, local.text
        # Another local tool's origin on a loopback server is allowed; a foreign one is not.
        tool = client.post(
            "/mcp", json=message, headers={**headers, "Host": "localhost:8787", "Origin": "http://[::1]:6274"}
        )
        assert tool.status_code == 200, tool.text
        foreign = client.post(
            "/mcp", json=message, headers={**headers, "Host": "127.0.0.1:8787", "Origin": f"http://{EVIL}"}
        )
        assert foreign.status_code == 403


def test_configured_public_url_is_the_only_name(services: Services) -> None:
    public = _with(services, public_url="https://mesq.example.com", allowed_hosts=())
    with TestClient(create_local_app(public), raise_server_exceptions=False) as client:
        assert client.get("/healthz", headers={"Host": "mesq.example.com"}).status_code == 200
        assert client.get("/healthz", headers={"Host": "MESQ.example.com.:443"}).status_code == 200
        assert client.get("/healthz", headers={"Host": "localhost:9000"}).status_code == 200  # a local proxy
        assert client.get("/healthz", headers={"Host": "192.168.1.20:8787"}).status_code == 421
        assert client.get("/healthz", headers={"Host": "testserver"}).status_code == 421
        assert client.get("/healthz", headers={"Host": "mesq.example.com.evil.example"}).status_code == 421


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost", True),
        ("127.0.0.1:8787", True),
        ("[::1]:8787", True),
        ("192.168.1.20:8787", True),  # no public URL: an IP literal is never a rebinding name
        ("[fe80::1]", True),
        ("extra.example", True),
        ("Extra.Example:8443", True),
        ("evil.example", False),
        ("127.0.0.1.nip.io", False),
        ("localhost.evil.example", False),
        ("::1", False),  # unbracketed IPv6 is not a Host
        ("", False),
        (None, False),
    ],
)
def test_host_policy_without_a_public_url(tmp_path: Path, host: str | None, allowed: bool) -> None:
    policy = HostPolicy(Settings(data_dir=tmp_path, allowed_hosts=("extra.example",)))
    assert policy.allows(host, {"type": "http"}) is allowed


def test_host_policy_on_lambda_accepts_only_the_api_gateway_domain(tmp_path: Path) -> None:
    policy = HostPolicy(Settings(data_dir=tmp_path))
    scope = {
        "type": "http",
        "aws.event": {"requestContext": {"domainName": "abc123.execute-api.us-east-1.amazonaws.com"}},
    }
    assert policy.allows("abc123.execute-api.us-east-1.amazonaws.com", scope)
    assert not policy.allows("192.0.2.1", scope)  # not the IP-literal rule: API Gateway names the domain
    assert not policy.allows(EVIL, scope)


def test_settings_read_the_host_and_body_deadline_variables() -> None:
    from mesq.wiring.config import ConfigError

    env = {"MESQ_ALLOWED_HOSTS": " mesq.lan, other.example ,", "MESQ_BODY_TIMEOUT_SECONDS": "3"}
    settings = Settings.from_env({**env, "MESQ_BODY_MIN_RATE_BYTES": "2048"})
    assert settings.allowed_hosts == ("mesq.lan", "other.example")
    assert (settings.body_timeout_seconds, settings.body_min_rate_bytes) == (3, 2048)
    defaults = Settings.from_env({})
    assert (defaults.allowed_hosts, defaults.body_timeout_seconds, defaults.body_min_rate_bytes) == ((), 10, 10240)
    with pytest.raises(ConfigError, match="MESQ_BODY_TIMEOUT_SECONDS"):
        Settings.from_env({"MESQ_BODY_TIMEOUT_SECONDS": "0"})
