"""What a browser shows when a person opens a CalDAV address (the URL a phone was given, pasted
into a browser): the refusal is in the person's language (Settings, else the browser's
`Accept-Language`, else English), as the pages are; a Chinese reader met English sentences
("sign in with your MeSQ username…", "GET works on a task, not on a calendar") before."""

from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree import ElementTree as ET

import pytest

from mesq.auth.users import set_setting

from .conftest import Dav

LATIN_WORDS = re.compile(r"[A-Za-z]{2,}")
#: Names a Chinese sentence keeps as they are (reviewed, as on the pages).
NAMES = {"nope", "ics", "MeSQ", "CalDAV", "https", "GET", "todo", "read", "write", "inbox", "ID"}


def _foreign(text: str, language: str) -> list[str]:
    if language == "zh":
        return [w for w in LATIN_WORDS.findall(text) if w not in NAMES]
    return re.findall(r"[\u4e00-\u9fff]+", text)


@pytest.mark.parametrize(("header", "language"), [("zh-CN,zh;q=0.9", "zh"), ("en-US,en;q=0.9", "en")])
def test_a_browser_without_a_password_is_refused_in_its_language(dav: Dav, header: str, language: str) -> None:
    for path, status in (("/dav/", 401), ("/dav/x/y/z/w/v", 404)):
        answer = dav.client.get(path, headers={"Accept-Language": header})
        assert answer.status_code == status
        assert answer.text.strip() and not _foreign(answer.text, language), answer.text
        assert answer.headers["content-language"] == {"zh": "zh-Hans", "en": "en"}[language]
    assert "个人访问令牌" in dav.client.get("/dav/", headers={"Accept-Language": header}).text or language == "en"


@pytest.mark.parametrize("language", ["zh", "en"])
def test_what_a_signed_in_browser_meets_is_in_the_accounts_language(
    make_dav: Callable[..., Dav], language: str
) -> None:
    dav, other = make_dav(), make_dav(scopes="todo:write")
    set_setting(dav.services.items, dav.user_id, "language", language)
    set_setting(other.services.items, other.user_id, "language", language)
    opposite = "en-US" if language == "zh" else "zh-CN"  # the account's choice wins over the browser's
    answers = {
        "GET a calendar": dav.request("GET", dav.calendar, Accept_Language=opposite),
        "GET the home": dav.request("GET", f"/dav/{dav.username}/", Accept_Language=opposite),
        "no such calendar": dav.request("GET", f"/dav/{dav.username}/nope/x.ics", Accept_Language=opposite),
        "no such task": dav.request("GET", dav.calendar + "nope.ics", Accept_Language=opposite),
        "another account": dav.request("GET", "/dav/someone-else/", Accept_Language=opposite),
        "no read scope": other.request("GET", f"/dav/{other.username}/", Accept_Language=opposite),
    }
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert statuses == {"GET a calendar": 405, "GET the home": 405, "no such calendar": 404, "no such task": 404,
                        "another account": 403, "no read scope": 403}  # fmt: skip
    for name, answer in answers.items():
        assert answer.text.strip() and not _foreign(answer.text, language), (name, answer.text)
        assert answer.headers["content-language"] == {"zh": "zh-Hans", "en": "en"}[language], name


PROPPATCH = (
    '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop>'
    "<D:displayname>x</D:displayname></D:prop></D:set></D:propertyupdate>"
)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_calendar_renamed_on_a_phone_is_refused_in_the_accounts_language(dav: Dav, language: str) -> None:
    """The refusal's description is what an app may show the person who renamed the list."""
    set_setting(dav.services.items, dav.user_id, "language", language)
    answer = dav.request("PROPPATCH", dav.calendar, PROPPATCH)
    assert answer.status_code == 207 and "403 Forbidden" in answer.text
    said = str(ET.fromstring(answer.content).findtext(".//{DAV:}responsedescription"))
    assert said.strip() and not _foreign(said, language), said


@pytest.mark.parametrize("language", ["zh", "en"])
def test_an_internal_fault_is_told_in_the_accounts_language(
    dav: Dav, language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mesq.dav import objects

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a fault the person must not read")

    monkeypatch.setattr(objects, "get", broken)
    set_setting(dav.services.items, dav.user_id, "language", language)
    answer = dav.request("GET", dav.calendar + "x.ics", Accept_Language="zh-CN" if language == "zh" else "en")
    assert answer.status_code == 500
    trace = answer.headers["x-trace-id"]
    assert trace in answer.text and "fault" not in answer.text
    assert not _foreign(answer.text.replace(trace, ""), language), answer.text


def test_a_refusal_left_in_english_is_labelled_english(dav: Dav) -> None:
    """Content-Language names the language the body is in: the refusals only sync software meets
    (a stale ETag, a malformed body) stay English for a Chinese account, and say so; a screen
    reader reads a body by its tag."""
    from .conftest import vtodo

    set_setting(dav.services.items, dav.user_id, "language", "zh")
    assert dav.put("t1.ics", vtodo("t1")).status_code == 201
    stale = dav.put("t1.ics", vtodo("t1", summary="B"), If_Match='"999"', Accept_Language="zh-CN")
    malformed = dav.request("PROPPATCH", dav.calendar, "<not-xml", Accept_Language="zh-CN")
    for answer in (stale, malformed):
        assert answer.status_code in (400, 412), answer.text
        assert not _foreign(answer.text, "en"), answer.text
        assert answer.headers["content-language"] == "en", (answer.status_code, answer.text)
    translated = dav.request("GET", dav.calendar, Accept_Language="en")
    assert translated.status_code == 405 and translated.headers["content-language"] == "zh-Hans"


def test_a_refusal_reads_the_account_no_more_than_its_sign_in_did(dav: Dav, monkeypatch: pytest.MonkeyPatch) -> None:
    """The account's language comes from the profile the sign-in read: a refused request (a
    throttled sync, a method on a calendar, another account's calendars) reads it once, as an
    accepted one does, not again to say the refusal."""
    import time

    from mesq.application.ratelimit import WINDOW_SECONDS
    from mesq.auth.tokens import authenticate_token
    from mesq.auth.users import profile_key
    from mesq.kernel.ports.storage import Update

    set_setting(dav.services.items, dav.user_id, "language", "zh")
    reads: list[object] = []
    real_get = dav.services.items.get

    def counting(key: object, *args: object, **kwargs: object) -> object:
        if key == profile_key(dav.user_id):
            reads.append(key)
        return real_get(key, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(dav.services.items, "get", counting)
    for method, path, status in (("GET", dav.calendar, 405), ("PROPFIND", "/dav/someone-else/", 403)):
        reads.clear()
        answer = dav.request(method, path, Depth="0")
        assert answer.status_code == status and answer.headers["content-language"] == "zh-Hans", answer.text
        assert len(reads) == 1, (method, path, len(reads))
    principal = authenticate_token(dav.services.items, dav.token)
    window = int(time.time() // WINDOW_SECONDS) * WINDOW_SECONDS
    dav.services.items.update(Update(key=(f"RL#{principal.credential_id}", f"tool_call#{window}"), add={"count": 240}))
    reads.clear()
    limited = dav.request("PROPFIND", dav.calendar, Depth="0")
    if int(time.time() // WINDOW_SECONDS) * WINDOW_SECONDS == window:  # (the minute did not turn meanwhile)
        assert limited.status_code == 429 and limited.headers["content-language"] == "zh-Hans", limited.text
        assert len(reads) == 1, len(reads)


def test_an_internal_fault_after_sign_in_is_told_in_the_accounts_language_not_the_browsers(
    dav: Dav, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the token is known the account's choice wins, for a fault as for a refusal: a phone
    that sends no Accept-Language, or an English browser, still reads a Chinese account's words."""
    from mesq.dav import objects

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a fault the person must not read")

    monkeypatch.setattr(objects, "get", broken)
    set_setting(dav.services.items, dav.user_id, "language", "zh")
    for header in ({"Accept_Language": "en-US,en;q=0.9"}, {}):
        answer = dav.request("GET", dav.calendar + "x.ics", **header)
        assert answer.status_code == 500
        trace = answer.headers["x-trace-id"]
        assert "追踪编号" in answer.text and not _foreign(answer.text.replace(trace, ""), "zh"), answer.text
        assert answer.headers["content-language"] == "zh-Hans"


@pytest.mark.parametrize(("language", "tag"), [("zh", "zh-Hans"), ("en", "en")])
def test_a_proppatch_refusal_names_the_language_of_its_description(dav: Dav, language: str, tag: str) -> None:
    """The 207 holds hrefs and statuses besides the one sentence, so the sentence carries its
    own language (xml:lang), as a refusal's Content-Language does."""
    set_setting(dav.services.items, dav.user_id, "language", language)
    answer = dav.request("PROPPATCH", dav.calendar, PROPPATCH)
    assert answer.status_code == 207
    description = ET.fromstring(answer.content).find(".//{DAV:}responsedescription")
    assert description is not None
    assert description.get("{http://www.w3.org/XML/1998/namespace}lang") == tag
