"""REST `POST /api/toolkit/import?kind=...`: the file as the raw body or in a multipart form, the
report as the answer; the write scope of the kind; a bad file is one 400 line and nothing
written; a second import creates nothing; one import per user at a time."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.application.ratelimit import PROFILES, RateLimiter, user_subject
from mesq.asgi.account_archive import archive_slot
from mesq.memos import store as memo_store
from mesq.wiring.services import Services
from tests.conftest import Account

from .checks import records
from .exports import flomo_export, memos_database, todoist_export


def test_the_three_kinds_over_rest(client: TestClient, make_account: Callable[..., Account], tmp_path: Path) -> None:
    from datetime import UTC, datetime

    account = make_account(scopes="memo:read,memo:write,todo:read,todo:write")
    memo_only = make_account(scopes="memo:read,memo:write")
    flomo_export(tmp_path / "flomo.zip", count=12)
    memos_database(tmp_path / "memos", "latest", count=15)
    todoist_export(tmp_path / "todoist", datetime.now(UTC), projects=1, tasks=20)
    csv_path = next((tmp_path / "todoist").glob("*.csv"))

    flomo = (tmp_path / "flomo.zip").read_bytes()
    answer = client.post(
        "/api/toolkit/import?kind=flomo", content=flomo, headers={**account.headers, "Content-Type": "application/zip"}
    )
    assert answer.status_code == 200, answer.text
    report = answer.json()["data"]
    assert report["imported"]["memos"] == 12 and report["imported"]["attachments"] == 4 and report["runId"]
    again = client.post("/api/toolkit/import?kind=flomo", content=flomo, headers=account.headers)
    assert again.json()["data"]["existing"] == {"memos": 12} and "memos" not in again.json()["data"]["imported"]

    database = (tmp_path / "memos" / "memos_prod.db").read_bytes()
    files = {"file": ("memos_prod.db", database, "application/x-sqlite3")}
    answer = client.post("/api/toolkit/import?kind=memos&memosUser=alice", files=files, headers=account.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"]["imported"]["memos"] == 15
    assert answer.json()["data"]["skippedCount"] == 1  # its local files are not in an uploaded .db: listed

    refused = client.post("/api/toolkit/import?kind=todoist", content=csv_path.read_bytes(), headers=memo_only.headers)
    assert refused.status_code == 403
    answer = client.post(
        "/api/toolkit/import?kind=todoist&timezone=Asia/Shanghai",
        content=csv_path.read_bytes(),
        headers=account.headers,
    )
    assert answer.status_code == 200 and answer.json()["data"]["imported"]["tasks"] == 20, answer.text

    # REST answers in English whatever the client's language (docs/contract.md; the page translates).
    chinese_client = {**account.headers, "Accept-Language": "zh-CN"}
    bad = client.post("/api/toolkit/import?kind=flomo", content=b"PK\x03\x04 nope", headers=chinese_client)
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith(
        "nothing imported: the file: the ZIP is cut short (its end is missing); download or copy it again"
    )
    assert client.post("/api/toolkit/import?kind=evernote", content=b"x", headers=account.headers).status_code == 400
    assert client.post("/api/toolkit/import?kind=flomo&x=1", content=flomo, headers=account.headers).status_code == 400
    with archive_slot(account.user_id):  # one import or export of a user at a time
        busy = client.post("/api/toolkit/import?kind=flomo", content=flomo, headers=account.headers)
    assert busy.status_code == 503 and "Retry-After" in busy.headers


def test_an_import_writes_only_the_callers_account(
    client: TestClient, services: Services, make_account: Callable[..., Account], tmp_path: Path
) -> None:
    caller, other = make_account(scopes="memo:read,memo:write"), make_account(scopes="memo:read,memo:write")
    client.post("/api/toolkit/memo", json={"content": "the other's own #x"}, headers=other.headers)
    before = records(services, other.user_id)
    flomo_export(tmp_path / "flomo.zip", count=5)
    answer = client.post(
        "/api/toolkit/import?kind=flomo", content=(tmp_path / "flomo.zip").read_bytes(), headers=caller.headers
    )
    assert answer.status_code == 200 and answer.json()["data"]["imported"]["memos"] == 5
    assert records(services, other.user_id) == before
    assert len([m for m in memo_store.all_memos(services.items, caller.user_id)]) == 5


def test_an_uploads_own_name_names_its_project_and_its_refusals(
    client: TestClient, services: Services, make_account: Callable[..., Account]
) -> None:
    """Two project CSVs, each with a task 'Buy milk': two spaces named after the files (multipart
    filename, or `filename` for a raw body), neither task dropped as already there. A refusal
    names the upload by its own name and says "nothing imported" once."""
    import io
    import zipfile

    from mesq.todos.state import load_state

    account = make_account(scopes="todo:read,todo:write")
    body = b"TYPE,CONTENT\ntask,Buy milk\n"
    files = {"file": ("Home [1].csv", body, "text/csv")}
    first = client.post("/api/toolkit/import?kind=todoist", files=files, headers=account.headers)
    second = client.post("/api/toolkit/import?kind=todoist&filename=Work%20%5B2%5D.csv", content=body,
                         headers=account.headers)  # fmt: skip
    assert first.status_code == 200 and second.status_code == 200, (first.text, second.text)
    assert second.json()["data"]["imported"]["tasks"] == 1, second.text
    state = load_state(services.items, account.user_id)
    spaces = {space["id"]: space["name"] for space in state.spaces.values()}
    milk = [spaces[task["spaceId"]] for task in state.every_task() if task["title"] == "Buy milk"]
    assert sorted(milk) == ["Home", "Work"]

    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("../evil.csv", "TYPE,CONTENT\ntask,x\n")
    files = {"file": ("backup.zip", evil.getvalue(), "application/zip")}
    refused = client.post("/api/toolkit/import?kind=todoist", files=files, headers=account.headers)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == (
        "nothing imported: backup.zip: member name '../evil.csv' leaves the archive (path traversal)"
    )


def test_a_long_chinese_project_name_names_its_space(
    client: TestClient, services: Services, make_account: Callable[..., Account]
) -> None:
    """A Chinese project name of some forty characters is past the 120 bytes the upload's
    temporary copy may be named (three bytes a character): its space was named "upload", and a
    second such project's task of the same title was dropped as "already there" (both derived
    their ids from "upload"). The space is named after the file, whatever the copy is called."""
    from urllib.parse import quote

    from mesq.todos.state import load_state

    account = make_account(scopes="todo:read,todo:write")
    names = [
        "读书笔记：二〇二六年要读完的中外经典文学作品与社会科学著作清单（含书评） [2203306145].csv",
        "旅行计划：二〇二六年暑假带父母和孩子去云南大理丽江的行程安排（含预算） [2203306146].csv",
    ]
    assert all(len(name.encode("utf-8")) > 120 for name in names)
    body = "TYPE,CONTENT\ntask,每周复盘\n".encode()
    first = client.post("/api/toolkit/import?kind=todoist", files={"file": (names[0], body, "text/csv")},
                        headers=account.headers)  # fmt: skip
    second = client.post(f"/api/toolkit/import?kind=todoist&filename={quote(names[1])}", content=body,
                         headers=account.headers)  # fmt: skip
    assert first.status_code == 200 and second.status_code == 200, (first.text, second.text)
    assert second.json()["data"]["imported"]["tasks"] == 1, second.text
    state = load_state(services.items, account.user_id)
    spaces = {space["id"]: space["name"] for space in state.spaces.values()}
    review = sorted(spaces[task["spaceId"]] for task in state.every_task() if task["title"] == "每周复盘")
    assert review == [
        "旅行计划：二〇二六年暑假带父母和孩子去云南大理丽江的行程安排（含预算）",
        "读书笔记：二〇二六年要读完的中外经典文学作品与社会科学著作清单（含书评）",
    ]
    refused = client.post(f"/api/toolkit/import?kind=todoist&filename={quote(names[0])}", content=b"TYPE,x\n1,2\n",
                          headers=account.headers)  # fmt: skip
    assert refused.status_code == 400 and names[0] in refused.json()["error"]["message"], refused.text


def test_a_todoist_csv_without_a_name_makes_a_dated_space_in_the_persons_language(
    client: TestClient, services: Services, make_account: Callable[..., Account]
) -> None:
    """A raw body with no `filename` has no project name to read: its space is named "Todoist
    import (<the day>)" in the language a new board would be (the request's here, as no language
    is chosen), never a bare English "Todoist" on a Chinese account; its ids stay derived from the
    file alone, so a second import, another day or in another language, creates nothing. A
    refusal calls it "the file", never by its temporary copy's name."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from mesq.kernel.formats import month_day
    from mesq.todos.state import load_state

    body = b"TYPE,CONTENT\ntask,Buy milk\n"
    path = "/api/toolkit/import?kind=todoist&timezone=Asia/Shanghai"
    today = datetime.now(UTC).astimezone(ZoneInfo("Asia/Shanghai")).date()

    def spaces(account: Account) -> list[str]:
        return sorted(space["name"] for space in load_state(services.items, account.user_id).spaces.values())

    chinese = make_account(scopes="todo:read,todo:write")
    answer = client.post(path, content=body, headers={**chinese.headers, "Accept-Language": "zh-CN"})
    assert answer.status_code == 200 and answer.json()["data"]["imported"]["tasks"] == 1, answer.text
    named = f"Todoist 导入（{month_day(today, 'zh', with_year=True)}）"
    assert named in spaces(chinese) and "Todoist" not in spaces(chinese)
    again = client.post(path, content=body, headers={**chinese.headers, "Accept-Language": "en-US"})
    assert again.status_code == 200 and again.json()["data"]["existing"] == {"tasks": 1}, again.text
    assert "tasks" not in again.json()["data"]["imported"] and named in spaces(chinese)
    assert not any(name.startswith("Todoist import") for name in spaces(chinese))

    english = make_account(scopes="todo:read,todo:write")
    answer = client.post(path, content=body, headers=english.headers)
    assert answer.status_code == 200, answer.text
    assert f"Todoist import ({month_day(today, 'en', with_year=True)})" in spaces(english)

    refused = client.post(path, content=b"title,body\nA,B\n", headers=english.headers)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == (
        "nothing imported: the file: not a Todoist CSV (its first line must name TYPE and CONTENT)"
    )


def test_wrong_files_never_use_up_the_persons_imports(
    client: TestClient, services: Services, make_account: Callable[..., Account]
) -> None:
    """A file refused before anything is written gives its `import` back (it counts in
    `import_refused`): past the 6 an hour a wrong file is still its own 400, not a 429."""
    account = make_account(scopes="memo:read,memo:write")
    limiter = RateLimiter(services.items, services.settings)
    assert limiter.enabled, "the test's settings count imports"
    for _number in range(PROFILES["normal"]["import"] + 2):
        answer = client.post("/api/toolkit/import?kind=flomo", content=b"not a zip", headers=account.headers)
        assert answer.status_code == 400, answer.text
    subject = user_subject(account.user_id)
    assert limiter.remaining(subject, "import") == PROFILES["normal"]["import"]
    assert limiter.remaining(subject, "import_refused") == PROFILES["normal"]["import_refused"] - 8


def test_an_imports_wait_is_said_as_a_person_would(services: Services) -> None:
    """Past the imports of an hour, the wait is said in minutes ("about 28 minutes", "约 28 分钟"),
    never in raw seconds ("1642 秒"); under a minute, in seconds; the header keeps the seconds."""
    from mesq.application.ratelimit import HOUR_SECONDS, wait_words
    from mesq.kernel.errors import RateLimited
    from mesq.kernel.i18n import Translator

    now = (int(time.time()) // HOUR_SECONDS + 1) * HOUR_SECONDS - 1642.0  # not expired: the store drops those
    counting = SimpleNamespace(rate_limit_enabled=True, rate_limit_profile="normal")
    limiter = RateLimiter(services.items, counting, clock=lambda: now)
    subject = user_subject("waiting-user")
    for _number in range(PROFILES["normal"]["import"]):
        limiter.hit(subject, "import")
    try:
        limiter.hit(subject, "import")
    except RateLimited as refused:
        error = refused
    else:
        raise AssertionError("the seventh import of the hour is refused")
    assert error.retry_after_seconds == 1642
    assert str(error.text).endswith("retry after about 28 minutes"), error.text
    chinese = Translator("zh").text(error.text)
    assert "约 28 分钟" in chinese and "1642" not in chinese and "秒" not in chinese, chinese
    said = {seconds: (str(wait_words(seconds)), Translator("zh").text(wait_words(seconds)))
            for seconds in (1, 42, 60, 61, 3540, 3600)}  # fmt: skip
    assert said == {
        1: ("1 second", "1 秒"),
        42: ("42 seconds", "42 秒"),
        60: ("about a minute", "约 1 分钟"),
        61: ("about 2 minutes", "约 2 分钟"),
        3540: ("about 59 minutes", "约 59 分钟"),
        3600: ("about an hour", "约 1 小时"),
    }


def test_a_name_past_255_characters_still_names_its_project(
    client: TestClient, services: Services, make_account: Callable[..., Account]
) -> None:
    """An upload's name of over 255 characters (a client may send any) made the upload's own
    name count as none, and the project was named after the temporary copy: a space "upload",
    and every such project's tasks derived their ids from "upload" too. The name is cut instead."""
    from mesq.todos import model
    from mesq.todos.state import load_state

    account = make_account(scopes="todo:read,todo:write")
    body = "TYPE,CONTENT\ntask,每周复盘\n".encode()
    for stem in ("长" * 300, "短" * 300):
        answer = client.post("/api/toolkit/import?kind=todoist", files={"file": (stem + ".csv", body, "text/csv")},
                             headers=account.headers)  # fmt: skip
        assert answer.status_code == 200 and answer.json()["data"]["imported"]["tasks"] == 1, answer.text
    names = {space["name"] for space in load_state(services.items, account.user_id).spaces.values()}
    assert "upload" not in names and {"长" * model.NAME_MAX, "短" * model.NAME_MAX} <= names, names


def test_an_import_a_fault_stops_half_way_leaves_an_interrupted_report(
    client: TestClient,
    make_account: Callable[..., Account],
    services: Services,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fault after the first writes (here the store failing at the sixth memo) answers 500, and
    the report kept from before the first write is marked interrupted with the five memos written,
    never left "running" while the server lives on; a file refused with nothing written keeps none."""
    from mesq.imports import run
    from mesq.imports.reports import read_report
    from mesq.kernel.keys import user_partition

    account = make_account(scopes="memo:read,memo:write")
    flomo_export(tmp_path / "flomo.zip", count=12)
    written = run.write_memo
    calls = {"n": 0}

    def failing(*args: Any, **kwargs: Any) -> bool:  # the sixth memo's write fails as a broken disk would
        calls["n"] += 1
        if calls["n"] == 6:
            raise RuntimeError("disk I/O error")
        return bool(written(*args, **kwargs))

    monkeypatch.setattr(run, "write_memo", failing)
    answer = client.post(
        "/api/toolkit/import?kind=flomo",
        content=(tmp_path / "flomo.zip").read_bytes(),
        headers={**account.headers, "Content-Type": "application/zip"},
    )
    assert answer.status_code == 500
    reports = services.items.query(user_partition(account.user_id), prefix="IMPORT#").items
    assert len(reports) == 1
    stored = read_report(services.items, account.user_id, reports[0]["sk"].removeprefix("IMPORT#"))
    assert stored is not None and stored.get("interrupted") is True and "running" not in stored
    assert stored["report"]["imported"]["memos"] == 5


def test_importing_the_same_file_again_to_its_end_settles_the_run_cut_short(
    client: TestClient,
    make_account: Callable[..., Account],
    services: Services,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run cut short (here its request's time up after five memos) is listed among the imports
    that did not finish, whose words say "undo it or import the same file again". Doing the second
    left it listed for the report's 90 days; the same file imported again to its end now settles it
    (its report and Undo stay). Another file's run does not."""
    from mesq.imports import plan
    from mesq.imports.reports import mark_undone, read_report, unfinished_reports

    account = make_account(scopes="memo:read,memo:write")
    flomo_export(tmp_path / "flomo.zip", count=12)
    flomo_export(tmp_path / "other.zip", count=3)
    asked = {"n": 0}

    def five_memos_then_out_of_time() -> bool:
        asked["n"] += 1
        return asked["n"] > 5

    def imported(name: str) -> Any:
        return client.post(
            "/api/toolkit/import?kind=flomo&filename=flomo.zip",
            content=(tmp_path / name).read_bytes(),
            headers={**account.headers, "Content-Type": "application/zip"},
        )

    with monkeypatch.context() as patched:
        patched.setattr(plan, "out_of_time", five_memos_then_out_of_time)
        cut = imported("flomo.zip")
    assert cut.status_code == 400 and "the import stopped after writing" in cut.text
    run_id = cut.json()["error"]["details"]["report"]["runId"]
    assert [stored["report"]["runId"] for stored in unfinished_reports(services.items, account.user_id)] == [run_id]
    assert imported("other.zip").status_code == 200  # another file: the cut run is still unfinished
    assert [stored["report"]["runId"] for stored in unfinished_reports(services.items, account.user_id)] == [run_id]
    again = imported("flomo.zip")
    data = again.json()["data"]
    assert again.status_code == 200 and data["existing"]["memos"] + data["imported"]["memos"] == 12
    assert unfinished_reports(services.items, account.user_id) == []
    kept = read_report(services.items, account.user_id, run_id)
    assert kept is not None and kept.get("cutShort") and kept["completedBy"] == data["runId"]
    # Undoing the completing run leaves what the cut one wrote ("already there" to it): listed again
    mark_undone(services.items, account.user_id, data["runId"], {"undone": {"memos": 7}})
    assert [stored["report"]["runId"] for stored in unfinished_reports(services.items, account.user_id)] == [run_id]
