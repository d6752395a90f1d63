"""Every command block of README.md, run as written and in order, as a person copies them: First
steps' `make run PORT=... DATA_DIR=...` in one terminal, then every other block in one bash on a
second (pseudo-)terminal, in the same directory, so variables set by one block (`MESQ_URL`,
`TOKEN`, `MEMO_ID`) are there for the next and the CLI's password prompts are answered where they
appear. Then each answer is checked against what the README says it does.

Not run here, each for the reason `NOT_RUN` gives: `make test` (this suite), the apt-get line, and
the DynamoDB Local recipe (tests/e2e/test_readme_dynamodb_recipe.py). Any other bash block is run:
a new one cannot be skipped by accident.

What the test changes, and nothing else: the port (8787, in the two places First steps writes it)
becomes a free one, and the directory is a scratch one that holds links to the repository's
Makefile, pyproject.toml and infra/ and a `.venv` whose `bin` is the interpreter's running these
tests (its install stamps fresh, so `make run` installs nothing), so what the README writes there
(alice.zip, hello.txt, notes/) never lands in the repository. curl's status code comes from a
`.curlrc` in a throwaway HOME that writes it to stderr (`%{stderr}`), not from an edited command."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import termios
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, start_server, stop_server

#: Bash blocks not run here, by their first line, and why.
NOT_RUN = {
    "make run    # creates .venv": "`make test` is this suite; `make run` runs below as First steps writes it",
    "sudo apt-get install": "installs the machine's packages (infra/prerequisites.sh; tests/infra)",
    "DDB_PORT=": "the DynamoDB Local recipe: tests/e2e/test_readme_dynamodb_recipe.py runs it as written",
}
SERVER_BLOCK = "make run PORT="
README_PORT = "8787"
PASSWORD = "a long local password"
#: curl's status line (the ~/.curlrc below writes it to stderr, in several writes: a README command
#: must not pipe curl's answer to another process, whose output could land inside the marker).
STATUS = re.compile(r"\n?@@status=(\d{3})\n")
BLOCKS = re.compile(r"```bash\n(.*?)```", re.DOTALL)


def bash_blocks() -> list[str]:
    return BLOCKS.findall((REPO / "README.md").read_text(encoding="utf-8"))


def commands(block: str) -> list[str]:
    """A block's commands: each with its continuation lines, comment and blank lines dropped."""
    found: list[str] = []
    pending = ""
    for line in block.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line + "\n"
        if not line.endswith("\\"):
            found.append(pending.rstrip("\n"))
            pending = ""
    return found


def route(command: str) -> str:
    """`METHOD /path` of a curl command (GET unless -X says otherwise)."""
    method = re.search(r"-X (\w+)", command)
    url = re.search(r'"\$MESQ_URL(/[^"?]*)', command)
    assert url is not None, command
    return f"{method.group(1) if method else 'GET'} {url.group(1)}"


Check = Callable[[Any], object]


def data(check: Callable[[Any], bool]) -> Check:
    """A check of an answer's `data`."""

    def checked(body: str) -> None:
        answer = json.loads(body)
        assert "data" in answer and check(answer["data"]), body

    return checked


def no_output(body: str) -> None:
    assert body == "", body


#: What each curl answers, in the README's order: (route, status, check of the body).
CURLS: list[tuple[str, int, Check]] = [
    # memos
    ("POST /api/toolkit/memo", 201, data(lambda d: d["memo"]["tags"] == ["reading/books"])),
    ("GET /api/toolkit/memo", 200, data(lambda d: [m["content"] for m in d["timelineItems"]]
                                             == ["Read chapter 3 #reading/books"])),
    ("GET /api/toolkit/memo/$MEMO_ID", 200, data(lambda d: d["memo"]["revision"] == 1)),
    ("PATCH /api/toolkit/memo/$MEMO_ID", 200, data(lambda d: (d["memo"]["revision"], d["memo"]["tags"])
                                                   == (2, ["reading/books"]))),
    ("DELETE /api/toolkit/memo/$MEMO_ID", 200, data(lambda d: (d["memo"]["status"], d["memo"]["revision"])
                                                    == ("DELETED", 3))),
    ("POST /api/toolkit/memo/$MEMO_ID/restore", 200, data(lambda d: (d["memo"]["status"], d["memo"]["revision"])
                                                          == ("NORMAL", 4))),
    ("GET /api/toolkit/memo/search", 200, data(lambda d: len(d["timelineItems"]) == 1)),
    ("GET /api/toolkit/memo/tags", 200, data(lambda d: [(t["path"], [c["path"] for c in t["children"]])
                                                        for t in d["tags"]] == [("reading", ["reading/books"])])),
    ("POST /api/toolkit/memo/tags/rename", 200, data(lambda d: d["updatedMemos"] == 1)),
    ("POST /api/toolkit/memo/batch-get", 200, data(lambda d: ([m["tags"] for m in d["memos"]], d["missingIds"])
                                                   == ([["books/books"]], ["an-unknown-id"]))),
    # todos
    ("POST /api/toolkit/todo/inbox", 201, data(lambda d: d["item"]["revision"] == 1)),
    ("POST /api/toolkit/todo/inbox/$ITEM_ID/move-to-board", 200, data(lambda d: d["task"]["title"] == "Call the bank")),
    ("POST /api/toolkit/todo/tasks", 201, data(lambda d: d["task"]["due"]["type"] == "date")),
    ("GET /api/toolkit/todo", 200, data(lambda d: [c["name"] for c in d["columns"]] == ["To do", "Doing", "Done"])),
    ("GET /api/toolkit/todo/query", 200, data(lambda d: [i["title"] for i in d["items"]] == ["File taxes"])),
    # attachments
    ("POST /api/toolkit/memo/resources/upload-session", 201, data(lambda d: d["transport"] == "relay")),
    ("POST /api/toolkit/memo/resources/upload", 201, data(lambda d: (d["displayName"], d["fileSize"])
                                                          == ("hello.txt", 5))),
    ("POST /api/toolkit/memo", 201, data(lambda d: [r["displayName"] for r in d["memo"]["resources"]]
                                         == ["hello.txt"])),
    ("GET /api/toolkit/memo/resources/read", 200, lambda body: body == "hello" or pytest.fail(body)),
    # export and import
    ("GET /api/toolkit/export", 200, no_output),  # `-o alice-memos.zip`: checked below
]  # fmt: skip

#: What every import prints after its report: the search indexes it built (search/imported.py).
INDEXED = re.compile(
    r"\nliteral search indexes: [\d,]+ rows in [0-9.]+s\n(?:search index: .*\n)*"
    r"search index: [\d,]+ documents in [0-9.]+s; [^\n]+$"
)


def _report(out: str) -> str:
    """An import's report, when the lines of the search indexes it built follow it ("" if not)."""
    found = INDEXED.search(out.strip())
    return out.strip()[: found.start()] if found else ""


#: What each `mesq` command prints, by the start of the command (after `.venv/bin/mesq `).
CLI: dict[str, Callable[[str], bool]] = {
    "user create alice": lambda out: out.startswith("created user alice ("),
    "token list alice": lambda out: out.startswith("ID\tNAME\tSCOPES") and "\tlaptop\t" in out,
    "token revoke alice": lambda out: out.startswith("revoked token "),
    "user list": lambda out: "\nalice\t" in out and out.rstrip().endswith("\tyes"),
    "user passwd alice": lambda out: "password changed for alice" in out,
    "user set-timezone alice": lambda out: out.strip() == "time zone of alice set to Asia/Shanghai",
    "export alice": lambda out: re.fullmatch(
        r"exported 2 memos, 2 tasks, 1 space, 1 attachment and \d+ history entries, with alice's time zone "
        r"Asia/Shanghai, to alice\.zip", out.strip()
    ) is not None,
    "user create bob": lambda out: out.startswith("created user bob ("),
    "import bob alice.zip": lambda out: re.fullmatch(
        r"imported 2 memos, 2 tasks, 1 space, 1 attachment and \d+ history entries into bob; [0-9.]+s\n"
        r"took the archive's time zone Asia/Shanghai: bob had not set its own",
        _report(out),
    ) is not None,
    "import bob --markdown": lambda out: _report(out).startswith("imported 1 of 1 Markdown files into bob: 1 new,"),
    "import bob --from todoist": lambda out: _report(out).startswith("1 tag, 1 space, 1 column, 1 task imported;")
    and re.search(r"to undo it: \.venv/bin/mesq import bob --undo-run \S+ --data-dir \.mesq$", _report(out))
    is not None,
}  # fmt: skip


@dataclass
class Shell:
    """One interactive bash on a pseudo-terminal, as a person's terminal is: commands are typed into
    it one after the other, and a password prompt is answered when it shows."""

    process: subprocess.Popen[bytes]
    terminal: int

    @classmethod
    def start(cls, cwd: Path, env: dict[str, str]) -> Shell:
        terminal, other_end = pty.openpty()
        attributes = termios.tcgetattr(other_end)
        attributes[3] &= ~termios.ECHO  # what is typed is not printed back
        termios.tcsetattr(other_end, termios.TCSANOW, attributes)
        process = subprocess.Popen(
            ["bash", "--norc", "--noprofile", "--noediting", "-i"], stdin=other_end, stdout=other_end,
            stderr=other_end, cwd=cwd, env={**env, "PS1": "", "PS2": ""}, start_new_session=True,
        )  # fmt: skip
        os.close(other_end)
        shell = cls(process, terminal)
        shell.run("true")  # past bash's start-up noise
        return shell

    def run(self, command: str, timeout: float = 180) -> tuple[int, str]:
        """(exit status, what the terminal showed). The command goes in a `{ }` group that bash
        reads whole before running it, so nothing typed waits on the terminal while it runs (a
        password prompt flushes the terminal's input)."""
        done = f"@@done-{uuid.uuid4().hex}="
        typed = f"{{\n{command}\n}}; printf '\\n{done}%s\\n' \"$?\"\n"
        os.write(self.terminal, typed.encode())
        shown = b""
        answered = 0
        deadline = time.monotonic() + timeout
        while (found := re.search(rf"\r?\n{done}(\d+)\r?\n".encode(), shown)) is None:
            assert time.monotonic() < deadline, f"{command!r} still runs after {timeout}s: {shown[-2000:]!r}"
            ready, _, _ = select.select([self.terminal], [], [], 1)
            if ready:
                shown += os.read(self.terminal, 65536)
            if shown.count(b"assword: ") > answered:  # "Password: ", "Repeat password: "
                answered += 1
                os.write(self.terminal, f"{PASSWORD}\n".encode())
        output = shown[: found.start()].decode().replace("\r\n", "\n")
        return int(found.group(1)), output

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)
        os.close(self.terminal)


def scratch_directory(tmp_path: Path) -> Path:
    """Where the README's commands run: the repository's make files linked in, and a `.venv`
    whose `bin` is this interpreter's, its install stamps newer than pyproject.toml."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("Makefile", "pyproject.toml", "infra"):
        (work / name).symlink_to(REPO / name)
    venv = work / ".venv"
    venv.mkdir()
    (venv / "bin").symlink_to(Path(sys.executable).parent)
    for stamp in (".installed-stamp", ".runtime-stamp"):
        (venv / stamp).touch()
    return work


def test_every_bash_block_is_run_or_skipped_for_a_reason() -> None:
    blocks = bash_blocks()
    skipped = [block for block in blocks if block.startswith(tuple(NOT_RUN))]
    assert len(skipped) == len(NOT_RUN), "a block NOT_RUN names is gone from README.md: update NOT_RUN"
    server = [block for block in blocks if block.startswith(SERVER_BLOCK)]
    assert len(server) == 1 and commands(server[0]) == [server[0].strip().split("\n")[0]]
    run = [command for block in blocks if block not in skipped + server for command in commands(block)]
    # the port is written twice (make run, MESQ_URL); every URL reads $MESQ_URL
    assert sum(command.count(README_PORT) for command in run) == 1 and README_PORT in server[0]
    assert not [c for c in run if "http://" in c and "export MESQ_URL=" not in c]
    for command in run:  # every create sends a fresh key, never a placeholder
        if command.startswith("curl ") and re.search(r"-X POST \"\$MESQ_URL/api/toolkit/(memo|todo/inbox|todo/tasks)\"",
                                                     command):  # fmt: skip
            assert "Idempotency-Key: $(python3 -c 'import uuid; print(uuid.uuid4())')" in command, command
        assert not re.search(r"<[a-z][a-z0-9-]*>", command), f"a placeholder left in {command!r}"


def test_the_readme_runs_as_written(tmp_path: Path) -> None:
    blocks = bash_blocks()
    [server_line] = [block.strip() for block in blocks if block.startswith(SERVER_BLOCK)]
    run = [block for block in blocks if not block.startswith((*NOT_RUN, SERVER_BLOCK))]
    work = scratch_directory(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".curlrc").write_text('write-out = "%{stderr}\\n@@status=%{http_code}\\n"\n')
    env = {name: value for name, value in os.environ.items() if not name.startswith(("MESQ_", "AWS_"))}
    env |= {"HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}

    command = server_line.split("#", 1)[0].strip().replace(README_PORT, "{port}")
    server = start_server(work / ".mesq", None, command=["bash", "-c", command], cwd=work)
    port = server.base_url.rsplit(":", 1)[1]
    shell = Shell.start(work, env)
    try:
        deadline = time.monotonic() + 30
        while len(server.output) < 5 and time.monotonic() < deadline:  # the rest of the banner
            time.sleep(0.1)
        banner = "\n".join(server.output[:6])  # no account yet: how to make one, with the four scopes
        assert ".venv/bin/mesq user create alice --admin --data-dir .mesq" in banner, banner
        assert "--scopes memo:read,memo:write,todo:read,todo:write --data-dir .mesq" in banner, banner
        curls = iter(CURLS)
        for block in run:
            for typed in commands(block):
                status, shown = shell.run(typed.replace(README_PORT, port))
                assert status == 0, (typed, shown)
                codes = STATUS.findall(shown)
                body = STATUS.sub("", shown)
                if typed.startswith("curl "):
                    where, code, check = next(curls)
                    assert route(typed) == where, ("README examples changed: update CURLS", typed)
                    assert codes == [str(code)], (typed, shown)
                    check(body)
                elif typed.startswith(".venv/bin/mesq "):
                    said = next((expect for start, expect in CLI.items() if typed[15:].startswith(start)), None)
                    assert said is not None, f"CLI has no expectation for {typed!r}"
                    assert said(body.replace("Password: \nRepeat password: \n", "").lstrip("\n")), (typed, body)
                    assert "search reindex" not in body  # an import builds the indexes itself: no repair to run
                    assert not re.search(r"\b[A-Z]{3,}#", body)  # never a storage key
        assert next(curls, None) is None, "an example CURLS expects is gone from README.md"
        status, token = shell.run('printf "%s" "$TOKEN"')  # the token First steps kept
        assert status == 0 and re.fullmatch(r"mesq_pat_\S+", token), token
        assert (work / "alice-memos.zip").stat().st_size > 0
        status, listed = shell.run(".venv/bin/mesq token list alice")
        assert "\tspare\tmemo:read\trevoked\t" in listed, listed
    finally:
        shell.stop()
        stop_server(server)
