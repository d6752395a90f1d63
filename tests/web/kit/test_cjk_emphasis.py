"""CJK-friendly emphasis (sweep F1): `**` beside Chinese punctuation opens and closes as the
CommonMark CJK-friendly amendment says, and text without CJK characters parses as CommonMark."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from mesq.kernel.cjk_emphasis import CjkFriendlyStateInline, cjk_friendly_emphasis
from mesq.web.kit.markdown import render_markdown


def _friendly() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("strikethrough").use(cjk_friendly_emphasis)


def test_the_sweeps_memo_is_bold_where_written_and_the_next_line_untouched() -> None:
    html = str(render_markdown("这是**“重点”**内容，还有**《三体》**很好看。\n普通**加粗**文字"))
    assert html == (
        "<p>这是<strong>“重点”</strong>内容，还有<strong>《三体》</strong>很好看。<br>\n"
        "普通<strong>加粗</strong>文字</p>\n"
    )


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("他说**“好的”**就走了", "他说<strong>“好的”</strong>就走了"),
        ("读完**《三体》**了", "读完<strong>《三体》</strong>了"),
        ("**【注意】**明天停电", "<strong>【注意】</strong>明天停电"),
        ("**真，**她", "<strong>真，</strong>她"),
        ("真**（她**", "真<strong>（她</strong>"),
        ("*「斜体」*也行", "<em>「斜体」</em>也行"),
        ("价格~~（旧）~~新", "价格<s>（旧）</s>新"),
        ("Go**「初心者」**を対象", "Go<strong>「初心者」</strong>を対象"),
        ("**이 용어(This term)**를 강조", "<strong>이 용어(This term)</strong>를 강조"),
        # A variation selector after `。` (U+FE01: its centred form) leaves it punctuation.
        ("正體字。\ufe01__Traditional.__", "正體字。\ufe01<strong>Traditional.</strong>"),
    ],
)
def test_emphasis_beside_cjk(text: str, html: str) -> None:
    assert _friendly().render(text) == f"<p>{html}</p>\n"


# The amendment's "Emphasis Marker Start/End Conditions" table (markdown-it-cjk-friendly's
# implementers-tips.md): the character outside the run, the run, the character inside it, and
# whether the run can close (End) and open (Start). Read as a run that opens: `out` before it.
CONDITIONS = [
    (" ", "*", " ", False, False), (" ", "*", '"', False, True), (" ", "*", "a", False, True),
    (" ", "*", "～", False, True), (" ", "*", "字", False, True),
    (" ", "_", " ", False, False), (" ", "_", '"', False, True), (" ", "_", "a", False, True),
    (" ", "_", "～", False, True), (" ", "_", "字", False, True),
    ('"', "*", '"', True, True), ('"', "*", "a", False, True), ('"', "*", "字", True, True),
    ("～", "*", "a", True, True),
    ('"', "_", '"', True, True), ('"', "_", "a", False, True), ('"', "_", "字", False, True),
    ("～", "_", "a", False, True),
    ("a", "*", "a", True, True), ("a", "_", "a", False, False),
]  # fmt: skip


def test_the_amendments_start_and_end_conditions() -> None:
    md = _friendly()
    answers = []
    for outside, marker, inside, _, _ in CONDITIONS:
        state = CjkFriendlyStateInline(f"{outside}{marker * 2}{inside}", md, {}, [])
        scanned = state.scanDelims(1, marker == "*")
        answers.append((outside, marker, inside, scanned.can_close, scanned.can_open))
    assert answers == CONDITIONS


def test_only_the_parser_that_uses_it_changes() -> None:
    assert _friendly().render("读完**《三体》**了") == "<p>读完<strong>《三体》</strong>了</p>\n"
    assert MarkdownIt("commonmark").render("读完**《三体》**了") == "<p>读完**《三体》**了</p>\n"
    # `_` keeps CommonMark's rule: no emphasis inside a word, CJK or not.
    assert _friendly().render("中文__强调__中文") == "<p>中文__强调__中文</p>\n"


# Text as Latin writers type it (letters, accents, spaces, line breaks, delimiters, punctuation and
# symbols that CommonMark reads), but no CJK character.
LATIN = st.text(st.sampled_from(list("ab é*_~`\"'()[].,!?-«»∇€\n")), max_size=40)


@given(LATIN)
def test_text_without_cjk_parses_as_commonmark(text: str) -> None:
    """A guard, not a defect: the amendment must change nothing for text without CJK characters
    (markdown-it-cjk-friendly checks the same on all 652 CommonMark spec examples)."""
    plain = MarkdownIt("commonmark").enable("strikethrough")
    assert _friendly().render(text) == plain.render(text)
