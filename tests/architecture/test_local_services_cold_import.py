"""Building the local services (what every `mesq` CLI command and `mesq serve` do first) loads no
search engine: the index packages (numpy, bm25s, jieba: ~0.9 s and ~60 MB here) are imported on
the first index update or search, not at construction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEARCH_PACKAGES = ("numpy", "scipy", "bm25s", "jieba", "torch", "sentence_transformers")
SCRIPT = """
import json, sys
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services
services = build_services(Settings.from_env({"MESQ_DATA_DIR": sys.argv[1]}))
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in sys.argv[2].split(","))))
"""


def test_local_services_load_no_search_engine(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO / "layers" / "core")}
    env.pop("MESQ_STORAGE", None)
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "data"), ",".join(SEARCH_PACKAGES)],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


IMPORT_SCRIPT = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
watched = set(sys.argv[2].split(","))
print(json.dumps(sorted(m for m in sys.modules if m in watched or m.split(".")[0] in watched)))
"""


def _loaded_by(module: str, watched: tuple[str, ...]) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "layers" / "core")}
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_SCRIPT, module, ",".join(watched)],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def test_the_pointer_predicates_stay_light() -> None:
    """search/pointers.py is imported at cold start by the literal indexes and the warm-up; its
    predicates (same_model, same_tokens) serve a search before it knows it needs an engine."""
    assert _loaded_by("mesq.search.pointers", (*SEARCH_PACKAGES, "mesq.search.tokenizer")) == []
    assert _loaded_by("mesq.application.search_operations", SEARCH_PACKAGES) == []
