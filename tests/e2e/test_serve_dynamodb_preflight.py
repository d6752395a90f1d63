"""`mesq serve --storage dynamodb` refuses to start, with one line naming what is missing, when
DynamoDB cannot answer: nothing listening at the endpoint, or no credentials at all. (It used to
print its healthy banner and then answer every call with 500.) The check is one DescribeTable
with one attempt and short timeouts, so the refusal comes within seconds."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO, free_port

#: One attempt, a 2 s connect timeout: the refusal comes well within this, retries would not.
REFUSAL_SECONDS = 10


def serve(env: dict[str, str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """`mesq serve --storage dynamodb` with only `env` for AWS and MESQ settings: no AWS_* from this
    environment, and AWS config and credential files that hold nothing."""
    (tmp_path / "empty").write_text("")
    clean = {name: value for name, value in os.environ.items() if not name.startswith(("AWS_", "MESQ_"))}
    clean |= {
        "AWS_CONFIG_FILE": str(tmp_path / "empty"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "empty"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "HOME": str(tmp_path),  # no ~/.aws, no SSO cache
        **env,
    }
    argv = [sys.executable, "-m", "mesq.runtime.cli", "serve", "--storage", "dynamodb", "--port", str(free_port())]
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=clean, cwd=REPO)
    return done, time.monotonic() - start


def assert_one_line_refusal(done: subprocess.CompletedProcess[str], elapsed: float) -> str:
    assert done.returncode != 0, done.stdout
    assert "listening on" not in done.stdout  # no banner: it never started
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # one line, no traceback
    assert lines[0].startswith("mesq: ") and "Traceback" not in done.stderr
    assert elapsed < REFUSAL_SECONDS, elapsed
    return lines[0]


def test_serve_refuses_an_unreachable_endpoint(tmp_path: Path):
    endpoint = f"http://127.0.0.1:{free_port()}"  # a closed loopback port: connection refused
    env = {"MESQ_DYNAMODB_ENDPOINT": endpoint, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}
    done, elapsed = serve({**env, "AWS_REGION": "us-east-1"}, tmp_path)
    line = assert_one_line_refusal(done, elapsed)
    assert f"cannot reach DynamoDB at {endpoint}" in line, line


def test_serve_refuses_without_credentials(tmp_path: Path):
    done, elapsed = serve({"AWS_REGION": "us-east-1"}, tmp_path)
    line = assert_one_line_refusal(done, elapsed)
    assert "no AWS credentials" in line and "AWS_PROFILE" in line, line


def test_serve_refuses_without_credentials_even_with_a_local_endpoint(tmp_path: Path):
    # botocore signs before it connects: the missing credentials are named, not the endpoint
    done, elapsed = serve({"MESQ_DYNAMODB_ENDPOINT": f"http://127.0.0.1:{free_port()}"}, tmp_path)
    line = assert_one_line_refusal(done, elapsed)
    assert "no AWS credentials" in line, line
