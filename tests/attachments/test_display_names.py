"""A file name holding an invisible text-direction control ("invoice\u202egpj.exe" reads as
"invoiceexe.jpg") is a VALIDATION_ERROR on every upload path, in the request's language, before
any byte is stored; imports drop those characters from the names they take from other files."""

from __future__ import annotations

import pytest

from mesq.attachments.uploads import check_display_name, clean_display_name
from mesq.kernel.errors import ValidationError
from mesq.kernel.i18n import Translator

from .conftest import RELAY, RESOURCES, SESSION, TODO_ATTACHMENTS

CONTROLS = ["\u202e", "\u202d", "\u202a", "\u202b", "\u202c", "\u2066", "\u2067", "\u2068", "\u2069",
            "\u200e", "\u200f", "\u061c", "\ufeff"]  # fmt: skip


@pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_direction_controls_are_refused_on_every_upload_path(client, make_account, control):
    account = make_account(scopes="memo:read,memo:write,todo:read,todo:write")
    name = f"invoice{control}gpj.exe"
    attempts = {
        "base64": client.post(
            RESOURCES, headers=account.headers, json={"displayName": name, "mimeType": "image/png", "content": "TVo="}
        ),
        "relay": client.post(RELAY, headers=account.headers, files={"file": (name, b"MZ", "image/png")}),
        "relay displayName": client.post(
            RELAY, headers=account.headers, files={"file": ("a.png", b"MZ", "image/png")}, data={"displayName": name}
        ),
        "session": client.post(
            SESSION, headers=account.headers, json={"displayName": name, "mimeType": "image/png", "size": 2}
        ),
        "todo": client.post(
            TODO_ATTACHMENTS,
            headers=account.headers,
            json={"displayName": name, "mimeType": "image/png", "content": "TVo="},
        ),
    }
    for how, answer in attempts.items():
        assert answer.status_code == 400, (how, answer.text)
        error = answer.json()["error"]
        assert error["code"] == "VALIDATION_ERROR", how
        assert f"U+{ord(control):04X}" in error["message"] and "text-direction" in error["message"], how
    assert client.get(RESOURCES, headers=account.headers).json()["data"]["resources"] == []


def test_the_refusal_speaks_chinese():
    """REST and MCP say errors in English; the pages (the composer's upload) in the reader's."""
    with pytest.raises(ValidationError) as refused:
        check_display_name("invoice\u202egpj.exe")
    message = Translator("zh").text(refused.value.text)
    assert "U+202E" in message and "文字方向" in message, message


def test_right_to_left_letters_and_joiners_stay_allowed(client, make_account):
    """Only the invisible controls are refused: Hebrew, Arabic (with its ZWNJ) and emoji
    sequences (ZWJ) are names like any other."""
    account = make_account()
    for name in ("חשבונית.pdf", "فاکتور\u200cها.pdf", "family \U0001f468\u200d\U0001f469\u200d\U0001f467.png"):
        answer = client.post(
            RESOURCES, headers=account.headers, json={"displayName": name, "mimeType": "image/png", "content": "TVo="}
        )
        assert answer.status_code == 201, (name, answer.text)
        assert answer.json()["data"]["displayName"] == name


def test_imports_drop_direction_controls_from_names():
    assert clean_display_name("invoice\u202egpj.exe", "file") == "invoicegpj.exe"
    assert clean_display_name("\u2066\u2069", "file") == "file"
    assert clean_display_name("a\x00b.txt", "file") == "ab.txt"


@pytest.mark.parametrize("route", [RELAY, f"{TODO_ATTACHMENTS}/upload"])
def test_a_file_name_too_long_for_a_part_header_is_named_on_the_relay(client, make_account, route):
    """10 KB of emoji as a file name makes the part's header line longer than the multipart
    parser takes (4 KiB): the refusal names the file name and its limit, not only "Invalid
    multipart data.", and nothing is stored."""
    account = make_account(scopes="memo:read,memo:write,todo:read,todo:write")
    answer = client.post(route, headers=account.headers, files={"file": ("😀" * 2600 + ".png", b"MZ", "image/png")})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "file name" in error["message"] and "255" in error["message"], error["message"]
    assert client.get(RESOURCES, headers=account.headers).json()["data"]["resources"] == []
