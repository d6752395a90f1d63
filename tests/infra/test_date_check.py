"""infra/date_check.py (`make date-check`) on a small suite of its own: a test that passes today and
fails next month, two that libfaketime breaks on any day (one with its EINVAL), one that fails
once (a busy machine) and one that passes on every day."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

from tests.conftest import REPO

SUITE = """
import os
from datetime import date
from pathlib import Path

def test_due_tomorrow_is_not_late():
    assert date.today() <= date.fromisoformat("{tomorrow}")

def test_a_socket_timeout_the_tool_breaks():
    assert "faketime" not in os.environ.get("LD_PRELOAD", "")

def test_a_timeout_the_tool_answers_einval():
    raise OSError(22, "Invalid argument")

def test_every_day():
    assert date.today().year > 2000

def test_fails_the_first_time_only():
    ran = Path(__file__).with_name("ran-once")
    if not ran.exists():
        ran.write_text("")
        raise AssertionError("the machine was busy")
"""


def _without_libfaketime() -> dict[str, str]:
    """This environment without libfaketime: `make date-check` runs this test under it too."""
    return {
        name: value for name, value in os.environ.items() if name != "LD_PRELOAD" and not name.startswith("FAKETIME")
    }


def test_it_names_the_test_that_fails_on_a_later_date_and_not_the_tools_failure(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    real = _without_libfaketime()
    today = subprocess.run(["date", "+%F"], env=real, capture_output=True, text=True, check=True).stdout.strip()
    (suite / "test_dates.py").write_text(SUITE.format(tomorrow=date.fromisoformat(today) + timedelta(days=1)))
    command = [sys.executable, str(REPO / "infra" / "date_check.py"), "--days", "30", "--days", "0", "--",
               "-p", "no:cacheprovider", "-q", str(suite)]  # fmt: skip
    done = subprocess.run(command, cwd=suite, env=real, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    report = done.stdout[done.stdout.index("date-check +30 days") :].splitlines()
    assert report[:5] == [
        "date-check +30 days: 1 test(s) fail on the date",
        "  FAILS +30d  test_dates.py::test_due_tomorrow_is_not_late",
        "  libfaketime (EINVAL, or fails at +0d too)  test_dates.py::test_a_socket_timeout_the_tool_breaks",
        "  libfaketime (EINVAL, or fails at +0d too)  test_dates.py::test_a_timeout_the_tool_answers_einval",
        "  flaky (failed once at +30d, passed there again)  test_dates.py::test_fails_the_first_time_only",
    ]
    assert "date-check +0 days: 0 test(s) fail on the date" in done.stdout
    assert "test_every_day" not in "\n".join(line for line in report if "FAILS" in line or "libfaketime" in line)
