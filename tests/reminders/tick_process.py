"""One reminder tick in its own process (the two-process SQLite tests): `python -m
tests.reminders.tick_process <db> <key file> <tick time> [<reach json>]`. It prints `ready` once
imported and connected, ticks when a line arrives on its stdin, and prints its report as JSON.
`tick_together` starts several and lets them go at once: a barrier, not a start time, since an
import on a loaded machine can take longer than any fixed head start (CI saw one process start
after the other had claimed everything). The optional reach: {"public_url", "telegram_api",
"allow_private"}."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.jobs.reminder_tick import run_due_reminder_tick
from mesq.reminders.channels import Destinations
from mesq.reminders.transport import Reach


def main() -> None:
    db, key_file, now = sys.argv[1], sys.argv[2], datetime.fromisoformat(sys.argv[3])
    given = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    destinations = Destinations(allow_loopback=True, allow_private=bool(given.get("allow_private")),
                                telegram_api=given.get("telegram_api", "https://api.telegram.org"))  # fmt: skip
    reach = Reach(destinations, given.get("public_url", "http://localhost:8000"))
    items = SQLiteItemStore(Path(db))
    sealer = LocalKeySealer(Path(key_file))
    print("ready", flush=True)
    sys.stdin.readline()
    report = run_due_reminder_tick(items, sealer, now, backoff=(0.05, 0.05), on_claimed=lambda _: time.sleep(0.05),
                                   reach=reach)  # fmt: skip
    print(json.dumps(report.as_dict()))


def tick_together(arguments: list[str], cwd: Path, env: dict[str, str], count: int = 2) -> list[dict]:
    """Start `count` tick processes, wait until each is ready, then release them all at once;
    their reports, after asserting each exited 0."""
    command = [sys.executable, "-m", "tests.reminders.tick_process", *arguments]
    processes = [
        subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(count)
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    reports = [json.loads(process.communicate(timeout=60)[0]) for process in processes]
    assert all(process.returncode == 0 for process in processes)
    return reports


if __name__ == "__main__":
    main()
