"""views/ext-apps.js (the official MCP Apps SDK's `App`, bundled by infra/apps_bundle.py) is what
the locked versions build: the test reinstalls them with `npm ci` under .cache/, rebuilds with the
pinned esbuild and compares byte for byte with the committed file, so the committed bundle can
neither drift from infra/apps/package-lock.json nor be edited by hand."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parents[2]


def apps_bundle() -> ModuleType:
    """infra/apps_bundle.py as a module (infra/ is scripts, not a package)."""
    name = "mesq_infra_apps_bundle"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "infra" / "apps_bundle.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_committed_bundle_is_what_the_locked_sdk_builds():
    bundle = apps_bundle()
    committed = bundle.VIEW_BUNDLE.read_text(encoding="utf-8")
    rebuilt = bundle.build_view_bundle()
    assert rebuilt == committed, "views/ext-apps.js differs from a rebuild: run `python infra/apps_bundle.py`"


def test_bundle_names_the_pinned_sdk_and_runs_nothing_from_strings():
    bundle = apps_bundle()
    pinned = json.loads((bundle.SPEC_DIR / "package.json").read_text())["dependencies"]
    text = bundle.VIEW_BUNDLE.read_text(encoding="utf-8")
    header = text.split("*/", 1)[0]
    assert f"@modelcontextprotocol/ext-apps {pinned['@modelcontextprotocol/ext-apps']}" in header
    assert f"esbuild {pinned['esbuild']}" in header
    # No eval; zod's JIT (`new Function`) stays off: the SDK's App sets `jitless` unless told
    # otherwise, and the views' CSP has no 'unsafe-eval' (the browser test sees no violation).
    assert "eval(" not in text
    assert "allowUnsafeEval&&" in text and "jitless:!0" in text
