"""Pinned npm packages for tests that check MeSQ against JavaScript tools (Ajv, the JSON Schema
validator JS MCP hosts use; axe-core, the accessibility engine the browser-page check injects).

`ensure_npm_packages` installs the pinned versions under `<repo>/.cache/node-tools/` on first
use (`npm install --prefix`, like infra/dynamodb_local.py) and returns the `node_modules` folder
to put on `NODE_PATH`. Several test processes may start at once: one installs, the others wait.

From a shell::

    python infra/node_tools.py          # install (if needed) and print the node_modules path
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CACHE_DIR = REPO_ROOT / ".cache" / "node-tools"
#: What the MCP TypeScript SDK's default validator is built from (`ajv` + `ajv-formats`).
AJV_PACKAGES: Mapping[str, str] = {"ajv": "8.20.0", "ajv-formats": "3.0.1"}
#: Deque's accessibility rules engine (tests/web/kit/test_accessibility.py runs it in Chromium).
AXE_PACKAGES: Mapping[str, str] = {"axe-core": "4.14.1"}
INSTALL_TIMEOUT_S = 600.0


class NodeToolsUnavailable(RuntimeError):
    """node or npm is missing, or the packages could not be installed."""


def _installed_version(node_modules: Path, name: str) -> str | None:
    try:
        version = json.loads((node_modules / name / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version if isinstance(version, str) else None


def _all_installed(node_modules: Path, packages: Mapping[str, str]) -> bool:
    return all(_installed_version(node_modules, name) == version for name, version in packages.items())


def ensure_npm_packages(packages: Mapping[str, str] = AJV_PACKAGES, cache_dir: Path = DEFAULT_CACHE_DIR) -> Path:
    """Install `packages` ({name: exact version}) into `cache_dir` unless they are there; return
    its `node_modules`."""
    node_modules = cache_dir / "node_modules"
    if _all_installed(node_modules, packages):
        return node_modules
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _all_installed(node_modules, packages):
            return node_modules
        npm = shutil.which("npm")
        if npm is None:
            raise NodeToolsUnavailable(f"npm is not installed; it is needed to fetch {', '.join(packages)}")
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--prefix",
            str(cache_dir),
            *(f"{name}@{version}" for name, version in packages.items()),
        ]
        try:
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise NodeToolsUnavailable(f"`{' '.join(cmd)}` failed: {exc}") from exc
        if result.returncode != 0:
            raise NodeToolsUnavailable(f"`{' '.join(cmd)}` exited {result.returncode}:\n{result.stderr[-4000:]}")
        if not _all_installed(node_modules, packages):
            raise NodeToolsUnavailable(f"npm finished but {dict(packages)} are not all under {node_modules}")
        return node_modules


def node_executable() -> str:
    node = shutil.which("node")
    if node is None:
        raise NodeToolsUnavailable("node is not installed")
    return node


if __name__ == "__main__":
    try:
        print(ensure_npm_packages())
    except NodeToolsUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
