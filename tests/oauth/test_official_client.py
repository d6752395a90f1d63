"""The official `mcp` client's own OAuth support (`OAuthClientProvider`) against `mesq serve`:
it discovers everything from the 401, registers itself (RFC 7591), sends the person to the
authorization URL (here our Browser signs in and approves), checks `iss` and exchanges the code
with PKCE, then lists and calls tools with the access token it obtained."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from tests.conftest import LiveServer, start_server, stop_server
from tests.oauth.browser import Browser
from tests.oauth.helpers import REDIRECT_URI, query_of

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("oauth-sdk") / "data", {"MCP_RATE_LIMIT_PROFILE": "relaxed"})
    created = live.cli_here("user", "create", "bob", "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    yield live
    stop_server(live)


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def _provider(mcp_url: str, browser: Browser, storage: MemoryStorage, scope: str) -> OAuthClientProvider:
    """The SDK's OAuth with `browser` as the person: it opens the URL, signs in, approves."""
    callbacks: list[dict[str, str]] = []

    async def redirect_handler(authorization_url: str) -> None:
        response = await anyio.to_thread.run_sync(lambda: browser.http.get(authorization_url))
        assert response.status_code == 302, response.text
        callbacks.append(query_of(await anyio.to_thread.run_sync(browser.decide, response.headers["location"], True)))

    async def callback_handler() -> AuthorizationCodeResult:
        callback = callbacks.pop()
        return AuthorizationCodeResult(code=callback["code"], state=callback.get("state"), iss=callback.get("iss"))

    return OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(client_name="SDK Agent", redirect_uris=[REDIRECT_URI], scope=scope),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )


def _listed_tools(mcp_url: str, auth: OAuthClientProvider, browser: Browser) -> list[str]:
    """Connect through the official client (signing in and consenting as `browser`'s person) and
    list the tools; the person's browser is closed after."""
    names: list[str] = []

    async def scenario() -> None:
        http = httpx2.AsyncClient(auth=auth, timeout=30)
        async with http, Client(streamable_http_client(mcp_url, http_client=http), mode="auto") as client:
            names.extend(tool.name for tool in (await client.list_tools()).tools)

    try:
        anyio.run(scenario)
    finally:
        browser.close()
    return names


@contextmanager
def first_connection(tmp_path: Path, public_url: str, browse: str, connect: str) -> Iterator[tuple[str, MemoryStorage]]:
    """`mesq serve --public-url <public_url>`; the official client connects to `<connect>/mcp` and
    the person signs in and consents on `<browse>` ("{port}" in each: the server's port), through to
    a token. Yields the port and the client's stored tokens; the server stops after."""
    argv = [sys.executable, "-m", "mesq.runtime.cli", "serve", "--data-dir", "{data_dir}", "--port", "{port}",
            "--public-url", public_url]  # fmt: skip
    live = start_server(tmp_path / "data", {"MCP_RATE_LIMIT_PROFILE": "relaxed"}, command=argv)
    try:
        created = live.cli_here("user", "create", "bob", "--password-stdin", stdin=PASSWORD + "\n")
        assert created.returncode == 0, created.stderr
        port = live.base_url.rsplit(":", 1)[1]
        browser = Browser(browse.format(port=port), "bob", PASSWORD)
        storage = MemoryStorage()
        mcp_url = f"{connect.format(port=port)}/mcp"
        assert "list_memos" in _listed_tools(mcp_url, _provider(mcp_url, browser, storage, "memo:read"), browser)
        assert storage.tokens is not None
        yield port, storage
    finally:
        stop_server(live)


def test_official_client_signs_in_on_another_name_of_the_public_url(tmp_path):
    """`--public-url http://127.0.0.1:PORT`, and the client connects to `http://localhost:PORT/mcp`:
    the metadata names the URL it used (RFC 9728 §3.3, which the SDK checks), the authorization
    server stays the public URL, and the token works by both names."""
    public = "http://127.0.0.1:{port}"
    with first_connection(tmp_path, public, browse=public, connect="http://localhost:{port}") as (port, storage):
        assert storage.tokens is not None
        by_public_name = httpx.post(
            f"{public.format(port=port)}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={
                "Authorization": f"Bearer {storage.tokens.access_token}",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert by_public_name.status_code == 200, by_public_name.text


def test_official_client_signs_in_with_oauth(server):
    browser = Browser(server.base_url, "bob", PASSWORD)
    storage = MemoryStorage()
    auth = _provider(f"{server.base_url}/mcp", browser, storage, "memo:read memo:write")

    async def scenario() -> None:
        async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
            transport = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
            async with Client(transport, mode="auto") as client:
                # The 401 challenge names the read scopes (what connecting needs), so the first
                # approval is read-only: no write tool is listed.
                names = [tool.name for tool in (await client.list_tools()).tools]
                assert "list_memos" in names and "create_memo" not in names
                # Calling a write tool is a 403 insufficient_scope step-up; the SDK asks the person
                # again for the union of scopes and retries the call with the new token.
                created = await client.call_tool("create_memo", {"content": "hello from the SDK's OAuth"})
                assert not created.is_error, created

    try:
        anyio.run(scenario)
    finally:
        browser.close()
    assert storage.client is not None and storage.client.client_id.startswith("mesq_client_")
    assert storage.tokens is not None and storage.tokens.access_token.startswith("mesq_at_")
    # MCP scope selection: the challenge's scope first, then the step-up's union with memo:write.
    assert set(storage.tokens.scope.split()) == {"memo:read", "memo:write", "todo:read", "reading:read"}


def test_official_client_on_a_narrowed_url_asks_only_for_what_it_shows(server):
    """Connecting `/mcp/x/todo` (a person who wants the todo tools only): the SDK asks for the
    challenge's `scope`, so the person approves reading todos and nothing more; the token lists
    the todo tools. It asked for memos and the reading shelf too, which that URL never shows."""
    browser = Browser(server.base_url, "bob", PASSWORD)
    storage = MemoryStorage()
    url = f"{server.base_url}/mcp/x/todo"
    names = _listed_tools(url, _provider(url, browser, storage, "todo:read"), browser)
    assert "list_todo_spaces" in names and "list_memos" not in names
    assert storage.tokens is not None and storage.tokens.scope == "todo:read"


def test_official_client_on_the_readonly_url_signs_in_for_the_reads(server):
    """`/mcp/readonly`: its protected-resource document lists only the read scopes (it listed the
    write scopes too, which no tool of it uses), its challenge asks for them, and the SDK's flow
    goes through to a token that lists the read tools only."""
    browser = Browser(server.base_url, "bob", PASSWORD)
    storage = MemoryStorage()
    url = f"{server.base_url}/mcp/readonly"
    reads = "memo:read todo:read reading:read"
    document = httpx.get(f"{server.base_url}/.well-known/oauth-protected-resource/mcp/readonly", timeout=10).json()
    assert document["scopes_supported"] == reads.split()
    names = _listed_tools(url, _provider(url, browser, storage, reads), browser)
    assert "list_memos" in names and "create_memo" not in names
    assert storage.tokens is not None and storage.tokens.scope == reads


class RecordingStorage(MemoryStorage):
    """Keeps every token set the client was handed, the first one's too."""

    def __init__(self) -> None:
        super().__init__()
        self.issued: list[OAuthToken] = []

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.issued.append(tokens)
        await super().set_tokens(tokens)


def test_official_client_step_up_replaces_its_first_connection(server):
    """The SDK connects (read scopes), calls a write tool, gets the 403 `insufficient_scope` and
    has the person approve the union: the grant of that second approval replaces the first, so the
    first access and refresh tokens stop working and Settings → Connected apps lists the client
    once. The first grant stayed alive: the client was listed twice, and disconnecting the one the
    person saw left the other working for 30 days of refreshes."""
    browser = Browser(server.base_url, "bob", PASSWORD)
    storage = RecordingStorage()
    auth = _provider(f"{server.base_url}/mcp", browser, storage, "memo:read memo:write")

    async def scenario() -> None:
        async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
            transport = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
            async with Client(transport, mode="auto") as client:
                assert "create_memo" not in [tool.name for tool in (await client.list_tools()).tools]
                created = await client.call_tool("create_memo", {"content": "after the step-up"})
                assert not created.is_error, created

    try:
        anyio.run(scenario)
        first, last = storage.issued[0], storage.issued[-1]
        assert storage.client is not None and first.access_token != last.access_token
        assert "memo:write" not in (first.scope or "").split() and "memo:write" in (last.scope or "").split()
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        accept = {"Accept": "application/json, text/event-stream"}

        def mcp_status(token: str) -> int:
            headers = {"Authorization": f"Bearer {token}", **accept}
            return httpx.post(f"{server.base_url}/mcp", json=ping, headers=headers, timeout=10).status_code

        assert mcp_status(first.access_token) == 401
        assert mcp_status(last.access_token) == 200
        assert first.refresh_token is not None
        refreshed = httpx.post(
            f"{server.base_url}/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": first.refresh_token,
                "client_id": storage.client.client_id,
            },
            timeout=10,
        )
        assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
        page = browser.http.get("/settings/apps")
        assert page.status_code == 200, page.text
        assert page.text.count(storage.client.client_id) == 1
    finally:
        browser.close()
