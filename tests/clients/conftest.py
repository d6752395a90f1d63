"""One real `mesq serve` for the whole client suite (each start pays the MCP SDK import), a person
who signs in and approves in a browser, a personal access token for clients configured with one,
and a loopback metadata host for Client ID Metadata Documents (`MESQ_OAUTH_CIMD_ALLOW_LOOPBACK`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import LiveServer
from tests.oauth.browser import PASSWORD, Browser, oauth_server
from tests.oauth.metadata_host import MetadataHost

ALL_SCOPES = "memo:read,memo:write,todo:read,todo:write,reading:read"


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from oauth_server(tmp_path_factory.mktemp("clients") / "data")


@pytest.fixture(scope="package")
def pat(server: LiveServer) -> str:
    """A personal access token, for the clients people configure with a bearer header."""
    return server.token("alice", ALL_SCOPES, "clients")


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
