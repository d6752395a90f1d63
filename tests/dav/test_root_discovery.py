"""A calendar client given only the server's address (`https://mesq.example.com/`, the host a
phone is told to type) finds the calendars: PROPFIND on the site's root answers as
`/.well-known/caldav` does, 301 to `/dav/` (RFC 6764 §5 names "/" as the context path a client
tries without a well-known URI). python-caldav 3, given the root URL, sends its first PROPFIND
there and stopped at a 405 (in English JSON: "'PROPFIND' is not allowed on '/'")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from tests.conftest import LiveServer
from tests.dav.driver import CaldavClient


def test_propfind_on_the_root_leads_to_the_caldav_space_and_get_stays_the_site(dav_client: TestClient) -> None:
    answer = dav_client.request("PROPFIND", "/", headers={"Depth": "0"}, follow_redirects=False)
    assert answer.status_code == 301 and answer.headers["location"] == "/dav/"
    assert dav_client.get("/", follow_redirects=False).status_code != 301  # the site's own front page
    refused = dav_client.post("/")  # another method is the site's refusal, naming the site's methods
    assert refused.status_code == 405 and "GET" in refused.headers["allow"], refused.headers
    assert "PROPFIND" not in refused.headers["allow"]


@pytest.fixture(scope="module")
def token(mesq: LiveServer) -> str:
    return mesq.account("mei", "todo:read,todo:write", "iPhone").token


@pytest.fixture(scope="module")
def client(mesq: LiveServer, token: str) -> Iterator[CaldavClient]:
    caldav = CaldavClient(f"{mesq.base_url}/", "mei", token)
    yield caldav
    caldav.close()


def test_python_caldav_given_the_servers_address_finds_the_calendars(client: CaldavClient, mesq: LiveServer) -> None:
    assert client.connected["principal"] == f"{mesq.base_url}/dav/mei/"
    urls = [c["url"] for c in client.connected["calendars"]]
    assert len(urls) == 2 and urls[-1] == f"{mesq.base_url}/dav/mei/inbox/"
