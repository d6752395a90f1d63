"""Radicale, the CalDAV server the tests use as an oracle: started on a free loopback port with
its file storage in a temporary folder, no authentication (any user signs in as themself)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.conftest import free_port

MKCALENDAR = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>'
    "<D:displayname>Tasks</D:displayname>"
    '<C:supported-calendar-component-set><C:comp name="VTODO"/></C:supported-calendar-component-set>'
    "</D:prop></D:set></C:mkcalendar>"
)


@contextmanager
def radicale(folder: Path) -> Iterator[str]:
    """A running Radicale; yields its base URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "radicale", "--config", "", "--server-hosts", f"127.0.0.1:{port}",
         "--storage-filesystem-folder", str(folder), "--auth-type", "none", "--rights-type", "owner_only",
         "--logging-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(base + "/.web/", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("Radicale did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def make_calendar(base: str, username: str, name: str) -> str:
    url = f"{base}/{username}/{name}/"
    answer = httpx.request("MKCALENDAR", url, content=MKCALENDAR, auth=(username, "x"), timeout=10)
    assert answer.status_code == 201, answer.text
    return url
