"""The import direction of layers/core/mesq, read from the source with `ast` (imports inside
functions included, relative imports resolved):

- the domain packages never import an adapter, a concrete store, the configuration, the
  composition root or a library adapter;
- the adapters (REST, MCP, pages) never import one another: what they share lives in mesq/asgi,
  and only the composition root (mesq/apps.py) puts them side by side."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq"

DOMAINS = ("memos", "todos", "attachments", "auth")
ADAPTERS = ("http", "mcp", "web")
#: What a domain module must not import: MeSQ's adapters, concrete stores, configuration and
#: wiring, and the libraries those adapters wrap.
DOMAIN_FORBIDDEN = (
    "mesq.http", "mesq.asgi", "mesq.mcp", "mesq.web", "mesq.store.sqlite", "mesq.store.dynamodb",
    "mesq.store.blobs_local", "mesq.store.blobs_s3", "mesq.config", "mesq.services", "mesq.apps",
    "mesq.server", "mesq.cli", "mesq.lambda_entry",
    "starlette", "mcp", "mcp_types", "boto3", "botocore", "sqlite3", "mangum", "uvicorn", "jinja2",
)  # fmt: skip


def _module_name(path: Path) -> str:
    parts = ("mesq", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> Iterator[str]:
    """Every module `path` imports anywhere in its body; `from a import b` yields a and a.b (b may
    be a submodule)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            yield source
            yield from (f"{source}.{alias.name}" for alias in node.names)


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _modules(package: str) -> list[Path]:
    return sorted((PACKAGE / package).rglob("*.py"))


def _violations(packages: tuple[str, ...], forbidden_for: dict[str, tuple[str, ...]]) -> list[str]:
    found = []
    for package in packages:
        for path in _modules(package):
            for name in sorted(set(imported_modules(path))):
                if any(_within(name, bad) for bad in forbidden_for[package]):
                    found.append(f"{_module_name(path)} imports {name}")
    return found


def test_domain_packages_import_no_adapter_store_config_or_library_adapter():
    assert _violations(DOMAINS, dict.fromkeys(DOMAINS, DOMAIN_FORBIDDEN)) == []


def test_adapters_do_not_import_one_another():
    others = {adapter: tuple(f"mesq.{other}" for other in ADAPTERS if other != adapter) for adapter in ADAPTERS}
    assert _violations(ADAPTERS, others) == []


@pytest.mark.parametrize(
    ("source", "module_path", "expected"),
    [
        ("from ..http.body import read", "memos/x.py", "mesq.http.body"),
        ("from ...config import Settings", "auth/oauth/x.py", "mesq.config"),
        ("def f():\n    from ..web import web_routes", "http/x.py", "mesq.web.web_routes"),
        ("from .. import mcp", "todos/x.py", "mesq.mcp"),
        ("import boto3.session", "attachments/x.py", "boto3.session"),
        ("from . import keys", "auth/__init__.py", "mesq.auth.keys"),
    ],
)
def test_imports_are_found_everywhere_and_resolved(tmp_path, monkeypatch, source, module_path, expected):
    """The checker sees what the rules need: relative imports at any depth, function-level ones."""
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", tmp_path)
    path = tmp_path / module_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    assert expected in set(imported_modules(path))
