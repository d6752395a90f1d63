"""One reminder tick in its own process (the two-process SQLite test): `python -m
tests.reminders.tick_process <db> <key file> <tick time> <start at unix> [<reach json>]`. It waits
until the start moment so both processes tick at once, and prints its report as JSON. The
optional reach: {"public_url", "telegram_api", "allow_private"}."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path

from mesq.reminders.channels import Destinations
from mesq.reminders.tick import Reach, run_due_reminder_tick
from mesq.sealing.local import LocalKeySealer
from mesq.store.sqlite import SQLiteItemStore


def main() -> None:
    db, key_file, now, start = sys.argv[1], sys.argv[2], datetime.fromisoformat(sys.argv[3]), float(sys.argv[4])
    given = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    destinations = Destinations(allow_loopback=True, allow_private=bool(given.get("allow_private")),
                                telegram_api=given.get("telegram_api", "https://api.telegram.org"))  # fmt: skip
    reach = Reach(destinations, given.get("public_url", "http://localhost:8000"))
    items = SQLiteItemStore(Path(db))
    sealer = LocalKeySealer(Path(key_file))
    time.sleep(max(0.0, start - time.time()))
    report = run_due_reminder_tick(items, sealer, now, backoff=(0.05, 0.05), on_claimed=lambda _: time.sleep(0.05),
                                   reach=reach)  # fmt: skip
    print(json.dumps(report.as_dict()))


if __name__ == "__main__":
    main()
