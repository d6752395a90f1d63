"""The composer's upload refusals as a person reads them, in the page's language (sweep of the
attachment refusals): the field by the name a person knows it by (文件名, 文件大小, 文件类型, 文件,
附件; File name, File size, ...), never the argument's (`displayName`, `size`); an empty file is
"文件是空的" on every route; a name left out or blank is missing, not "1..255 characters"; a file
over the limit says its size in MiB; a path of the wrong kind names the kind in the reader's words
(笔记附件), without the path's shape (REST and MCP keep it, tests/attachments/
test_refusal_words.py). Each Chinese message has no English word in it (the one-language crawl's
rule, tests/web/kit/test_one_language.py)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest

from mesq.attachments.paths import own_attachment_id
from mesq.kernel.errors import ValidationError

from ..conftest import Browser
from ..kit.test_one_language import foreign_runs

BIG = 101 * 1024 * 1024
WORDS = {
    "zh": {
        "empty size": "文件大小：文件是空的，请选一个有内容的文件",
        "empty relay": "文件：文件是空的，请选一个有内容的文件",
        "no name": "文件名：不能为空，请给文件起个名字",
        "control": "文件名：里面有控制字符（换行、制表符或其他看不见的字符），请去掉后重新命名文件",
        "too large": "文件大小：文件有 101 MiB（105906176 字节），超过了每个文件 100 MiB（104857600 字节）的上限，"
        "请选一个小一些的文件",
        "type": "文件类型：“text/html\\x7f”不是媒体类型（如 image/jpeg）",
        "todo path": "附件：“users/%(user)s/todo/abc”不是笔记附件的路径",
    },
    "en": {
        "empty size": "File size: the file is empty; choose a file that has content",
        "empty relay": "File: the file is empty; choose a file that has content",
        "no name": "File name: missing; give the file a name",
        "control": "File name: has a control character (a line break, a tab or another invisible character); "
        "rename the file without it",
        "too large": "File size: the file is 101 MiB (105906176 bytes), over the limit of 100 MiB (104857600 bytes) "
        "per file; choose a smaller file",
        "type": "File type: 'text/html\\x7f' is not a media type like image/jpeg",
        "todo path": "Attachment: 'users/%(user)s/todo/abc' is not a memo attachment path",
    },
}


@pytest.fixture(params=["zh", "en"])
def reader(request: pytest.FixtureRequest, browser: Callable[..., Browser]) -> tuple[str, Browser]:
    person = browser()
    assert person.post("/settings/language", {"language": request.param}).status_code == 303
    return request.param, person


def _refusal(answer: Any, status: int = 400) -> str:
    assert answer.status_code == status, answer.text
    message: str = answer.json()["error"]["message"]
    return message


def test_upload_refusals_say_the_field_and_the_fix_in_the_readers_language(reader: tuple[str, Browser]) -> None:
    language, person = reader
    csrf = {"X-CSRF-Token": person.csrf}

    def session(**body: Any) -> Any:
        fields = {"displayName": "a.txt", "mimeType": "text/plain", "size": 3, **body}
        return person.client.post("/memos/uploads", json=fields, headers=csrf)

    def relay(query: str, content: bytes = b"x", headers: dict[str, str] | None = None) -> Any:
        return person.client.post(f"/memos/uploads/relay?{query}", content=content, headers={**csrf, **(headers or {})})

    said = {
        "empty size": _refusal(session(size=0)),
        "empty relay": _refusal(relay("displayName=e.txt&mimeType=text/plain", b"")),
        "no name": _refusal(session(displayName="")),
        "blank name": _refusal(session(displayName="  ")),
        "relay no name": _refusal(relay("mimeType=text/plain")),
        "control": _refusal(relay("displayName=a%01b&mimeType=text/plain")),
        "too large": _refusal(session(size=BIG), 413),
        "type": _refusal(relay("displayName=a.txt", headers={"Content-Type": "text/html\x7f"})),
        "todo path": _refusal(person.client.post("/memos/uploads/complete", headers=csrf,
                                                 json={"uploadId": "x", "path": f"users/{person.user_id}/todo/abc"})),
    }  # fmt: skip
    words = {name: text % {"user": person.user_id} for name, text in WORDS[language].items()}
    expected = {**words, "blank name": words["no name"], "relay no name": words["no name"]}
    assert said == expected
    if language == "zh":
        typed = {"text/html\\x7f", "image/jpeg", f"users/{person.user_id}/todo/abc"}
        assert {name: runs for name, text in said.items() if (runs := foreign_runs(text, "zh", typed))} == {}


def test_a_wrong_path_on_the_download_page_names_the_kind_in_chinese(browser: Callable[..., Browser]) -> None:
    person = browser()
    assert person.post("/settings/language", {"language": "zh"}).status_code == 303
    page = person.get("/memos/attachment", params={"path": "users/x/memo/y"})
    assert page.status_code == 400
    main = re.search(r"<main.*?</main>", page.text, re.S)
    assert main is not None
    text = html.unescape(re.sub(r"<[^>]+>", " ", main.group(0)))
    assert re.search(r"附件：“[^”]*”不是笔记附件的路径", text), text  # the error page may cut the value short
    assert foreign_runs(re.sub(r"\b[0-9a-f]{32}\b", " ", text), "zh", {"users/x/memo/y"}) == []  # the trace id out
    # REST and MCP still say the shape a program should send
    with pytest.raises(ValidationError) as refused:
        own_attachment_id("users/x/memo/y", "x")
    assert str(refused.value) == "path: 'users/x/memo/y' is not a memo attachment path (users/<you>/memo/<id>)"
