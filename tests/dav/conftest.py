"""In-process CalDAV: the local app (every edge mounted as `mesq serve` mounts them) over
Starlette's TestClient on https, a user with a todo:read+todo:write token named "Phone".

- `dav`: a `Dav` for a fresh account: `.request(method, path, body, **headers)`, `.put(name,
  ical)`, `.propfind(path, body, depth)`, `.report(path, body)`, `.rest(...)`; `.space` is the
  default space's id, `.calendar` its collection path.
- `snapshot(services, user_id)`: every item of the user's partition, to prove a refused
  request wrote nothing.
- `mesq`: a real `mesq serve` for a test module (the sync clients' tests: python-caldav,
  vdirsyncer, the inbox move), on a data directory of its own; `phone_of(mesq, username, name)`
  an account there with a todo token named `name`, as python-caldav (`CaldavClient`) and REST.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET

import httpx
import pytest
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.kernel.keys import user_partition
from mesq.runtime.app_factories import create_local_app
from mesq.store.paging import walk
from mesq.wiring.services import Services
from tests.conftest import LiveServer, start_server, stop_server
from tests.dav.driver import CaldavClient
from tests.dav.mesq_side import Rest

PASSWORD = "correct horse battery"
NS = {"D": "DAV:", "C": "urn:ietf:params:xml:ns:caldav", "CS": "http://calendarserver.org/ns/"}


def vtodo(uid: str, *lines: str, summary: str = "A task") -> str:
    body = "\r\n".join(lines)
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Test//EN\r\nBEGIN:VTODO\r\n"
        f"UID:{uid}\r\nDTSTAMP:20261201T000000Z\r\nSUMMARY:{summary}\r\n"
        + (body + "\r\n" if body else "")
        + "END:VTODO\r\nEND:VCALENDAR\r\n"
    )


def basic(username: str, token: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{token}".encode()).decode()


@dataclass
class Dav:
    client: TestClient
    services: Services
    user_id: str
    username: str
    token: str
    space: str = ""

    @property
    def calendar(self) -> str:
        return f"/dav/{self.username}/{self.space}/"

    def request(self, method: str, path: str, body: str | bytes | None = None, **headers: str) -> httpx.Response:
        sent = {
            "Authorization": basic(self.username, self.token),
            **{k.replace("_", "-"): v for k, v in headers.items()},
        }
        return self.client.request(method, path, content=body, headers=sent)

    def put(self, name: str, ical: str, **headers: str) -> httpx.Response:
        return self.request("PUT", self.calendar + name, ical, content_type="text/calendar", **headers)

    def get(self, name: str) -> httpx.Response:
        return self.request("GET", self.calendar + name)

    def propfind(self, path: str, body: str | None = None, depth: str = "0") -> ET.Element:
        answer = self.request("PROPFIND", path, body, Depth=depth)
        assert answer.status_code == 207, answer.text
        return ET.fromstring(answer.content)

    def report(self, path: str, body: str) -> ET.Element:
        answer = self.request("REPORT", path, body, Depth="1")
        assert answer.status_code == 207, answer.text
        return ET.fromstring(answer.content)

    def rest(self, method: str, path: str, **body: Any) -> Any:
        answer = self.client.request(method, path, json=body or None, headers={"Authorization": f"Bearer {self.token}"})
        assert answer.status_code < 300, answer.text
        return answer.json()["data"]


@pytest.fixture(scope="module")
def mesq(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("mesq") / "data")
    yield server
    stop_server(server)


@contextmanager
def phone_of(mesq: LiveServer, username: str, name: str = "Phone") -> Iterator[tuple[CaldavClient, Rest]]:
    """A new account on `mesq` with a todo:read+todo:write token named `name` (the phone), as
    python-caldav sees it and as REST does."""
    token = mesq.account(username, "todo:read,todo:write", name).token
    client = CaldavClient(f"{mesq.base_url}/dav/", username, token)
    try:
        yield client, Rest(mesq.base_url, token)
    finally:
        client.close()


@pytest.fixture
def dav_client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_local_app(services), base_url="https://testserver", raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def make_dav(services: Services, dav_client: TestClient) -> Callable[..., Dav]:
    counter = iter(range(1, 1000))

    def make(scopes: str = "todo:read,todo:write", name: str = "Phone") -> Dav:
        username = f"dav{next(counter)}"
        user = create_user(services.items, username, PASSWORD)
        token, _ = create_token(services.items, user["id"], name=name, scopes=scopes)
        dav = Dav(dav_client, services, user["id"], username, token)
        dav.space = str(dav.rest("GET", "/api/toolkit/todo/spaces")["spaces"][0]["id"]) if "todo:read" in scopes else ""
        return dav

    return make


@pytest.fixture
def dav(make_dav: Callable[..., Dav]) -> Dav:
    return make_dav()


def snapshot(services: Services, user_id: str) -> list[dict[str, Any]]:
    return sorted((dict(item) for item in walk(services.items, user_partition(user_id))), key=lambda i: str(i["sk"]))


def hrefs(root: ET.Element) -> list[str]:
    return [str(r.findtext("D:href", namespaces=NS)) for r in root.findall("D:response", NS)]


def prop(root: ET.Element, href: str, name: str) -> ET.Element | None:
    for response in root.findall("D:response", NS):
        if response.findtext("D:href", namespaces=NS) == href:
            for propstat in response.findall("D:propstat", NS):
                if "200" in str(propstat.findtext("D:status", namespaces=NS)):
                    found = propstat.find(f"D:prop/{name}", NS)
                    if found is not None:
                        return found
    return None
