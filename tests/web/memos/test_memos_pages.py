"""The memo timeline's routes in-process (TestClient): what each shows and does, and that bad
input becomes a clear message on the page (the user's text kept), never a 500."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from starlette.testclient import TestClient

from mesq.adapters.store.blobs_s3 import S3BlobStore, make_s3_client
from mesq.asgi.app import starlette_app
from mesq.auth.users import create_user, get_user, set_setting
from mesq.kernel.errors import NotFound, ValidationError
from mesq.memos.reads import get_memo
from mesq.memos.writes import create_memo, delete_memo, update_memo
from mesq.search import build
from mesq.web import web_routes
from mesq.wiring.services import Services, build_services

from ...contract.blob_fixtures import REGION, MotoS3Server, fake_session, moto_server, use_fake_aws  # noqa: F401
from ...settings import inprocess_settings
from ..conftest import BASE, PASSWORD, POLICY, Browser, FakeClock, memo_call, sign_in


def _memo(services: Services, browser: Browser, content: str, **extra: object) -> dict[str, object]:
    return create_memo(memo_call(services, browser.user_id), {"content": content, **extra})["memo"]  # type: ignore[no-any-return]


def test_signed_out_home_still_redirects(new_client: Callable[[], object], browser: Callable[..., Browser]) -> None:
    fresh = new_client()
    assert fresh.get("/", follow_redirects=False).headers["location"] == "/setup"  # type: ignore[attr-defined]
    browser("ada")
    assert fresh.get("/", follow_redirects=False).headers["location"] == "/login"  # type: ignore[attr-defined]


def test_timeline_pinned_first_then_newest_with_sidebar(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    _memo(services, ada, "oldest #work/plans", createdAt="2026-11-01T10:00:00Z")
    _memo(services, ada, "pinned one #life", pinned=True, createdAt="2026-10-01T10:00:00Z")
    _memo(services, ada, "newest, no tag", createdAt="2026-11-02T23:30:00Z")
    ada.client.cookies.set("mesq_tz", "Asia/Shanghai")
    page = ada.get("/")
    assert page.status_code == 200
    order = [page.text.index(text) for text in ("pinned one", "newest, no tag", "oldest")]
    assert order == sorted(order)
    # Sidebar: state counts, the tag tree (work > plans), per-day counts in the browser's zone.
    assert re.search(r'href="/\?tag=work"[^>]*>#work</a> <span class="count"[^>]*>1</span>', page.text)
    assert re.search(r'href="/\?tag=work%2Fplans"[^>]*>#plans</a>', page.text)
    assert ">2026-11-03</a>" in page.text  # 23:30 UTC is the next day in Shanghai
    assert "(China Time)" in page.text and "2026-11-03 07:30 +0800" in page.text  # times in that zone too
    assert re.search(r'>Untagged</a> <span class="count"[^>]*>1</span>', page.text)
    # A day of the sidebar filters by that day of the browser's zone.
    day = ada.get("/?day=2026-11-03")
    assert "newest, no tag" in day.text and "oldest" not in day.text and "pinned one" not in day.text
    assert "newest, no tag" not in ada.get("/?day=2026-11-02").text


def test_filters_and_a_bad_zone_cookie(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    _memo(services, ada, "tagged #work")
    _memo(services, ada, "plain words")
    ada.client.cookies.set("mesq_tz", "Not/AZone")
    tagged = ada.get("/?tag=work")
    tag_link = 'tagged <a href="/?tag=work" class="memo-tag"'  # the #tag in the text links to its filter
    assert tagged.status_code == 200 and tag_link in tagged.text and "plain words" not in tagged.text
    assert "(UTC)" in tagged.text  # an unknown zone is ignored, not an error
    assert 'class="memo-tags"' not in tagged.text  # and is not listed a second time under the text
    untagged = ada.get("/?untagged=1")
    assert "plain words" in untagged.text and "tagged <a" not in untagged.text
    # A tag typed with its sign is the tag, the fullwidth one a Chinese input method types too.
    for signed in ("%23work", "%EF%BC%83work"):
        page = ada.get(f"/?tag={signed}")
        assert page.status_code == 200 and tag_link in page.text and "plain words" not in page.text


def test_an_exact_text_search_marks_its_matches_and_says_how_many(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A search that answers: each hit's matching words marked where they stand (the search's own
    fold: case, traditional characters), outside the markup (a link's address is never marked),
    and the number of memos found said in the page's language."""
    ada = browser("ada")
    _memo(services, ada, "读完了《三体》，**黑暗森林**法则 #读书/科幻")
    _memo(services, ada, "Dune and 三體 <b>x</b> see [the page](<https://example.com/三体>)")
    _memo(services, ada, "nothing to see")
    page = ada.get("/?q=%E4%B8%89%E4%BD%93&mode=literal", headers={"Accept-Language": "zh-CN"})
    assert page.status_code == 200
    assert "读完了《<mark>三体</mark>》" in page.text
    assert "Dune and <mark>三體</mark> &lt;b&gt;x&lt;/b&gt;" in page.text  # the fold; text stays text
    assert 'href="https://example.com/%E4%B8%89%E4%BD%93"' in page.text  # a link's address untouched
    assert "找到 2 条笔记。" in page.text
    en = ada.get("/?q=DUNE", headers={"Accept-Language": "en-US"})
    assert "<mark>Dune</mark> and" in en.text and "1 memo found." in en.text
    none = ada.get("/?q=quokka", headers={"Accept-Language": "en-US"})
    assert "No memo matches." in none.text and "found." not in none.text and "<mark>" not in none.text
    assert "<mark>" not in ada.get("/").text  # no search, nothing marked


def test_an_exact_text_search_that_finds_nothing_offers_the_ai_search(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """Words that are not one exact run (三体 黑暗) find nothing by exact text: the page says so
    and links the same words in AI search, which looks for each word and for the meaning."""
    ada = browser("ada")
    _memo(services, ada, "读完了《三体》，黑暗森林法则")
    zh = ada.get("/?q=%E4%B8%89%E4%BD%93+%E9%BB%91%E6%9A%97", headers={"Accept-Language": "zh-CN"})
    offer = '<a href="/?q=%E4%B8%89%E4%BD%93+%E9%BB%91%E6%9A%97&amp;mode=ai">'
    assert "没有匹配的笔记。" in zh.text and offer in zh.text and "试试 AI 搜索" in zh.text
    en = ada.get("/?q=%E4%B8%89%E4%BD%93+%E9%BB%91%E6%9A%97", headers={"Accept-Language": "en-US"})
    assert "No memo matches." in en.text and offer in en.text and "Try AI search" in en.text
    ai = ada.get("/?q=%E4%B8%89%E4%BD%93+%E9%BB%91%E6%9A%97&mode=ai", headers={"Accept-Language": "en-US"})
    assert "读完了《三体》" in ai.text and "Try AI search" not in ai.text
    assert "Try AI search" not in ada.get("/?q=%E4%B8%89%E4%BD%93").text  # found: nothing to offer


def test_ai_search_says_which_branches_matched_not_a_score(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    _memo(services, ada, "harbour lighthouse at dusk")
    found = ada.get("/?q=lighthouse&mode=ai")
    assert found.status_code == 200 and "harbour lighthouse at dusk" in found.text
    assert "Matched by keywords" in found.text  # no embedding model here: the keyword branch alone
    assert "score" not in found.text.lower()


def test_ai_search_draws_less_related_hits_after_a_boundary(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A memo holding every query word is a confident hit; one holding a single rare word of it
    comes after the "Less related" boundary (no embedding model here: coverage alone decides)."""
    ada = browser("ada")
    _memo(services, ada, "harbour lighthouse keeper at dusk")
    _memo(services, ada, "a lighthouse postcard")
    for filler in range(6):
        _memo(services, ada, f"keeper of the garden number {filler}")
    build.run(services, ada.user_id)  # as `mesq serve`'s build worker would (a search never builds)
    found = ada.get("/?q=harbour+lighthouse+keeper&mode=ai")
    text = found.text
    assert found.status_code == 200 and "Less related" in text
    confident, boundary = text.index("harbour lighthouse keeper at dusk"), text.index("Less related")
    assert confident < boundary < text.index("a lighthouse postcard")
    zh = ada.get("/?q=harbour+lighthouse+keeper&mode=ai", headers={"Accept-Language": "zh-CN"})
    assert "相关性较低" in zh.text


def test_ai_search_reads_a_time_phrase_as_days_and_says_which(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """ "lighthouse keeper last week": only last week's memo answers, and the filter sentence names
    the days it searched in the page's language; the phrase was words before, so an older memo
    answered as well and nothing said that the week was not read."""
    ada = browser("ada")
    today = datetime.now(ZoneInfo("UTC")).date()
    monday = today - timedelta(days=today.weekday())
    _memo(services, ada, "harbour lighthouse keeper, week one", createdAt=f"{monday - timedelta(days=4)}T10:00:00Z")
    _memo(services, ada, "harbour lighthouse keeper, long ago", createdAt=f"{monday - timedelta(days=70)}T10:00:00Z")
    build.run(services, ada.user_id)
    first, last = (monday - timedelta(days=7)).isoformat(), (monday - timedelta(days=1)).isoformat()
    en = ada.get("/?q=lighthouse+keeper+last+week&mode=ai", headers={"Accept-Language": "en-US"})
    assert en.status_code == 200 and "week one" in en.text and "long ago" not in en.text
    assert f"created from <strong>{first}</strong> to <strong>{last}</strong> (“last week” in the search)" in en.text
    zh = ada.get("/?q=%E4%B8%8A%E5%91%A8+lighthouse+keeper&mode=ai", headers={"Accept-Language": "zh-CN"})
    assert "week one" in zh.text and "long ago" not in zh.text
    assert f"创建于 <strong>{first}</strong> 至 <strong>{last}</strong>（搜索中的“上周”）" in zh.text
    # One day is said as one day, not "from X to X".
    day = (monday - timedelta(days=4)).isoformat()
    on_a_day = ada.get(f"/?q={day}+lighthouse+keeper&mode=ai", headers={"Accept-Language": "zh-CN"})
    assert "week one" in on_a_day.text and "long ago" not in on_a_day.text
    assert f"创建于 <strong>{day}</strong>（搜索中的“{day}”）" in on_a_day.text and " 至 " not in on_a_day.text


def test_ai_search_of_a_period_alone_lists_its_memos_newest_first(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """ "上周写了什么" / "what did I write last week": the page showed nothing (写了什么 and "what
    did I write" were searched as words in the week). Now the week's memos, newest first, and
    the filter sentence names the week."""
    ada = browser("ada")
    today = datetime.now(ZoneInfo("UTC")).date()
    monday = today - timedelta(days=today.weekday())
    _memo(services, ada, "tuesday: fixed the bike", createdAt=f"{monday - timedelta(days=6)}T10:00:00Z")
    _memo(services, ada, "friday: 买了新的台灯", createdAt=f"{monday - timedelta(days=3)}T10:00:00Z")
    _memo(services, ada, "long ago: a walk", createdAt=f"{monday - timedelta(days=70)}T10:00:00Z")
    build.run(services, ada.user_id)
    first, last = (monday - timedelta(days=7)).isoformat(), (monday - timedelta(days=1)).isoformat()
    zh = ada.get(
        "/?q=%E4%B8%8A%E5%91%A8%E5%86%99%E4%BA%86%E4%BB%80%E4%B9%88&mode=ai", headers={"Accept-Language": "zh-CN"}
    )
    assert zh.status_code == 200 and "long ago" not in zh.text
    assert zh.text.index("friday: 买了新的台灯") < zh.text.index("tuesday: fixed the bike")
    # The sentence names the week alone: these are the week's memos, not the matches of words.
    assert f"显示创建于 <strong>{first}</strong> 至 <strong>{last}</strong>（搜索中的“上周”）的笔记。" in zh.text
    en = ada.get("/?q=what+did+I+write+last+week&mode=ai", headers={"Accept-Language": "en-US"})
    assert (
        en.text.index("friday: 买了新的台灯") < en.text.index("tuesday: fixed the bike") and "long ago" not in en.text
    )
    shown = (
        f"Showing memos created from <strong>{first}</strong> to <strong>{last}</strong> (“last week” in the search)."
    )
    assert shown in en.text


def test_a_period_alone_with_no_memo_says_nothing_was_written_then(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """`昨天写了什么` on a day with no memo said 没有匹配的笔记 ("No memo matches"), as if words had
    been searched: it lists a day, so it says that nothing was written then."""
    ada = browser("ada")
    _memo(
        services,
        ada,
        "long ago: a walk",
        createdAt=f"{datetime.now(ZoneInfo('UTC')).date() - timedelta(days=70)}T10:00:00Z",
    )
    build.run(services, ada.user_id)
    zh = ada.get(
        "/?q=%E6%98%A8%E5%A4%A9%E5%86%99%E4%BA%86%E4%BB%80%E4%B9%88&mode=ai", headers={"Accept-Language": "zh-CN"}
    )
    assert zh.status_code == 200 and "long ago" not in zh.text
    assert "这段时间没有写笔记。" in zh.text and "没有匹配的笔记" not in zh.text
    en = ada.get("/?q=what+did+I+write+yesterday&mode=ai", headers={"Accept-Language": "en-US"})
    assert "No memo was written in these days." in en.text and "No memo matches" not in en.text


def test_a_degraded_ai_search_names_its_stages_in_the_pages_language(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """The stages under "Degraded AI search" were the API's codes (`vector: unavailable`,
    `rerank: fused`) on the Chinese page too."""
    ada = browser("ada")
    _memo(services, ada, "harbour lighthouse at dusk")
    build.run(services, ada.user_id)  # the index, with no embedding model here: its vector stage is unavailable
    zh = ada.get("/?q=lighthouse&mode=ai", headers={"Accept-Language": "zh-CN"})
    stages = re.search(r'<ul class="memos-stages">(.*?)</ul>', zh.text, re.S)
    assert zh.status_code == 200 and stages is not None
    shown = re.sub(r"<[^>]+>", " ", stages.group(1))
    assert "按语义搜索：不可用" in shown and "关键词搜索：完成" in shown
    assert not re.search(r"[A-Za-z]", shown), shown
    en = ada.get("/?q=lighthouse&mode=ai", headers={"Accept-Language": "en-US"})
    assert "Search by meaning: unavailable" in en.text and "Keyword search: done" in en.text


def test_ai_search_keeps_the_untagged_and_pinned_filters_it_says_it_shows(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """ "Showing untagged memos matching the search above" listed tagged memos: search_ai_memos has
    no untagged or pinned filter, and the page dropped both."""
    ada = browser("ada")
    _memo(services, ada, "lighthouse keeper log #sea")
    plain = _memo(services, ada, "lighthouse keeper diary")
    pinned = _memo(services, ada, "lighthouse keeper notes", pinned=True)
    build.run(services, ada.user_id)
    untagged = ada.get("/?untagged=1&q=lighthouse+keeper&mode=ai").text
    assert plain["content"] in untagged and pinned["content"] in untagged
    assert "lighthouse keeper log" not in untagged  # the tagged memo (its tag is drawn as a link)
    only_pinned = ada.get("/?pinned=1&q=lighthouse+keeper&mode=ai").text
    assert pinned["content"] in only_pinned
    assert plain["content"] not in only_pinned and "lighthouse keeper log" not in only_pinned


def test_bad_query_values_are_clear_400_pages(browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    for query, words in [
        ("status=GONE", "status: one of"),
        ("day=30-11-2026", "day:"),
        ("offset=-1", "offset:"),
        ("mode=fuzzy", "mode:"),
        ("pinned=maybe", "pinned:"),
        ("tag=" + "x" * 101, "tag: at most 100"),
        ("q=" + "x" * 1001, "q: at most 1000"),
    ]:
        answer = ada.get("/?" + query)
        assert answer.status_code == 400, (query, answer.text)
        assert words in answer.text and "Traceback" not in answer.text
    # The statuses are codes: quoted as other field errors quote values, in both languages.
    chinese = ada.get("/?status=WHATEVER", headers={"Accept-Language": "zh-CN"})
    assert "状态：须为 &#39;NORMAL&#39;, &#39;ARCHIVED&#39;, &#39;ALL&#39; 之一" in chinese.text


def test_compose_keeps_text_on_error_and_saves(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    too_long = ada.post("/memos", {"content": "我" * 50_001})
    assert too_long.status_code == 400 and "content" in too_long.text and "我" * 100 in too_long.text
    empty = ada.post("/memos", {"content": ""})
    assert empty.status_code == 400 and 'role="alert"' in empty.text
    bad_attachment = ada.post("/memos", {"content": "with a file", "resource": "{not json"})
    assert bad_attachment.status_code == 400 and "attachment" in bad_attachment.text
    foreign = ada.post("/memos", {"content": "with a file", "resource": json.dumps({"path": "users/other/memo/x"})})
    assert foreign.status_code == 400 and "with a file" in foreign.text
    saved = ada.post("/memos", {"content": "hello **world** #greeting", "key": "k1"})
    assert saved.status_code == 303 and saved.headers["location"] == "/"
    again = ada.post("/memos", {"content": "hello **world** #greeting", "key": "k1"})  # a double submit
    assert again.status_code == 303
    page = ada.get("/")
    assert page.text.count("<strong>world</strong>") == 1 and "#greeting</a>" in page.text


def test_the_composer_comes_back_to_its_view_and_only_to_a_view(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """The composer's `return` is the view it was written in: the save comes back there (its first
    page), with a notice when the view does not list the new memo; a refused text is shown again on
    that view; an address that is not a timeline view, or filters that do not read, is the whole
    timeline (the memo saved all the same, never an error page after it)."""
    ada = browser("ada")
    view = "/?tag=%E8%AF%BB%E4%B9%A6"  # 读书
    assert f'name="return" value="{view}"' in ada.get(view + "&offset=20").text
    inside = ada.post("/memos", {"content": "好书 #读书", "return": view + "&offset=20"})
    assert inside.status_code == 303 and inside.headers["location"] == view
    assert "mesq_flash" not in inside.headers.get("set-cookie", "")
    outside = ada.post("/memos", {"content": "买菜 #生活", "return": view})
    assert outside.status_code == 303 and outside.headers["location"] == view
    assert "Saved (not in this view)." in ada.get(view).text
    refused = ada.post("/memos", {"content": "", "return": view})
    assert refused.status_code == 400 and f'name="return" value="{view}"' in refused.text
    for elsewhere in ("//evil.example/", "https://evil.example/", "/todos", "/?day=yesterday", "/?status=GONE"):
        answer = ada.post("/memos", {"content": f"saved anyway {elsewhere}", "return": elsewhere})
        assert answer.status_code == 303 and answer.headers["location"] == "/", elsewhere
    assert ada.get("/").text.count("saved anyway") == 5


def test_a_refused_memo_form_gives_the_text_back(services: Services, browser: Callable[..., Browser]) -> None:
    """A composer (or script-less editor) form refused before it reaches the memo (the session
    ended overnight, a form out of date after signing in again elsewhere, a memo gone meanwhile):
    the error page hands the text back to copy, in the reader's language, instead of dropping it."""
    ada = browser("ada")
    zh = {"Accept-Language": "zh-CN"}
    text = "今晚读完《三体》#读书，<b>不是标签</b>"
    stale = ada.post("/memos", {"content": text, "csrf": "from an older page"}, headers=zh)
    assert stale.status_code == 403 and "CSRF" in stale.text
    assert "你写的内容没有保存" in stale.text
    assert "今晚读完《三体》#读书，&lt;b&gt;不是标签&lt;/b&gt;</textarea>" in stale.text
    gone = ada.post("/memos/NoSuchMemo123456", {"content": "改过的文字", "revision": "1"})
    assert gone.status_code == 404 and "改过的文字</textarea>" in gone.text
    ada.client.cookies.clear()  # the session ended
    ended = ada.post("/memos", {"content": text}, headers=zh)
    assert ended.status_code == 401 and "请登录后再试" in ended.text
    assert "今晚读完《三体》#读书，&lt;b&gt;不是标签&lt;/b&gt;</textarea>" in ended.text
    # Nothing to give back: no such section.
    assert "没有保存" not in ada.post("/memos/x/pin", {"revision": "1"}, headers=zh).text


def test_a_save_in_place_brings_the_sidebar_its_new_tags_and_counts(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A memo edited in place that gains (or loses) tags: the answer carries the sidebar's tag tree,
    list counts and days out of band, as pin, archive and trash do, so they follow without a reload."""
    ada = browser("ada")
    memo = _memo(services, ada, "没有标签的笔记")
    _memo(services, ada, "另一条 #旧标签")
    htmx = {"HX-Request": "true"}
    edited = {"content": "现在有了 #读书/科幻，很好", "revision": "1"}
    saved = ada.post(f"/memos/{memo['id']}?return=/%3Ftag%3D旧标签", edited, headers=htmx)
    assert saved.status_code == 200 and 'data-revision="2"' in saved.text
    assert re.search(r'id="memo-count-untagged" hx-swap-oob="true">0<', saved.text)
    tags = re.search(r'<nav class="memos-tags" id="memos-tags"[^>]*hx-swap-oob="true".*?</nav>', saved.text, re.S)
    assert tags, saved.text
    assert "#读书</a>" in tags.group(0) and "#科幻</a>" in tags.group(0) and "#旧标签</a>" in tags.group(0)
    # The tag links keep the view the editor came from (its filters), as the page's own do.
    assert 'href="/?tag=%E8%AF%BB%E4%B9%A6"' in tags.group(0)
    days = re.search(r'<nav class="memos-days" id="memos-days"[^>]*hx-swap-oob="true".*?</nav>', saved.text, re.S)
    assert days and re.search(r'<span class="count">2</span>', days.group(0)), saved.text
    trashed = ada.post(f"/memos/{memo['id']}/trash", {"revision": "2"}, headers=htmx)
    days = re.search(r'<nav class="memos-days" id="memos-days"[^>]*hx-swap-oob="true".*?</nav>', trashed.text, re.S)
    assert days and re.search(r'<span class="count">1</span>', days.group(0)), trashed.text
    ada.post(f"/memos/{memo['id']}/undo", {"changeId": re.findall(r'name="changeId" value="([^"]+)"', trashed.text)},
             headers=htmx)  # fmt: skip
    revision = get_memo(memo_call(services, ada.user_id), {"id": memo["id"]})["memo"]["revision"]
    assert get_memo(memo_call(services, ada.user_id), {"id": memo["id"]})["memo"]["status"] == "NORMAL"
    dropped = ada.post(f"/memos/{memo['id']}", {"content": "又没有标签了", "revision": str(revision)}, headers=htmx)
    assert "#读书</a>" not in dropped.text and re.search(
        r'id="memo-count-untagged" hx-swap-oob="true">1<', dropped.text
    )


def test_edit_save_and_conflict_prompt(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    memo = _memo(services, ada, "first text")
    editor = ada.get(f"/memos/{memo['id']}/edit", headers={"HX-Request": "true"})
    assert editor.status_code == 200 and 'name="revision" value="1"' in editor.text and "<html" not in editor.text
    update_memo(memo_call(services, ada.user_id), {"id": memo["id"], "expectedRevision": 1, "content": "their text"})
    conflict = ada.post(f"/memos/{memo['id']}", {"content": "my text", "revision": "1"}, headers={"HX-Request": "true"})
    assert conflict.status_code == 409
    assert "their text" in conflict.text and "my text" in conflict.text and 'name="revision" value="2"' in conflict.text
    assert "Save mine over theirs" in conflict.text and "Start from theirs" in conflict.text
    fresh = ada.post(f"/memos/{memo['id']}", {"content": "my text", "revision": "2", "start": "theirs"})
    assert fresh.status_code == 200 and "my text" in fresh.text  # yours kept beside theirs
    assert re.search(r"data-editor>their text</textarea>", fresh.text)
    mine = ada.post(f"/memos/{memo['id']}", {"content": "my text", "revision": "2"}, headers={"HX-Request": "true"})
    assert mine.status_code == 200 and "my text" in mine.text and 'data-revision="3"' in mine.text
    bad = ada.post(f"/memos/{memo['id']}", {"content": "", "revision": "3"})
    assert bad.status_code == 400 and 'role="alert"' in bad.text
    nonsense = ada.post(f"/memos/{memo['id']}", {"content": "x", "revision": "three"})
    assert nonsense.status_code == 400 and "the form is incomplete or out of date" in nonsense.text


def test_saving_a_memo_that_is_in_the_trash_keeps_the_text_and_says_to_restore_it(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """The editor of a memo in the trash (its link on /activity, the merge prompt's "save mine"
    after it was trashed elsewhere): nothing is written there; the text stays in the box."""
    ada = browser("ada")
    memo = _memo(services, ada, "first text")
    delete_memo(memo_call(services, ada.user_id), {"id": memo["id"], "expectedRevision": 1})
    for language, said in (
        ("zh-CN", "这条笔记在回收站中：请先把它从回收站恢复，再保存。"),
        ("en", "This memo is in the trash: restore it from the trash first, then save."),
    ):
        saved = ada.post(
            f"/memos/{memo['id']}", {"content": "my text", "revision": "2"}, headers={"Accept-Language": language}
        )
        assert saved.status_code == 409 and said in saved.text and "my text" in saved.text
    kept = get_memo(memo_call(services, ada.user_id), {"id": memo["id"]})["memo"]
    assert (kept["content"], kept["status"], kept["revision"]) == ("first text", "DELETED", 2)


def test_preview_renders_with_the_timeline_sanitizer_and_stores_nothing(
    services: Services, browser: Callable[..., Browser]
) -> None:
    ada = browser("ada")
    text = "<script>alert(1)</script> **bold** #idea\n\n- [ ] a task"
    shown = ada.post("/memos/preview", {"content": text})
    assert shown.status_code == 200 and "<html" not in shown.text
    assert "&lt;script&gt;" in shown.text and "<script" not in shown.text and "<strong>bold</strong>" in shown.text
    assert '<a href="/?tag=idea" class="memo-tag"' in shown.text
    assert re.search(
        r'<input type="checkbox" class="memo-task" data-task="0" aria-label="a task" disabled>', shown.text
    )
    assert "Nothing to preview" in ada.post("/memos/preview", {"content": ""}).text
    assert ada.client.post("/memos/preview", data={"content": "x"}).status_code == 403  # no CSRF token
    assert 'data-memo-id="' not in ada.get("/").text  # nothing was stored


def test_ticking_a_task_saves_with_the_revision_and_a_conflict_prompts(
    services: Services, browser: Callable[..., Browser]
) -> None:
    ada = browser("ada")
    memo = _memo(services, ada, "- [ ] one\n- [ ] two")
    page = ada.get("/").text
    assert '<input type="checkbox" class="memo-task" data-task="1" aria-label="two">' in page
    htmx = {"HX-Request": "true"}
    ticked = ada.post(f"/memos/{memo['id']}/task", {"revision": "1", "task": "1", "value": "on"}, headers=htmx)
    assert ticked.status_code == 200 and 'data-revision="2"' in ticked.text
    assert 'data-task="1" aria-label="two" checked>' in ticked.text
    call = memo_call(services, ada.user_id)
    assert get_memo(call, {"id": memo["id"]})["memo"]["content"] == "- [ ] one\n- [x] two"
    # A card still at revision 1: the merge prompt, the tick applied to their text as "yours".
    stale = ada.post(f"/memos/{memo['id']}/task", {"revision": "1", "task": "0", "value": "on"}, headers=htmx)
    assert stale.status_code == 409 and "memos-conflict" in stale.text and 'name="revision" value="2"' in stale.text
    assert re.search(r"data-editor>- \[x\] one\n- \[x\] two</textarea>", stale.text)
    assert get_memo(call, {"id": memo["id"]})["memo"]["content"] == "- [ ] one\n- [x] two"
    missing = ada.post(f"/memos/{memo['id']}/task", {"revision": "2", "task": "7", "value": "on"}, headers=htmx)
    assert missing.status_code == 400 and "not in the memo" in missing.text
    plain = ada.post(
        f"/memos/{memo['id']}/task", {"revision": "2", "task": "0", "value": "off", "return": "/?pinned=1"}
    )
    assert plain.status_code == 303 and plain.headers["location"] == "/?pinned=1"


def test_lifecycle_and_their_errors(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    memo = _memo(services, ada, "a memo to move")
    pinned = ada.post(f"/memos/{memo['id']}/pin", {"revision": "1", "value": "on", "return": "/?tag=x"})
    assert pinned.status_code == 303 and pinned.headers["location"] == "/?tag=x"
    stale = ada.post(f"/memos/{memo['id']}/archive", {"revision": "1", "value": "on"})
    assert stale.status_code == 303  # a stale revision does nothing and says so
    assert "changed elsewhere" in ada.get("/").text
    assert ada.post(f"/memos/{memo['id']}/archive", {"revision": "2", "value": "maybe"}).status_code == 400
    offsite = ada.post(f"/memos/{memo['id']}/archive", {"revision": "2", "value": "on", "return": "//evil.example"})
    assert offsite.headers["location"] == "/"
    assert "a memo to move" in ada.get("/?status=ARCHIVED").text
    assert "a memo to move" in ada.get("/?status=archived").text  # as a person types the address
    trashed = ada.post(f"/memos/{memo['id']}/trash", {"revision": "3"})
    assert trashed.status_code == 303 and "a memo to move" in ada.get("/trash").text
    missing = ada.post("/memos/nope/trash", {"revision": "1"})
    assert missing.status_code == 404 and "not found" in missing.text


def test_other_users_memos_are_out_of_reach(services: Services, browser: Callable[..., Browser]) -> None:
    ada, bob = browser("ada"), browser("bob")
    memo = _memo(services, ada, "ada's secret")
    assert bob.get(f"/memos/{memo['id']}/edit").status_code == 404
    assert bob.post(f"/memos/{memo['id']}", {"content": "hijack", "revision": "1"}).status_code == 404
    assert "ada&#39;s secret" not in bob.get("/").text and "ada's secret" not in bob.get("/").text


def test_double_click_setting(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    assert 'data-double-click-edit="false"' in ada.get("/").text
    assert ada.post("/memos/settings", {"doubleClickEdit": "on"}).status_code == 303
    assert 'data-double-click-edit="true"' in ada.get("/").text
    assert get_user(services.items, ada.user_id)["settings"] == {"doubleClickEdit": True, "language": ""}  # type: ignore[index]
    ada.post("/memos/settings", {})
    assert 'data-double-click-edit="false"' in ada.get("/").text
    with pytest.raises(ValidationError, match="unknown setting"):
        set_setting(services.items, ada.user_id, "darkMode", True)
    with pytest.raises(NotFound):
        set_setting(services.items, "no-such-user", "doubleClickEdit", True)


def test_writes_need_the_csrf_token(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    memo = _memo(services, ada, "guarded")
    for path, form in [
        ("/memos", {"content": "forged"}),
        (f"/memos/{memo['id']}/trash", {"revision": "1"}),
        (f"/memos/{memo['id']}", {"content": "forged", "revision": "1"}),
        ("/memos/settings", {"doubleClickEdit": "on"}),
    ]:
        answer = ada.client.post(path, data=form, follow_redirects=False)
        assert answer.status_code == 403, path
    relay = ada.client.post("/memos/uploads/relay?displayName=a.txt&mimeType=text/plain", content=b"hi")
    assert relay.status_code == 403


def test_upload_relay_then_compose(services: Services, browser: Callable[..., Browser]) -> None:
    ada = browser("ada")
    headers = {"X-CSRF-Token": ada.csrf}
    session = ada.client.post(
        "/memos/uploads", json={"displayName": "note.txt", "mimeType": "text/plain", "size": 5}, headers=headers
    )
    assert session.status_code == 200, session.text
    assert session.json()["transport"] == "relay" and session.json()["uploadEndpoint"] == "/memos/uploads/relay"
    bad = ada.client.post("/memos/uploads", json={"displayName": "", "mimeType": "nope", "size": 0}, headers=headers)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"
    relayed = ada.client.post(
        "/memos/uploads/relay?displayName=note.txt&mimeType=text/plain",
        content=b"hello",
        headers={**headers, "Content-Type": "text/plain"},
    )
    assert relayed.status_code == 200, relayed.text
    resource = {k: relayed.json()[k] for k in ("path", "displayName", "fileSize", "mimeType", "type")}
    empty = ada.client.post("/memos/uploads/relay?displayName=e.txt", content=b"", headers=headers)
    assert empty.status_code == 400
    assert empty.json()["error"]["message"] == "File: the file is empty; choose a file that has content"
    saved = ada.post("/memos", {"content": "see the file", "resource": json.dumps(resource)})
    assert saved.status_code == 303
    page = ada.get("/")
    assert "note.txt" in page.text and "(5 bytes)" in page.text
    link = re.search(r'href="(/memos/attachment\?path=[^"]+)" download><bdi>note.txt</bdi></a>', page.text)
    assert link, page.text
    got = ada.get(link.group(1).replace("&amp;", "&"))
    assert got.status_code == 200 and got.content == b"hello"
    assert got.headers["content-disposition"].startswith('attachment; filename="note.txt"')
    assert got.headers["content-security-policy"] == "default-src 'none'; sandbox"
    assert got.headers["x-content-type-options"] == "nosniff"


def test_file_names_are_isolated_and_svg_is_a_file(services: Services, browser: Callable[..., Browser]) -> None:
    """A name stored before uploads refused direction controls ("invoice\u202egpj.exe" would read
    "invoiceexe.jpg" and flip the size beside it) is shown inside <bdi> (FSI ... PDI in an
    attribute); an SVG is listed as a file on every store (its S3 download is octet-stream)."""
    from mesq.attachments import store as attachment_store

    ada = browser("ada")
    headers = {"X-CSRF-Token": ada.csrf}
    resources = []
    for name, mime, stored_name in (
        ("note.txt", "text/plain", "invoice\u202egpj.exe"),
        ("pic.svg", "image/svg+xml", "pic.svg"),
        ("pic.png", "image/png", "older\u202egnp.png"),
        ("photo.jpg", "image/jpg", "a\u2069\u202eb.exe"),  # a client's alias; a name that closes the isolate
    ):
        relayed = ada.client.post(
            "/memos/uploads/relay", params={"displayName": name, "mimeType": mime}, content=b"<svg/>", headers=headers
        )
        assert relayed.status_code == 200, relayed.text
        key = attachment_store.attachment_key(ada.user_id, relayed.json()["path"].rsplit("/", 1)[-1])
        record = services.items.get(key)
        assert record is not None
        services.items.put({**record, "displayName": stored_name})  # as an older server stored it
        resources.append(
            {**{k: relayed.json()[k] for k in ("path", "fileSize", "mimeType", "type")}, "displayName": stored_name}
        )
    _memo(services, ada, "files", resources=resources)
    page = ada.get("/").text
    assert '<a href="/memos/attachment?path=' in page
    assert "download><bdi>invoice\u202egpj.exe</bdi></a>" in page
    assert "download><bdi>pic.svg</bdi></a>" in page and 'alt="\u2068pic.svg' not in page
    # In an attribute the controls are dropped (a stored U+2069 would end the isolate early and a
    # U+202E turn the rest of the label round), the rest isolated; `image/jpg` is a thumbnail too.
    assert 'alt="\u2068oldergnp.png\u2069"' in page
    assert 'alt="\u2068ab.exe\u2069"' in page
    labels = re.findall(r'class="memo-thumb"[^>]*aria-label="([^"]*)"', page)
    assert any("\u2068oldergnp.png\u2069" in label for label in labels), labels
    assert not [label for label in labels if set(label) & set("\u202e\u202a\u202b\u202c\u202d\u2066\u2067")], labels
    listing = ada.get("/settings/attachments").text
    assert "download><bdi>invoice\u202egpj.exe</bdi></a></td>" in listing  # each name opens its file


def test_attachment_download_errors(services: Services, browser: Callable[..., Browser]) -> None:
    ada, bob = browser("ada"), browser("bob")
    relayed = ada.client.post(
        "/memos/uploads/relay?displayName=secret.txt&mimeType=text/plain",
        content=b"ada only",
        headers={"X-CSRF-Token": ada.csrf},
    )
    path = relayed.json()["path"]
    assert bob.get("/memos/attachment", params={"path": path}).status_code == 403
    assert ada.get("/memos/attachment", params={"path": "../../etc/passwd"}).status_code == 400
    assert ada.get("/memos/attachment").status_code == 400
    assert ada.get("/memos/attachment", params={"path": path[:-4] + "0000"}).status_code == 404


def test_s3_downloads_are_never_served_as_a_page(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """On S3 the download link redirects to a presigned GET, answered from the bucket's origin
    (no nosniff, no CSP there): an uploaded HTML page or SVG comes back as a named
    `attachment` of type application/octet-stream, never as a page that runs."""
    import httpx

    use_fake_aws(monkeypatch)
    server: MotoS3Server = request.getfixturevalue("moto_server")
    local = build_services(inprocess_settings(data_dir=tmp_path / "data"))
    bucket = "mesq-web-downloads"
    store = S3BlobStore(bucket, client=make_s3_client(server.url, REGION, fake_session()))
    store.client.create_bucket(Bucket=bucket)
    services = Services(settings=local.settings, items=local.items, blobs=store)
    app = starlette_app(web_routes(services, throttle=POLICY), services.settings)
    with TestClient(app, base_url=BASE) as client:
        create_user(services.items, "ada", PASSWORD)
        assert sign_in(client, "ada").status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/settings/tokens").text)
        assert csrf
        for name, mime in (("evil.html", "text/html"), ("evil.svg", "image/svg+xml")):
            relayed = client.post(
                "/memos/uploads/relay",
                params={"displayName": name, "mimeType": mime},
                content=b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/><script>alert(2)</script>",
                headers={"X-CSRF-Token": csrf.group(1), "Content-Type": mime},
            )
            assert relayed.status_code == 200, relayed.text
            redirect = client.get("/memos/attachment", params={"path": relayed.json()["path"]}, follow_redirects=False)
            assert redirect.status_code == 307
            got = httpx.get(redirect.headers["location"])
            assert got.status_code == 200 and b"<script>" in got.content
            assert got.headers["content-type"] == "application/octet-stream"
            assert got.headers["content-disposition"] == f"attachment; filename=\"{name}\"; filename*=UTF-8''{name}"
    local.items.close()


def test_direct_uploads_are_allowed_by_the_page_csp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """On S3 the composer's script PUTs to a presigned URL: the memo page's CSP names that origin
    (and only there; a relay store keeps `connect-src 'self'`)."""
    use_fake_aws(monkeypatch)
    local = build_services(inprocess_settings(data_dir=tmp_path / "data"))
    direct = Services(
        settings=local.settings, items=local.items, blobs=S3BlobStore("mesq-blobs", region="eu-central-1")
    )
    csp = {}
    for name, services in (("relay", local), ("direct", direct)):
        app = starlette_app(web_routes(services, throttle=POLICY), services.settings)
        with TestClient(app, base_url=BASE) as client:
            create_user(services.items, f"user-{name}", PASSWORD)
            assert sign_in(client, f"user-{name}").status_code == 303
            csp[name] = client.get("/").headers["content-security-policy"]
    local.items.close()
    assert "connect-src 'self';" in csp["relay"]
    assert "connect-src 'self' https://mesq-blobs.s3.eu-central-1.amazonaws.com;" in csp["direct"]
    assert "img-src 'self' https://mesq-blobs.s3.eu-central-1.amazonaws.com;" in csp["direct"]  # thumbnails
    assert "img-src 'self';" in csp["relay"]
    assert "script-src 'self';" in csp["direct"] and "form-action 'self'" in csp["direct"]


def test_a_long_search_is_not_repeated_in_every_sidebar_link(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A 1,000-character query rode in each sidebar link (statuses, tags, days: 24 copies, a
    Chinese one 9 KB each): the sidebar goes to a filter of the whole collection (its counts are
    of every memo), so its links leave the search out. The search box, the pager and the AI
    search link keep it."""
    ada = browser("ada")
    for day in range(5):
        _memo(services, ada, f"笔记 {day} #标签{day} #tag/{day}")
    query = "搜" * 1000
    page = ada.get("/", params={"q": query}, headers={"Accept-Language": "zh-CN"})
    assert page.status_code == 200
    encoded = "%E6%90%9C" * 1000
    links = re.findall(r'<a href="(/\?[^"]*)"', page.text)
    assert len(links) >= 10, links  # statuses, tags, days
    carrying = [link for link in links if encoded in link]
    assert len(carrying) <= 1, [link[:60] for link in carrying]  # the AI search offer at most
    assert page.text.count(query) + page.text.count(encoded) <= 3, len(page.text)
    assert len(page.text.encode()) < 60_000, len(page.text.encode())


def test_no_ai_search_is_offered_for_a_query_of_punctuation_alone(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """AI search answers nothing for a query without a letter or digit (contract §9: spaces,
    punctuation or symbols alone), yet "No memo matches" offered it for full-width punctuation, `%_%` or `***`:
    a link that could only find nothing again. It is offered only where it can find something."""
    ada = browser("ada")
    _memo(services, ada, "读完了《三体》")
    for query in ("？！", "%_%", "***", "……", "— —"):
        for language in ("zh-CN", "en-US"):
            page = ada.get("/", params={"q": query}, headers={"Accept-Language": language})
            assert page.status_code == 200
            assert "mode=ai" not in page.text, (query, language)
            assert ("没有匹配的笔记。" if language == "zh-CN" else "No memo matches.") in page.text
    assert "mode=ai" in ada.get("/", params={"q": "黑洞 ？"}).text  # a word in it: offered


def test_the_trash_says_its_times_as_activity_does_not_as_an_offset(
    services: Services, browser: Callable[..., Browser], clock: FakeClock
) -> None:
    """The trash showed `created 2026-12-07 04:25 +0800 · trashed ...` where /activity says
    `Today 04:25`: its times now read the same way, in the browser's zone and the page's language."""
    ada = browser("ada")
    call = memo_call(services, ada.user_id)
    memo = create_memo(call, {"content": "an old thought", "createdAt": "2025-11-02T23:30:00Z"})["memo"]
    trashed = delete_memo(call, {"id": memo["id"], "expectedRevision": memo["revision"]})["memo"]
    clock.now = time.time()  # "today" is the page's clock, the day the memo was trashed
    ada.client.cookies.set("mesq_tz", "Asia/Shanghai")
    at = datetime.fromisoformat(trashed["updatedAt"].replace("Z", "+00:00")).astimezone(ZoneInfo("Asia/Shanghai"))
    en = ada.get("/trash", headers={"Accept-Language": "en-US"}).text
    assert f"created Nov 3, 2025 07:30 · trashed today {at:%H:%M}" in en  # 23:30 UTC is the next morning there
    zh = ada.get("/trash", headers={"Accept-Language": "zh-CN"}).text
    assert f"创建于 2025年11月3日 07:30 · 删除于 今天 {at:%H:%M}" in zh
    confirm = ada.get(f"/trash/{memo['id']}/delete", headers={"Accept-Language": "en-US"}).text
    assert "created Nov 3, 2025 07:30" in confirm
    assert not any("+0800" in page for page in (en, zh, confirm))


def test_a_downloads_type_is_the_same_on_local_files_and_s3(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The page's download of an attachment has one type whichever store holds it: an SVG (or
    HTML, text) is `application/octet-stream` from local files as from S3's presigned GET, where
    it was `image/svg+xml` locally; an image a browser only decodes keeps its type on both. The
    local answer keeps `attachment`, nosniff and the sandbox CSP."""
    import httpx

    use_fake_aws(monkeypatch)
    server: MotoS3Server = request.getfixturevalue("moto_server")
    local = build_services(inprocess_settings(data_dir=tmp_path / "data"))
    store = S3BlobStore("mesq-web-types", client=make_s3_client(server.url, REGION, fake_session()))
    store.client.create_bucket(Bucket="mesq-web-types")
    on_s3 = Services(settings=local.settings, items=local.items, blobs=store)
    files = {"pic.svg": "image/svg+xml", "page.html": "text/html", "note.txt": "text/plain", "pic.png": "image/png"}
    served: dict[str, dict[str, str]] = {}
    for label, services in (("local", local), ("s3", on_s3)):
        app = starlette_app(web_routes(services, throttle=POLICY), services.settings)
        with TestClient(app, base_url=BASE) as client:
            create_user(services.items, f"ada-{label}", PASSWORD)
            assert sign_in(client, f"ada-{label}").status_code == 303
            csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/settings/tokens").text)
            assert csrf
            for name, mime in files.items():
                relayed = client.post(
                    "/memos/uploads/relay",
                    params={"displayName": name, "mimeType": mime},
                    content=b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>",
                    headers={"X-CSRF-Token": csrf.group(1), "Content-Type": mime},
                )
                assert relayed.status_code == 200, relayed.text
                answer = client.get(
                    "/memos/attachment", params={"path": relayed.json()["path"]}, follow_redirects=False
                )
                if label == "s3":
                    assert answer.status_code == 307
                    answer = httpx.get(answer.headers["location"])
                else:
                    assert answer.headers["x-content-type-options"] == "nosniff"
                    assert answer.headers["content-security-policy"] == "default-src 'none'; sandbox"
                assert answer.status_code == 200
                assert answer.headers["content-disposition"].startswith("attachment;")
                served.setdefault(label, {})[name] = answer.headers["content-type"]
    local.items.close()
    assert (
        served["local"]
        == served["s3"]
        == {
            "pic.svg": "application/octet-stream",
            "page.html": "application/octet-stream",
            "note.txt": "application/octet-stream",
            "pic.png": "image/png",
        }
    )


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_a_tag_only_archived_memos_have_is_named_and_points_to_the_archive(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """A tag link of an archived memo (its card, the archive's view, a bookmark) opens the
    timeline, where no memo has it: the page said "Showing memos with a tag no memo has." over
    "No memo here.", and in the archive itself, over the archived memo it showed, that no memo
    has the tag. It is the person's tag: the page names it, and the empty timeline says how many
    archived memos have it, with the link to them."""
    ada = browser("ada")
    memo = _memo(services, ada, "旧项目的总结 #旧项目")
    _memo(services, ada, "别的笔记 #生活")
    update_memo(memo_call(services, ada.user_id), {"id": memo["id"], "status": "ARCHIVED", "expectedRevision": 1})
    zh = {"Accept-Language": "zh-CN"}
    timeline = _text(ada.get("/?tag=%E6%97%A7%E9%A1%B9%E7%9B%AE", headers=zh).text)  # 旧项目
    assert "没有笔记使用" not in timeline
    assert "显示带有标签 #旧项目的笔记。" in timeline
    assert "1 条已归档的笔记带有这个标签。" in timeline
    page = ada.get("/?tag=%E6%97%A7%E9%A1%B9%E7%9B%AE").text
    assert "1 archived memo has this tag." in _text(page)
    assert 'href="/?status=ARCHIVED&amp;tag=%E6%97%A7%E9%A1%B9%E7%9B%AE"' in page
    archive = _text(ada.get("/?status=ARCHIVED&tag=%E6%97%A7%E9%A1%B9%E7%9B%AE").text)
    assert "旧项目的总结" in archive
    assert "Showing archived memos tagged #旧项目." in archive
    # A tag nobody has is still not echoed from the address (no page shows words from its URL alone).
    unknown = _text(ada.get("/?tag=%E4%B9%B1%E5%86%99").text)  # 乱写
    assert "Showing memos with a tag no memo has." in unknown and "乱写" not in unknown
    assert "archived memo" not in unknown


def test_the_edit_page_says_edit_memo_once(services: Services, browser: Callable[..., Browser]) -> None:
    """The memo's own edit page (no script, a toast's Open, the history's back link) is headed
    "编辑笔记", and its box was labelled "编辑笔记" again right under it: the label stays for screen
    readers, out of sight there; the in-place editor on the timeline keeps its visible label."""
    ada = browser("ada")
    memo = _memo(services, ada, "读书笔记 #读书")
    zh = {"Accept-Language": "zh-CN"}
    page = ada.get(f"/memos/{memo['id']}/edit", headers=zh).text
    assert "<h1>编辑笔记</h1>" in page
    label = re.search(rf'<label for="edit-{memo["id"]}"([^>]*)>编辑笔记</label>', page)
    assert label is not None and 'class="visually-hidden"' in label.group(1)
    in_place = ada.get(f"/memos/{memo['id']}/edit", headers={**zh, "HX-Request": "true"}).text
    assert f'<label for="edit-{memo["id"]}">编辑笔记</label>' in in_place


def test_a_wordless_task_is_named_in_the_pages_language(services: Services, browser: Callable[..., Browser]) -> None:
    """A task box whose item has no words yet (`- [ ] `) is named by its number for screen readers:
    "Task 2" was English on a Chinese timeline and in its Preview; it is "任务 2" there."""
    ada = browser("ada")
    _memo(services, ada, "- [ ] 买菜\n- [ ] ")
    zh = {"Accept-Language": "zh-CN"}
    timeline = ada.get("/", headers=zh).text
    assert 'aria-label="任务 2"' in timeline and "Task 2" not in timeline
    assert 'aria-label="买菜"' in timeline
    preview = ada.post("/memos/preview", {"content": "- [ ] "}, headers=zh).text
    assert 'aria-label="任务 1"' in preview and "Task 1" not in preview
    assert 'aria-label="Task 2"' in ada.get("/", headers={"Accept-Language": "en-US"}).text


def test_footnotes_on_a_timeline_of_many_memos_link_within_their_own_memo(
    services: Services, browser: Callable[..., Browser]
) -> None:
    """Two memos with a note 1 each on one timeline (Obsidian's `[^1]`, flomo's pasted notes): each
    reference links to its own memo's note and back, no id twice on the page, the link back named
    in the page's language; the composer's Preview draws them too. They were shown raw."""
    ada = browser("ada")
    first = _memo(services, ada, "三体读后感[^1]\n\n[^1]: 出自刘慈欣的访谈")
    second = _memo(services, ada, "球状闪电[^1]\n\n[^1]: 另一本书")
    page = ada.get("/", headers={"Accept-Language": "zh-CN"}).text
    assert "[^1]" not in page
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    for memo, words in ((first, "出自刘慈欣的访谈"), (second, "另一本书")):
        card = page[page.index(f'id="memo-{memo["id"]}"') :]
        card = card[: card.index("</li>\n</ol></section>")]
        note = re.search(r'<a href="#(fn-[^"]+)" id="(fnref-[^"]+)"', card)
        assert note is not None, card
        back = f'<a href="#{note.group(2)}" class="footnote-back" aria-label="返回正文"'
        assert f'<li id="{note.group(1)}"><p>{words} {back}' in card
    preview = ada.post("/memos/preview", {"content": "正文[^1]\n\n[^1]: 注"}, headers={"Accept-Language": "en-US"}).text
    assert 'href="#fn-preview-1"' in preview and 'aria-label="Back to the text"' in preview, preview
