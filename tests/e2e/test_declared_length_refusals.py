"""An upload whose declared `Content-Length` is over its route's cap is refused from the header at
once (413 in the route's own error shape, a page's in the reader's language), never after its body
was read up to the cap: a raw socket sends the head and a few bytes and must have the answer well
before the body deadline (30 s here) could answer instead. The caps: 100 MiB per attachment file
(REST relay: plus 1 MiB of form), 256 MiB (+1 MiB) for an import from another app (REST and page),
256 MiB for Settings → Import (the account archive)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from mesq.web.settings.archive import IMPORT_MAX_BYTES
from mesq.web.settings.import_sources import UPLOAD_BYTES
from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_slow_clients import _connect
from tests.web.conftest import PASSWORD, csrf_of

BODY_DEADLINE_SECONDS = 30
PROMPT_SECONDS = 3.0  # an answer from the header; reading the body would take the deadline
OVER = 300 * 1024 * 1024  # over every cap here
ZH_FIX = "请选一个小一些的文件"


@dataclass
class Signed:
    token: str
    cookie: str
    csrf: str


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {"MESQ_BODY_TIMEOUT_SECONDS": str(BODY_DEADLINE_SECONDS)}
    live = start_server(tmp_path_factory.mktemp("declared") / "data", env)
    yield live
    stop_server(live)


@pytest.fixture(scope="module")
def signed(server: LiveServer) -> Signed:
    account = server.account("uploader", "memo:read memo:write todo:read todo:write")
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        login = client.get("/login")
        answer = client.post("/login", data={"csrf": csrf_of(login.text), "username": "uploader", "password": PASSWORD})
        assert answer.status_code == 303, answer.text
        csrf = csrf_of(client.get("/settings/tokens").text)
        cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
    return Signed(token=account.token, cookie=cookie, csrf=csrf)


def _refused_at_once(
    server: LiveServer, path: str, content_type: str, headers: dict[str, str]
) -> tuple[float, dict[str, str], bytes]:
    sock, netloc = _connect(server)
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {netloc}\r\nContent-Type: {content_type}\r\nContent-Length: {OVER}\r\n"
        f"Origin: {server.base_url}\r\n{lines}\r\n"
    )
    with sock:
        started = time.monotonic()
        sock.sendall(head.encode() + b"--xx\r\n")  # then nothing more: the body never comes
        data = b""
        while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < _length(data):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        elapsed = time.monotonic() - started
    head_part, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head_part.decode("latin-1").split("\r\n")
    answer = {name.strip().lower(): value.strip() for name, _, value in (h.partition(":") for h in header_lines)}
    answer[":status"] = status_line.split()[1]
    return elapsed, answer, body


def _length(data: bytes) -> int:
    for line in data.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 30


@pytest.mark.parametrize(
    ("path", "content_type", "message"),
    [
        (
            "/api/toolkit/memo/resources/upload",
            "multipart/form-data; boundary=xx",
            "the file is over 104857600 bytes (100 MiB per file); nothing was stored",
        ),
        (
            "/api/toolkit/import?kind=flomo",
            "application/zip",
            "the file is over 268435456 bytes; import it with `mesq import USER --from KIND PATH`",
        ),
    ],
)
def test_a_rest_upload_declared_over_its_cap_is_refused_from_the_header(
    server: LiveServer, signed: Signed, path: str, content_type: str, message: str
) -> None:
    elapsed, headers, body = _refused_at_once(server, path, content_type, {"Authorization": f"Bearer {signed.token}"})
    assert headers[":status"] == "413"
    envelope = json.loads(body)
    assert envelope["error"] == {"code": "PAYLOAD_TOO_LARGE", "message": message}
    assert envelope["traceId"] == headers["x-trace-id"]
    assert elapsed < PROMPT_SECONDS


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "zh-CN",
            f"文件：文件有 300 MiB（{OVER} 字节），超过了每个文件 100 MiB（104857600 字节）的上限，" + ZH_FIX,
        ),
        (
            "en-US",
            f"File: the file is 300 MiB ({OVER} bytes), over the limit of 100 MiB (104857600 bytes) per file; "
            "choose a smaller file",
        ),
    ],
)
def test_the_pages_upload_relay_refuses_a_declared_oversize_file_at_once_in_the_pages_language(
    server: LiveServer, signed: Signed, language: str, message: str
) -> None:
    path = "/memos/uploads/relay?displayName=big.bin&mimeType=application/octet-stream"
    headers = {"Cookie": signed.cookie, "X-CSRF-Token": signed.csrf, "Accept-Language": language}
    elapsed, answer, body = _refused_at_once(server, path, "application/octet-stream", headers)
    assert answer[":status"] == "413", body
    assert json.loads(body)["error"] == {"code": "PAYLOAD_TOO_LARGE", "message": message}
    assert elapsed < PROMPT_SECONDS


@pytest.mark.parametrize("path", ["/settings/import/app", "/settings/import"])
@pytest.mark.parametrize(
    ("language", "words"),
    [("zh-CN", "上传超过 256 MiB；未读入任何内容"), ("en-US", "the upload is over 256 MiB; nothing was read in")],
)
def test_a_pages_import_upload_declared_over_its_cap_is_refused_at_once(
    server: LiveServer, signed: Signed, path: str, language: str, words: str
) -> None:
    assert IMPORT_MAX_BYTES == UPLOAD_BYTES == 256 * 1024 * 1024  # the caps the words say
    headers = {"Cookie": signed.cookie, "Accept-Language": language}
    elapsed, answer, body = _refused_at_once(server, path, "multipart/form-data; boundary=xx", headers)
    assert answer[":status"] == "413"
    assert answer["content-type"].startswith("text/html")
    assert words in body.decode()
    assert elapsed < PROMPT_SECONDS
