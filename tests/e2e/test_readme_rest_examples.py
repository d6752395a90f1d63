"""The README's REST examples, run in order as written against a real `mesq serve`: every curl
block of the "REST examples" section, parsed from README.md (so a changed README changes what
runs), each command run by bash with real curl.

Substituted, as the README tells its reader to: the two variables its first block sets
(`MESQ_URL`, `TOKEN`) get this server's URL and a PAT, and each `<placeholder>` the value the
README names for it from an earlier answer. Nothing else is touched: curl's status code is
read through a `.curlrc` in a throwaway HOME (`write-out`), not by editing a command. Each answer
is checked against what the README's comment says it does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, start_server, stop_server

SECTION = "## REST examples"
#: The README gives its reader these scopes in "First steps"; the examples need all four.
SCOPES = "memo:read,memo:write,todo:read,todo:write"
STATUS_MARK = "\n@@status="


def rest_blocks() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index(SECTION)
    end = readme.index("\n## ", start + len(SECTION))
    return re.findall(r"```bash\n(.*?)```", readme[start:end], re.DOTALL)


def commands(block: str) -> list[str]:
    """A block's shell commands: continuation lines joined, comments and blank lines dropped."""
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def route(command: str) -> str:
    """`METHOD /path` of a curl command (GET unless -X says otherwise), for the expectations."""
    method = re.search(r"-X (\w+)", command)
    url = re.search(r'"\$MESQ_URL(/[^"?]*)', command)
    assert url is not None, command
    return f"{method.group(1) if method else 'GET'} {url.group(1)}"


Answer = dict[str, Any]

#: What each example answers, in the README's order: (route, status, check of `data`). A README
#: that adds, drops or reorders an example fails here until this list says what it should do.
EXPECTED: list[tuple[str, int, Callable[[Answer, dict[str, str]], None]]] = [
    # memos
    ("POST /api/toolkit/memo", 201,
     lambda d, v: (d["memo"]["tags"] == ["reading/books"]) or pytest.fail(str(d))),
    ("GET /api/toolkit/memo", 200,
     lambda d, v: [m["id"] for m in d["timelineItems"]] == [v["memo-id"]] or pytest.fail(str(d))),
    ("GET /api/toolkit/memo/<memo-id>", 200, lambda d, v: d["memo"]["revision"] == 1 or pytest.fail(str(d))),
    ("PATCH /api/toolkit/memo/<memo-id>", 200,
     lambda d, v: (d["memo"]["revision"], d["memo"]["tags"]) == (2, ["reading/books"]) or pytest.fail(str(d))),
    ("DELETE /api/toolkit/memo/<memo-id>", 200,
     lambda d, v: (d["memo"]["status"], d["memo"]["revision"]) == ("DELETED", 3) or pytest.fail(str(d))),
    ("POST /api/toolkit/memo/<memo-id>/restore", 200,
     lambda d, v: (d["memo"]["status"], d["memo"]["revision"]) == ("NORMAL", 4) or pytest.fail(str(d))),
    ("GET /api/toolkit/memo/search", 200,  # the updated memo is still found by its text...
     lambda d, v: [m["id"] for m in d["timelineItems"]] == [v["memo-id"]] or pytest.fail(str(d))),
    ("GET /api/toolkit/memo/tags", 200,  # ...and still carries the tag the rename below renames
     lambda d, v: [(t["path"], [c["path"] for c in t["children"]]) for t in d["tags"]]
     == [("reading", ["reading/books"])] or pytest.fail(str(d))),
    ("POST /api/toolkit/memo/tags/rename", 200, lambda d, v: d["updatedMemos"] == 1 or pytest.fail(str(d))),
    ("POST /api/toolkit/memo/batch-get", 200,
     lambda d, v: ([m["tags"] for m in d["memos"]], d["missingIds"]) == ([["books/books"]], ["an-unknown-id"])
     or pytest.fail(str(d))),
    # todos
    ("POST /api/toolkit/todo/inbox", 201, lambda d, v: d["item"]["revision"] == 1 or pytest.fail(str(d))),
    ("POST /api/toolkit/todo/inbox/<item-id>/move-to-board", 200,
     lambda d, v: (d["movedItemId"], d["task"]["title"]) == (v["item-id"], "Call the bank") or pytest.fail(str(d))),
    ("POST /api/toolkit/todo/tasks", 201, lambda d, v: d["task"]["due"]["type"] == "date" or pytest.fail(str(d))),
    ("GET /api/toolkit/todo", 200,
     lambda d, v: [c["name"] for c in d["columns"]] == ["To do", "Doing", "Done"] or pytest.fail(str(d))),
    ("GET /api/toolkit/todo/query", 200,  # the task due in three days; the filed capture has no due
     lambda d, v: [i["title"] for i in d["items"]] == ["File taxes"] or pytest.fail(str(d))),
    # attachments
    ("POST /api/toolkit/memo/resources/upload-session", 201,
     lambda d, v: (d["transport"], d["uploadEndpoint"]) == ("relay", "/api/toolkit/memo/resources/upload")
     or pytest.fail(str(d))),
    ("POST /api/toolkit/memo/resources/upload", 201,
     lambda d, v: (d["displayName"], d["fileSize"], d["type"]) == ("hello.txt", 5, "file") or pytest.fail(str(d))),
    ("POST /api/toolkit/memo", 201,
     lambda d, v: [r["path"] for r in d["memo"]["resources"]] == [v["path"]] or pytest.fail(str(d))),
    ("GET /api/toolkit/memo/resources/read", 200, lambda d, v: None),  # bytes: checked below
]  # fmt: skip

#: Where the README says each placeholder's value comes from: (route of the answer, its field).
SOURCES = {
    "memo-id": ("POST /api/toolkit/memo", ("memo", "id")),
    "item-id": ("POST /api/toolkit/todo/inbox", ("item", "id")),
    "path": ("POST /api/toolkit/memo/resources/upload", ("path",)),
}


def test_readme_rest_examples_run_in_order_as_written(tmp_path: Path):
    variables, *example_blocks = rest_blocks()
    assert re.search(r"^MESQ_URL=\S+", variables, re.MULTILINE) and re.search(r"^TOKEN=\S+", variables, re.MULTILINE)
    examples = [command for block in example_blocks for command in commands(block)]
    curls = [command for command in examples if command.startswith("curl ")]
    assert [route(c) for c in curls] == [expected[0] for expected in EXPECTED], (
        "README examples changed: update EXPECTED"
    )

    home = tmp_path / "home"  # curl reads ~/.curlrc: the status code, after the body, without editing a command
    home.mkdir()
    (home / ".curlrc").write_text(f'write-out = "{STATUS_MARK.encode("unicode_escape").decode()}%{{http_code}}"\n')
    work = tmp_path / "work"  # where `printf ... > hello.txt` writes
    work.mkdir()

    server = start_server(tmp_path / "data")
    try:
        token = server.account("alice", SCOPES).token
        setup = re.sub(r"^MESQ_URL=\S+", f"MESQ_URL={server.base_url}", variables, flags=re.MULTILINE)
        setup = re.sub(r"^TOKEN=\S+", f"TOKEN={token}", setup, flags=re.MULTILINE)
        env = {**os.environ, "HOME": str(home)}
        values: dict[str, str] = {}
        expected = iter(EXPECTED)
        for command in examples:
            filled = fill(command, values)
            done = subprocess.run(["bash", "-c", setup + filled], capture_output=True, text=True, timeout=60,
                                  env=env, cwd=work)  # fmt: skip
            assert done.returncode == 0, (command, done.stderr)
            if not command.startswith("curl "):
                continue
            where, status, check = next(expected)
            body, _, code = done.stdout.rpartition(STATUS_MARK)
            assert int(code) == status, (command, code, body)
            if where == "GET /api/toolkit/memo/resources/read":
                assert body == "hello"  # the bytes of the file the README uploaded
                continue
            data = json.loads(body)["data"]
            check(data, values)
            for name, (source, field) in SOURCES.items():
                if where == source and name not in values:
                    value: Any = data
                    for key in field:
                        value = value[key]
                    values[name] = value
    finally:
        stop_server(server)


def fill(command: str, values: dict[str, str]) -> str:
    """The README's placeholders: a fresh key for each `<unique-key>`, earlier answers' values for
    the rest. A placeholder this test does not know fails, rather than running as `<...>`."""
    filled = command
    while "<unique-key>" in filled:
        filled = filled.replace("<unique-key>", str(uuid.uuid4()), 1)
    for name, value in values.items():
        filled = filled.replace(f"<{name}>", value)
    left = re.findall(r"<[a-z][a-z0-9-]*>", filled)
    assert not left, f"{left} in {command!r}: the README names no earlier answer for it"
    return filled
