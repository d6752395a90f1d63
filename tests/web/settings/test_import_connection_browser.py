"""Settings → Import, from another app, when the answer never comes: the file was sent whole and
MeSQ was importing when the connection dropped (a proxy's timeout on a big import, the server
restarted). The page said "Could not reach MeSQ; nothing was imported." though the import runs on
(or was cut off half-way, listed on this page with its Undo); a proxy's 504 said only "The import
failed (HTTP 504)". Both now say the import may have written the file, where its report is and
that importing the same file again adds nothing twice. A file never sent still says nothing was
imported.

The page and its scripts are the real ones (rendered by the app, in zh-CN and en-US); a small
HTTP/1.0 server hands them to Chromium and, for the form's POST, reads the whole body then closes
the connection without an answer (or answers 504 with a proxy's page), as a proxy would."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ...support.http_stub import QuietHandler, serving
from ..chromium import chromium_page
from ..conftest import Browser

ANSWERS = {
    "zh-CN": (
        "导入进行中时与 MeSQ 的连接断开了：这个文件可能已部分或全部导入。"
        "请刷新本页（未完成的导入会列在这里），或再次导入同一个文件：已导入的不会重复添加。"
    ),
    "en-US": (
        "The connection to MeSQ was lost while it was importing: the file may be imported in part or in"
        " whole. Reload this page (an unfinished import is listed here), or import the same file again:"
        " nothing is added twice."
    ),
}
PROXY_ANSWERS = {
    "zh-CN": (
        "导入进行中时没有收到 MeSQ 的答复（HTTP 504）：这个文件可能已部分或全部导入。"
        "请刷新本页（未完成的导入会列在这里），或再次导入同一个文件：已导入的不会重复添加。"
    ),
    "en-US": (
        "No answer came from MeSQ while it was importing (HTTP 504): the file may be imported in part or"
        " in whole. Reload this page (an unfinished import is listed here), or import the same file"
        " again: nothing is added twice."
    ),
}


@contextmanager
def _dropping_server(files: dict[str, tuple[bytes, str]], answer: int | None) -> Iterator[str]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            body, kind = files[self.path.split("?")[0]]
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            left = int(self.headers["Content-Length"])
            while left:  # the whole upload, as a server importing it would
                left -= len(self.rfile.read(min(left, 65536)))
            if answer is None:
                self.close_connection = True
                self.connection.shutdown(2)  # no answer at all: the connection drops
                return
            page = b"<html><body><h1>504 Gateway Time-out</h1></body></html>"
            self.send_response(answer)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

    with serving(Handler) as base_url:
        yield base_url


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
@pytest.mark.parametrize("answer", [None, 504], ids=["dropped", "proxy-504"])
def test_an_import_whose_answer_never_comes_is_not_said_to_have_imported_nothing(
    browser: Callable[..., Browser], tmp_path: Path, locale: str, answer: int | None
) -> None:
    person = browser()
    page_html = person.client.get("/settings/import", headers={"accept-language": locale})
    assert page_html.status_code == 200
    files = {"/settings/import": (page_html.content, "text/html; charset=utf-8")}
    for asset in set(re.findall(r'"(/static/[^"?]+)', page_html.text)):  # its scripts, styles and icon
        fetched = person.client.get(asset)
        files[asset] = (fetched.content, fetched.headers["content-type"])
    export = tmp_path / "flomo.zip"
    export.write_bytes(b"PK\x03\x04" + b"x" * 300_000)
    with _dropping_server(files, answer) as base, chromium_page(locale=locale) as page:
        page.goto(base + "/settings/import")
        page.check("#app-import-form input[name=kind][value=flomo]")
        page.set_input_files("#app-import-file", str(export))
        page.click("#app-import-form button[type=submit]")
        said = page.locator("#app-import-progress span")
        expected = (ANSWERS if answer is None else PROXY_ANSWERS)[locale]
        page.wait_for_function(
            "() => !document.querySelector('#app-import-form button[type=submit]').disabled"
            " || !/%/.test(document.querySelector('#app-import-progress span').textContent)"
            " && !/…/.test(document.querySelector('#app-import-progress span').textContent)"
        )
        assert said.text_content() == expected
