"""The seed's REST curl examples, run as written against a real `mesq serve`, and data that
survives a restart."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from mesq.auth.lookup_cache import TTL_SECONDS
from tests.conftest import REPO, start_server, stop_server

#: The user documentation's curl examples, as data (checked in; see the file's header).
EXAMPLES = REPO / "tests" / "fixtures" / "seed_rest_examples.yaml"


def seed_curl_commands() -> list[str]:
    document = yaml.safe_load(EXAMPLES.read_text(encoding="utf-8"))
    return [example["command"] for example in document["examples"]]


def fill(command: str, base_url: str, token: str, memo_id: str = "", revision: int = 0) -> str:
    return (
        command.replace("https://<your-host>", base_url)
        .replace("<你的凭证>", token)
        .replace("<唯一键>", "seed-example-key-1")
        .replace("<memo-id>", memo_id)
        .replace('"expectedRevision":123', f'"expectedRevision":{revision}')
    )


def run(command: str) -> dict:
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def make_run_server(tmp_path: Path):
    """The README's `make run`, on a free port and a fresh data directory, with the interpreter
    these tests run on. Its install step is `make test`'s own first step, so it is taken as done
    (`--assume-old`): a run from another tree (a clone, a worktree) then never re-installs the
    venv it shares."""
    interpreter = [f"BIN={Path(sys.executable).parent}", f"PYTHON={sys.executable}"]
    argv = ["make", "--no-print-directory", "--assume-old=.venv/.installed-stamp",
            "--assume-old=.venv/.runtime-stamp", "run", *interpreter,
            "PORT={port}", "DATA_DIR={data_dir}"]  # fmt: skip
    server = start_server(tmp_path / "make-run", command=argv)
    yield server
    stop_server(server)


def test_seed_curl_examples_work_as_written(make_run_server):
    assert shutil.which("curl"), "curl is needed: .ci/run installs it"
    live_server = make_run_server
    commands = seed_curl_commands()
    assert len(commands) == 5, commands
    listing, single, create, update, trash = commands
    account = live_server.account("seeduser")

    created = run(fill(create, live_server.base_url, account.token))["data"]["memo"]
    assert created["content"] == "来自 API 的记录" and created["contentSource"] == "api"
    replay = run(fill(create, live_server.base_url, account.token))["data"]["memo"]
    assert replay == created  # the same Idempotency-Key replays, no duplicate

    listed = run(fill(listing, live_server.base_url, account.token))["data"]
    assert [m["id"] for m in listed["timelineItems"]] == [created["id"]]
    got = run(fill(single, live_server.base_url, account.token, created["id"]))["data"]["memo"]
    assert got["revision"] == 1

    updated = run(fill(update, live_server.base_url, account.token, created["id"], got["revision"]))["data"]["memo"]
    assert updated["content"] == "更新后的正文" and updated["revision"] == 2
    stale = run(fill(update, live_server.base_url, account.token, created["id"], 1))
    assert stale["error"]["code"] == "REVISION_CONFLICT" and stale["recoverData"]["memo"]["revision"] == 2

    trashed = run(fill(trash, live_server.base_url, account.token, created["id"], updated["revision"]))["data"]["memo"]
    assert trashed["status"] == "DELETED"


def test_data_survives_restart(tmp_path: Path):
    data_dir = tmp_path / "persist"
    server = start_server(data_dir)
    try:
        account = server.account("keeper")
        headers = {"Authorization": f"Bearer {account.token}"}
        memo = httpx.post(
            f"{server.base_url}/api/toolkit/memo", headers=headers, json={"content": "keep me #kept"}
        ).json()
    finally:
        stop_server(server)
    server = start_server(data_dir)
    try:
        got = httpx.get(f"{server.base_url}/api/toolkit/memo/{memo['data']['memo']['id']}", headers=headers)
        assert got.status_code == 200 and got.json()["data"]["memo"] == memo["data"]["memo"]
        tags = httpx.get(f"{server.base_url}/api/toolkit/memo/tags", headers=headers).json()["data"]["tags"]
        assert [t["path"] for t in tags] == ["kept"]
    finally:
        stop_server(server)


def test_cli_token_lifecycle(live_server):
    account = live_server.account("cliuser", scopes="memo:read")
    headers = {"Authorization": f"Bearer {account.token}"}
    assert re.fullmatch(r"mesq_pat_[A-Za-z0-9_-]{43}", account.token)
    assert httpx.get(f"{live_server.base_url}/api/toolkit/memo", headers=headers).status_code == 200
    listed = live_server.cli("token", "list", "cliuser")
    token_id = listed.stdout.splitlines()[1].split("\t", 1)[0]  # below the header line
    assert "memo:read" in listed.stdout and "active" in listed.stdout
    assert live_server.cli("token", "revoke", "cliuser", token_id).returncode == 0
    # A revocation made by another process (the CLI) is honoured within the lookup cache's bound.
    deadline = time.monotonic() + TTL_SECONDS + 2
    status = httpx.get(f"{live_server.base_url}/api/toolkit/memo", headers=headers).status_code
    while status != 401 and time.monotonic() < deadline:
        time.sleep(0.2)
        status = httpx.get(f"{live_server.base_url}/api/toolkit/memo", headers=headers).status_code
    assert status == 401
    assert "revoked" in live_server.cli("token", "list", "cliuser").stdout
    bad = live_server.cli("token", "create", "cliuser", "--name", "x", "--scopes", "memo:admin")
    assert bad.returncode == 1 and "unknown scope" in bad.stderr
    dup = live_server.cli("user", "create", "cliuser", "--password-stdin", stdin="another password\n")
    assert dup.returncode == 1 and "taken" in dup.stderr
    expiring = live_server.cli(
        "token", "create", "cliuser", "--name", "y", "--scopes", "memo:read", "--expires-days", "3"
    )
    assert expiring.returncode == 0 and "expires=20" in expiring.stdout


def _inside_one_window(seconds_needed: float = 15.0) -> None:
    """Wait for the next minute when fewer than `seconds_needed` are left in this one: the
    limiter counts in windows of whole epoch minutes, and 31 requests that straddle a window's
    end start a new count (the server runs in its own process: its clock cannot be held)."""
    left = 60 - time.time() % 60
    if left < seconds_needed:
        time.sleep(left + 0.2)


def test_forwarded_for_is_not_believed_by_default(live_server):
    """Per-IP limits count the socket's address: X-Forwarded-For from an untrusted client
    cannot spread one client over many IPs."""
    _inside_one_window()
    statuses = [
        httpx.post(f"{live_server.base_url}/mcp", headers={"X-Forwarded-For": f"198.51.100.{i}"}, json={}).status_code
        for i in range(31)
    ]
    assert statuses[:30] == [401] * 30 and statuses[30] == 429
