"""The glossary's parsed texts are kept between starts (search/crosslingual.py, `_kept_texts`): a
test run starts hundreds of `mesq serve` processes, and each spent ~1.7 s of CPU parsing
CC-CEDICT in its warm-up. The second load reads the cache file; a damaged or foreign file, or a
cache directory that cannot be written, is a parse, as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesq.search import crosslingual
from mesq.search.crosslingual import Glossary


def _parses_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counted: list[int] = []
    real = crosslingual._texts_from_a_child

    def parse() -> tuple[bytes, bytes]:
        counted.append(1)
        return real()

    monkeypatch.setattr(crosslingual, "_texts_from_a_child", parse)
    return counted


def test_a_second_start_reads_the_kept_texts_instead_of_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    parses = _parses_counted(monkeypatch)
    first = Glossary()
    assert first.translate("血压") and first.translate("blood pressure") == "血压"
    kept = list((tmp_path / "mesq").glob("glossary-*.bin"))
    assert parses == [1] and len(kept) == 1
    second = Glossary()
    assert second.translate("血压") == first.translate("血压") and second.translate("pork") == first.translate("pork")
    assert parses == [1]  # read, not parsed


def test_a_damaged_kept_file_is_parsed_again_and_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    Glossary().load()
    [kept] = (tmp_path / "mesq").glob("glossary-*.bin")
    whole = kept.read_bytes()
    kept.write_bytes(whole[:-1000])  # cut short, as a full disk leaves it
    parses = _parses_counted(monkeypatch)
    assert Glossary().translate("blood pressure") == "血压"
    assert parses == [1] and kept.read_bytes() == whole


def test_an_unwritable_cache_is_a_parse_each_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    parses = _parses_counted(monkeypatch)
    assert Glossary().translate("blood pressure") == "血压"
    assert Glossary().translate("blood pressure") == "血压"
    assert parses == [1, 1]
