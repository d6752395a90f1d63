"""A `#word` too long to be a tag (over MAX_TAG_LENGTH characters) in an imported memo: the memo
arrives with the word as text where it stands (no tag), the rest of its tags as tags, and the
report lists it as kept as text, on its page in the person's language (zh and en), never lost
without a word. create_memo refuses such a word (a person typing it is told); an import must not
fail a file, or a memo, for one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from mesq.auth.users import create_user
from mesq.imports.plan import Report
from mesq.kernel.i18n import Text, Translator
from mesq.kernel.tags import MAX_TAG_LENGTH
from mesq.memos import store as memo_store
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services

from .test_stranger_files import _flomo, _memos

LONG = "长" * (MAX_TAG_LENGTH + 1)
SAID = {
    "en": f"'#{'长' * 23}…' is longer than {MAX_TAG_LENGTH} characters, the most a tag can have: kept as text,"
    " not as a tag",
    "zh": f"“#{'长' * 23}…”超过 {MAX_TAG_LENGTH} 个字符，标签最长只能这么长：已作为文字保留，不算标签",
}


def said(report: Report, language: str) -> list[tuple[str, str]]:
    """The report's kept entries as its page says them (`Report.words`, read back as stored)."""
    say = Translator(language)
    return [
        (say.text(Text.from_stored(entry["which"])), say.text(Text.from_stored(entry["what"])))
        for entry in report.words()["kept"]
    ]


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_flomo_card_with_an_overlong_tag_arrives_and_the_report_says_so(
    services: Services, tmp_path: Path, language: str
) -> None:
    user = create_user(services.items, f"flo-{language}", "correct horse battery")
    body = f"<p>读完了 #读书 #{LONG} 很好</p>"
    path = _flomo(tmp_path / "f.zip", ("2024-03-05 09:30:00", body), ("2024-03-06 09:30:00", "<p>另一条 #生活</p>"))
    report = import_file(services, user["id"], "flomo", path, options=ImportOptions(language=language))
    assert report.imported["memos"] == 2 and report.skipped_count == 0, report.as_dict()
    memo = next(m for m in memo_store.all_memos(services.items, user["id"]) if "读完了" in m["content"])
    assert f"#{LONG} 很好" in memo["content"] and memo["tags"] == ["读书"]
    assert report.kept_count == 1 and report.as_dict()["kept"][0]["what"] == SAID["en"]
    assert "1 kept as text" in report.summary()
    ((which, what),) = said(report, language)
    assert what == SAID[language] and which, report.words()


def test_a_memos_memo_with_an_overlong_tag_arrives_and_the_report_says_so_in_zh_and_en(
    services: Services, tmp_path: Path
) -> None:
    user = create_user(services.items, "mem", "correct horse battery")
    path = _memos(tmp_path / "memos_prod.db", [(1, "long", 1, f"想法 #{LONG} #短"), (2, "plain", 1, "plain")], [])
    report = import_file(services, user["id"], "memos", path, options=ImportOptions(memos_user="alice"))
    assert report.imported["memos"] == 2 and report.skipped_count == 0, report.as_dict()
    memo = next(m for m in memo_store.all_memos(services.items, user["id"]) if "想法" in m["content"])
    assert memo["content"] == f"想法 #{LONG} #短" and memo["tags"] == ["短"]
    assert said(report, "en") == [("memos/long", SAID["en"])]
    assert said(report, "zh") == [("memos/long", SAID["zh"])]


def test_an_overlong_tag_only_in_memos_tag_list_is_written_as_text_and_reported(
    services: Services, tmp_path: Path
) -> None:
    """memos' own tag list names a tag the text does not show: a valid one is added as a tag (as
    before), an over-long one as text, and reported; neither is dropped."""
    user = create_user(services.items, "lst", "correct horse battery")
    path = _memos(tmp_path / "memos_prod.db", [(1, "listed", 1, "正文")], [])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE memo SET payload = ? WHERE id = 1", (json.dumps({"tags": ["工作", LONG]}),))
    report = import_file(services, user["id"], "memos", path, options=ImportOptions(memos_user="alice"))
    (memo,) = memo_store.all_memos(services.items, user["id"])
    assert memo["content"] == f"正文\n\n#工作 #{LONG}" and memo["tags"] == ["工作"]
    assert said(report, "en") == [("memos/listed", SAID["en"])]


def test_an_overlong_listed_tag_never_pushes_a_memo_past_its_limit() -> None:
    """A memo near the content limit whose memos tag list holds an over-long tag: the tag would
    only be text, so it is not appended (the memo still imports; before, it went past the limit
    and the whole memo was skipped). A valid listed tag is still written."""
    from mesq.imports.memo_checks import with_tags
    from mesq.memos.reads import content_max_characters

    content = "x" * (content_max_characters() - 50)
    overlong = "长" * (MAX_TAG_LENGTH + 1)
    assert with_tags(content, [overlong]) == content
    assert with_tags(content, [overlong, "读书"]) == f"{content}\n\n#读书"
    assert with_tags("short", [overlong]) == f"short\n\n#{overlong}"  # room: written as text, reported
