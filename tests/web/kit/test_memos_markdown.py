"""Memo Markdown renders to HTML that cannot run script, whatever the stored text says."""

from __future__ import annotations

import html as html_text
import random
import re
from html.parser import HTMLParser
from urllib.parse import unquote

import pytest

from mesq.kernel.memo_markdown import MAX_LABEL
from mesq.kernel.tags import MARKER, mark_tags, parse_tags
from mesq.web.kit.markdown import ALLOWED_TAGS, LINK_REL, render_markdown, toggle_task

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](javascript:alert(1))",
    '![a](https://x/" onerror="alert(1))',
    "<svg onload=alert(1)>",
    "<iframe src=https://evil.example></iframe>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    '[x](https://ok.example "t" onmouseover=alert(1))',
    "<!-- <script>alert(1)</script> -->",
    "```\n</code></pre><script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
    "[<img src=x onerror=alert(1)>](https://ok.example)",
    "<style>body{display:none}</style>",
]


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _elements(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Collect()
    parser.feed(html)
    return parser.tags


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_renders_inert(text: str) -> None:
    html = str(render_markdown(text))
    for tag, attrs in _elements(html):
        assert tag in ALLOWED_TAGS, html
        for name, value in attrs:
            assert not name.startswith("on"), html
            assert name != "style", html
            if name == "href":
                assert value is not None
                assert not re.match(r"\s*(javascript|vbscript|data):", value, re.IGNORECASE), html


def test_script_text_stays_visible_as_text() -> None:
    html = str(render_markdown("<script>alert(1)</script>"))
    assert "&lt;script&gt;" in html and "<script" not in html


def test_links_are_kept_with_rel() -> None:
    html = str(render_markdown("[site](https://example.com/a?b=1) and [mail](mailto:me@example.com)"))
    assert '<a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow">site</a>' in html
    assert 'href="mailto:me@example.com"' in html and html.count(f'rel="{LINK_REL}"') == 2


def test_images_become_links() -> None:
    html = str(render_markdown("![a cat](https://example.com/cat.png)"))
    assert "<img" not in html and '<a href="https://example.com/cat.png"' in html and ">a cat</a>" in html


def test_markdown_basics_and_cjk() -> None:
    html = str(render_markdown("# 标题\n\n**粗体** ~~删除~~\n第二行\n\n- 一\n- 二\n\n| a | b |\n|:-|-:|\n| 1 | 2 |"))
    for fragment in ("<h1>标题</h1>", "<strong>粗体</strong>", "<s>删除</s>", "<br>", "<li>一</li>", "<td>1</td>"):
        assert fragment in html, html
    assert "style=" not in html  # the CSP has no inline styles: table alignment is dropped


def test_a_tag_word_is_a_tag_link_not_a_heading() -> None:
    assert str(render_markdown("#work today")) == (
        f'<p><a href="/?tag=work" class="memo-tag" rel="{LINK_REL}">#work</a> today</p>\n'
    )


def test_tags_link_where_parse_tags_finds_them() -> None:
    html = str(render_markdown("at #home/garden, a#b `#code` [#x](https://e.example)\n#next\n\n```\n#include\n```"))
    links = re.findall(r'<a href="([^"]+)" class="memo-tag"', html)
    assert links == ["/?tag=home%2Fgarden", "/?tag=next"], html
    assert "<code>#code</code>" in html and "#include" in html


def _drawn_tags(html: str) -> list[str]:
    hrefs = re.findall(r'<a href="/\?tag=([^"]+)" class="memo-tag"', html)
    return [unquote(html_text.unescape(href)) for href in hrefs]


#: The outside sweep (F2, F3, F9, F10) and the escapes and entities the links once misread: what
#: is drawn as a tag link is what is stored, and a link target or code keeps its `#`.
DRAWN_AS_STORED = {
    "看这里 https://en.wikipedia.org/wiki/Foo#plot 很好 [链接](https://x.test/a)#标签": ["标签"],
    "<https://example.com/中文#frag> [链接](页#锚) [文字](https://x.test/页面#x)": [],
    "看https://example.com/页面很好#读书 https://zh.wikipedia.org/wiki/三体#剧情": ["读书", "剧情"],
    "<!-- #comment -->": [],
    "段落\n\n    #indented_code": [],
    "````\n```\n#inner\n```\n````": [],
    "今天好开心😊#日常 打卡✅#健身": ["日常", "健身"],
    "#工作\u200b后面": ["工作"],
    "a \\#b x &amp;#c": ["c"],
    "- [ ] \U000f0001 开心😊#日 \U000f0002": ["日"],  # characters of the marker planes are no markers
}


@pytest.mark.parametrize("text", DRAWN_AS_STORED)
def test_the_tag_links_drawn_are_the_tags_stored(text: str) -> None:
    html = str(render_markdown(text))
    assert _drawn_tags(html) == parse_tags(text) == DRAWN_AS_STORED[text], html
    assert not MARKER.search(html)
    ticked = toggle_task(text, 0, True)  # reads the same text without markers
    assert ticked is None or ticked == text.replace("- [ ]", "- [x]", 1)


def test_a_link_target_and_code_keep_their_signs() -> None:
    text = '<https://example.com/中文#frag> [链接](页#锚 "标题#t") [b](页＃锚) `中#code`'
    assert parse_tags(text) == []
    html = str(render_markdown(text))
    assert 'href="https://example.com/%E4%B8%AD%E6%96%87#frag"' in html and 'href="%E9%A1%B5#%E9%94%9A"' in html, html
    assert 'title="标题#t"' in html and 'href="%E9%A1%B5%EF%BC%83%E9%94%9A"' in html and "<code>中#code</code>" in html


#: Pieces of Markdown that decide what is prose: code fences and spans, indentation, links and
#: autolinks, comments, URLs, emphasis, escapes and entities, lists, quotes, tables, CJK, emoji.
PIECES = [
    "#", "#", "＃", "a", "读", "😊", "✅", " ", "\n", "\n\n", "    ", "`", "```", "~~~", "*", "_", "[", "]", "(",
    ")", "](", "<", ">", "!", "\\", "&amp;", "https://x.test/", "<!--", "-->", "- ", "> ", "|", "/", "，",
    "\u200b", "- [ ] ",
]  # fmt: skip


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _shown_text(html: str) -> str:
    """What a reader sees of the HTML: its text, tags and entities read."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def _shown_without_tag_links(text: str) -> str:
    """The text the same rendering shows with no tag drawn as a link (every sign back as it was)."""
    from mesq.web.kit import markdown

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(markdown, "_tag_links", lambda token, _names: [token])
        return _shown_text(str(render_markdown(text)))


#: Tags side by side with no space, as Chinese writers type them: each drawn once, nothing twice.
SIDE_BY_SIDE = {
    "买菜#生活#家务": ["生活", "家务"],
    "#读书笔记#今天读完": ["读书笔记", "今天读完"],
    "＃工作＃紧急 明天交": ["工作", "紧急"],
    "周报，#工作#周报/十二月 完成": ["工作", "周报/十二月"],
    "#a/b#c": ["a/b"],
}


@pytest.mark.parametrize("text", SIDE_BY_SIDE)
def test_tags_side_by_side_are_each_drawn_once(text: str) -> None:
    html = str(render_markdown(text))
    assert _drawn_tags(html) == parse_tags(text) == SIDE_BY_SIDE[text], html
    assert _shown_text(html).strip() == text  # the page showed `#生活#家务#家务`


def test_random_markdown_draws_exactly_the_stored_tags() -> None:
    chooser = random.Random(12)
    for _ in range(1500):
        text = "".join(chooser.choices(PIECES, k=chooser.randint(1, 24)))
        html = str(render_markdown(text))
        assert list(dict.fromkeys(_drawn_tags(html))) == parse_tags(text), (text, html)
        assert not MARKER.search(html), text
        # Drawing links changes no character a reader sees (checkboxes are elements, no text).
        assert _shown_text(html) == _shown_without_tag_links(text), (text, html)


def test_the_tag_class_is_the_only_class_kept() -> None:
    html = str(render_markdown('#tag [x](https://e.example){.evil} <a class="memo-tag evil" href="/">y</a>'))
    classes = [value for _, attrs in _elements(html) for name, value in attrs if name == "class"]
    assert classes == ["memo-tag"], html


def test_task_items_become_checkboxes_written_after_sanitizing() -> None:
    html = str(render_markdown("- [ ] buy **milk**\n- [x] done\n- plain [ ] not a task\n\n1. [X] numbered"))
    boxes = re.findall(r"<input [^>]*>", html)
    assert boxes == [
        '<input type="checkbox" class="memo-task" data-task="0" aria-label="buy milk">',
        '<input type="checkbox" class="memo-task" data-task="1" aria-label="done" checked>',
        '<input type="checkbox" class="memo-task" data-task="2" aria-label="numbered" checked>',
    ], html
    assert "[ ]" in html  # only at an item's start
    assert all(
        box.endswith("disabled>")
        for box in re.findall(r"<input [^>]*>", str(render_markdown("- [ ] a", interactive=False)))
    )


@pytest.mark.parametrize(
    "text",
    [
        "\ue0000\ue001 forged marker",
        "- \ue0000\ue001 forged in a list",
        '<input type="checkbox" checked>',
        "- [ ] <input onclick=alert(1)>",
        '- [ ] x" onfocus="alert(1)',
    ],
)
def test_no_input_comes_from_the_text(text: str) -> None:
    html = str(render_markdown(text))
    inputs = re.findall(r"<input [^>]*>", html)
    assert len(inputs) == (1 if text.startswith("- [ ]") else 0), html
    for box in inputs:
        assert re.fullmatch(r'<input type="checkbox" class="memo-task" data-task="0" aria-label="[^"<>]*">', box), box


def test_toggle_task_ticks_the_nth_box_in_the_source() -> None:
    text = "intro\n- [ ] one\n- [x] two\n\n> 3. [ ] three\n\n```\n- [ ] code\n```"
    assert toggle_task(text, 0, True) == text.replace("- [ ] one", "- [x] one")
    assert toggle_task(text, 1, False) == text.replace("- [x] two", "- [ ] two")
    assert toggle_task(text, 2, True) == text.replace("3. [ ] three", "3. [x] three")
    assert toggle_task(text, 3, True) is None and toggle_task(text, -1, True) is None


def test_toggle_task_keeps_crlf_line_breaks() -> None:
    """A browser's form post sends a textarea's line breaks as CRLF; a tick changes only the box."""
    assert toggle_task("list\r\n- [ ] a\r\n- [ ] b", 1, True) == "list\r\n- [ ] a\r\n- [x] b"


def _links(html: str) -> list[tuple[str, str]]:
    """Each link's href and its text, in order (tag links included)."""
    found = re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', html)
    return [(href, re.sub(r"<[^>]+>", "", text)) for href, text in found]


def test_bare_urls_become_links_within_the_allow_list() -> None:
    """Sweep F11: a pasted URL can be clicked; only schemes the sanitizer keeps become links."""
    html = str(
        render_markdown(
            "官网 https://example.com/docs?a=1&b=2 看看\n见 www.example.org/docs 或写信 me@example.com\n"
            "ftp://files.example.com/a //cdn.example.com/b README.md setup.py example.com `https://in.code`"
        )
    )
    assert _links(html) == [
        ("https://example.com/docs?a=1&amp;b=2", "https://example.com/docs?a=1&amp;b=2"),
        ("http://www.example.org/docs", "www.example.org/docs"),
        ("mailto:me@example.com", "me@example.com"),
    ], html
    assert html.count(f'rel="{LINK_REL}"') == 3 and "<code>https://in.code</code>" in html


@pytest.mark.parametrize(
    ("text", "link", "after"),
    [
        ("见https://example.com/a，很好。", "https://example.com/a", "，很好。"),
        ("（https://example.com/a）结束", "https://example.com/a", "）结束"),
        ("「https://example.com/doc」里", "https://example.com/doc", "」里"),
        ("他说“https://example.com/a”。", "https://example.com/a", "”。"),
        ("链接：https://example.com/a.、下一条", "https://example.com/a", ".、下一条"),
        ("维基 https://en.wikipedia.org/wiki/Foo#plot。", "https://en.wikipedia.org/wiki/Foo#plot", "。"),
        # A CJK character ends a bare URL too: Chinese puts no space after a link.
        ("看https://example.com/页面很好", "https://example.com/", "页面很好"),
        ("見てhttps://example.jp/aページ", "https://example.jp/a", "ページ"),
        ("보기https://example.kr/a한국어", "https://example.kr/a", "한국어"),
        ("维基https://zh.wikipedia.org/wiki/三体", "https://zh.wikipedia.org/wiki/", "三体"),
        ("http://x.test/a：b", "http://x.test/a", "：b"),
    ],
)
def test_a_url_ends_before_chinese_punctuation(text: str, link: str, after: str) -> None:
    html = str(render_markdown(text))
    assert [text for _, text in _links(html)] == [link], html
    assert html.endswith(f"</a>{after}</p>\n"), html


def test_a_chinese_path_is_whole_in_an_autolink_or_a_markdown_link() -> None:
    """A bare URL ends at a CJK character; `<…>` and `[文字](…)` are how a Chinese path is kept."""
    html = str(render_markdown("见<https://example.com/页面>很好，[文字](https://example.com/页面#锚)#读书"))
    assert _links(html) == [
        ("https://example.com/%E9%A1%B5%E9%9D%A2", "https://example.com/页面"),
        ("https://example.com/%E9%A1%B5%E9%9D%A2#%E9%94%9A", "文字"),
        ("/?tag=%E8%AF%BB%E4%B9%A6", "#读书"),
    ], html
    assert parse_tags("见<https://example.com/页面>很好，[文字](https://example.com/页面#锚)#读书") == ["读书"]


def test_a_bare_url_whose_host_is_cjk_is_no_link() -> None:
    """Cut at its first CJK character nothing of the host would be left: no `https://` link."""
    html = str(render_markdown("https://例子.com/a 和 www.例子.com 和 me@例子.com 和 <https://例子.com/a>"))
    assert _links(html) == [("https://xn--fsqu00a.com/a", "https://例子.com/a")], html


@pytest.mark.parametrize(
    "text",
    [
        "看这里 https://en.wikipedia.org/wiki/Foo#plot",
        "https://baike.baidu.com/item/%E6%A0%87%E7%AD%BE#1",
        "看<https://example.com/页#锚>",
        "看[这页](https://example.com/页#锚)",
    ],
)
def test_a_urls_fragment_is_never_drawn_as_a_tag(text: str) -> None:
    html = str(render_markdown(text + " #真标签"))
    assert re.findall(r'<a href="([^"]+)" class="memo-tag"', html) == ["/?tag=%E7%9C%9F%E6%A0%87%E7%AD%BE"], html
    assert len(_links(html)) == 2, html


def test_a_footnote_is_a_numbered_link_to_its_note_at_the_memos_end() -> None:
    """A footnote as Obsidian, Typora and flomo exports write it (`正文[^1]` and `[^1]: 注释`, a note
    without a space as Chinese writes it; inline `^[注释]`): a superscript number linking to the
    note, the notes listed at the memo's end with a link back, ids carrying the memo's id. It was
    shown raw (`三体读后感[^1]` and `[^1]: 出自…` as typed). Never a link to the note's words as a
    relative address (CommonMark's reading of a note without a space), and a link reference whose
    label does not start with `^` still works."""
    text = "三体读后感[^1]，见访谈[^访谈]。\n\n[^1]: 出自刘慈欣的访谈#读书\n[^访谈]: 第三期"
    html = str(render_markdown(text, doc_id="m1", back_name="返回正文"))
    assert "[^1]" not in html and "[^访谈]" not in html, html
    assert '<sup class="footnote-ref"><a href="#fn-m1-1" id="fnref-m1-1"' in html, html
    assert '<a href="#fn-m1-2" id="fnref-m1-2"' in html, html
    notes = html.index('<section class="footnotes">')
    assert html.index("见访谈") < notes < html.index("出自刘慈欣的访谈") < html.index("第三期"), html
    assert '<li id="fn-m1-1"><p>出自刘慈欣的访谈<a href="/?tag=%E8%AF%BB%E4%B9%A6"' in html, html
    assert '<a href="#fnref-m1-1" class="footnote-back" aria-label="返回正文"' in html, html
    assert 'href="%E5%87%BA' not in html
    assert parse_tags(text) == ["读书"]
    reference = render_markdown("见[维基][wiki]\n\n[wiki]: https://zh.wikipedia.org/wiki/三体")
    assert '<a href="https://zh.wikipedia.org/wiki/%E4%B8%89%E4%BD%93"' in reference and "[wiki]" not in reference


def test_footnote_ids_differ_between_two_memos_and_twice_referenced_notes() -> None:
    """Two memos on one timeline both have a note 1: their ids differ (the memo's id is in them),
    and a note referenced twice has two references, each with its own id and link back."""
    first, second = (str(render_markdown("正文[^1]，再提[^1]\n\n[^1]: 注", doc_id=memo)) for memo in ("a1", "b2"))
    ids = re.findall(r'\bid="([^"]+)"', first + second)
    assert len(ids) == len(set(ids)) == 6, ids
    targets = re.findall(r'href="#([^"]+)"', first + second)
    assert sorted(set(targets)) == sorted(ids), (targets, ids)
    assert 'id="fnref-a1-1-2"' in first and 'href="#fnref-a1-1-2"' in first


def test_a_note_no_reference_names_keeps_its_words_and_tags() -> None:
    """A definition no `[^x]` names (a note whose reference was cut away) is listed at the end with
    no link back, not dropped: its words and its tags stay."""
    text = "[^note]: 页码123 #书摘"
    html = str(render_markdown(text))
    assert "页码123" in html and 'class="footnote-back"' not in html and "fnref" not in html, html
    assert parse_tags(text) == ["书摘"] and _drawn_tags(html) == ["书摘"]


@pytest.mark.parametrize(
    "text",
    [
        '正文[^"><img src=x onerror=alert(1)>]\n\n[^"><img src=x onerror=alert(1)>]: 注',
        "正文[^<script>alert(1)</script>]\n\n[^<script>alert(1)</script>]: 注",
        '正文[^1]\n\n[^1]: <a id="composer-text" href="javascript:alert(1)">x</a>',
        "正文[^1]\n\n[^1]: ^[<img src=x onerror=alert(1)>]",
    ],
)
def test_a_footnote_label_or_note_carries_no_markup(text: str) -> None:
    html = str(render_markdown(text, doc_id='x" onmouseover="alert(1)'))
    for tag, attrs in _elements(html):
        assert tag in ALLOWED_TAGS, html
        for name, value in attrs:
            assert not name.startswith("on"), html
            assert name != "id" or (value or "").startswith("fn"), html
            assert name != "href" or not (value or "").startswith("javascript"), html
    assert "<img" not in html and "<script" not in html, html


def test_what_would_read_a_memo_to_its_end_at_each_bracket_stays_text() -> None:
    """Two footnote forms read each opening to the memo's end when it never closes, seconds for a
    memo of them: an inline note (`^[注]`, Obsidian's alone) and a label of any length. Inline
    notes stay text, as they were; a label has at most MAX_LABEL characters."""
    assert "^[注]" in str(render_markdown("正文^[注]"))
    long = "a" * (MAX_LABEL + 1)
    html = str(render_markdown(f"正文[^{long}] 和[^{long[1:]}]\n\n[^{long}]: 甲\n[^{long[1:]}]: 乙"))
    assert f"正文[^{long}]" in html and 'href="#fn-memo-1"' in html, html
    assert f"[^{long}]: 甲" in html and "乙" in html, html


def test_footnote_labels_cost_no_scan_to_the_memos_end() -> None:
    """`[^[^[^…` (50,000 characters): the tag rule's label pattern read each `[^` to the end, 4 s
    here; bounded by MAX_LABEL it takes ~0.01 s. The bound is loose (this machine is shared)."""
    import time

    text = ("[^" * 25_000)[:49_990] + " #x"
    started = time.perf_counter()
    _marked, candidates = mark_tags(text)
    took = time.perf_counter() - started
    assert len(candidates) == 1 and took < 1.0, took


def test_a_tag_in_a_footnotes_note_is_a_tag_one_in_its_label_is_not() -> None:
    """A note's text is prose: `#读书` in it is a tag, drawn and stored alike. A label is a name the
    reference and the note share (`[^读书#1]`), never a tag."""
    text = "读完了[^读书#1]#随笔\n\n[^读书#1]: 第三章 #读书/《三体》"
    assert parse_tags(text) == ["随笔", "读书/《三体》"]
    html = str(render_markdown(text, doc_id="m"))
    assert _drawn_tags(html) == ["随笔", "读书/《三体》"], html
    assert 'href="#fn-m-1"' in html and "[^" not in html, html


def test_a_title_part_is_drawn_whole_in_its_tag_link() -> None:
    html = str(render_markdown("#读书/《三体》 很好看，读了《三体：黑暗森林》#读书 **#《球状闪电》**"))
    assert _drawn_tags(html) == ["读书/《三体》", "读书", "《球状闪电》"], html
    assert f'class="memo-tag" rel="{LINK_REL}">#读书/《三体》</a> 很好看' in html, html
    assert f'rel="{LINK_REL}">#《球状闪电》</a></strong>' in html, html
