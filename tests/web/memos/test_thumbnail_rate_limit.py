"""A timeline of photos shows all of them (sweep of attachments): every card's image is an `<img>`
of `/memos/attachment`, and a page of photo memos loads dozens at once. Those page images count in
the `page_image` bucket (1,200 a minute), not in `attachment_read` (30 a minute), which stays the
limit of downloads: 38 photos on one timeline had 8 broken by a 429 (decisions.md "rate buckets")."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from mesq.application import ratelimit
from mesq.application.ratelimit import PROFILES

from ..conftest import Browser

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
READS = PROFILES["normal"]["attachment_read"]


@pytest.fixture(autouse=True)
def one_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts within one minute's window: a minute turning between a test's reads gave
    its bucket room again and the 31st read an answer (the in-process app reads this clock)."""
    frozen = float(int(time.time()) // 60 * 60 + 1)
    monkeypatch.setattr(ratelimit, "wall_clock", lambda: frozen)


def _photo(person: Browser, index: int) -> str:
    relayed = person.client.post(
        f"/memos/uploads/relay?displayName=photo-{index}.png&mimeType=image/png",
        content=PNG,
        headers={"X-CSRF-Token": person.csrf, "Content-Type": "image/png"},
    )
    assert relayed.status_code == 200, relayed.text
    return str(relayed.json()["path"])


def test_a_page_of_photos_is_not_cut_by_the_download_limit(browser: Callable[..., Browser]) -> None:
    ada = browser()
    paths = [_photo(ada, index) for index in range(READS + 10)]
    as_image = {"Sec-Fetch-Dest": "image"}  # what a browser sends for an <img>
    shown = [ada.get("/memos/attachment", params={"path": path}, headers=as_image).status_code for path in paths]
    assert shown == [200] * len(paths)


def test_downloads_keep_their_limit(browser: Callable[..., Browser]) -> None:
    ada = browser()
    path = _photo(ada, 0)
    as_download = {"Sec-Fetch-Dest": "document"}  # a click on the download link
    answers = [ada.get("/memos/attachment", params={"path": path}, headers=as_download) for _ in range(READS + 1)]
    assert [a.status_code for a in answers[:READS]] == [200] * READS
    assert answers[READS].status_code == 429


def test_a_file_fetched_as_an_image_still_counts_as_a_download(browser: Callable[..., Browser]) -> None:
    """`Sec-Fetch-Dest: image` is the client's word: a page shows only images as `<img>` (other
    files are links), so a file that is no image counts in `attachment_read` too once its record
    says so. A script claiming every download is an image took 1,200 files a minute instead of 30."""
    ada = browser()
    relayed = ada.client.post(
        "/memos/uploads/relay?displayName=notes.pdf&mimeType=application/pdf",
        content=b"%PDF-1.4\n",
        headers={"X-CSRF-Token": ada.csrf, "Content-Type": "application/pdf"},
    )
    assert relayed.status_code == 200, relayed.text
    path = str(relayed.json()["path"])
    as_image = {"Sec-Fetch-Dest": "image"}
    answers = [ada.get("/memos/attachment", params={"path": path}, headers=as_image) for _ in range(READS + 1)]
    assert [a.status_code for a in answers[:READS]] == [200] * READS
    assert answers[READS].status_code == 429 and int(answers[READS].headers["retry-after"]) >= 1
