"""infra/prerequisites.sh, the first step of `make run` / `make test`, on a PATH the test builds:
stub commands stand in for what a machine has, a fake apt-get records what it is asked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "infra" / "prerequisites.sh"
#: What the script itself runs besides the commands it looks for.
UTILITIES = ("bash", "id", "sed", "head")
#: The command each Debian package provides, as the fake apt-get "installs" it.
PROVIDES = {
    "make": "make",
    "git": "git",
    "curl": "curl",
    "openjdk-17-jre-headless": "java",
    "npm": "npm",
    "chromium": "chromium",
    "fonts-noto-cjk": "fc-list",
    "faketime": "faketime",
}
STUB_OUTPUT = {
    "java": "echo 'openjdk version \"17.0.15\" 2025-04-15' >&2",
    "fc-list": 'echo "Noto Sans CJK SC"',
}
ALL_PACKAGES = "make git curl openjdk-17-jre-headless npm chromium fonts-noto-cjk faketime"


def stub(bin_dir: Path, name: str, body: str = "") -> None:
    path = bin_dir / name
    path.write_text(f"#!{shutil.which('bash')}\n{body or STUB_OUTPUT.get(name, 'true')}\n")
    path.chmod(0o755)


def machine(tmp_path: Path, *, has: tuple[str, ...], apt_fails: bool = False) -> Path:
    """A bin directory with the script's utilities, stubs for `has`, and a logging apt-get."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in UTILITIES:
        found = shutil.which(name)
        assert found, name
        (bin_dir / name).symlink_to(found)
    for name in has:
        stub(bin_dir, name)
    archive = tmp_path / "archive"  # what the fake apt-get "downloads": one stub per package
    archive.mkdir()
    for command in PROVIDES.values():
        stub(archive, command)
    installs = "\n".join(
        f'[ "$p" = {package} ] && {shutil.which("cp")} -p {archive}/{command} {bin_dir}/'
        for package, command in PROVIDES.items()
    )
    stub(
        bin_dir,
        "apt-get",
        f'echo "$*" >> {tmp_path}/apt.log\n'
        + ("exit 100\n" if apt_fails else "")
        + f'if [ "$1" = install ]; then for p in "$@"; do\n{installs}\ndone; fi\nexit 0',
    )
    return bin_dir


def run_script(bin_dir: Path, target: str = "test", *, as_root: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(bin_dir), "PYTHON": sys.executable, "MESQ_PREREQ_AS_ROOT": as_root, "HOME": os.environ["HOME"]}
    return subprocess.run(["bash", str(SCRIPT), target], env=env, capture_output=True, text=True, timeout=30)


def apt_calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "apt.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("java", ["absent", "java 11"])
def test_missing_java_stops_at_once_with_one_line(tmp_path: Path, java: str):
    bin_dir = machine(tmp_path, has=("make", "git", "curl", "npm", "chromium", "fc-list", "faketime"))
    if java == "java 11":
        stub(bin_dir, "java", "echo 'openjdk version \"11.0.2\" 2019-01-15' >&2")
    started = time.monotonic()
    result = run_script(bin_dir, as_root="0")
    assert time.monotonic() - started < 5
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "make test: missing Java 17+; install with: sudo apt-get install -y openjdk-17-jre-headless (Debian/Ubuntu)"
    ]
    assert apt_calls(tmp_path) == []  # not root: never touches the system


def test_the_line_names_everything_missing(tmp_path: Path):
    result = run_script(machine(tmp_path, has=("make", "git", "java")), as_root="0")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "make test: missing curl, npm, chromium, CJK fonts, libfaketime; "
        "install with: sudo apt-get install -y curl npm chromium fonts-noto-cjk faketime (Debian/Ubuntu)"
    ]


def test_as_root_on_debian_installs_what_is_missing_with_one_update(tmp_path: Path):
    result = run_script(machine(tmp_path, has=()), as_root="1")
    assert result.returncode == 0, result.stderr
    assert apt_calls(tmp_path) == ["update -qq", f"install -y -qq {ALL_PACKAGES}"]


def test_as_root_a_failing_apt_get_is_one_clear_line(tmp_path: Path):
    result = run_script(machine(tmp_path, has=("make", "git", "curl", "java", "npm"), apt_fails=True), as_root="1")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "make test: apt-get could not install chromium fonts-noto-cjk faketime (see above)"
    )


def test_nothing_missing_is_silent(tmp_path: Path):
    bin_dir = machine(tmp_path, has=tuple(PROVIDES.values()))
    for as_root in ("0", "1"):
        result = run_script(bin_dir, as_root=as_root)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert apt_calls(tmp_path) == []


def test_run_needs_only_python(tmp_path: Path):
    bin_dir = machine(tmp_path, has=())
    assert run_script(bin_dir, "run", as_root="0").returncode == 0
    env = {"PATH": str(bin_dir), "PYTHON": str(tmp_path / "no-python"), "MESQ_PREREQ_AS_ROOT": "0"}
    result = subprocess.run(["bash", str(SCRIPT), "run"], env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"make run: missing Python >= 3.11 with venv ({tmp_path / 'no-python'}); "
        "install with: sudo apt-get install -y python3-venv (Debian/Ubuntu)"
    ]


def test_make_runs_it_first():
    """`make test` and `make run` start with the check, before the venv is built."""

    def dry(target: str) -> list[str]:
        # Under `make test` itself this runs in a sub-make, which would announce its directory.
        env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
        argv = ["make", "--no-print-directory", "-n", target]
        return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=True, env=env).stdout.splitlines()

    assert dry("test")[0].endswith("bash infra/prerequisites.sh test")
    assert dry("run")[0].endswith("bash infra/prerequisites.sh run")
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    commands = [line for line in ci if line.strip() and not line.startswith("#")]
    assert commands == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', 'export CI="${CI:-true}"', "make test"]
