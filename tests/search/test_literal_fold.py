"""Literal search folds the fullwidth forms a Chinese input method types (the number sign U+FF03 to `#`,
fullwidth Latin letters, digits and punctuation to ASCII)
(search/literal_kind.py `fold`), in the indexed text and the query alike: three memos carry the tag
周末, two typed with U+FF03, one with `#`, and either spelling of the tag finds all three
(search_memos through its index and through the scan, search_reading_notes, query_todos' text);
the reading page's highlights still cover whole characters of the original text; an index stored
under the old fold is rebuilt. Traditional characters read as simplified the same way (醫院複診 and
医院复诊 find each other; search/traditional.py), and simplified text never changes."""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from mesq.application.invocation import REGISTRY
from mesq.kernel.errors import ValidationError
from mesq.memos import reads
from mesq.memos import store as memo_store
from mesq.memos.literal import LITERAL as MEMO
from mesq.reading import operations as reading_ops
from mesq.reading import store as reading_store
from mesq.reading.merge import apply_snapshot
from mesq.reading.model import BookSnapshot, UpstreamBook, UpstreamNote
from mesq.search import literal_store, traditional
from mesq.search.literal_kind import FOLD_FORMAT, fold
from mesq.web.reading.marks import marked
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings
from tests.support.operations import call_of

SCOPES = frozenset({"memo:read", "memo:write", "reading:read", "todo:read", "todo:write"})
TAGGED = ("＃周末 去爬山", "#周末 看电影", "买菜 ＃周末 ＃购物")
SIGNS = ("#周末", "＃周末")
SCRIPTS = ("明天去醫院複診，記得帶病歷", "明天去医院复诊，记得带病历")


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    built = build_services(
        inprocess_settings(
            data_dir=tmp_path_factory.mktemp("fold"), search_provider="none", search_index_updates="inprocess"
        )
    )
    yield built
    built.items.close()


def _no_scan(*_args: Any) -> Iterator[Any]:
    raise AssertionError("the literal index did not answer: the scan ran")


def test_fold_is_casefold_and_the_fullwidth_forms() -> None:
    assert fold("＃周末 ABC ß") == "#周末 abc ss"
    # What a Chinese input method types in full width reads as ASCII (an outside sweep: searching
    # ｅｃｏｎｏｍｙ found none of 1,497 notes holding economy); the ideographic space is a space.
    assert fold("ＡＢＣ ｅｃｏｎｏｍｙ　１２３！～") == "abc economy 123!~"
    assert fold("你好，世界（一）") == "你好,世界(一)"
    text = "买菜 ＃周末 ＃购物 İ Ｅｃｏ　"
    assert fold(text) == "".join(fold(character) for character in text)  # character by character
    assert all(len(fold(chr(code))) == 1 for code in range(0xFF01, 0xFF5F))  # one for one: marks still fit


@pytest.mark.parametrize("query", SIGNS)
def test_search_memos_finds_both_signs(services: Services, query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    user = f"m{uuid.uuid4().hex[:10]}"
    call = call_of(services, user, SCOPES)
    for content in (*TAGGED, "周末 没有标签"):
        REGISTRY["create_memo"](call, {"content": content})
    services.search.settle_literal(user)
    with monkeypatch.context() as patch:
        patch.setattr(memo_store, "all_memos", _no_scan)
        indexed = reads.search_memos(call, {"query": query})
    with monkeypatch.context() as patch:
        patch.setattr(reads, "_literal_matches", lambda *_args: None)
        scanned = reads.search_memos(call, {"query": query})
    assert sorted(memo["content"] for memo in indexed["timelineItems"]) == sorted(TAGGED)
    assert scanned == indexed


@pytest.mark.parametrize("query", SIGNS)
def test_search_reading_notes_finds_both_signs(services: Services, query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    user = f"r{uuid.uuid4().hex[:10]}"
    call = call_of(services, user, SCOPES)
    notes = tuple(
        UpstreamNote("note", str(n), content, "2026-10-01T00:00:00.000000Z", None, None, n, n)
        for n, content in enumerate(TAGGED)
    )
    snapshot = BookSnapshot(UpstreamBook("book-1", "书"), notes)
    apply_snapshot(services.items, user, snapshot, "2026-10-02T00:00:00.000000Z", "import")
    services.search.settle_literal(user)
    with monkeypatch.context() as patch:
        patch.setattr(reading_store, "every_note", _no_scan)
        indexed = reading_ops.search_reading_notes(call, {"query": query})
    with monkeypatch.context() as patch:
        patch.setattr(reading_ops, "_indexed_hits", lambda *_args: None)
        scanned = reading_ops.search_reading_notes(call, {"query": query})
    assert sorted(note["content"] for note in indexed["notes"]) == sorted(TAGGED)
    assert scanned == indexed


@pytest.mark.parametrize("query", SIGNS)
def test_query_todos_text_finds_both_signs(services: Services, query: str) -> None:
    user = f"t{uuid.uuid4().hex[:10]}"
    call = call_of(services, user, SCOPES)
    for title in TAGGED:
        REGISTRY["create_todo_task"](call, {"title": title})
    services.search.settle_literal(user)
    found = REGISTRY["query_todos"](call, {"query": query})
    assert sorted(item["title"] for item in found["items"]) == sorted(TAGGED)


@pytest.mark.parametrize("query", SIGNS)
def test_highlights_are_whole_characters_of_the_original(query: str) -> None:
    assert marked("买菜 ＃周末 #周末", query) == [("买菜 ", False), ("＃周末", True), (" ", False), ("#周末", True)]
    assert marked("Straße ＃周末", "SSE #周") == [("Stra", False), ("ße ＃周", True), ("末", False)]


def test_an_index_of_the_old_fold_is_rebuilt(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    user = f"o{uuid.uuid4().hex[:10]}"
    call = call_of(services, user, SCOPES)
    for content in TAGGED:
        REGISTRY["create_memo"](call, {"content": content})
    services.search.settle_literal(user)
    repository = literal_store.repository(services, MEMO)
    pointer = repository.pointer(user)
    assert pointer is not None and pointer["format"] == FOLD_FORMAT
    services.items.put({**pointer, "format": FOLD_FORMAT - 1})  # as stored before the fold changed
    with monkeypatch.context() as patch:
        patch.setattr(memo_store, "all_memos", _no_scan)
        with pytest.raises(AssertionError, match="scan ran"):
            reads.search_memos(call, {"query": "#周末"})
    services.items.wait_idle()  # type: ignore[attr-defined]  # the rebuild the query queued
    with monkeypatch.context() as patch:
        patch.setattr(memo_store, "all_memos", _no_scan)
        assert reads.search_memos(call, {"query": "#周末"})["page"]["totalCount"] == 3


def test_traditional_reads_as_simplified() -> None:
    assert fold("醫院複診 下週三 臺灣 頭髮") == "医院复诊 下周三 台湾 头发"
    assert fold("著名 乾隆 於是") == "著名 乾隆 於是"  # written in simplified text too: kept


def test_the_shipped_table_is_cc_cedicts_and_leaves_simplified_text_alone() -> None:
    assert traditional.derive() == (
        "".join(chr(point) for point in traditional.table()),
        "".join(traditional.table().values()),
    ), "run python -m mesq.search.traditional"
    import gzip

    from mesq.search.crosslingual import _LINE, _dictionary_path

    with gzip.open(_dictionary_path(), "rt", encoding="utf-8") as lines:
        simplified = {char for line in lines if (match := _LINE.match(line)) for char in match.group(2)}
    assert not simplified & {chr(point) for point in traditional.table()}


@pytest.mark.parametrize("query", ["醫院複診", "医院复诊", "醫院复诊"])
def test_search_memos_and_reading_notes_find_both_scripts(
    services: Services, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = f"s{uuid.uuid4().hex[:10]}"
    call = call_of(services, user, SCOPES)
    for content in SCRIPTS:
        REGISTRY["create_memo"](call, {"content": content})
    notes = tuple(
        UpstreamNote("note", str(n), content, "2026-10-01T00:00:00.000000Z", None, None, n, n)
        for n, content in enumerate(SCRIPTS)
    )
    apply_snapshot(
        services.items, user, BookSnapshot(UpstreamBook("b", "书"), notes), "2026-10-02T00:00:00.000000Z", "i"
    )
    services.search.settle_literal(user)
    with monkeypatch.context() as patch:
        patch.setattr(memo_store, "all_memos", _no_scan)
        patch.setattr(reading_store, "every_note", _no_scan)
        memos = reads.search_memos(call, {"query": query})
        notes_found = reading_ops.search_reading_notes(call, {"query": query})
    assert sorted(memo["content"] for memo in memos["timelineItems"]) == sorted(SCRIPTS)
    assert sorted(note["content"] for note in notes_found["notes"]) == sorted(SCRIPTS)
    with monkeypatch.context() as patch:
        patch.setattr(reads, "_literal_matches", lambda *_args: None)
        assert reads.search_memos(call, {"query": query}) == memos


def test_highlights_of_the_other_script_are_the_original_characters() -> None:
    assert marked(SCRIPTS[0], "医院复诊") == [("明天去", False), ("醫院複診", True), ("，記得帶病歷", False)]
    assert marked(SCRIPTS[1], "醫院複診") == [("明天去", False), ("医院复诊", True), ("，记得带病历", False)]


def _notes_and_memos_of(services: Services, contents: tuple[str, ...]) -> Any:
    """A new user with one book of reading notes and as many memos, each of `contents`, indexed."""
    user = f"w{uuid.uuid4().hex[:10]}"
    call = call_of(services, user, SCOPES)
    notes = tuple(
        UpstreamNote("note", str(n), content, "2026-10-01T00:00:00.000000Z", None, None, n, n)
        for n, content in enumerate(contents)
    )
    apply_snapshot(services.items, user, BookSnapshot(UpstreamBook("book-1", "书"), notes),
                   "2026-10-02T00:00:00.000000Z", "import")  # fmt: skip
    for content in contents:
        REGISTRY["create_memo"](call, {"content": content})
    services.search.settle_literal(user)
    return call


def _found_alike_by_index_and_scan(
    services: Services, texts: tuple[str, ...], query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`texts` as reading notes and memos; `query` finds every one of them, the same through the
    literal indexes (scans forbidden) and through the scans (indexes switched off)."""
    call = _notes_and_memos_of(services, texts)
    with monkeypatch.context() as patch:
        patch.setattr(reading_store, "every_note", _no_scan)
        patch.setattr(memo_store, "all_memos", _no_scan)
        notes_found = reading_ops.search_reading_notes(call, {"query": query})
        memos_found = reads.search_memos(call, {"query": query})
    with monkeypatch.context() as patch:
        patch.setattr(reading_ops, "_indexed_hits", lambda *_args: None)
        patch.setattr(reads, "_literal_matches", lambda *_args: None)
        assert reading_ops.search_reading_notes(call, {"query": query}) == notes_found
        assert reads.search_memos(call, {"query": query}) == memos_found
    assert sorted(note["content"] for note in notes_found["notes"]) == sorted(texts)
    assert sorted(memo["content"] for memo in memos_found["timelineItems"]) == sorted(texts)


WIDE = ("Notes on the ｅｃｏｎｏｍｙ of attention", "the economy of cities", "ＥＣＯＮＯＭＹ　class")


@pytest.mark.parametrize("query", ["economy", "ｅｃｏｎｏｍｙ", "ＥＣＯＮＯＭＹ"])
def test_fullwidth_letters_find_their_ascii_and_back(
    services: Services, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typed in full width by a Chinese input method or in ASCII, a word finds both: reading
    notes and memos, through their indexes and through the scans."""
    _found_alike_by_index_and_scan(services, WIDE, query, monkeypatch)
    assert marked(WIDE[0], query) == [("Notes on the ", False), ("ｅｃｏｎｏｍｙ", True), (" of attention", False)]


def test_a_highlight_never_splits_a_user_perceived_character() -> None:
    # The mark ended inside a character: a combining accent after it, a skin tone, a ZWJ family,
    # a keycap, or one flag's half (🇨🇳🇺🇸 holds 🇳🇺, the second half of China's and the first of
    # the USA's). The highlight takes the whole characters it touches.
    # (The accent is one NFC keeps apart, ê + U+0304 in pinyin: e + U+0301 is é since fold format 5.)
    assert marked("ê\u0304 的读音", "ê") == [("ê\u0304", True), (" 的读音", False)]
    assert marked("点赞👍\U0001f3fd了", "👍") == [("点赞", False), ("👍\U0001f3fd", True), ("了", False)]
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert marked(f"家人{family}一起", "\U0001f468") == [("家人", False), (family, True), ("一起", False)]
    assert marked("按1\ufe0f\u20e3号键", "1") == [("按", False), ("1\ufe0f\u20e3", True), ("号键", False)]
    assert marked("\U0001f1e8\U0001f1f3\U0001f1fa\U0001f1f8", "\U0001f1f3\U0001f1fa") == [
        ("\U0001f1e8\U0001f1f3\U0001f1fa\U0001f1f8", True)
    ]
    assert marked("\U0001f1e8\U0001f1f3和\U0001f1fa\U0001f1f8", "\U0001f1fa\U0001f1f8") == [
        ("\U0001f1e8\U0001f1f3和", False), ("\U0001f1fa\U0001f1f8", True)
    ]  # fmt: skip


@pytest.mark.parametrize("query", ["咖啡 ", "\u3000咖啡", "\t咖啡\n"])
def test_the_spaces_around_a_query_are_not_looked_for(services: Services, query: str) -> None:
    """A Shortcut or a paste leaves a space after the word: "咖啡 " found only the notes with a space
    after 咖啡 (none of these). Over REST and MCP as on the pages, the spaces around it are dropped."""
    texts = ("手冲咖啡", "咖啡豆快喝完了", "下午喝了太多咖啡。")
    call = _notes_and_memos_of(services, texts)
    assert reads.search_memos(call, {"query": query})["page"]["totalCount"] == 3
    assert len(reading_ops.search_reading_notes(call, {"query": query})["notes"]) == 3
    for text in texts:  # query_todos' `query` too, through its index and through the board
        REGISTRY["create_todo_task"](call, {"title": text})
    services.search.settle_literal(call.principal.user_id)
    assert REGISTRY["query_todos"](call, {"query": query})["page"]["totalCount"] == 3


def test_a_query_of_spaces_alone_is_refused(services: Services) -> None:
    call = call_of(services, f"s{uuid.uuid4().hex[:10]}", SCOPES)
    for search in (reads.search_memos, reading_ops.search_reading_notes, REGISTRY["query_todos"]):
        with pytest.raises(ValidationError, match="only spaces"):
            search(call, {"query": " \u3000 "})


DECOMPOSED = ("Cafe\u0301 au lait 和拿铁", "\u1112\u1161\u11ab\u1100\u116e\u11a8 여행 계획")


@pytest.mark.parametrize(("query", "content"), [("café", DECOMPOSED[0]), ("한국", DECOMPOSED[1])])
def test_text_typed_composed_and_decomposed_find_each_other(
    services: Services, query: str, content: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note pasted from a macOS file name or a PDF holds é as e + U+0301 and 한 as its three
    jamo; a person types them precomposed. The fold read them as other characters, so café found
    no Cafe\u0301 and 한국 no decomposed 한국 (and "cafe" found the decomposed one, not the
    composed). NFC first (fold format 5): each finds the other, through the index and the scan, and
    the highlight covers the whole characters as written."""
    call = _notes_and_memos_of(services, (content,))
    decomposed_query = unicodedata.normalize("NFD", query)
    for asked in (query, decomposed_query):
        with monkeypatch.context() as patch:
            patch.setattr(memo_store, "all_memos", _no_scan)
            patch.setattr(reading_store, "every_note", _no_scan)
            memos = reads.search_memos(call, {"query": asked})["timelineItems"]
            notes = reading_ops.search_reading_notes(call, {"query": asked})["notes"]
        with monkeypatch.context() as patch:
            patch.setattr(reads, "_literal_matches", lambda *_args: None)
            assert reads.search_memos(call, {"query": asked})["timelineItems"] == memos
        assert [memo["content"] for memo in memos] == [content], asked
        assert [note["content"] for note in notes] == [content], asked
    whole = content.split(" ")[0]
    assert marked(content, query)[0] == (whole, True)
    assert marked(unicodedata.normalize("NFC", content), decomposed_query)[0] == (
        unicodedata.normalize("NFC", whole),
        True,
    )
    assert fold("cafe") not in fold(DECOMPOSED[0])  # as with café typed composed: no accent-blind match


DOTTED = ("Two days in İstanbul", "istanbul ferry times", "ISTANBUL airport")


@pytest.mark.parametrize("query", ["istanbul", "İstanbul", "İSTANBUL", "I\u0307stanbul"])
def test_the_dotted_capital_i_finds_the_plain_letters_and_back(
    services: Services, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`istanbul` did not find "İstanbul", nor `İSTANBUL` "istanbul": casefold turns İ (U+0130)
    into i + U+0307, so the folded text kept a combining dot the plain letters lack. İ now folds
    to i (written decomposed, I + U+0307, too: NFC makes it İ), through the indexes and the scans."""
    _found_alike_by_index_and_scan(services, DOTTED, query, monkeypatch)
    assert marked(DOTTED[0], query) == [("Two days in ", False), ("İstanbul", True)]


def test_the_dotted_capital_i_is_one_letter_and_other_scripts_are_unchanged() -> None:
    """İ folds to one i (the AI index's terms too); Chinese, Japanese kana and Korean (composed or
    as jamo, which NFC composes) fold as before: the characters themselves."""
    from mesq.search.tokenizer import tokens

    assert fold("İstanbul İZMİR") == "istanbul izmir" and tokens("İstanbul") == tokens("istanbul") == ["istanbul"]
    assert fold("\u0131") == "\u0131"  # the dotless i is another letter
    for text in ("中文搜索 上周的笔记", "ひらがな カタカナ ｶﾀｶﾅ ヴ", "한국어 서울 ㄱㄴ"):
        assert fold(text) == text, text
    assert fold(unicodedata.normalize("NFD", "한국어 서울")) == "한국어 서울"
