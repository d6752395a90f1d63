"""Client ID Metadata Documents: fetched with tight limits from a loopback server (admitted only
with `oauth_cimd_allow_loopback`), refused when the document does not describe its own URL."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.http.cimd import MAX_DOCUMENT_BYTES
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services
from tests.oauth.helpers import REDIRECT_URI, Pkce, authorize_params, query_of
from tests.oauth.metadata_host import MetadataHost

Served = dict[str, tuple[int, dict[str, str], bytes]]


@pytest.fixture
def documents() -> Iterator[tuple[str, Served]]:
    host = MetadataHost()
    yield host.url(""), host.documents
    host.stop()


def _app(services: Services, allow_loopback: bool) -> TestClient:
    settings = services.settings.with_overrides(oauth_cimd_allow_loopback=allow_loopback)
    return TestClient(create_local_app(Services(settings=settings, items=services.items, blobs=services.blobs)))


def _document(url: str, **changes: Any) -> bytes:
    document = {"client_id": url, "client_name": "Doc Agent", "redirect_uris": [REDIRECT_URI], **changes}
    return json.dumps(document).encode()


JSON = {"Content-Type": "application/json"}


def _authorize(client: TestClient, client_id: str):
    return client.get("/oauth/authorize", params=authorize_params(client_id, Pkce.new()), follow_redirects=False)


def test_a_good_document_leads_to_consent(services, documents):
    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url))
    with _app(services, allow_loopback=True) as client:
        response = _authorize(client, url)
        assert response.status_code == 302 and "/oauth/consent?request=" in response.headers["location"]


@pytest.mark.parametrize(
    ("status", "headers", "body", "needle"),
    [
        (200, JSON, None, None),  # the document names another client_id
        (200, {"Content-Type": "text/html"}, b"{}", "media type"),
        (302, {"Location": "/other.json"}, b"", "redirects"),
        (404, JSON, b"", "404"),
        (200, JSON, b"[]", "JSON object"),
        (200, JSON, b'{"client_id": "' + b"x" * MAX_DOCUMENT_BYTES + b'"}', "exceeds"),
    ],
)
def test_bad_documents_are_refused(services, documents, status, headers, body, needle):
    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (status, headers, body if body is not None else _document(f"{base}/other.json"))
    with _app(services, allow_loopback=True) as client:
        response = _authorize(client, url)
    assert response.status_code == 400 and "location" not in response.headers
    assert response.json()["error"] == "invalid_client"
    assert needle is None or needle in response.json()["error_description"]


def test_redirect_uri_must_be_listed_in_the_document(services, documents):
    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url, redirect_uris=["http://127.0.0.1:9999/elsewhere"]))
    with _app(services, allow_loopback=True) as client:
        response = _authorize(client, url)
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"


def test_loopback_and_private_targets_need_the_flag(services, documents):
    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url))
    with _app(services, allow_loopback=False) as client:
        plain_http = _authorize(client, url)
        assert plain_http.status_code == 400 and "https" in plain_http.json()["error_description"]
        private = _authorize(client, "https://127.0.0.1:1/client.json")
        assert private.status_code == 400 and "non-public" in private.json()["error_description"]
        for bad in (
            "https://example.com",
            "https://example.com/",
            "https://example.com/a/../b",
            "https://u:p@x.example/c",
        ):
            assert _authorize(client, bad).json()["error"] == "invalid_client", bad


def test_allow_private_destinations_never_opens_the_cimd_fetch(services, documents):
    """The reminder channels' home-network setting is the owner's choice for where reminders go;
    the CIMD fetch is made for an anonymous caller and keeps its own rules."""
    base, served = documents
    port = base.rsplit(":", 1)[1]
    for url in (f"{base}/client.json", f"https://127.0.0.1:{port}/client.json", f"https://[::1]:{port}/client.json"):
        served["/client.json"] = (200, JSON, _document(url))
    settings = services.settings.with_overrides(oauth_cimd_allow_loopback=False, allow_private_destinations=True)
    assert settings.allow_private_destinations and not settings.oauth_cimd_allow_loopback
    app = create_local_app(Services(settings=settings, items=services.items, blobs=services.blobs))
    with TestClient(app) as client:
        plain_http = _authorize(client, f"{base}/client.json")
        assert plain_http.status_code == 400 and "https" in plain_http.json()["error_description"]
        for loopback in (f"https://127.0.0.1:{port}/client.json", f"https://[::1]:{port}/client.json"):
            refused = _authorize(client, loopback)
            assert refused.status_code == 400 and "location" not in refused.headers, loopback
            # refused by the address check before any connection (a TLS attempt would say otherwise)
            assert "non-public" in refused.json()["error_description"], refused.json()


def test_approved_document_client_gets_tokens(services, documents):
    from mesq.auth.oauth.authorization import decide
    from mesq.auth.users import create_user

    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url))
    user = create_user(services.items, "docuser", "correct horse battery")
    pkce = Pkce.new()
    with _app(services, allow_loopback=True) as client:
        response = client.get("/oauth/authorize", params=authorize_params(url, pkce), follow_redirects=False)
        request_id = query_of(response.headers["location"])["request"]
        code = query_of(decide(services.items, user["id"], request_id, True))["code"]
        form = {"grant_type": "authorization_code", "code": code, "client_id": url, "redirect_uri": REDIRECT_URI,
                "code_verifier": pkce.verifier}  # fmt: skip
        assert client.post("/oauth/token", data=form).status_code == 200


def test_code_presented_by_another_document_client_is_spent(services, documents):
    from mesq.auth.oauth.authorization import decide
    from mesq.auth.users import create_user

    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url))
    user = create_user(services.items, "docuser", "correct horse battery")
    pkce = Pkce.new()
    with _app(services, allow_loopback=True) as client:
        response = client.get("/oauth/authorize", params=authorize_params(url, pkce), follow_redirects=False)
        request_id = query_of(response.headers["location"])["request"]
        code = query_of(decide(services.items, user["id"], request_id, True))["code"]
        form = {"grant_type": "authorization_code", "code": code, "client_id": url, "redirect_uri": REDIRECT_URI,
                "code_verifier": pkce.verifier}  # fmt: skip
        other_client = client.post("/oauth/token", data={**form, "client_id": f"{base}/other.json"})
        assert other_client.json()["error"] == "invalid_grant"
        # Single use whatever the outcome: the rightful client cannot use it after that either.
        assert client.post("/oauth/token", data=form).json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "changes",
    [
        {"redirect_uris": ["http://evil.example/callback"]},
        {"redirect_uris": []},
        {"client_secret": "s3cret"},
        {"token_endpoint_auth_method": "private_key_jwt"},
        {"jwks": {}},  # was a 500 at authorize (authlib's key-set import)
        {"jwks": "x"},
        # A document that offers no public code flow (no `none` among its methods, no code grant)
        # stays refused; ChatGPT's and VS Code's offer one (test_the_documents_..._connect).
        {"token_endpoint_auth_method": "private_key_jwt", "token_endpoint_auth_methods_supported": ["private_key_jwt"]},
        {"token_endpoint_auth_method": "private_key_jwt", "token_endpoint_auth_methods_supported": "none"},
        {"grant_types": ["refresh_token", "urn:ietf:params:oauth:grant-type:device_code"]},
    ],
)
def test_documents_that_break_client_rules_are_invalid_clients(services, documents, changes):
    base, served = documents
    url = f"{base}/client.json"
    served["/client.json"] = (200, JSON, _document(url, **changes))
    with _app(services, allow_loopback=True) as client:
        response = _authorize(client, url)
    assert response.status_code == 400 and response.json()["error"] == "invalid_client", response.text


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.5",
        "::1",
        "::ffff:127.0.0.1",  # IPv4-mapped loopback
        "::ffff:10.0.0.5",
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1 (is_global on Python 3.11)
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254, the cloud metadata service
        "2002:7f00:1::",  # 6to4 of 127.0.0.1 (is_global on Python 3.11)
        "2002:c0a8:101::1",  # 6to4 of 192.168.1.1
        "::127.0.0.1",  # IPv4-compatible loopback
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo whose client is 127.0.0.1
        "fe80::1",
        "ff02::1",
    ],
)
def test_metadata_document_hosts_must_resolve_to_public_addresses(monkeypatch, address):
    from mesq.auth.oauth.errors import OAuthError
    from mesq.http import cimd
    from mesq.kernel import addresses as outbound

    monkeypatch.setattr(outbound.socket, "getaddrinfo", lambda *args, **kwargs: [(0, 0, 0, "", (address, 443))])
    with pytest.raises(OAuthError) as error:
        asyncio.run(cimd.fetch_metadata_document("https://client.example/client.json", allow_loopback=False))
    assert error.value.error == "invalid_client" and "non-public address" in error.value.description


def test_public_addresses_pass_the_guard():
    import ipaddress

    from mesq.kernel.addresses import is_public_address

    for address in ("93.184.216.34", "2606:2800:220:1::248", "::ffff:93.184.216.34", "2002:5db8:d822::1"):
        assert is_public_address(ipaddress.ip_address(address)), address


def test_the_fetch_connects_to_the_address_it_checked(monkeypatch, documents):
    """Resolve once, connect to that address: a second lookup (a rebinding) is never made, and
    the request still names the URL's host."""
    from mesq.http import cimd
    from mesq.kernel import addresses as outbound

    base, served = documents
    port = int(base.rsplit(":", 1)[1])
    url = f"http://client.example:{port}/client.json"
    served["/client.json"] = (200, JSON, _document(url))
    lookups: list[str] = []
    real_getaddrinfo = socket.getaddrinfo

    def rebinding_resolver(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        if host != "client.example":  # an IP literal: no DNS involved
            return real_getaddrinfo(host, *args, **kwargs)
        lookups.append(host)
        target = "127.0.0.1" if len(lookups) == 1 else "10.9.9.9"  # a second answer would point elsewhere
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (target, port))]

    monkeypatch.setattr(outbound.socket, "getaddrinfo", rebinding_resolver)
    # The guard runs (allow_loopback=False) but treats this loopback test server as public.
    monkeypatch.setattr(outbound, "is_public_address", lambda address: str(address) == "127.0.0.1")
    document = asyncio.run(cimd.fetch_metadata_document(url, allow_loopback=False)).document
    assert document["client_id"] == url and lookups == ["client.example"]


def test_claude_codes_document_connects_with_a_localhost_port(services, documents):
    """Claude Code's client metadata document (https://claude.ai/oauth/claude-code-client-metadata)
    lists `http://localhost/callback` and `http://127.0.0.1/callback` and authorizes with
    `http://localhost:<a free port>/callback` (anthropics/claude-code#90370): the port of a
    `localhost` URI may vary as an IP literal's does, or Claude Code can never connect. The code
    is then bound to the URI with its port, and only another port of a listed URI is admitted."""
    base, served = documents
    url = f"{base}/claude-code-client-metadata"
    document = _document(
        url, client_name="Claude Code", redirect_uris=["http://localhost/callback", "http://127.0.0.1/callback"]
    )
    served["/claude-code-client-metadata"] = (200, JSON, document)
    with _app(services, allow_loopback=True) as client:
        for redirect_uri in ("http://localhost:57470/callback", "http://127.0.0.1:57471/callback"):
            params = authorize_params(url, Pkce.new(), redirect_uri=redirect_uri)
            response = client.get("/oauth/authorize", params=params, follow_redirects=False)
            assert response.status_code == 302, response.text
            assert "/oauth/consent?request=" in response.headers["location"]
        for other in (
            "http://localhost:57470/other",
            "http://localhost.evil:57470/callback",
            "https://localhost/callback",
        ):
            params = authorize_params(url, Pkce.new(), redirect_uri=other)
            refused = client.get("/oauth/authorize", params=params, follow_redirects=False)
            assert refused.status_code == 400 and refused.json()["error"] == "invalid_request", other


def _published(url: str, shape: str) -> bytes:
    """The documents ChatGPT and VS Code publish (https://chatgpt.com/oauth/client.json,
    https://vscode.dev/oauth/client-metadata.json), with `client_id` moved to the test's host."""
    if shape == "chatgpt":
        document = {
            "client_id": url, "client_uri": "https://chatgpt.com/",
            "redirect_uris": ["https://chatgpt.com/connector_platform_oauth_redirect"],
            "token_endpoint_auth_method": "private_key_jwt",
            "token_endpoint_auth_methods_supported": ["none", "private_key_jwt"],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "client_name": "ChatGPT", "logo_uri": "https://persistent.oaistatic.com/sonic/misc/openai-logo.png",
            "token_endpoint_auth_signing_alg": "RS256", "jwks_uri": "https://chatgpt.com/oauth/jwks.json",
        }  # fmt: skip
    else:
        document = {
            "client_id": url, "client_name": "Visual Studio Code",
            "logo_uri": "https://code.visualstudio.com/assets/branding/code-stable.png",
            "grant_types": ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
            "response_types": ["code"], "token_endpoint_auth_method": "none", "application_type": "native",
            "client_uri": "https://vscode.dev/product",
            "redirect_uris": ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"],
        }  # fmt: skip
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("shape", "redirect_uri"),
    [("chatgpt", "https://chatgpt.com/connector_platform_oauth_redirect"), ("vscode", "http://127.0.0.1:33418/")],
)
def test_the_documents_chatgpt_and_vs_code_publish_connect(services, documents, shape, redirect_uri):
    """MeSQ advertises metadata documents, so ChatGPT and VS Code use theirs rather than register.
    ChatGPT's names `private_key_jwt` but offers `none` in `token_endpoint_auth_methods_supported`
    (it is a public client to a server that only takes `none`); VS Code's lists the device-code
    grant beside the two MeSQ issues. Both were refused as invalid_client at authorize, so neither
    could connect. Each gets a code and tokens as a public client."""
    from mesq.auth.oauth.authorization import decide
    from mesq.auth.users import create_user

    base, served = documents
    url = f"{base}/{shape}.json"
    served[f"/{shape}.json"] = (200, JSON, _published(url, shape))
    user = create_user(services.items, "docuser", "correct horse battery")
    pkce = Pkce.new()
    with _app(services, allow_loopback=True) as client:
        params = authorize_params(url, pkce, redirect_uri=redirect_uri)
        response = client.get("/oauth/authorize", params=params, follow_redirects=False)
        assert response.status_code == 302 and "/oauth/consent?request=" in response.headers["location"], response.text
        request_id = query_of(response.headers["location"])["request"]
        code = query_of(decide(services.items, user["id"], request_id, True))["code"]
        form = {"grant_type": "authorization_code", "code": code, "client_id": url, "redirect_uri": redirect_uri,
                "code_verifier": pkce.verifier}  # fmt: skip
        tokens = client.post("/oauth/token", data=form)
        assert tokens.status_code == 200, tokens.text
