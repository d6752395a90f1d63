"""A ZIP made on Chinese Windows (Explorer's "Send to > Compressed folder", older 7-Zip and WinRAR)
names its members in GBK without the UTF-8 mark. They were read as cp437: a flomo export zipped
again there lost every picture ("not in the export") and a Todoist project's space was named in
mojibake. The names are GB18030 when every unmarked one is Chinese in it; a Western cp437 name
keeps the archive in cp437 as before. Through the real import path (imports/zipped.py)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

from mesq.auth.users import create_user
from mesq.imports.zipped import open_zip
from mesq.memos import store as memo_store
from mesq.todos.state import load_state
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services

from .checks import attachment_digests

PNG = b"\x89PNG\r\n\x1a\n" + bytes(40)


class _WindowsName(zipfile.ZipInfo):
    """An entry whose name is written in `encoding` (GBK: Chinese Windows' code page) with the UTF-8
    mark cleared, as Explorer writes it (zipfile alone writes non-ASCII names as marked UTF-8)."""

    encoding = "gbk"

    def _encodeFilenameFlags(self) -> tuple[bytes, int]:  # zipfile's own hook
        return self.filename.encode(self.encoding), self.flag_bits & ~0x800


def windows_zip(path: Path, members: dict[str, bytes], encoding: str = "gbk") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = _WindowsName(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.encoding, info.compress_type = encoding, zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    with zipfile.ZipFile(path) as check:  # real GBK bytes, no mark
        assert all(not info.flag_bits & 0x800 for info in check.infolist())
        assert any(info.filename.encode("cp437") != info.filename.encode() for info in check.infolist())
    return path


def _flomo_page(*sources: str) -> bytes:
    files = "".join(f'<img src="{source}" />' for source in sources)
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><div class="user"><div class="name">林</div>'
        '</div><div class="memos"><div class="memo"><div class="time">2024-01-01 10:00:00</div>'
        f'<div class="content"><p>#读书 截图两张</p></div><div class="files">{files}</div></div></div></body></html>'
    ).encode()


def test_a_flomo_export_zipped_on_chinese_windows_keeps_its_pictures(services: Services, tmp_path: Path) -> None:
    # 運 is 0xDF 0x5C in GBK: its second byte is `\`, which must not split the name.
    pictures = {"file/2024-01-01/42/截图 1.png": PNG + b"1", "file/2024-01-01/42/運動·日记.png": PNG + b"2"}
    export = windows_zip(
        tmp_path / "flomo.zip",
        {"flomo@林-20240101/index.html": _flomo_page(*pictures)}
        | {f"flomo@林-20240101/{name}": data for name, data in pictures.items()},
    )
    user = create_user(services.items, "lin", "correct horse battery")

    report = import_file(services, user["id"], "flomo", export)

    assert report.imported["memos"] == 1 and not report.as_dict().get("skipped"), report.as_dict()
    (memo,) = memo_store.all_memos(services.items, user["id"])
    assert attachment_digests(services, memo) == [hashlib.sha256(data).hexdigest() for data in pictures.values()]
    assert [resource["displayName"] for resource in memo["resources"]] == ["截图 1.png", "運動·日记.png"]


def test_a_todoist_zip_from_chinese_windows_names_its_spaces_in_chinese(services: Services, tmp_path: Path) -> None:
    rows = "TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\n"
    rows += "task,买牛奶,,4,1,,,,,\n"
    export = windows_zip(tmp_path / "todoist.zip", {"购物清单 [2203306141].csv": rows.encode()})
    user = create_user(services.items, "wang", "correct horse battery")

    report = import_file(services, user["id"], "todoist", export, options=ImportOptions(language="zh"))

    assert report.imported["spaces"] == 1, report.as_dict()
    names = [space["name"] for space in load_state(services.items, user["id"]).spaces.values()]
    assert "购物清单" in names, names


def test_a_western_cp437_name_keeps_the_archive_in_cp437(tmp_path: Path) -> None:
    # café in cp437 (0x82 then `.`) is no GB18030: every unmarked name stays cp437, the Chinese
    # one too (never half one way and half the other).
    western = windows_zip(tmp_path / "western.zip", {"café.txt": b"x", "Müller.txt": b"y"}, encoding="cp437")
    assert sorted(open_zip(western).members) == ["Müller.txt", "café.txt"]
    mixed = tmp_path / "mixed.zip"
    with zipfile.ZipFile(mixed, "w") as archive:
        for name, encoding in (("café.txt", "cp437"), ("截图.png", "gbk")):
            info = _WindowsName(name)
            info.encoding = encoding
            archive.writestr(info, b"x")
    assert sorted(open_zip(mixed).members) == ["café.txt", "截图.png".encode("gbk").decode("cp437")]
    # UTF-8 names, marked or not, are read as UTF-8 as before, beside GBK ones.
    beside = tmp_path / "beside.zip"
    with zipfile.ZipFile(beside, "w") as archive:
        archive.writestr(_WindowsName("截图.png"), b"x")
        archive.writestr("a.txt", b"y")
        archive.writestr("笔记.md", b"z")  # zipfile marks it UTF-8
    assert sorted(open_zip(beside).members) == ["a.txt", "截图.png", "笔记.md"]
