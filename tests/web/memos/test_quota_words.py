"""The quota refusal as a person reads it (sweep of attachments): a full quota says how much is
used of how much in MiB (the exact bytes beside them, as the size limit does), what the file
needs, and where room is made (Settings -> Attachments discards unattached files), in the page's
language; REST says the same in English. Before, it was bytes only ("1073741000 of 1073741824
bytes are used") with no way out."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from mesq.wiring.services import Services

from ...conftest import Account
from ..conftest import Browser

QUOTA = 3 * 1024 * 1024
USED = 2 * 1024 * 1024 + 512 * 1024  # 2.5 MiB
FILE = 1024 * 1024  # 1 MiB
WORDS = {
    "zh": "附件空间已满：已用 2.5 MiB（2621440 字节），上限 3 MiB（3145728 字节），这个文件需要 1 MiB（1048576 字节），"
    "未保存任何内容。请在“设置 → 附件”中清理未使用的文件，或选一个小一些的文件",
    "en": "the attachment quota is full: 2.5 MiB (2621440 bytes) of 3 MiB (3145728 bytes) are used and this file "
    "needs 1 MiB (1048576 bytes); nothing was stored. Discard unattached files in Settings → Attachments, or "
    "choose a smaller file",
}


@pytest.fixture
def small_quota(services: Services) -> Services:
    object.__setattr__(services, "deployment", dataclasses.replace(services.deployment, attachment_quota_bytes=QUOTA))
    return services


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_full_quota_says_how_full_and_what_to_do(
    small_quota: Services, browser: Callable[..., Browser], language: str
) -> None:
    person = browser()
    assert person.post("/settings/language", {"language": language}).status_code == 303
    headers = {"X-CSRF-Token": person.csrf}
    kept = person.client.post(
        "/memos/uploads/relay?displayName=a.bin&mimeType=application/octet-stream",
        content=b"x" * USED,
        headers={**headers, "Content-Type": "application/octet-stream"},
    )
    assert kept.status_code == 200, kept.text
    for answer in (
        person.client.post(
            "/memos/uploads",
            json={"displayName": "b.bin", "mimeType": "application/octet-stream", "size": FILE},
            headers=headers,
        ),
        person.client.post(
            "/memos/uploads/relay?displayName=b.bin&mimeType=application/octet-stream",
            content=b"y" * FILE,
            headers={**headers, "Content-Type": "application/octet-stream"},
        ),
    ):
        assert answer.status_code == 413, answer.text
        assert answer.json()["error"]["message"] == WORDS[language]


def test_rest_says_it_in_english(
    small_quota: Services, client: TestClient, make_account: Callable[..., Account]
) -> None:
    headers = make_account().headers
    upload = "/api/toolkit/memo/resources/upload"
    assert client.post(upload, headers=headers, files={"file": ("a.bin", b"x" * USED, "x/y")}).status_code == 201
    refused = client.post(upload, headers=headers, files={"file": ("b.bin", b"y" * FILE, "x/y")})
    assert refused.status_code == 413 and refused.json()["error"]["message"] == WORDS["en"]
