"""A relay upload streams: the part is spooled to a temporary file while the size limit is
counted, and the blob store copies it in chunks, so the Python heap never holds the file (before,
the whole file was read into memory and copied once more: twice its size)."""

from __future__ import annotations

import asyncio
import hashlib
import tracemalloc
from collections.abc import AsyncIterator

import httpx

from mesq.runtime.server import create_local_app

from .conftest import RELAY

MIB = 1024 * 1024
FILE_MIB = 24
BOUNDARY = "mesqstreamingboundary"


def _chunk(index: int) -> bytes:
    return bytes([index % 251]) * MIB


async def _multipart() -> AsyncIterator[bytes]:
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    for index in range(FILE_MIB):
        yield _chunk(index)
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


async def _upload(app: object, headers: dict[str, str]) -> tuple[httpx.Response, int]:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        tracemalloc.start()
        try:
            response = await client.post(
                RELAY,
                headers={**headers, "content-type": f"multipart/form-data; boundary={BOUNDARY}"},
                content=_multipart(),
            )
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return response, peak


def test_relay_upload_keeps_the_file_out_of_memory(make_services, make_account_for):
    services = make_services()
    account = make_account_for(services)
    response, peak = asyncio.run(_upload(create_local_app(services), account.headers))
    assert response.status_code == 201, response.text
    resource = response.json()["data"]
    assert resource["fileSize"] == FILE_MIB * MIB
    expected = hashlib.sha256(b"".join(_chunk(i) for i in range(FILE_MIB))).hexdigest()
    digest = hashlib.sha256()
    for piece in services.blobs.stream(resource["path"], MIB):
        digest.update(piece)
    assert digest.hexdigest() == expected
    # A few 1 MiB buffers (the parser's, the copy's), never the 24 MiB file.
    assert peak < 8 * MIB, f"peak Python heap {peak / MIB:.1f} MiB during a {FILE_MIB} MiB upload"
