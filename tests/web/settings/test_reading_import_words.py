"""Settings → Reading sync → Import of a file that is not JSON: the refusal is MeSQ's sentence in
the page's language, never json's own words ("Expecting value", "Extra data": docs/i18n.md, a
library's words never reach a person), and the same sentence in English over REST."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from mesq.application.ratelimit import PROFILES

from ..conftest import Browser
from .test_import_broken_files import assert_no_english_run, assert_no_library_words

IMPORT = "/settings/reading/import"
NOT_JSON = [b"hello", b"", b'{"provider": "wechat-reading"} extra', b'{"provider": "wechat-reading",}',
            b'{"provider": "wechat-reading" "books": []}', b'{"provider": "wechat\n"}',
            b'{"provider": "\\q"}', b'\xef\xbb\xbf{"provider": "wechat-reading"}']  # fmt: skip


@pytest.mark.parametrize("body", NOT_JSON)
def test_a_file_that_is_not_json_is_refused_in_the_pages_words(browser: Callable[..., Browser], body: bytes) -> None:
    reader = browser()
    for language in ("zh-CN", "en-US"):
        headers = {"Content-Type": "application/json", "X-CSRF-Token": reader.csrf, "Accept-Language": language}
        answer = reader.client.post(IMPORT, content=body, headers=headers)
        assert answer.status_code == 400, answer.text
        said = answer.json()["error"]["message"]
        assert_no_library_words(said)
        if language == "zh-CN":
            assert_no_english_run(said.replace("JSON", ""))
            assert set(re.findall(r"[A-Za-z]{2,}", said)) <= {"JSON", "UTF", "BOM"}, said
        else:
            assert "not valid JSON" in said and "line 1" in said, said


def test_rest_says_the_same_english_sentence(client, make_account) -> None:
    account = make_account()
    headers = {**account.headers, "Content-Type": "application/json"}
    answer = client.post("/api/toolkit/memo", content=b'{"content": "x"', headers=headers)
    said = answer.json()["error"]["message"]
    assert answer.status_code == 400 and said.startswith("request body is not valid JSON: "), said
    assert_no_library_words(said)
    assert "Expecting" not in said and "delimiter" not in said, said


FILE_REFUSALS = [
    (b"{", "the file is not valid JSON", "这个文件不是有效的 JSON"),
    (b"[]", "the file must hold one JSON object", "这个文件必须是一个 JSON 对象"),
    (b'{"books": []}', "provider: is required", "provider：缺少"),
    (b'{"provider": "wechat-reading", "books": [], "x": "' + b"a" * (1024 * 1024) + b'"}', "larger than 1 MiB",
     "大于 1 MiB"),
    (b"[" * 100_000, "nests too deeply", "嵌套层数过深"),
    (b'{"provider": "wechat-reading", "books": [{"id": "b", "title": "t", "notes": [{"id": "n", "noteType": '
     b'"highlight", "content": "c", "createdAt": "2026-01-01T00:00:00Z", "position": ' + b"9" * 5000 + b"}]}]}",
     "position: must be a whole number", "position："),
]  # fmt: skip


@pytest.mark.parametrize(("body", "english", "chinese"), FILE_REFUSALS)
def test_the_import_refusal_speaks_of_the_file_a_person_chose(
    browser: Callable[..., Browser], body: bytes, english: str, chinese: str
) -> None:
    """The person chose a file; the page's script sends its text. Refusals spoke of a "request
    body" (请求体: a developer's word, "请求体超过 1048576 字节"), and of "(file)" on a Chinese page."""
    reader = browser()
    for language, expected in (("en-US", english), ("zh-CN", chinese)):
        headers = {"Content-Type": "application/json", "X-CSRF-Token": reader.csrf, "Accept-Language": language}
        answer = reader.client.post(IMPORT, content=body, headers=headers)
        said = answer.json()["error"]["message"]
        assert answer.status_code in (400, 413) and expected in said, said
        assert "request body" not in said and "请求体" not in said and "(file)" not in said, said


def test_refused_reading_files_never_lock_out_an_import(browser: Callable[..., Browser]) -> None:
    """Settings → Import gives a refused file's `import` count back (issue 38: a person trying the
    wrong file was locked out for an hour after 6 tries); the reading import counted every try, a
    file refused before anything was written too, so the seventh try of the day's right file got
    429 for an hour. Refusals now count apart (`import_refused`), as there."""
    reader = browser()
    headers = {"Content-Type": "application/json", "X-CSRF-Token": reader.csrf}
    for _number in range(PROFILES["normal"]["import"] + 1):
        refused = reader.client.post(IMPORT, content=b'{"provider": "kindle", "books": []}', headers=headers)
        assert refused.status_code == 400, refused.text
    good = b'{"provider": "wechat-reading", "books": []}'
    imported = reader.client.post(IMPORT, content=good, headers=headers)
    assert imported.status_code == 200 and imported.json()["ok"] is True, imported.text
