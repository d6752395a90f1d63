"""Issue 38 items 1, 2 and 13 against a real `mesq serve` (SQLite, and DynamoDB Local + S3 over
HTTP): a 1 MB and a 2 MB archive bomb, an archive of 500k members and a YAML alias note, each
uploaded through Settings → Import, are refused in one line naming the cap, while the server's
peak RSS (VmHWM, its peak reset just before the upload) stays under idle + 100 MB."""

from __future__ import annotations

import html
import os
import re
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import boto3
import httpx
import pytest
from moto.server import ThreadedMotoServer

from tests.conftest import REPO, LiveServer, run_cli, start_server, stop_server

from .import_files import alias_note, bomb_archive, many_members, notes_zip

sys.path.insert(0, str(REPO / "infra"))
import dynamodb_local as ddb_runner

PASSWORD = "correct horse battery"
BUDGET = 100 * 1024 * 1024
BACKENDS = ["sqlite", pytest.param("dynamodb", marks=pytest.mark.dynamodb_local)]


@dataclass
class Served:
    server: LiveServer
    client: httpx.Client
    csrf: str


def _aws(stack: list[object]) -> dict[str, str]:
    try:
        ddb = ddb_runner.start_dynamodb_local()
    except ddb_runner.DynamoDBLocalUnavailable as exc:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"DynamoDB Local unavailable: {exc}")
    stack.append(ddb)
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    s3.start()
    stack.append(s3)
    host, port = s3.get_host_and_port()
    bucket = f"mesq-hostile-{uuid.uuid4().hex[:8]}"
    env = {
        "MESQ_STORAGE": "dynamodb",
        "MESQ_TABLE": bucket,
        "MESQ_BUCKET": bucket,
        "MESQ_DYNAMODB_ENDPOINT": ddb.endpoint,
        "MESQ_S3_ENDPOINT": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": ddb_runner.ACCESS_KEY_ID,
        "AWS_SECRET_ACCESS_KEY": ddb_runner.SECRET_ACCESS_KEY,
        "AWS_DEFAULT_REGION": ddb_runner.REGION,
        "AWS_REGION": ddb_runner.REGION,
    }
    boto3.client(
        "s3",
        endpoint_url=env["MESQ_S3_ENDPOINT"],
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    ).create_bucket(Bucket=bucket)
    return env


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)


@pytest.fixture(scope="module", params=BACKENDS)
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    stack: list[object] = []
    env = _aws(stack) if request.param == "dynamodb" else {}
    data_dir = tmp_path_factory.mktemp("serve")
    made = run_cli(
        "user", "create", "mallory", "--password-stdin", "--data-dir", str(data_dir), stdin=PASSWORD + "\n", env=env
    )
    assert made.returncode == 0, made.stderr
    server = start_server(data_dir, env)
    client = httpx.Client(base_url=server.base_url, timeout=120)
    try:
        login = client.get("/login")
        signed = client.post("/login", data={"csrf": _csrf(login.text), "username": "mallory", "password": PASSWORD})
        assert signed.status_code in (200, 303), signed.text[:300]
        page = client.get("/settings/import")
        assert page.status_code == 200
        yield Served(server, client, _csrf(page.text))
    finally:
        client.close()
        stop_server(server)
        for started in reversed(stack):
            started.stop()  # type: ignore[attr-defined]


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(field)


def _upload(served: Served, data: bytes, kind: str) -> tuple[httpx.Response, int, int]:
    """The answer to one upload, the server's resident size before it and its peak during it."""
    pid = served.server.process.pid
    served.client.get("/healthz")
    idle = _status(pid, "VmRSS")
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current size
    answer = served.client.post(
        "/settings/import",
        data={"csrf": served.csrf, "kind": kind},
        files={"file": ("upload.zip", data, "application/zip")},
    )
    return answer, idle, _status(pid, "VmHWM")


def _error_line(answer: httpx.Response) -> str:
    found = re.search(r'id="import-error">.*?<p class="failure">(.*?)</p>', answer.text, re.DOTALL)
    assert found, answer.text[:2000]
    return html.unescape(found.group(1))


@pytest.mark.parametrize(
    ("make", "cap"),
    [
        pytest.param(lambda tmp: bomb_archive(tmp / "1mb.zip", 1), "compression ratio", id="1MB-bomb"),
        pytest.param(lambda tmp: bomb_archive(tmp / "2mb.zip", 2), "compression ratio", id="2MB-bomb"),
        pytest.param(lambda tmp: many_members(tmp / "500k.zip", 500_000), "member count", id="500k-members"),
    ],
)
def test_an_archive_bomb_is_refused_in_one_line_within_memory(served: Served, tmp_path: Path, make, cap) -> None:  # type: ignore[no-untyped-def]
    data = make(tmp_path).read_bytes()
    answer, idle, peak = _upload(served, data, "archive")
    assert answer.status_code == 400, answer.text[:500]
    line = _error_line(answer)
    assert "\n" not in line and len(line) < 300 and f"{cap} cap" in line, line
    assert peak < idle + BUDGET, f"peak {peak / 2**20:.0f} MiB from idle {idle / 2**20:.0f} MiB ({line})"


def test_a_yaml_alias_note_is_one_line_of_reason_within_memory(served: Served) -> None:
    data = notes_zip({"laughs.md": alias_note(), "fine.md": b"an ordinary note #ok"})
    answer, idle, peak = _upload(served, data, "markdown")
    assert answer.status_code == 200, answer.text[:500]
    skipped = re.findall(r"<li><code>(.*?)</code>: (.*?)</li>", answer.text)
    assert [name for name, _ in skipped] == ["laughs.md"], skipped
    reason = html.unescape(skipped[0][1])
    assert "aliases" in reason and len(reason) < 200, reason
    assert "1 new memos" in answer.text  # the other note imported
    assert peak < idle + BUDGET, f"peak {peak / 2**20:.0f} MiB from idle {idle / 2**20:.0f} MiB"
