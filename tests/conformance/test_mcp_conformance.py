"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned and installed by
infra/conformance_suite.py, on the Node 22 it pins) against a real `mesq serve`, at the stateless
2026-07-28 era and the stateful 2025-11-25 one.

Server scenarios go through an auth-injecting loopback proxy (tests/conformance/proxy.py): the
suite connects without credentials and MeSQ requires a bearer token on /mcp. The authorization
server scenarios talk to the server directly: they run the OAuth flow themselves (metadata,
authorize, token); the test plays the person in the browser (sign in, approve) when the suite
prints its authorization URL. Each scenario's verdict is compared with tests/conformance/expected.yaml.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.conformance.proxy import AuthProxy
from tests.conftest import REPO, LiveServer, free_port, start_server, stop_server
from tests.oauth.browser import Browser

sys.path.insert(0, str(REPO / "infra"))
from conformance_suite import ConformanceSuiteUnavailable, ensure_installed

EXPECTED = yaml.safe_load((Path(__file__).parent / "expected.yaml").read_text())["eras"]
ERAS = tuple(EXPECTED)
PASSWORD = "correct horse battery"
ALL_SCOPES = "memo:read,memo:write,todo:read,todo:write,reading:read"
SUITE_TIMEOUT_S = 120
_RESULT_DIR = re.compile(r"^(?:server|authorization-server)-(?P<scenario>.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")


@dataclass(frozen=True)
class Verdict:
    passed: bool
    failures: list[str]


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    try:
        return ensure_installed()
    except ConformanceSuiteUnavailable as exc:  # no npm: the test cannot run, and says so loudly
        pytest.fail(f"the conformance suite is not installed: {exc}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("conformance") / "data", {"MCP_RATE_LIMIT_PROFILE": "relaxed"})
    yield live
    stop_server(live)


def _results(output_dir: Path, skip_checks: set[str]) -> dict[str, Verdict]:
    verdicts: dict[str, Verdict] = {}
    for checks_file in sorted(output_dir.glob("*/checks.json")):
        match = _RESULT_DIR.match(checks_file.parent.name)
        assert match, checks_file
        scenario = match["scenario"]
        checks: list[dict[str, Any]] = json.loads(checks_file.read_text())
        failures = [
            f"{check['id']}: {(check.get('errorMessage') or check.get('description') or '')[:300]}"
            for check in checks
            if check["status"] == "FAILURE" and f"{scenario}:{check['id']}" not in skip_checks
        ]
        verdicts[scenario] = Verdict(passed=not failures, failures=failures)
    return verdicts


def _run_server_scenarios(node_suite: tuple[Path, Path], mcp_url: str, era: str, output_dir: Path) -> None:
    node, entry = node_suite
    command = [str(node), str(entry), "server", "--url", mcp_url, "--suite", "all", "--spec-version", era]
    subprocess.run(
        [*command, "--timeout", "20000", "-o", str(output_dir)],
        capture_output=True, text=True, timeout=SUITE_TIMEOUT_S, check=False,
    )  # fmt: skip  # exit status 1 just means some scenario failed: the checks files decide


def _run_authorization_scenarios(
    node_suite: tuple[Path, Path], server: LiveServer, era: str, output_dir: Path, username: str
) -> str:
    """Register a public client (scopes memo:read memo:write, as the issue's case), run the suite's
    authorization-server scenarios, and approve the request it prints as the signed-in person."""
    node, entry = node_suite
    port = free_port()
    registered = httpx.post(
        f"{server.base_url}/oauth/register",
        json={
            "client_name": "MCP conformance", "redirect_uris": [f"http://127.0.0.1:{port}/callback"],
            "token_endpoint_auth_method": "none", "scope": "memo:read memo:write",
        },
    )  # fmt: skip
    assert registered.status_code == 201, registered.text
    command = [
        str(node), str(entry), "authorization", "--url", server.base_url, "--client-id",
        registered.json()["client_id"], "--port", str(port), "--spec-version", era, "-o", str(output_dir),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    transcript: list[str] = []
    browser = Browser(server.base_url, username, PASSWORD)
    try:
        deadline = time.monotonic() + SUITE_TIMEOUT_S
        for line in process.stdout:
            transcript.append(line)
            if line.startswith(f"{server.base_url}/oauth/authorize?"):
                authorize = httpx.get(line.strip(), follow_redirects=False)
                if authorize.status_code == 302 and "/oauth/consent?" in authorize.headers["location"]:
                    redirect = browser.decide(authorize.headers["location"], approve=True)
                else:  # an error redirect or page: hand it to the suite, whose checks report it
                    redirect = authorize.headers.get("location", f"http://127.0.0.1:{port}/callback?error=http")
                httpx.get(redirect, timeout=10)  # the browser lands on the suite's callback server
            assert time.monotonic() < deadline, "".join(transcript)
        process.wait(timeout=30)
    finally:
        browser.close()
        if process.poll() is None:
            process.kill()
    return "".join(transcript)


@pytest.fixture(scope="module")
def results(
    suite: tuple[Path, Path], server: LiveServer, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Verdict]]:
    account = server.account("conformance", ALL_SCOPES)
    by_era: dict[str, dict[str, Verdict]] = {}
    with AuthProxy(server.base_url, account.token) as proxy:
        for era in ERAS:
            output_dir = tmp_path_factory.mktemp(f"results-{era}")
            _run_server_scenarios(suite, f"{proxy.url}/mcp", era, output_dir)
            _run_authorization_scenarios(suite, server, era, output_dir, account.username)
            skip_checks = set(EXPECTED[era].get("checks_not_applicable") or {})
            by_era[era] = _results(output_dir, skip_checks)
    return by_era


@pytest.mark.parametrize("era", ERAS)
def test_every_applicable_scenario_passes(results: dict[str, dict[str, Verdict]], era: str) -> None:
    expected = EXPECTED[era]
    ran = results[era]
    listed = set(expected["pass"]) | set(expected.get("xfail") or {}) | set(expected["not_applicable"])
    assert not set(ran) - listed, f"unclassified scenarios at {era}: {sorted(set(ran) - listed)}"
    assert not listed - set(ran), f"listed but not run at {era}: {sorted(listed - set(ran))}"
    failing = {name: ran[name].failures for name in expected["pass"] if not ran[name].passed}
    assert not failing, f"scenarios failing at {era}:\n" + json.dumps(failing, indent=2)
    stale = [name for name in expected.get("xfail") or {} if ran[name].passed]
    assert not stale, f"now passing at {era}, move them from xfail to pass: {stale}"
