"""Each package README's file table (rows `| `name.py` | what it holds |`) names exactly the
package's modules, its subpackages' too unless a subpackage has a README of its own; every domain
package under mesq/ has a README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq"
ROW = re.compile(r"^\|\s*(`[^|]*`)\s*\|", re.M)


def _packages_with_readme() -> list[Path]:
    return sorted(path.parent for path in PACKAGE.rglob("README.md") if (path.parent / "__init__.py").exists())


def modules_of(package: Path) -> set[str]:
    """The package's .py modules (relative paths, __init__ aside), minus subpackages with a README."""
    found = set()
    for path in package.rglob("*.py"):
        relative = path.relative_to(package)
        owners = [package / Path(*relative.parts[:depth]) for depth in range(1, len(relative.parts))]
        if any((owner / "README.md").exists() for owner in owners) or path.name == "__init__.py":
            continue
        found.add(relative.as_posix())
    return found


def tabled_modules(readme: str) -> set[str]:
    """Names in the first cell of each table row; `board/a.py`, `b.py` in one cell means board/b.py."""
    named = set()
    for cell in ROW.findall(readme):
        folder = ""
        for name in re.findall(r"`([^`]+)`", cell):
            if not name.endswith(".py"):
                continue
            if "/" in name:
                folder = name.rpartition("/")[0] + "/"
                named.add(name)
            else:
                named.add(folder + name)
    return named


@pytest.mark.parametrize("package", _packages_with_readme(), ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_the_file_table_names_exactly_the_modules(package):
    named = tabled_modules((package / "README.md").read_text(encoding="utf-8"))
    actual = modules_of(package)
    initialisers = {path.relative_to(package).as_posix() for path in package.rglob("__init__.py")}
    assert {
        "missing from the table": sorted(actual - named),
        "no such module": sorted(named - actual - initialisers),
    } == {
        "missing from the table": [],
        "no such module": [],
    }


def test_every_package_has_a_readme():
    packages = [path for path in PACKAGE.iterdir() if (path / "__init__.py").exists()]
    assert [path.name for path in packages if not (path / "README.md").exists()] == []


def test_the_table_check_can_fail():
    assert tabled_modules("| `a.py`, `b.py` | x |\n| `sub/c.py`, `d.py` | y |\n") == {
        "a.py",
        "b.py",
        "sub/c.py",
        "sub/d.py",
    }
    assert tabled_modules("| `a.py` | x |\n") != {"a.py", "b.py"}


REPO = PACKAGE.parents[2]
#: A "how to add" section of a README: its heading, up to the next heading of the same or a higher level.
ADDING = re.compile(r"^(#{2,3}) (?:How to add|Adding|Add) .*?$(.*?)(?=^#{1,3} |\Z)", re.M | re.S | re.I)
FILE = re.compile(r"(?<![\w./-])((?:\.\./)*(?:[\w.-]+/)*[\w-]+\.(?:py|yaml|html|md))\b")


def _exists(name: str, where: Path) -> bool:
    """A file named in a README of `where`: relative to the README, to mesq/ (`mesq/...` too), or
    to the repository; a bare name (the steps' "the package's `revert.py`") may be any module of
    mesq/ by that name."""
    bare = name.removeprefix("mesq/")
    candidates = [where / name, PACKAGE / bare, REPO / name]
    if "/" not in name:
        candidates += list(PACKAGE.rglob(name))
    return any(path.exists() for path in candidates)


def adding_steps_files(readme: Path) -> list[str]:
    """The files the "How to add ..." steps of a README name that do not exist."""
    text = readme.read_text(encoding="utf-8")
    return [
        name
        for _level, section in ADDING.findall(text)
        for name in FILE.findall(section)
        if not _exists(name, readme.parent)
    ]


def _readmes() -> list[Path]:
    return [*sorted(PACKAGE.rglob("README.md")), REPO / "docs" / "architecture.md"]


@pytest.mark.parametrize("readme", _readmes(), ids=lambda path: path.relative_to(REPO).as_posix())
def test_the_adding_steps_name_files_that_exist(readme):
    assert adding_steps_files(readme) == []


def test_the_adding_check_can_fail(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n## How to add a thing\n\n1. Edit `gone.py` and `here.py`.\n\n## Files\n`other.py`\n")
    (tmp_path / "here.py").write_text("")
    assert adding_steps_files(readme) == ["gone.py"]
