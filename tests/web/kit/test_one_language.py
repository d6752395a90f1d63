"""Every signed-in page and every toast read as a Chinese reader reads it, and as an English one
(issue 41): in headless Chromium against a real `mesq serve`, at a phone (390 px) and a desktop
(1280 px) width, in the light and the dark theme, over an account seeded with every state a
page can show (tests/web/language_seed.py: overdue, today, tomorrow, next week; every priority;
attachments; failed reminder channels and a failed reading sync; history with every operation;
conflicts; an empty board).

What a page says is everything a person can meet on it: each text node of the document (hidden
ones too: a closed menu opens), the `title`, `placeholder`, `aria-label` and `alt` attributes, a
button's `value`, the document title, the text CSS generates (`content:` of `::before` and
`::after`, `attr()` resolved), and the browser's own words of a native control (a visible file
input says "Choose Files" in the browser's language, not the page's). A `confirm()` or `alert()`
is read too.

A Chinese page fails on any run of Latin letters that is neither on ALLOWED (product and
protocol names, reviewed) nor part of what the person typed (the seed keeps each typed string;
it writes in Chinese wherever it can); an English page fails on any CJK character that is not
part of what the person typed. The routes come from the route table (the accessibility test's
`page_routes`), so a page added later is crawled without touching this test."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api as playwright_sync

import mesq.web

from ...conftest import LiveServer, start_server, stop_server
from ..chromium import chromium_page
from ..language_seed import ZONE, Seeded, failing_gateway, seed_account
from .test_accessibility import GONE_AFTER_SETUP, _consent_url, page_routes
from .test_layout import SIZES

SCHEMES = ("light", "dark")
#: Latin words a Chinese page may show: names of products and protocols, the same in every
#: language (reviewed: a word added here is a word no Chinese reader needs translated).
ALLOWED = frozenset({
    "MeSQ",  # the product
    "MCP", "OAuth", "REST", "API", "HTTP", "HTTPS", "URL", "JSON", "CSV", "ZIP", "HTML", "SMTP", "STARTTLS", "TLS",
    "HMAC", "SHA", "RRULE", "iCalendar", "CalDAV", "UTC", "AI", "Markdown", "PDF", "Webhook", "Cookie", "ID",
    # protocols, formats and the web's own words, as Chinese pages write them
    "ntfy", "Telegram", "Todoist", "flomo", "memos", "Obsidian", "iPhone", "Apple", "Google", "Thunderbird",
    "AWS", "Lambda",  # other products and companies, by their own names
    "kB", "MB", "GB", "MiB",  # unit symbols (CLDR's, in Chinese too)
})  # fmt: skip
LATIN = re.compile(r"[A-Za-z]+")
CJK = re.compile(r"[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]+")
HTML_LANG = {"zh": "zh-Hans", "en": "en"}

#: Everything a page says, as [kind, text, where] triples.
READ_PAGE = r"""() => {
    const where = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
        (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\s+/).join('.') : '');
    const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    // Literal text: code, a command, an identifier, an example value (`<code>`, `<kbd>`, `<samp>`,
    // or marked `translate="no"`, the HTML way to say "not words of this language").
    // Text marked as another language (`lang`: the language picker's "English" / "中文") is
    // literal too.
    const page = document.documentElement.lang;
    const literal = e => !!e.closest('code, kbd, samp, [translate=no]') ||
        (e.closest('[lang]') || document.documentElement).lang !== page;
    const found = [['title', document.title, 'title']];
    const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement, text = node.textContent.trim();
        if (!text || !parent || skip.has(parent.tagName)) continue;
        found.push([literal(parent) ? 'literal' : 'text', text, where(parent)]);
    }
    const generated = /"((?:[^"\\]|\\.)*)"|attr\(([\w-]+)\)/g;
    for (const e of document.body.querySelectorAll('*')) {
        for (const name of ['title', 'placeholder', 'aria-label', 'alt', 'aria-description', 'aria-roledescription']) {
            const value = e.getAttribute(name);
            if (value && value.trim()) found.push([literal(e) ? 'literal' : name, value.trim(), where(e)]);
        }
        if (e.matches('input[type=submit], input[type=button], input[type=reset]') && e.value) {
            found.push(['value', e.value, where(e)]);
        }
        if (e.matches('input[type=file]') && shown(e) && e.offsetWidth > 2 && getComputedStyle(e).opacity !== '0') {
            found.push(['native', 'a file input shows the browser\'s own words (Choose Files)', where(e)]);
        }
        if (e.matches('details') && !e.querySelector(':scope > summary')) {
            found.push(['native', 'a details element without a summary shows the browser\'s "Details"', where(e)]);
        }
        for (const pseudo of ['::before', '::after']) {
            const content = getComputedStyle(e, pseudo).content;
            if (!content || content === 'none' || content === 'normal') continue;
            let text = '';
            for (const part of content.matchAll(generated)) {
                text += part[1] !== undefined ? part[1].replace(/\\(.)/g, '$1') : (e.getAttribute(part[2]) || '');
            }
            if (text.trim()) found.push(['css', text.trim(), where(e) + pseudo]);
        }
    }
    return found;
}"""


def foreign_runs(text: str, language: str, typed: set[str]) -> list[str]:
    """The runs of `text` that are not in `language`: Latin letters on a Chinese page (but the
    allowed names), CJK on an English page; what the person typed is taken out first (whole,
    longest first), and a run left that is part of something typed (a typed text split by
    markup, or cut short with "…") passes too."""
    for mine in sorted(typed, key=len, reverse=True):
        if mine in text:
            text = text.replace(mine, " ")
    runs = [run for run in LATIN.findall(text) if run not in ALLOWED] if language == "zh" else CJK.findall(text)
    return [run for run in runs if not any(run in mine for mine in typed)]


#: A space where Chinese sets none, in what a page shows across its elements (`innerText`): after
#: a full stop, comma or closing bracket before more text (not the spaced "·" that parts a
#: summary), or before a full-width bracket or stop ("订阅是只读的。 任何人…", "快速添加 （按回车键添加）");
#: and an ASCII comma after Chinese
#: ("14 个文件, 已使用"), or an ASCII bracket opened after Chinese on its line ("指定时间 (中国时间)",
#: "截止 明天 08:30 (2026-12-08 08:30 +0800)"). Chinese punctuation carries its own room.
CHINESE_GAP = re.compile(
    r"[\u3002\uff01\uff1f\uff1b\uff1a\uff0c\u3001\uff09\u300d\u300f\u3011][ \t]+[^\s·]"
    r"|\S[ \t]+[\u3002\uff0c\uff1b\uff1a\uff01\uff1f\uff08]"
    r"|[\u4e00-\u9fff],"
    r"|[\u4e00-\u9fff](?:[^\n()]*[ \t])?\("
)


def chinese_gaps(text: str, typed: set[str]) -> list[str]:
    """The stray gaps of `CHINESE_GAP` in `text`, with a little of what stands around each; what
    the person typed is taken out first (they may space their own text as they like)."""
    for mine in sorted(typed, key=len, reverse=True):
        text = text.replace(mine, "\n")
    return [text[max(0, found.start() - 12) : found.end() + 12] for found in CHINESE_GAP.finditer(text)]


def test_chinese_gaps_are_spaces_chinese_does_not_set() -> None:
    assert chinese_gaps("订阅是只读的。 任何人", set()) == ["订阅是只读的。 任何人"]
    assert chinese_gaps("快速添加 （按回车键添加）", set()) == ["快速添加 （按回车键添加）"]
    assert chinese_gaps("14 个文件, 已使用", set()) == ["14 个文件, 已使用"]
    assert chinese_gaps("指定时间 (中国时间)", set()) == ["指定时间 (中国时间)"]
    assert chinese_gaps("截止 明天 08:30 (2026-12-08 08:30 +0800)", set()) == ["截止 明天 08:30 (2026-12-08 0"]
    assert chinese_gaps("截止 明天 08:30（2026-12-08 08:30 +0800） · 未完成\nPAT (30 days)", set()) == []
    assert chinese_gaps("快速添加（按回车键添加）\n订阅是只读的。任何人\n截止 明天 15:00 · 7天后", set()) == []
    assert chinese_gaps("备注：周报， #工作", {"周报， #工作"}) == []


#: A label's aside in brackets set after a literal space: a Chinese page shows "自定义规则 （…）".
#: `{{ gap }}` is the language's own (a space in English, none in Chinese).
SPACED_ASIDE = re.compile(r'\}\} <span class="muted">(?:\{\{ _\("\(|\()')


def test_an_aside_in_brackets_follows_its_label_with_the_languages_gap() -> None:
    """The open <details> of a form (a task's Advanced) is no part of what the crawl reads."""
    templates = Path(mesq.web.__file__).parent / "templates"
    spaced = [
        f"{path.relative_to(templates)}:{number}"
        for path in sorted(templates.rglob("*.html"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SPACED_ASIDE.search(line)
    ]
    assert spaced == []


#: Three or more words in a row: a sentence, not a name or a value (`X-MeSQ-Signature: t=…`).
PROSE = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")


def prose_in_literal(text: str) -> list[str]:
    """Literal text (code, an identifier, an example) may be in any letters, but not a sentence:
    marking English words as code would hide them from this test."""
    return PROSE.findall(text)


def test_literal_text_may_be_code_but_not_a_sentence() -> None:
    assert prose_in_literal("X-MeSQ-Signature: t=<Unix 秒数>,v1=<HMAC-SHA256>") == []
    assert prose_in_literal("MESQ_PUBLIC_URL") == [] and prose_in_literal("memo:read") == []
    assert prose_in_literal("could not resolve the host") == ["could not resolve the host"]


def test_foreign_runs_tell_words_from_names_and_typed_text() -> None:
    typed = {"三体", "ada", "会议纪要.txt"}
    assert foreign_runs("截止 tomorrow 17:00", "zh", typed) == ["tomorrow"]
    assert foreign_runs("用 MCP 和 OAuth 连接 MeSQ；ada 的 会议纪要.txt (5 字节)", "zh", typed) == []
    assert foreign_runs("1.2 kB · 5 Bytes", "zh", typed) == ["Bytes"]
    assert foreign_runs("Search “三体” in notes", "en", typed) == []
    assert foreign_runs("Due 明天 · 三", "en", typed) == ["明天"]  # "三" is part of typed 三体 (cut short)
    assert foreign_runs("已逾期：Dec 2", "en", typed) == ["已逾期："]


@dataclass
class Reader:
    """Reads pages in one language at every size and theme; what is foreign is collected."""

    page: Any
    language: str
    typed: set[str]
    #: (what, in which text) -> where it was seen (page, width, theme), in order.
    found: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """One line per foreign text, with the first pages it was seen on."""
        lines = []
        for (what, text), seen in self.found.items():
            pages = list(dict.fromkeys(seen))
            lines.append(f"{what}: {text[:160]!r}  <- {', '.join(pages[:3])}{' ...' if len(pages) > 3 else ''}")
        return lines

    def note(self, what: str, text: str, seen: str) -> None:
        self.found.setdefault((what, text), []).append(seen)

    def read_page(self, label: str) -> None:
        """The page as it is now, at both widths and in both themes."""
        lang = self.page.locator("html").get_attribute("lang")
        if lang != HTML_LANG[self.language]:
            self.note(f"<html lang={lang!r}>, not the account's language", "", label)
        self.read.append(label)
        for scheme in SCHEMES:
            self.page.emulate_media(color_scheme=scheme)
            for width, height in SIZES:
                self.page.set_viewport_size({"width": width, "height": height})
                for kind, text, where in self.page.evaluate(READ_PAGE):
                    if kind == "native":
                        runs = [text]
                    elif kind == "literal":
                        runs = prose_in_literal(text)
                    else:
                        runs = foreign_runs(text, self.language, self.typed)
                    if runs:
                        self.note(f"{', '.join(dict.fromkeys(runs))} in {kind} of {where}", text, label)
        self.page.emulate_media(color_scheme="light")
        self.page.set_viewport_size({"width": SIZES[1][0], "height": SIZES[1][1]})
        if self.language == "zh":
            shown = self.page.evaluate("document.body.innerText")  # as set on screen, across elements
            for gap in chinese_gaps(shown, self.typed):
                self.note("a space Chinese does not set", gap, label)

    def visit(self, url: str, label: str | None = None) -> None:
        response = self.page.goto(url)
        assert response is not None and response.status < 500, f"{url}: {response and response.status}"
        self.read_page(label or url)

    def dialog(self, dialog: Any) -> None:
        for run in foreign_runs(dialog.message, self.language, self.typed):
            self.note(f"{run!r} in a {dialog.type} dialog", dialog.message, "a dialog")
        dialog.accept()


@dataclass
class Site:
    server: LiveServer
    page: Any
    seeded: Seeded


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """One server, one browser and one seeded account for both languages."""
    with failing_gateway() as gateway:
        env = {"MESQ_ALLOW_PRIVATE_DESTINATIONS": "true", "MESQ_WECHAT_READING_GATEWAY_URL": gateway}
        server = start_server(tmp_path_factory.mktemp("one-language") / "live", env)
        try:
            viewport = {"width": SIZES[1][0], "height": SIZES[1][1]}
            with chromium_page(viewport=viewport, timezone_id=ZONE, locale="en-US") as page:
                seeded = seed_account(server, page, gateway)
                yield Site(server, page, seeded)
        finally:
            stop_server(server)


def _choose_language(site: Site, language: str) -> None:
    page = site.page
    page.goto(site.server.base_url + "/settings")
    page.locator(f"#language-form input[name=language][value='{language}']").check()
    page.locator("#language-form button[type=submit]").click()
    playwright_sync.expect(page.locator("html")).to_have_attribute("lang", HTML_LANG[language])


def _fill(path: str, seeded: Seeded) -> str:
    names = {"record_id": "memo_id", "grant_id": "grant_id"}

    def value(match: re.Match[str]) -> str:
        name = names.get(match.group(1), match.group(1))
        if path == "/trash/{memo_id}/delete":
            name = "trashed_memo_id"
        if name not in seeded.values:
            pytest.fail(f"{path}: no seeded value for {{{name}}}; add it to tests/web/language_seed.py")
        return seeded.values[name]

    return re.sub(r"\{(\w+)(?::\w+)?\}", value, path)


def _pages(reader: Reader, site: Site) -> None:
    base = site.server.base_url
    for path in page_routes():
        if path in GONE_AFTER_SETUP:
            continue
        if path == "/oauth/consent":
            site.seeded.type("Checker")  # the app's own name, as it registered
            reader.visit(_consent_url(site.server), path)
            continue
        if "{grant_id}" in path:
            continue  # an OAuth app: connected by the consent flow below
        reader.visit(base + _fill(path, site.seeded), path)
    for url in site.seeded.urls:
        reader.visit(base + url)


def _toasts(reader: Reader, site: Site) -> None:
    """Each in-place write's toast, and its Undo's."""
    page, base = site.page, site.server.base_url
    hold = "document.getElementById('toasts').dataset.toastSeconds = '600'"

    fresh = "#toasts [data-toast]:not([data-read])"

    def toast_after(click: Any, label: str) -> None:
        page.evaluate("document.querySelectorAll('#toasts [data-toast]').forEach(t => { t.dataset.read = '1'; })")
        click()
        playwright_sync.expect(page.locator(fresh)).to_have_count(1)
        reader.read_page(label)
        undo = page.locator(fresh).locator("[data-undo]")
        if undo.count():
            button = undo.element_handle()
            page.evaluate("document.querySelectorAll('#toasts [data-toast]').forEach(t => { t.dataset.read = '1'; })")
            button.click()
            playwright_sync.expect(page.locator(fresh)).to_have_count(1)
            reader.read_page(label + ", undone")

    page.goto(base + "/")
    page.evaluate(hold)
    for action in ("Pin", "Archive", "Move to trash"):
        card = page.locator(f"#memo-{site.seeded.memo_ids['plain']}")
        card.locator(".menu-button").click()
        index = ("Pin", "Archive", "Move to trash").index(action)
        item = card.locator("[role=menuitem]").nth(index)
        toast_after(lambda item=item: item.click(), f"/ toast: {action}")
    page.goto(base + "/todos")
    page.evaluate(hold)
    card = page.locator(f"#task-{site.seeded.task_ids['读完第一章']}")
    toast_after(lambda: card.locator(".card-done button").click(), "/todos toast: complete")
    page.goto(base + "/todos/today")
    page.evaluate(hold)
    tick = page.locator("#agenda-lists .todo-row .row-done button").first
    toast_after(lambda: tick.click(), "/todos/today toast: complete")
    page.goto(base + "/trash")
    page.evaluate(hold)
    restore = page.locator("form[action$='/restore'] button").first
    toast_after(lambda: restore.click(), "/trash toast: restore")
    page.goto(base + "/todos/trash")
    page.evaluate(hold)
    restore = page.locator("form[action='/todos/trash/restore'] button").first
    toast_after(lambda: restore.click(), "/todos/trash toast: restore")


def _conflicts_and_refusals(reader: Reader, site: Site) -> None:
    """The states a POST answers with: a memo and a task saved over a newer version, a refused
    column delete, a refused channel, pages that do not exist, a bad filter."""
    page, base, seeded = site.page, site.server.base_url, site.seeded
    rest = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {seeded.token}"}, timeout=30)
    try:
        memo_id = seeded.memo_ids["plain"]
        page.goto(f"{base}/memos/{memo_id}/edit")
        memo = rest.get(f"/api/toolkit/memo/{memo_id}").json()["data"]["memo"]
        rest.patch(
            f"/api/toolkit/memo/{memo_id}",
            json={"expectedRevision": memo["revision"], "content": memo["content"] + seeded.type("（别处改过）")},
        )
        page.locator("textarea[name=content]").fill(seeded.type("我这边的修改"))
        page.locator("form[action^='/memos/'] button[type=submit]").first.click()
        playwright_sync.expect(page.locator(".memos-conflict")).to_be_visible()
        reader.read_page("a memo saved over a newer version")
        task_id = seeded.task_ids["读完第一章"]
        page.goto(f"{base}/todos/tasks/{task_id}")
        task = rest.get(f"/api/toolkit/todo/tasks/{task_id}").json()["data"]["task"]
        rest.patch(
            f"/api/toolkit/todo/tasks/{task_id}",
            json={"expectedRevision": task["revision"], "title": seeded.type("读完第一章和第二章")},
        )
        page.locator("form.task-form input[name=title], form input[name=title]").first.fill(seeded.type("读完前三章"))
        save = "form.task-form button[type=submit], form:has(input[name=title]) button[type=submit]"
        page.locator(save).first.click()
        playwright_sync.expect(page.locator("#conflict")).to_be_visible()
        reader.read_page("a task saved over a newer version")
    finally:
        rest.close()
    page.goto(base + "/todos")
    page.locator("section.todo-column details.column-menu summary").first.click()
    page.locator("section.todo-column").first.locator("form[action$='/delete'] button").click()
    playwright_sync.expect(page.locator(".column-menu[open] .error")).to_be_visible()
    reader.read_page("a refused column delete")
    page.goto(base + "/settings/reminders")
    page.locator("#add-ntfy [name=url]").fill("ftp://example.com/x")
    page.locator("#add-ntfy button[type=submit]").click()
    playwright_sync.expect(page.locator("#ntfy-error")).to_be_visible()
    reader.read_page("a refused channel")
    for url in (seeded.type("/todos/tasks/nothing-here"), seeded.type("/no/such/page"), "/?day=yesterday"):
        reader.visit(base + url)


#: Each language in two parts that xdist's workers may share (one test of ~45 s each before, at
#: the end of `make test`): every page the route table and the seed name; then the states a POST
#: answers with and every toast. A worker that runs parts of both builds the site once.
PARTS = ("pages", "states")


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_page_and_toast_is_in_one_language(site: Site, language: str, part: str) -> None:
    reader = Reader(site.page, language, site.seeded.typed)
    site.page.on("dialog", reader.dialog)
    try:
        _choose_language(site, language)
        if part == "pages":
            _pages(reader, site)
        else:
            _conflicts_and_refusals(reader, site)
            _toasts(reader, site)
    finally:
        site.page.remove_listener("dialog", reader.dialog)
    if part == "pages":
        assert len(reader.read) > 40, reader.read  # the crawl reached the pages (42 with the seed's)
    assert reader.problems == [], f"{len(reader.problems)} foreign words in {language}:\n" + "\n".join(reader.problems)
