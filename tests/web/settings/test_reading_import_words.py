"""Settings → Reading sync → Import of a file that is not JSON: the refusal is MeSQ's sentence in
the page's language, never json's own words ("Expecting value", "Extra data": docs/i18n.md, a
library's words never reach a person), and the same sentence in English over REST."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

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
