"""`mesq serve` killed (kill -9) while an import writes: the restart marks the import interrupted
before any page is opened (its stored report says so to any reader); Settings → Import links to
its report, whose page says it was interrupted, counts what it had written (never "nothing new"),
and whose Undo puts every memo it wrote in the trash. Before, the report was kept only at the end,
so such a run had no report page and no Undo but the per-change one in /activity."""

from __future__ import annotations

import contextlib
import html
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from mesq.kernel.keys import user_partition
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services
from tests.conftest import LiveServer, start_server, stop_server
from tests.imports.exports import flomo_export
from tests.web.conftest import PASSWORD, csrf_of

CARDS = 3000


def _memo_count(server: LiveServer, token: str, *, at_least: int | None = None) -> int:
    """How many memos the account holds (or `at_least` once that many are seen)."""
    count = 0
    while True:
        answer = httpx.get(
            f"{server.base_url}/api/toolkit/memo",
            params={"limit": 100, "offset": count},
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        data = answer.json()["data"]
        got = len(data["pinnedItems"]) + len(data["timelineItems"])
        count += got
        if got < 100 or (at_least is not None and count >= at_least):
            return count


def _kept_report(data_dir: Path, user_id: str) -> dict[str, Any]:
    """The one import report the account keeps, as stored (read without marking anything)."""
    services = build_services(Settings(data_dir=data_dir))
    try:
        (kept,) = services.items.query(user_partition(user_id), prefix="IMPORT#").items
        return kept
    finally:
        services.items.close()


def _signed_in(server: LiveServer, username: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=server.base_url, timeout=60, headers={"accept-language": "en-US"})
    login = client.get("/login")
    answer = client.post("/login", data={"csrf": csrf_of(login.text), "username": username, "password": PASSWORD})
    assert answer.status_code == 303, answer.text
    return client, csrf_of(client.get("/settings/tokens").text)


def test_an_import_whose_server_was_killed_is_shown_interrupted_with_what_it_wrote_and_its_undo(
    tmp_path: Path,
) -> None:
    export = tmp_path / "flomo.zip"
    flomo_export(export, count=CARDS)
    data_dir = tmp_path / "data"
    server = start_server(data_dir)
    try:
        account = server.account("kay", "memo:read memo:write")

        def upload() -> None:
            with contextlib.suppress(httpx.HTTPError):  # the server is killed under it
                httpx.post(
                    f"{server.base_url}/api/toolkit/import",
                    params={"kind": "flomo"},
                    content=export.read_bytes(),
                    headers={"Authorization": f"Bearer {account.token}", "Content-Type": "application/zip"},
                    timeout=300,
                )

        sender = threading.Thread(target=upload, daemon=True)
        sender.start()
        deadline = time.monotonic() + 120
        while _memo_count(server, account.token, at_least=50) < 50:  # half-way: some written, most not
            assert time.monotonic() < deadline, "the import wrote nothing within 120 s"
            time.sleep(0.05)
        time.sleep(1.5)  # a progress save or two after the first memos
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
        sender.join(timeout=60)
    except BaseException:
        stop_server(server)
        raise

    server = start_server(data_dir)
    try:
        # The restart itself marks the run (jobs/unfinished_imports.py), before anyone opens a page
        # or the report: what is stored says interrupted, not running, to any reader.
        deadline = time.monotonic() + 60
        while "running" in (kept := _kept_report(data_dir, account.user_id)):
            assert time.monotonic() < deadline, "the restarted server left the import running"
            time.sleep(0.2)
        assert kept.get("interrupted") is True, kept.keys()
        while not any("Imports: 1 stopped with the server, marked interrupted" in line for line in server.output):
            assert time.monotonic() < deadline, server.output
            time.sleep(0.1)
        client, csrf = _signed_in(server, "kay")
        try:
            listing = html.unescape(client.get("/settings/import").text)
            unfinished = listing.split('id="import-unfinished">')[1].split("</section>")[0]
            assert "interrupted: undo it or import the same file again" in unfinished
            run_id = unfinished.split('href="/settings/import/runs/')[1].split('"')[0]
            page = client.get(f"/settings/import/runs/{run_id}")
            assert page.status_code == 200, page.text
            text = html.unescape(page.text)
            assert "This import was interrupted: the server stopped while it ran." in text
            assert "Nothing new was imported." not in text
            counts = text.split('class="import-counts">')[1].split("</ul>")[0]
            written = int(counts.split("<li>")[1].split(" memo")[0])
            memos_there = _memo_count(server, account.token)
            assert 0 < written <= memos_there < CARDS
            assert 'action="/settings/import/runs/' in text  # its Undo
            undone = client.post(f"/settings/import/runs/{run_id}/undo", data={"csrf": csrf}, follow_redirects=False)
            assert undone.status_code == 303, undone.text
            assert _memo_count(server, account.token) == 0
            after = html.unescape(client.get(f"/settings/import/runs/{run_id}").text)
            assert "records moved to the trash" in after
            assert 'id="import-unfinished"' not in client.get("/settings/import").text  # undone: not listed
        finally:
            client.close()
    finally:
        stop_server(server)
