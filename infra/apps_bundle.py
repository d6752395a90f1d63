"""Bundle the official MCP Apps SDK (`@modelcontextprotocol/ext-apps`) for the `ui://mesq/...` views.

The views (layers/core/mesq/mcp/views/) talk to the host through the SDK's `App` class. The SDK is
an npm package (ES modules, with `@modelcontextprotocol/client`, `core` and `zod` under it), and a
view is one self-contained HTML document, so esbuild bundles it into one minified IIFE that sets the
global `McpExtApps`: `layers/core/mesq/mcp/views/ext-apps.js`. That file is committed, so `make run`
needs no Node; tests/e2e/test_apps_bundle.py rebuilds it and compares byte for byte.

Reproducible: the exact versions are in infra/apps/package.json and its package-lock.json
(integrity hashes), installed with `npm ci --ignore-scripts` under `<repo>/.cache/apps-bundle/`
(reinstalled when the lock changes); esbuild's output depends only on its version, its flags and
its input. The test host's `AppBridge` (the SDK's host side, never shipped) is bundled the same way
into the cache.

From a shell::

    python infra/apps_bundle.py            # rebuild views/ext-apps.js
    python infra/apps_bundle.py --check    # exit 1 if the committed bundle differs from a rebuild
    python infra/apps_bundle.py --host     # build the test host's AppBridge bundle, print its path
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SPEC_DIR = REPO_ROOT / "infra" / "apps"
DEFAULT_CACHE_DIR = REPO_ROOT / ".cache" / "apps-bundle"
VIEW_BUNDLE = REPO_ROOT / "layers" / "core" / "mesq" / "mcp" / "views" / "ext-apps.js"
VIEW_ENTRY, VIEW_GLOBAL = "view-entry.js", "McpExtApps"
HOST_ENTRY, HOST_GLOBAL, HOST_BUNDLE_NAME = "host-entry.js", "McpExtAppsHost", "app-bridge.js"
ENTRY_SOURCES = (VIEW_ENTRY, HOST_ENTRY, "jitless.js")
#: What ends up in the view bundle, named with its installed version and licence in the header.
BUNDLED = ("@modelcontextprotocol/ext-apps", "@modelcontextprotocol/client", "@modelcontextprotocol/core", "zod")
#: Browsers every MCP Apps host embeds support ES2020; the flags are part of the reproducible output.
ESBUILD_FLAGS = ("--bundle", "--format=iife", "--minify", "--target=es2020", "--legal-comments=none")
INSTALL_TIMEOUT_S = 600.0
BUILD_TIMEOUT_S = 120.0


class AppsBundleUnavailable(RuntimeError):
    """node or npm is missing, or the install or the build failed."""


def _lock_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((SPEC_DIR / name).read_bytes())
    return digest.hexdigest()


def ensure_toolchain(cache_dir: Path = DEFAULT_CACHE_DIR) -> Path:
    """`npm ci` the locked packages into `cache_dir` unless that lock is installed; return the folder.
    Several test processes may start at once: one installs, the others wait."""
    marker = cache_dir / ".installed-lock"
    digest = _lock_digest()
    if marker.is_file() and marker.read_text() == digest:
        return cache_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file() and marker.read_text() == digest:
            return cache_dir
        npm = shutil.which("npm")
        if npm is None:
            raise AppsBundleUnavailable("npm is not installed; it is needed to fetch @modelcontextprotocol/ext-apps")
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SPEC_DIR / name, cache_dir / name)
        # No install scripts: esbuild's postinstall only checks its binary, which the locked
        # platform package (@esbuild/linux-x64 here) already carries.
        cmd = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
        try:
            result = subprocess.run(
                cmd, cwd=cache_dir, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AppsBundleUnavailable(f"`{' '.join(cmd)}` failed: {exc}") from exc
        if result.returncode != 0:
            raise AppsBundleUnavailable(f"`{' '.join(cmd)}` exited {result.returncode}:\n{result.stderr[:2000]}")
        marker.write_text(digest)
        return cache_dir


def _version(cache_dir: Path, package: str) -> tuple[str, str]:
    meta = json.loads((cache_dir / "node_modules" / package / "package.json").read_text())
    return str(meta["version"]), str(meta.get("license", "see its package.json"))


def _esbuild(cache_dir: Path, entry: str, global_name: str) -> str:
    node = shutil.which("node")
    if node is None:
        raise AppsBundleUnavailable("node is not installed; it runs esbuild")
    cli = cache_dir / "node_modules" / "esbuild" / "bin" / "esbuild"
    # The entries sit beside node_modules so the packages resolve; copied at each build (tiny).
    for source in ENTRY_SOURCES:
        shutil.copyfile(SPEC_DIR / source, cache_dir / source)
    cmd = [node, str(cli), entry, *ESBUILD_FLAGS, f"--global-name={global_name}", "--log-level=warning"]
    try:
        result = subprocess.run(
            cmd, cwd=cache_dir, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AppsBundleUnavailable(f"esbuild failed: {exc}") from exc
    if result.returncode != 0 or result.stderr.strip():
        raise AppsBundleUnavailable(f"esbuild exited {result.returncode}:\n{result.stderr[-4000:]}")
    return result.stdout


def _check_inlinable(code: str) -> None:
    """The bundle is inlined in a <script> element (mesq/mcp/mcp_apps.py): nothing may end it early."""
    lowered = code.lower()
    for token in ("</script", "<!--", "<script"):
        if token in lowered:
            raise AppsBundleUnavailable(f"the bundle contains {token!r}, which would break its inline <script>")


def build_view_bundle(cache_dir: Path = DEFAULT_CACHE_DIR) -> str:
    """The text of views/ext-apps.js: a header naming what is bundled, then esbuild's IIFE."""
    cache_dir = ensure_toolchain(cache_dir)
    code = _esbuild(cache_dir, VIEW_ENTRY, VIEW_GLOBAL)
    _check_inlinable(code)
    parts = ", ".join(f"{name} {version} ({licence})" for name, (version, licence) in
                      ((name, _version(cache_dir, name)) for name in BUNDLED))  # fmt: skip
    esbuild_version = _version(cache_dir, "esbuild")[0]
    header = (
        f"/* {VIEW_GLOBAL} = {{App, PostMessageTransport}} from the MCP Apps SDK: {parts}.\n"
        f"   Bundled by infra/apps_bundle.py (esbuild {esbuild_version}, {' '.join(ESBUILD_FLAGS)}) from the\n"
        "   versions locked in infra/apps/package-lock.json. Generated: do not edit; rebuild instead. */\n"
    )
    return header + code


def host_bundle(cache_dir: Path = DEFAULT_CACHE_DIR) -> Path:
    """The SDK's `AppBridge` for test host pages, bundled under `cache_dir` (rebuilt each call: fast)."""
    cache_dir = ensure_toolchain(cache_dir)
    out = cache_dir / HOST_BUNDLE_NAME
    code = _esbuild(cache_dir, HOST_ENTRY, HOST_GLOBAL)
    _check_inlinable(code)
    tmp = out.with_suffix(f".{id(code)}.tmp")
    tmp.write_text(code, encoding="utf-8")
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare a rebuild with the committed bundle")
    parser.add_argument("--host", action="store_true", help="build the test host's AppBridge bundle")
    args = parser.parse_args(argv)
    try:
        if args.host:
            print(host_bundle())
            return 0
        text = build_view_bundle()
    except AppsBundleUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.check:
        same = VIEW_BUNDLE.is_file() and VIEW_BUNDLE.read_text(encoding="utf-8") == text
        print(f"{VIEW_BUNDLE.relative_to(REPO_ROOT)}: {'up to date' if same else 'differs from a rebuild'}")
        return 0 if same else 1
    VIEW_BUNDLE.write_text(text, encoding="utf-8")
    print(f"wrote {VIEW_BUNDLE.relative_to(REPO_ROOT)} ({len(text.encode('utf-8'))} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
