"""The README's DynamoDB Local recipe, executed command for command as one bash script: it must
set up its own credentials and local endpoints (nothing from this environment's AWS_* / MESQ_*
leaks in), start DynamoDB Local and a local S3, create a user and a token with the CLI, serve,
create and read back a memo, open an upload session whose URL points at the local S3, and stop
everything it started.

Two substitutions only, so the test can run beside other servers and from any tree: the recipe's
port variables (its first line) get free ports, and `.venv/bin/` becomes the bin directory of the
interpreter running the tests (the same directory under `make test`)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, free_port

MARKER = "<!-- recipe: dynamodb-local"
#: Added around the recipe: stop at the first failing command, and never leave a server behind.
PRELUDE = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
#: The recipe's first line: every port it uses, once, so a reader changes a taken one in one place.
PORTS_LINE = re.compile(r"^DDB_PORT=(\d+) S3_PORT=(\d+) MESQ_PORT=(\d+)\b.*$", re.MULTILINE)


def recipe() -> str:
    """The fenced bash block right after the marker comment in README.md."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme.count(MARKER) == 1, "README.md must mark exactly one DynamoDB Local recipe"
    block = re.search(r"```bash\n(.*?)```", readme[readme.index(MARKER) :], re.DOTALL)
    assert block is not None
    return block.group(1)


def test_the_recipe_sets_up_everything_itself():
    text = recipe()
    for needed in (
        "AWS_ACCESS_KEY_ID=",
        "AWS_SECRET_ACCESS_KEY=",
        "AWS_DEFAULT_REGION=",
        "MESQ_S3_ENDPOINT=http://127.0.0.1:",
    ):
        assert needed in text
    assert "amazonaws.com" not in text
    assert text.rstrip().splitlines()[-1].startswith("kill $(jobs -p)")
    ports = PORTS_LINE.match(text)
    assert ports is not None, "the recipe's first line sets DDB_PORT, S3_PORT and MESQ_PORT"
    rest = text[ports.end() :]
    for port in ports.groups():  # no port written twice: everything else reads the variables
        assert not re.search(rf"\b{port}\b", rest), f"port {port} is hard-coded after the first line"


@pytest.mark.dynamodb_local
def test_readme_dynamodb_recipe_runs_as_written(tmp_path: Path):
    ports = {"DDB_PORT": free_port(), "S3_PORT": free_port(), "MESQ_PORT": free_port()}
    script, replaced = PORTS_LINE.subn(" ".join(f"{name}={port}" for name, port in ports.items()), recipe(), count=1)
    assert replaced == 1
    script = script.replace(".venv/bin/", f"{Path(sys.executable).parent}/")
    clean_env = {name: value for name, value in os.environ.items() if not name.startswith(("AWS_", "MESQ_", "MCP_"))}
    clean_env["AWS_CONFIG_FILE"] = clean_env["AWS_SHARED_CREDENTIALS_FILE"] = str(tmp_path / "none")
    process = subprocess.Popen(
        ["bash", "-c", PRELUDE + script], cwd=REPO, env=clean_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,  # one process group: whatever the recipe leaves running can be found
    )  # fmt: skip
    try:
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stdout[-3000:] + stderr[-3000:]
        answers = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
        assert len(answers) == 3, stdout
        created, listed, session = (answer["data"] for answer in answers)
        assert created["memo"]["content"] == "hello from DynamoDB Local #local"
        assert created["memo"]["tags"] == ["local"]
        assert [memo["id"] for memo in listed["timelineItems"]] == [created["memo"]["id"]]
        assert session["transport"] == "direct"
        assert session["uploadUrl"].startswith(f"http://127.0.0.1:{ports['S3_PORT']}/mesq-attachments/")
        assert "amazonaws.com" not in json.dumps(session)
        assert_group_gone(process.pid)  # the recipe's own `kill` stopped the three servers...
        for port in ports.values():  # ...and DynamoDB Local's Java, which runs in a session of its own
            assert_closed(port)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def assert_group_gone(group: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    listing = subprocess.run(["ps", "-o", "pid,args", "-g", str(group)], capture_output=True, text=True).stdout
    raise AssertionError(f"the recipe left processes running:\n{listing}")


def assert_closed(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"port {port} still answers after the recipe stopped its servers")
