"""vdirsyncer (a real two-way sync client) keeps a space and a local folder of .ics files in step
against a real `mesq serve`: the first sync copies both ways, the next ones change nothing on
either side (no duplicate, no rewrite), and an edit on each side reaches the other
(tests/dav/vdirsyncer_flow.py)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import LiveServer
from tests.dav.vdirsyncer_flow import round_trip


def test_vdirsyncer_syncs_a_space_both_ways_twice_without_duplicates(mesq: LiveServer, tmp_path: Path) -> None:
    bob = mesq.account("bob", "todo:read,todo:write", "laptop vdirsyncer")
    round_trip(mesq.base_url, "bob", bob.token, tmp_path)
