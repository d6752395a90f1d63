"""Settings → Reading sync says which credential is saved in the page's language: a web cookie
is said as 网页 Cookie and its 19 characters on zh-CN and "web cookie of 19 characters" on en-US (the hint stored
with the credential is no sentence of either language), an API key its `wrk-…abcd` hint; a
cookie saved before the count was kept apart still shows its count."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape

import pytest

from mesq.kernel.keys import user_partition
from mesq.reading.credentials import CREDENTIAL_SK
from mesq.wiring.services import Services

from ..conftest import Browser

COOKIE = "wr_vid=1; wr_skey=x"  # 19 characters
SAVED = "2026-03-01T00:00:00.000000Z"


def _hint(reader: Browser, language: str) -> str:
    page = reader.get("/settings/reading", headers={"Accept-Language": language})
    assert page.status_code == 200
    found = re.search(r'<p id="credential-hint">(.*?)</p>', page.text, re.S)
    assert found is not None, page.text
    return unescape(re.sub(r"<[^>]+>", "", found.group(1)))


@pytest.mark.parametrize(
    ("language", "said"), [("zh-CN", "网页 Cookie，19 个字符"), ("en-US", "web cookie of 19 characters")]
)
def test_a_saved_cookie_is_described_in_the_pages_language(
    browser: Callable[..., Browser], language: str, said: str
) -> None:
    reader = browser()
    saved = reader.post("/settings/reading/credential", {"kind": "cookie", "secret": COOKIE})
    assert saved.status_code == 303, saved.text
    hint = _hint(reader, language)
    assert said in hint and "characters" not in hint.replace(said, ""), hint
    if language == "zh-CN":
        assert not re.search(r"[A-Za-z]{3,}", hint.replace("Cookie", "").replace("UTC", "")), hint


def test_an_api_key_keeps_its_hint(browser: Callable[..., Browser]) -> None:
    reader = browser()
    saved = reader.post("/settings/reading/credential", {"kind": "api_key", "secret": "wrk-abcdefgh1234"})
    assert saved.status_code == 303
    assert "wrk-…1234" in _hint(reader, "zh-CN")


def test_a_cookie_saved_by_an_earlier_release_still_shows_its_count(
    services: Services, browser: Callable[..., Browser]
) -> None:
    reader = browser()
    assert reader.post("/settings/reading/credential", {"kind": "cookie", "secret": COOKIE}).status_code == 303
    key = (user_partition(reader.user_id), CREDENTIAL_SK)
    record = services.items.get(key)
    assert record is not None
    services.items.put({k: v for k, v in record.items() if k != "secretLength"} | {"hint": "cookie, 19 characters"})
    assert "网页 Cookie，19 个字符" in _hint(reader, "zh-CN")


def test_an_upgrade_notice_without_words_of_its_own_is_said_in_the_pages_language(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """An `upgrade_info` with no message is recorded as what it holds (its link, or nothing) and
    the page says the rest in its own words, never a stored English "an upgrade is available"."""
    reader = browser()
    status = {"pk": user_partition(reader.user_id), "sk": "READ#SYNCSTATUS", "lastAttemptAt": SAVED,
              "counts": {"books": 0}, "notices": ["", "https://example.invalid/upgrade"]}  # fmt: skip
    services.items.put(status)
    page = reader.get("/settings/reading", headers={"Accept-Language": "zh-CN"})
    found = re.search(r'<ul class="notices" id="sync-notices">(.*?)</ul>', page.text, re.S)
    assert found is not None, page.text
    said = unescape(re.sub(r"<[^>]+>", " ", found.group(1)))
    assert "有可用的更新" in said and "https://example.invalid/upgrade" in said, said
    assert not re.search(r"[A-Za-z]{3,}", said.replace("https://example.invalid/upgrade", "")), said


def test_a_credential_error_says_when_a_new_credential_was_saved_since(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """The last sync failed on an expired credential ("save a new one to resume syncing"); the
    person saves a new one, and the page went on saying only that, as if the save had not taken.
    It now says a new credential was saved after the error and that Sync now tries it."""
    reader = browser()
    error = {"code": "CREDENTIAL_EXPIRED", "at": SAVED, "message": "the WeChat Reading credential has expired"}
    status = {"pk": user_partition(reader.user_id), "sk": "READ#SYNCSTATUS", "lastAttemptAt": SAVED,
              "counts": {"books": 0}, "lastError": error}  # fmt: skip
    services.items.put(status)

    def superseded(language: str) -> str:
        page = reader.get("/settings/reading", headers={"Accept-Language": language})
        found = re.search(r'<p class="muted" id="sync-error-superseded">(.*?)</p>', page.text, re.S)
        return unescape(re.sub(r"<[^>]+>", "", found.group(1))) if found else ""

    assert superseded("en-US") == ""  # no credential saved since: the error stands alone
    assert reader.post("/settings/reading/credential", {"kind": "cookie", "secret": COOKIE}).status_code == 303
    english, chinese = superseded("en-US"), superseded("zh-CN")
    assert "A new credential was saved after this error" in english and "Sync now" in english, english
    assert "此错误之后已保存了新的凭证" in chinese and "立即同步" in chinese, chinese
    services.items.put({**status, "lastError": {**error, "code": "UPSTREAM_UNAVAILABLE"}})
    assert superseded("en-US") == ""  # an error the credential has nothing to do with: nothing to say


def test_the_form_keeps_the_kind_of_the_saved_credential(browser: Callable[..., Browser]) -> None:
    """A web cookie expires; its owner comes back to paste a fresh one, and the form had API key
    chosen again (the paste then refused as "the API key must look like wrk-…"). The saved kind
    is the one chosen; with nothing saved, the API key (preferred) is."""

    def chosen(reader: Browser) -> list[str]:
        page = reader.get("/settings/reading").text
        return re.findall(r'<input type="radio" name="kind" value="([a-z_]+)" checked>', page)

    reader = browser()
    assert chosen(reader) == ["api_key"]
    assert reader.post("/settings/reading/credential", {"kind": "cookie", "secret": COOKIE}).status_code == 303
    assert chosen(reader) == ["cookie"]
    saved = reader.post("/settings/reading/credential", {"kind": "api_key", "secret": "wrk-abcdefgh1234"})
    assert saved.status_code == 303 and chosen(reader) == ["api_key"]


def test_the_counts_of_the_last_successful_sync_are_not_called_the_last_run(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """The status keeps the counts of the last sync that succeeded; after a later failed sync the
    page still headed them "Last run" (上次运行), beside that run's error: they read as what the
    failed run did."""
    reader = browser()
    run = {"added": 10, "updated": 0, "markedDeleted": 0, "unchanged": 0, "source": "cookie"}
    error = {"code": "UPSTREAM_UNAVAILABLE", "at": "2026-03-02T00:00:00.000000Z", "message": "WeChat Reading is down"}
    status = {"pk": user_partition(reader.user_id), "sk": "READ#SYNCSTATUS", "lastAttemptAt": error["at"],
              "lastSuccessAt": SAVED, "lastRun": run, "counts": {"books": 2}, "lastError": error}  # fmt: skip
    services.items.put(status)
    for language, said in (("en-US", "Last successful sync: 10 added"), ("zh-CN", "上次成功同步：新增 10")):
        page = reader.get("/settings/reading", headers={"Accept-Language": language})
        found = re.search(r'<p class="muted" id="last-run">(.*?)</p>', page.text, re.S)
        assert found is not None and said in unescape(found.group(1)), page.text
