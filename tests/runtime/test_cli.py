"""`mesq` as a person meets it at a terminal: every failure is one line on stderr with a non-zero
status (never a traceback), every option has help, and the user and token commands say what
they did. Run as real subprocesses (`python -m mesq.runtime.cli`), as a shell would."""

from __future__ import annotations

import argparse
import socket
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from mesq.auth.tokens import create_token, record_key
from mesq.auth.users import check_password, find_user_by_name
from mesq.kernel.ports.storage import Update
from mesq.kernel.timestamps import format_timestamp, utc_now
from mesq.runtime.cli.main import build_parser as _parser
from mesq.web.kit.sessions import create_session, load_session
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services

from ..conftest import run_cli

PASSWORD = "correct horse battery\n"


def _one_line_failure(result: subprocess.CompletedProcess[str], status: int, *fragments: str) -> None:
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def _user(data: Path, name: str = "ada", *extra: str) -> None:
    made = run_cli("user", "create", name, "--password-stdin", *extra, "--data-dir", str(data), stdin=PASSWORD)
    assert made.returncode == 0, made.stderr


@pytest.mark.parametrize("port", ["70000", "abc", "-1"])
def test_bad_port_is_one_line(tmp_path: Path, port: str) -> None:
    result = run_cli("serve", "--port", port, "--data-dir", str(tmp_path / "d"))
    _one_line_failure(result, 2, "mesq serve: argument --port:", repr(port), "0-65535")


def test_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", "--port", str(port), "--data-dir", str(tmp_path / "d"))
    _one_line_failure(result, 1, f"mesq: cannot listen on 127.0.0.1:{port}", "Address already in use")


def test_password_prompt_without_a_terminal(tmp_path: Path) -> None:
    result = run_cli("user", "create", "ada", "--data-dir", str(tmp_path / "d"), stdin="")
    _one_line_failure(result, 1, "mesq: no terminal to ask for the password on", "--password-stdin")


def test_missing_data_dir_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "typo"
    for command in (["user", "list"], ["token", "list", "ada"]):
        result = run_cli(*command, "--data-dir", str(missing))
        _one_line_failure(result, 1, f"mesq: no data directory at {missing}")
    assert not missing.exists()  # a read command never creates an empty instance


def test_unusable_data_dir_is_one_line(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("not a directory")
    result = run_cli("user", "create", "ada", "--password-stdin", "--data-dir", str(a_file / "d"), stdin=PASSWORD)
    _one_line_failure(result, 1, f"mesq: cannot use the data directory {a_file / 'd'}", "Not a directory")
    result = run_cli("user", "list", "--data-dir", str(a_file))
    _one_line_failure(result, 1, f"mesq: the data directory {a_file} is not a directory")


def test_bad_expiry_days_is_one_line(tmp_path: Path) -> None:
    _user(tmp_path / "d")
    args = ("token", "create", "ada", "--name", "x", "--scopes", "memo:read", "--data-dir", str(tmp_path / "d"))
    result = run_cli(*args, "--expires-days", "0")
    _one_line_failure(result, 2, "mesq token create: argument --expires-days:")


def test_every_option_has_help() -> None:
    missing: list[str] = []

    def walk(parser: argparse.ArgumentParser, prog: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prog} {name}")
            elif not action.help:
                missing.append(f"{prog} {'/'.join(action.option_strings) or action.dest}")

    walk(_parser(), "mesq")
    assert missing == []


def test_user_list(tmp_path: Path) -> None:
    data = tmp_path / "d"
    _user(data, "zoe")
    _user(data, "ada", "--admin")
    listed = run_cli("user", "list", "--data-dir", str(data))
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split("\t") == ["USERNAME", "ID", "CREATED", "ADMIN"]
    services = build_services(Settings(data_dir=data))
    try:
        ada, zoe = (find_user_by_name(services.items, name) for name in ("ada", "zoe"))
    finally:
        services.items.close()
    assert [row.split("\t") for row in rows] == [
        ["ada", ada["userId"], ada["createdAt"], "yes"],
        ["zoe", zoe["userId"], zoe["createdAt"], "no"],
    ]
    assert "passwordHash" not in listed.stdout and "argon2" not in listed.stdout


def test_user_passwd_rehashes_and_ends_sessions(tmp_path: Path) -> None:
    data = tmp_path / "d"
    _user(data, "ada")
    _user(data, "bob")
    services = build_services(Settings(data_dir=data))
    try:
        ada, bob = (find_user_by_name(services.items, name) for name in ("ada", "bob"))
        clock = utc_now().timestamp
        ada_sessions = [create_session(services.items, ada["userId"], "ada", clock) for _ in range(2)]
        bob_session = create_session(services.items, bob["userId"], "bob", clock)
        changed = run_cli(
            "user", "passwd", "ada", "--password-stdin", "--data-dir", str(data), stdin="a new password\n"
        )
        assert changed.returncode == 0, changed.stderr
        assert changed.stdout.strip() == "password changed for ada; 2 browser session(s) signed out"
        assert all(load_session(services.items, s.session_id, clock) is None for s in ada_sessions)
        assert load_session(services.items, bob_session.session_id, clock) is not None  # other users keep theirs
        after = find_user_by_name(services.items, "ada")
        assert after["passwordHash"] != ada["passwordHash"] and after["passwordHash"].startswith("$argon2")
    finally:
        services.items.close()
    services = build_services(Settings(data_dir=data))
    try:
        assert check_password(services.items, "ada", "a new password") is not None
        assert check_password(services.items, "ada", PASSWORD.strip()) is None
    finally:
        services.items.close()
    short = run_cli("user", "passwd", "ada", "--password-stdin", "--data-dir", str(data), stdin="short\n")
    _one_line_failure(short, 1, "mesq: password must be")
    nobody = run_cli("user", "passwd", "nobody", "--password-stdin", "--data-dir", str(data), stdin="a new password\n")
    _one_line_failure(nobody, 1, "mesq: no user named 'nobody'")


def test_token_list_shows_status(tmp_path: Path) -> None:
    data = tmp_path / "d"
    _user(data, "ada")
    services = build_services(Settings(data_dir=data))
    try:
        user_id = find_user_by_name(services.items, "ada")["userId"]
        _, active = create_token(services.items, user_id, name="live one", scopes="memo:read", expires_days=30)
        _, expired = create_token(services.items, user_id, name="old one", scopes="memo:read", expires_days=1)
        past = format_timestamp(utc_now() - timedelta(hours=1))
        services.items.update(Update(key=record_key(user_id, expired["id"]), set={"expiresAt": past}))
        _, revoked = create_token(services.items, user_id, name="gone one", scopes="memo:read")
    finally:
        services.items.close()
    assert run_cli("token", "revoke", "ada", revoked["id"], "--data-dir", str(data)).returncode == 0
    listed = run_cli("token", "list", "ada", "--data-dir", str(data))
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split("\t") == ["ID", "NAME", "SCOPES", "STATUS", "EXPIRES", "LAST-USED"]
    status = {row.split("\t")[0]: row.split("\t")[3] for row in rows}
    assert status == {active["id"]: "active", expired["id"]: "expired", revoked["id"]: "revoked"}


def test_user_create_takes_the_language_from_the_flag_else_the_terminal(tmp_path: Path) -> None:
    from mesq.auth.users import get_user, preferred_language

    data = tmp_path / "d"
    chinese_terminal = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}
    made = [
        run_cli("user", "create", name, "--password-stdin", *flag, "--data-dir", str(data), stdin=PASSWORD, env=env)
        for name, flag, env in [
            ("lin", (), chinese_terminal),
            ("ada", ("--language", "en"), chinese_terminal),  # the flag is the person's choice
            ("bob", (), {"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}),  # LC_ALL first: C says nothing
        ]
    ]
    assert all(result.returncode == 0 for result in made), [result.stderr for result in made]
    services = build_services(Settings(data_dir=data))
    try:
        profiles = {name: get_user(services.items, find_user_by_name(services.items, name)["userId"])
                    for name in ("lin", "ada", "bob")}  # fmt: skip
    finally:
        services.items.close()
    assert profiles["lin"] and profiles["lin"].get("browserLanguage") == "zh"
    assert preferred_language(profiles["lin"], requested="en") == "en"  # a hint: a browser's header wins
    assert profiles["ada"] and profiles["ada"]["settings"]["language"] == "en"
    assert preferred_language(profiles["ada"], requested="zh") == "en"
    assert profiles["bob"] and "browserLanguage" not in profiles["bob"]
