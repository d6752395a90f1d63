"""One real `mesq serve` for the whole client suite (each start pays the MCP SDK import), a person
who signs in and approves in a browser, a personal access token for clients configured with one,
and a loopback metadata host for Client ID Metadata Documents (`MESQ_OAUTH_CIMD_ALLOW_LOOPBACK`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.oauth.browser import Browser
from tests.oauth.metadata_host import MetadataHost

PASSWORD = "correct horse battery"
ALL_SCOPES = "memo:read,memo:write,todo:read,todo:write,reading:read"


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("clients") / "data",
        {"MESQ_OAUTH_CIMD_ALLOW_LOOPBACK": "true", "MCP_RATE_LIMIT_PROFILE": "relaxed"},
    )
    created = live.cli("user", "create", "alice", "--password-stdin", stdin=PASSWORD + "\n")
    assert created.returncode == 0, created.stderr
    yield live
    stop_server(live)


@pytest.fixture(scope="package")
def pat(server: LiveServer) -> str:
    """A personal access token, for the clients people configure with a bearer header."""
    made = server.cli("token", "create", "alice", "--name", "clients", "--scopes", ALL_SCOPES)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip().splitlines()[-1]


@pytest.fixture
def browser(server: LiveServer) -> Iterator[Browser]:
    person = Browser(server.base_url, "alice", PASSWORD)
    yield person
    person.close()


@pytest.fixture(scope="package")
def metadata_host() -> Iterator[MetadataHost]:
    host = MetadataHost()
    yield host
    if host._httpd is not None:
        host.stop()
