"""One language at a time: English or Chinese, from `Accept-Language` or the user's choice in
Settings (kept in the account's interface settings), with `<html lang>` to match, plurals right in
both languages, and each render's translations its own (the Environment is shared by threads)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import get_user
from mesq.todos.model import new_id
from mesq.web.kit.i18n import choose_language, negotiate
from mesq.web.kit.render import render
from mesq.wiring.services import Services

from ..conftest import Browser

SESSION = SimpleNamespace(csrf_token="t", username="ada")  # what base.html and the form read
ZH = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("zh-Hans", "zh"),
        ("zh-TW", "zh"),
        ("en-US,en;q=0.9,zh-CN;q=0.8", "en"),
        ("en;q=0.5, zh;q=0.8", "zh"),
        ("fr-FR,fr;q=0.9", "en"),  # nothing we have: English
        ("fr-FR, zh;q=0.2", "zh"),
        ("zh;q=0, en", "en"),
        ("zh;q=abc", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_accept_language_picks_the_preferred_language_we_have(header: str | None, language: str) -> None:
    assert negotiate(header) == language


def test_a_stored_choice_wins_over_the_browser_and_an_unknown_one_does_not() -> None:
    assert choose_language("zh", "en-US") == "zh"
    assert choose_language("en", "zh-CN") == "en"
    assert choose_language("", "zh-CN") == "zh"
    assert choose_language("fr", "zh-CN") == "zh"


def test_the_page_is_in_the_browsers_language_with_html_lang_to_match(browser: Callable[..., Browser]) -> None:
    client = browser().client
    zh = client.get("/todos", headers=ZH)
    assert '<html lang="zh-Hans">' in zh.text
    assert ">待办</a>" in zh.text and ">设置</a>" in zh.text and "看板" in zh.text
    assert "Settings" not in zh.text and "Board" not in zh.text
    en = client.get("/todos", headers=EN)
    assert '<html lang="en">' in en.text
    assert ">Todos</a>" in en.text and ">Settings</a>" in en.text
    assert "设置" not in en.text and "看板" not in en.text


def test_signed_out_pages_follow_the_browser_too(new_client: Callable[..., object]) -> None:
    client = new_client()
    page = client.get("/setup", headers=ZH)  # type: ignore[attr-defined]
    assert '<html lang="zh-Hans">' in page.text and "创建账户" in page.text and "Create account" not in page.text
    missing = client.get("/no-such-page-here", headers=ZH)  # type: ignore[attr-defined]
    assert missing.status_code == 404


def test_the_language_chosen_in_settings_is_kept_per_user(services: Services, browser: Callable[..., Browser]) -> None:
    person, other = browser(), browser()
    form = person.get("/settings", headers=EN)
    assert 'id="language-form"' in form.text and 'name="language" value="" checked' in form.text
    saved = person.post("/settings/language", {"language": "zh"}, headers=EN)
    assert saved.status_code == 303 and saved.headers["location"] == "/settings"
    assert (get_user(services.items, person.user_id) or {})["settings"]["language"] == "zh"
    page = person.get("/settings", headers=EN)  # the browser asks for English; the user chose Chinese
    assert '<html lang="zh-Hans">' in page.text and "语言已保存。" in page.text
    assert 'name="language" value="zh" checked' in page.text
    assert '<html lang="en">' in other.get("/settings", headers=EN).text  # another user: unchanged
    back = person.post("/settings/language", {"language": ""}, headers=EN)
    assert back.status_code == 303
    assert '<html lang="en">' in person.get("/todos", headers=EN).text  # the browser's again
    refused = person.post("/settings/language", {"language": "fr"}, headers=EN)
    assert refused.status_code == 400
    assert (get_user(services.items, person.user_id) or {})["settings"]["language"] == ""


def test_plurals_are_right_in_both_languages() -> None:
    for count, english in ((1, "1 memo will be deleted permanently."), (2, "2 memos will be deleted permanently.")):
        page = render("memos/trash_empty.html", language="en", session=SESSION, count=count).body.decode()
        assert english in page
        chinese = render("memos/trash_empty.html", language="zh", session=SESSION, count=count).body.decode()
        assert f"{count} 条笔记将被永久删除。" in chinese


def test_a_placeholder_may_share_a_name_with_the_translators_own_parameters() -> None:
    """reading.html's sync error fills `%(message)s`: a keyword named like gettext's own first
    parameter once raised TypeError in the page (a 500 on /settings/reading after a failed sync)."""
    from mesq.web.kit.i18n import Translator, render_context
    from mesq.web.kit.render import environment

    template = environment().from_string(
        '{{ _("%(message)s / %(context)s", message="<b>m</b>", context="c") }} '
        '{{ ngettext("%(singular)s %(num)d", "%(plural)s %(num)d", 2, singular="s", plural="p") }}'
    )
    for language in ("en", "zh"):
        assert template.render(**render_context(language)) == "&lt;b&gt;m&lt;/b&gt; / c p 2"
    say = Translator("zh")
    assert say.gettext("%(message)s", message="x") == "x"
    assert say.ngettext("%(singular)s", "%(plural)s", 2, singular="s", plural="p", count=9) == "p"


def test_each_render_has_its_own_language_across_threads() -> None:
    def page(index: int) -> tuple[str, str]:
        language = ("en", "zh")[index % 2]
        count = index + 1  # 0 is the empty trash's page, which asks nothing
        return language, render("memos/trash_empty.html", language=language, session=SESSION, count=count).body.decode()

    with ThreadPoolExecutor(max_workers=8) as pool:
        for language, html in pool.map(page, range(400)):
            assert (f'<html lang="{"zh-Hans" if language == "zh" else "en"}">' in html) is True
            assert ("永久删除" in html) is (language == "zh")
            assert ("deleted permanently" in html) is (language == "en")


def test_the_scripts_strings_come_translated_in_a_json_data_block(browser: Callable[..., Browser]) -> None:
    """Issue 30: `static/*.js` strings reach the script as data (never run, so the CSP holds),
    every one translated in zh with the source's placeholders, and English pages carry none."""
    import json
    import re

    from mesq.web.kit.script_words import SCRIPT_PLURALS, SCRIPT_WORDS, script_words

    words = script_words("zh")
    placeholders = re.compile(r"%\(\w+\)[sd]")
    for message in SCRIPT_WORDS:
        assert words[message] != message, message
        assert sorted(placeholders.findall(str(words[message]))) == sorted(placeholders.findall(message)), message
    assert words[SCRIPT_PLURALS[0][0]] == ["%(num)d 本书", "%(num)d 本书"]
    client = browser().client
    zh = client.get("/", headers=ZH).text
    block = zh[zh.index('<script type="application/json" id="mesq-words">') :]
    block = block[block.index(">") + 1 : block.index("</script>")]
    assert json.loads(block)["Close"] == "关闭"
    assert '<script type="application/json" id="mesq-words">{}</script>' in client.get("/", headers=EN).text
    assert script_words("en") == {}


def test_a_domain_error_is_english_with_its_code_on_rest_and_in_the_readers_language_on_a_page(
    services: Services, browser: Callable[..., Browser], client: TestClient
) -> None:
    """The same refusal (a task that is not there): REST answers in English with the code, whatever
    the client's Accept-Language (clients and agents read one stable language); a page says it in
    the reader's."""
    person = browser()
    token, _ = create_token(services.items, person.user_id, name="script", scopes="todo:read")
    missing = new_id()
    headers = {"Authorization": f"Bearer {token}", **ZH}
    answer = client.get(f"/api/toolkit/todo/tasks/{missing}", headers=headers)
    body = answer.json()
    assert answer.status_code == 404 and body["error"]["code"] == "NOT_FOUND"
    assert body["error"]["message"].startswith(f"todo task '{missing}' not found"), body
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in body["error"]["message"])
    zh = person.get(f"/todos/tasks/{missing}", headers=ZH)
    assert zh.status_code == 404 and "找不到待办任务" in zh.text and "not found" not in zh.text
    en = person.get(f"/todos/tasks/{missing}", headers=EN)
    assert en.status_code == 404 and "todo task" in en.text and "找不到" not in en.text


def test_a_stored_text_keeps_its_nested_texts_translatable() -> None:
    """`Text.stored` keeps a `Text` parameter as a template of its own (an import report's
    "card 2 (…): time '…' is not a date and time"), so `from_stored` says the whole in the
    reader's language; a parameter stored as plain English (an older record) stays as it is."""
    from mesq.kernel.i18n import Text, Translator

    said = Text("%(where)s: %(reason)s", where=Text("%(file)s line %(line)s", file="a.csv", line=3),
                reason=Text("a task without a title"))  # fmt: skip
    stored = said.stored()
    assert stored["params"]["where"] == {"template": "%(file)s line %(line)s", "params": {"file": "a.csv", "line": "3"}}
    again = Text.from_stored(stored)
    assert str(again) == str(said) == "a.csv line 3: a task without a title"
    assert Translator("zh").text(again) == "a.csv 第 3 行：没有标题的任务"
    older = Text.from_stored({"template": "%(where)s: %(reason)s", "params": {"where": "x line 1", "reason": "y"}})
    assert Translator("zh").text(older) == "x line 1：y"


def test_a_quoted_value_takes_the_readers_quotation_marks() -> None:
    """A message quotes what the client sent or named (`'工作'`, `messages.quoted`); a Chinese
    page read it with the English marks and the spaces they needed ("空间 '工作' 中还有 1 个任务").
    On a Chinese page it takes Chinese marks and no space beside them, stored and read back too;
    REST, MCP and the logs (`str`) keep the English, escapes and the cut included."""
    from mesq.kernel.i18n import Text, Translator
    from mesq.kernel.messages import quoted

    said = Text("space %(name)s still has %(tasks)s; move or delete them first", name=quoted("工作"),
                tasks=Text("1 live task"))  # fmt: skip
    assert str(said) == "space '工作' still has 1 live task; move or delete them first"
    assert Translator("en").text(said) == str(said)
    assert Translator("zh").text(said) == "空间“工作”中还有 1 个任务；请先移走或删除"
    again = Text.from_stored(said.stored())
    assert str(again) == str(said) and Translator("zh").text(again) == "空间“工作”中还有 1 个任务；请先移走或删除"
    hostile = Text("column %(name)s still has %(tasks)s; move or delete them first", name=quoted("a\nb" * 30),
                   tasks=Text("1 live task"))  # fmt: skip
    # A value given as it is (not quoted) is never searched for marks, whatever it holds.
    odd = Text("column %(name)s still has %(tasks)s; move or delete them first", name="a \ue000 b",
               tasks=Text("1 live task"))  # fmt: skip
    assert Translator("en").text(odd) == str(odd)
    assert Translator("zh").text(odd) == "列 a \ue000 b 中还有 1 个任务；请先移走或删除"
    chinese = Translator("zh").text(hostile)
    assert chinese.startswith("列“a\\nb") and "…”中还有" in chinese and "\n" not in chinese, chinese


def test_words_for_programs_are_in_the_english_of_the_api_and_not_on_a_page() -> None:
    """A message's hint for programs (the call that does what it asks) is in `str` (REST, MCP,
    the CLI) and left out where a person reads it, in either language; stored, it stays so."""
    from mesq.kernel.errors import Conflict
    from mesq.kernel.i18n import ForPrograms, Text, Translator

    said = Conflict("the default space cannot be deleted; make another space the default first%(how)s",
                    how=ForPrograms(" (update_todo_space makeDefault)"))  # fmt: skip
    assert said.message.endswith("the default first (update_todo_space makeDefault)")
    english = Translator("en").text(said.text)
    assert english == "the default space cannot be deleted; make another space the default first"
    assert "makeDefault" not in Translator("zh").text(said.text) and "默认空间" in Translator("zh").text(said.text)
    again = Text.from_stored(said.text.stored())
    assert str(again) == said.message and Translator("en").text(again).endswith("the default first")
