"""A clean clone stands on its own (docs/contract.md §16): the committed HEAD, cloned into a
directory with nothing beside it, runs the user documentation's curl examples green with its own
code, so no test can lean on a file outside the tree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=120).stdout


def test_a_clone_runs_the_seed_examples_with_nothing_beside_it(tmp_path: Path):
    head = git("rev-parse", "HEAD").strip()
    clone = tmp_path / "clone"
    git("clone", "--quiet", "--no-hardlinks", str(REPO), str(clone))
    git("checkout", "--quiet", "--detach", head, cwd=clone)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["clone"]  # no sibling shared/, nothing else
    assert not (clone / ".venv").exists() and not (clone / ".cache").exists()

    env = {**os.environ, "PYTHONPATH": str(clone / "layers" / "core")}
    env.pop("PYTEST_ADDOPTS", None)
    where = subprocess.run(
        [sys.executable, "-c", "import mesq, tests.conftest as c; print(mesq.__file__); print(c.REPO)"],
        cwd=clone, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    package, repo = where.stdout.splitlines()
    assert Path(package).is_relative_to(clone) and Path(repo) == clone  # the clone's code, not this tree's

    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "tests/e2e/test_rest_seed_examples.py::test_seed_curl_examples_work_as_written"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "1 passed" in result.stdout
