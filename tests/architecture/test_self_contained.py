"""The repository stands alone (docs/contract.md §16): no tracked file reads or cites a path
outside the tree, and contract citations point at the repository's own docs/contract.md."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import REPO

# Built from pieces so that this file does not contain what it looks for.
SHARED = "shared"
NEEDLES = (
    re.compile(re.escape(".." + "/" + SHARED)),
    re.compile(re.escape(SHARED + "/" + "spec")),
    re.compile(re.escape(SHARED + "/" + "seeds")),
    re.compile("product" + r"\s+" + "\u00a7", re.IGNORECASE),
)


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    return [name for name in listed.stdout.decode().split("\0") if name]


def outside_references(text: str) -> list[str]:
    return [match.group(0) for needle in NEEDLES for match in needle.finditer(text)]


def test_the_needles_find_what_they_look_for():
    sample = "see ../" + SHARED + "/x, " + SHARED + "/spec/a.md, " + SHARED + "/seeds/b.txt and Product\n\u00a73"
    assert len(outside_references(sample)) == 4
    assert outside_references("docs/contract.md \u00a73, the shared helper, spec/, seeds") == []


def test_no_tracked_file_points_outside_the_repository():
    files = tracked_files()
    assert "README.md" in files and "tests/architecture/test_self_contained.py" in files
    offenders = []
    for name in files:
        path = REPO / name
        if not path.is_file():  # deleted in the work tree but still in the index
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        offenders += [f"{name}: {found!r}" for found in outside_references(text)]
    assert offenders == []


def test_contract_citations_name_sections_that_exist():
    contract = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", contract, re.MULTILINE))
    assert sections == {str(number) for number in range(1, 19)}
    cited = set()
    for name in tracked_files():
        path = REPO / name
        if path.is_file() and path.suffix in {".py", ".md", ".yaml", ".js", ".html", ".css"}:
            cited |= set(re.findall(r"docs/contract\.md \u00a7(\d+)", path.read_text(encoding="utf-8")))
    assert cited and cited <= sections
