"""An account's archive as a download, and the bound on archive work, shared by REST
(`GET /api/toolkit/export`, `http/export.py`) and the browser (Settings → Export and Import,
`web/settings/archive.py`).

The archive is written by `archive.exporter.export_account` into an anonymous temporary file
(a ZIP's central directory comes last, and the manifest's checksums need every member first),
then streamed from it a chunk at a time: memory stays bounded by a store page and a chunk,
whatever the account's size. The file is gone when the response ends or the client leaves.

Where one response cannot carry it (a deployment with `attachment_redirect_bytes` set, i.e. Lambda
and its 6 MB response cap), an archive over that size is refused with PAYLOAD_TOO_LARGE naming
`mesq export`, rather than cut.

Writing an archive (or reading one in) holds a worker thread of the shared pool
(`kernel/concurrency.py`, 40 threads) for as long as the account takes, tens of seconds for a
big one. `archive_slot` lets at most ARCHIVE_SLOTS of them run at once in a process and
USER_SLOTS per user; one more is refused at once with SERVICE_UNAVAILABLE and a Retry-After
(never queued on a thread), so big exports and imports can never take the pool from everyone
else's requests. ARCHIVE_SLOTS is more than two users' shares together: two accounts (one person
with a second account) can never hold every slot and lock everyone else out
(docs/security.md "Fair shares").
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from datetime import UTC
from typing import IO
from zoneinfo import ZoneInfo

from starlette.responses import Response, StreamingResponse

from ..archive.exporter import export_account
from ..auth.user_zone import configured_zone
from ..kernel.concurrency import run_sync
from ..kernel.errors import PayloadTooLarge, ServiceUnavailable
from ..kernel.timestamps import in_zone, now_timestamp, parse_timestamp
from ..wiring.services import Services
from .envelope import NO_STORE

CHUNK_BYTES = 1 << 16
#: Exports and imports one user may run at once (each holds one worker thread throughout).
USER_SLOTS = 1
#: Exports and imports running at once in one process: four of the pool's 40 threads, and
#: more than any two users' shares (2 x USER_SLOTS), so a third user always finds one free.
ARCHIVE_SLOTS = 4
assert ARCHIVE_SLOTS > 2 * USER_SLOTS  # the rule above, kept by whoever edits the numbers
RETRY_AFTER_SECONDS = 30
_held: dict[str, int] = {}  # user id -> slots held
_guard = threading.Lock()


@contextlib.contextmanager
def archive_slot(user_id: str) -> Iterator[None]:
    """One of the ARCHIVE_SLOTS for the block, or SERVICE_UNAVAILABLE at once when all are taken
    or `user_id` already holds its USER_SLOTS."""
    with _guard:
        if _held.get(user_id, 0) >= USER_SLOTS:
            raise ServiceUnavailable(
                "an export or import of yours is already running; try again when it has finished",
                retry_after_seconds=RETRY_AFTER_SECONDS,
            )
        if sum(_held.values()) >= ARCHIVE_SLOTS:
            raise ServiceUnavailable(
                "%(archive_slots)s exports or imports are already running on this server; try again in a minute",
                archive_slots=ARCHIVE_SLOTS,
                retry_after_seconds=RETRY_AFTER_SECONDS,
            )
        _held[user_id] = _held.get(user_id, 0) + 1
    try:
        yield
    finally:
        with _guard:
            _held[user_id] -= 1
            if not _held[user_id]:
                del _held[user_id]


def _write(services: Services, user_id: str, spool: IO[bytes], exported_at: str, scopes: frozenset[str] | None) -> int:
    with archive_slot(user_id):
        export_account(services.items, services.blobs, user_id, spool, exported_at, scopes=scopes)
    size = spool.seek(0, os.SEEK_END)
    spool.seek(0)
    return size


def _local_day(services: Services, user_id: str, exported_at: str, zone: str | None) -> str:
    """The export's day in `zone`, else in the user's own zone, else UTC's."""
    name = zone or configured_zone(services.items, user_id)
    moment = parse_timestamp(exported_at, "exportedAt")
    return in_zone(moment, ZoneInfo(name) if name else UTC).date().isoformat()


async def archive_download(
    services: Services, user_id: str, scopes: frozenset[str] | None, zone: str | None = None
) -> Response:
    """`user_id`'s archive, bounded by a credential's `scopes` (`archive/format.py` `covered_by`;
    None: the whole account, as `mesq export` writes it), as a streamed `application/zip`
    download named `mesq-export-<day>.zip`: the day in `zone` (a page's), else the user's own
    zone, else UTC, so a person east of UTC after their midnight finds today's date on it."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed by the stream below, or here on failure)
    try:
        exported_at = now_timestamp()
        size = await run_sync(_write, services, user_id, spool, exported_at, scopes)
        day = await run_sync(_local_day, services, user_id, exported_at, zone)
        cap = services.settings.attachment_redirect_bytes
        if cap is not None and size > cap:
            raise PayloadTooLarge(
                "the archive is %(size)s bytes, over the %(cap)s bytes one response of this deployment can carry; "
                "export with `mesq export USER --out FILE` where the data lives",
                size=size,
                cap=cap,
            )
    except BaseException:
        spool.close()
        raise
    headers = {
        **NO_STORE,
        "Content-Length": str(size),
        "Content-Disposition": f'attachment; filename="mesq-export-{day}.zip"',
        "X-Content-Type-Options": "nosniff",
    }
    return StreamingResponse(_chunks(spool), media_type="application/zip", headers=headers)


async def _chunks(spool: IO[bytes]) -> AsyncIterator[bytes]:
    try:
        while chunk := await run_sync(spool.read, CHUNK_BYTES):
            yield chunk
    finally:
        spool.close()


__all__ = ["ARCHIVE_SLOTS", "USER_SLOTS", "archive_download", "archive_slot"]
