"""vdirsyncer (a real two-way sync client) between a space and a local folder of .ics files:
the flow both the `mesq serve` test and the Lambda-on-DynamoDB test run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from icalendar import Calendar

#: vdirsyncer beside the interpreter running the tests (the venv's bin, whichever checkout or
#: worktree runs them), else the one on PATH.
_BESIDE_PYTHON = Path(sys.executable).parent / "vdirsyncer"
VDIRSYNCER = str(_BESIDE_PYTHON) if _BESIDE_PYTHON.exists() else shutil.which("vdirsyncer") or "vdirsyncer"
LOCAL_TASK = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Folder//EN\r\nBEGIN:VTODO\r\nUID:from-the-folder\r\n"
    "DTSTAMP:20371201T000000Z\r\nSUMMARY:Written in the folder\r\nDUE;VALUE=DATE:20371224\r\n"
    "X-FOLDER-ONLY:kept\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
)


def _config(folder: Path, url: str, username: str, token: str) -> Path:
    config = folder / "config"
    config.write_text(
        f"""[general]
status_path = "{folder / "status"}/"

[pair tasks]
a = "folder"
b = "mesq"
collections = null
conflict_resolution = "a wins"

[storage folder]
type = "filesystem"
path = "{folder / "tasks"}/"
fileext = ".ics"

[storage mesq]
type = "caldav"
url = "{url}"
username = "{username}"
password = "{token}"
item_types = ["VTODO"]
"""
    )
    (folder / "tasks").mkdir(exist_ok=True)
    return config


def _vdirsyncer(config: Path, *args: str) -> str:
    done = subprocess.run(
        [VDIRSYNCER, "-c", str(config), *args], capture_output=True, text=True, timeout=120, input="y\n"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _folder(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted((folder / "tasks").glob("*.ics"))}


def _summary(text: str) -> str:
    return str(next(iter(Calendar.from_ical(text).walk("VTODO")))["SUMMARY"])


def round_trip(base_url: str, username: str, token: str, tmp_path: Path) -> None:
    """Seed a space over REST, sync it with a folder holding a task of its own, then sync again
    and again: nothing more moves, nothing is rewritten; an edit on each side reaches the other."""
    rest = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30)

    def ok(method: str, path: str, **body: Any) -> Any:
        answer = rest.request(method, path, json=body or None)
        assert answer.status_code < 300, answer.text
        return answer.json()["data"]

    space = ok("GET", "/api/toolkit/todo/spaces")["spaces"][0]
    made = [
        ok("POST", "/api/toolkit/todo/tasks", title=title, spaceId=space["id"], **extra)["task"]
        for title, extra in (
            ("Buy milk", {"tags": ["home"]}),
            ("Quarterly report", {"due": {"type": "date", "date": "2037-12-31"}, "priority": "high"}),
            ("Stand-up", {"recurrence": "FREQ=DAILY", "due": {"type": "datetime", "at": "2037-12-07T09:30:00+08:00"},
                          "timezone": "Asia/Shanghai"}),
        )
    ]  # fmt: skip
    ok("POST", f"/api/toolkit/todo/tasks/{made[0]['id']}/subtasks", title="Oat milk")
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "from-the-folder.ics").write_text(LOCAL_TASK)
    config = _config(tmp_path, f"{base_url}/dav/{username}/{space['id']}/", username, token)
    _vdirsyncer(config, "discover")

    _vdirsyncer(config, "sync")
    local = _folder(tmp_path)
    assert sorted(_summary(text) for text in local.values()) == [
        "Buy milk", "Oat milk", "Quarterly report", "Stand-up", "Written in the folder",
    ]  # fmt: skip
    titles = sorted(t["title"] for t in ok("GET", "/api/toolkit/todo/query?status=all&limit=100")["items"])
    assert titles == ["Buy milk", "Oat milk", "Quarterly report", "Stand-up", "Written in the folder"]
    changes = len(ok("GET", "/api/toolkit/changes?limit=100")["changes"])

    for _ in range(2):  # twice more: nothing to copy either way, nothing rewritten
        output = _vdirsyncer(config, "sync")
        assert "Copying" not in output and "Deleting" not in output, output
        assert _folder(tmp_path) == local
        assert len(ok("GET", "/api/toolkit/changes?limit=100")["changes"]) == changes

    # An edit on each side reaches the other.
    ours = next(name for name, text in local.items() if _summary(text) == "Written in the folder")
    edited = local[ours].replace("SUMMARY:Written in the folder", "SUMMARY:Edited in the folder")
    (tmp_path / "tasks" / ours).write_text(edited)
    report = next(t for t in made if t["title"] == "Quarterly report")
    ok("PATCH", f"/api/toolkit/todo/tasks/{report['id']}", title="Quarterly report (final)", expectedRevision=1)
    _vdirsyncer(config, "sync")
    titles = sorted(t["title"] for t in ok("GET", "/api/toolkit/todo/query?status=all&limit=100")["items"])
    assert titles == ["Buy milk", "Edited in the folder", "Oat milk", "Quarterly report (final)", "Stand-up"]
    local = _folder(tmp_path)
    assert sorted(_summary(text) for text in local.values()) == titles
    folder_copy = next(text for text in local.values() if "Edited in the folder" in text)
    assert "X-FOLDER-ONLY:kept" in folder_copy  # the folder's own property came back unchanged
    output = _vdirsyncer(config, "sync")
    assert "Copying" not in output and "Deleting" not in output, output
