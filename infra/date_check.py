"""Tests that will fail on a later date: the suite run with the clock moved ahead.

    infra/date_check.py [--days N ...] [-- PYTEST ARGS]        (`make date-check`)

A test that writes a fixed date ("due 2026-12-07, weekly") passes today and fails once the real
clock passes it, in a CI run on a later day. This runs the tests under libfaketime (`faketime -m
-f +Nd`: the clocks of the test process and of every process it starts, `mesq serve` and
python-caldav included, moved N days ahead; the monotonic clock left real, so timeouts still
measure time) and lists what fails.

libfaketime also breaks some tests at no shift at all: a timeout it hands to the kernel comes
back `EINVAL` (a failure saying only that is the tool's), and child processes read the real clock
through paths it does not cover. So every other test that fails ahead is run again under
libfaketime at +0 days: a failure there too is the tool's, not the date's. What is left runs
ahead once more: a test that passes then failed on the machine's load. What fails again is the
report, and the exit status (1 when a test fails on a date).

Without PYTEST ARGS: the whole suite but the `timing` lane (wall-clock bounds), DynamoDB Local (a
JVM under libfaketime) and the browser tests (Chromium loads no page under libfaketime: every
`goto` times out), three xdist workers. Needs the `faketime` package (`make test`'s prerequisites
install it)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

#: Set by this script for the pytest runs it starts: where the plugin below writes failed tests.
FAILED_FILE = "MESQ_DATE_CHECK_FAILED"
#: libfaketime's own signature: a timeout it hands to the kernel (select, poll, a child's wait)
#: comes back EINVAL. A failure that says only this is the tool's on any day.
EINVAL = "OSError: [Errno 22] Invalid argument"
DEFAULT_ARGS = ["-m", "not timing and not dynamodb_local and not browser", "-n", "3", "-p", "no:cacheprovider", "-q"]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """The plugin side (`-p date_check`): one line per failed phase of a test (set-up, call,
    teardown), its node id and whether its failure is libfaketime's EINVAL. Under xdist the
    controller sees every report (the workers write theirs too: the reader takes a set)."""
    if report.failed and (path := os.environ.get(FAILED_FILE)):
        with open(path, "a", encoding="utf-8") as failed:
            failed.write(f"{report.nodeid}\t{int(EINVAL in report.longreprtext)}\n")


def run_shifted(days: int, pytest_args: list[str], cwd: Path) -> tuple[set[str], set[str]]:
    """The node ids of the tests that fail with every clock `days` ahead, and of those among
    them whose every failed phase is libfaketime's EINVAL."""
    faketime = shutil.which("faketime")
    if faketime is None:
        sys.exit("date-check: the `faketime` command is missing (apt-get install faketime)")
    with tempfile.NamedTemporaryFile("r", suffix=".failed", encoding="utf-8") as failed:
        env = {
            **os.environ,
            FAILED_FILE: failed.name,
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")])),
        }
        command = [faketime, "-m", "-f", f"{days:+d}d", sys.executable, "-m", "pytest", "-p", "date_check"]
        subprocess.run([*command, *pytest_args], cwd=cwd, env=env, check=False)
        phases = [line.rstrip("\n").rsplit("\t", 1) for line in failed if line.strip()]
    failing = {node_id for node_id, _ in phases}
    return failing, failing - {node_id for node_id, einval in phases if einval == "0"}


def node_args(pytest_args: list[str], node_ids: set[str]) -> list[str]:
    """The run's options (paths dropped) with these node ids as its only selection."""
    options = [arg for arg in pytest_args if arg.startswith("-") or not Path(arg.split("::")[0]).exists()]
    return [*options, *sorted(node_ids)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--days", type=int, action="append", help="days ahead (repeatable; default 30)")
    parser.add_argument("pytest_args", nargs="*", help="after --: what pytest runs (default: the suite)")
    options = parser.parse_args(argv)
    pytest_args = options.pytest_args or DEFAULT_ARGS
    cwd = Path.cwd()
    found_on_a_date = False

    def failing(days: int, node_ids: set[str]) -> tuple[set[str], set[str]]:
        return run_shifted(days, node_args(pytest_args, node_ids), cwd) if node_ids else (set(), set())

    for days in options.days or [30]:
        ahead, artifacts = run_shifted(days, pytest_args, cwd)
        artifacts |= failing(0, ahead - artifacts)[0]
        suspects = ahead - artifacts
        # Once more ahead: a test that passes now failed on the machine's load, not on the date.
        again, einval = failing(days, suspects)
        artifacts |= einval
        dated = sorted(again - einval)
        print(f"\ndate-check +{days} days: {len(dated)} test(s) fail on the date", flush=True)
        for node_id in dated:
            print(f"  FAILS +{days}d  {node_id}")
        for node_id in sorted(ahead & artifacts):
            print(f"  libfaketime (EINVAL, or fails at +0d too)  {node_id}")
        for node_id in sorted(suspects - set(dated) - artifacts):
            print(f"  flaky (failed once at +{days}d, passed there again)  {node_id}")
        found_on_a_date = found_on_a_date or bool(dated)
    return 1 if found_on_a_date else 0


if __name__ == "__main__":
    sys.exit(main())
