"""The import direction of layers/core/mesq, read from the source with `ast` (imports inside
functions included, relative imports resolved), stated as layers of packages (a package or root
module that is in no layer fails the test, so a new one must be placed):

    runtime     asgi_apps, server, cli/, lambda_entry                    (what starts a process)
    edges       asgi (what the edges share), http, mcp, web, dav    (never one another)
    jobs        sweeper, reading_sync, attachment_cleanup
    wiring      config, services (the composition root)
    adapters    store, sealing, models, reading (the providers behind kernel/ports), outbound, ...
    application operations, validation, ratelimit
    domains     memos, todos, attachments, auth, calendar_feed, reading, reminders, search,
                store, history, archive (each package's rules; the providers left inside a
                domain package are named below)
    kernel      errors, values, messages, timestamps, pages, keys, tags, context, spec, ports, ...

A module imports its own floor or lower. Domains and the kernel never import the configuration,
the composition root, an edge, an adapter or a library adapter (boto3, httpx, Starlette, the MCP
SDK, sqlite3...): the named ADAPTER_MODULES are the providers still inside a domain package,
allowed their library and `mesq.adapters`; those under `mesq/adapters/` stand on the adapters
floor, which may import any library."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq"

#: Floors, lowest first: a module may import its own floor or a lower one.
LAYERS: dict[str, tuple[str, ...]] = {
    "kernel": ("kernel",),
    "domains": (
        "store", "auth", "attachments", "memos", "todos", "calendar_feed", "reading", "reminders",
        "search", "history", "archive", "imports",
    ),
    "application": ("application",),
    "adapters": ("adapters",),
    "wiring": ("wiring",),
    "jobs": ("jobs",),
    "edges": ("asgi", "http", "mcp", "web", "dav"),
    "runtime": ("runtime",),
}  # fmt: skip
#: Named imports up a floor: none since the ports moved to kernel/ports/ and the idempotency
#: records to store/ (issue 39); the rule is kept until the floors-only test replaces it.
SHARED_DOWN: dict[str, tuple[str, ...]] = {}
EDGES = LAYERS["edges"]
#: Provider modules that are adapters: each may import the library it wraps, and nothing in a
#: domain or the kernel imports them (only the composition root and the jobs pick them).
ADAPTER_MODULES: dict[str, tuple[str, ...]] = {
    "mesq.reminders.channels": ("httpx",),  # webhook URLs read with the sender's own parser
    "mesq.reminders.transport": ("httpx",),  # a send's client and its pinned POST
}
#: What the kernel and the domains must not import besides higher floors and adapter modules.
LIBRARY_ADAPTERS = (
    "starlette", "mcp", "mcp_types", "boto3", "botocore", "sqlite3", "httpx", "mangum", "uvicorn", "jinja2",
    "smtplib", "http_ece", "py_vapid",
)  # fmt: skip


def _module_name(path: Path) -> str:
    parts = ("mesq", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> Iterator[str]:
    """Every module `path` imports anywhere in its body; `from a import b` yields a and a.b (b may
    be a submodule)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    yield from _imports_in(path.read_text(encoding="utf-8"), package)


@functools.cache
def _imports_in(source: str, package: str) -> tuple[str, ...]:
    """The imports of one module's source (a pure function of the text and its package): the
    mutation tests below re-check a copy of the package in which one module differs, so every
    other module is parsed once per test process, not once per test."""
    return tuple(_parsed_imports(source, package))


def _parsed_imports(source: str, package: str) -> Iterator[str]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            yield origin
            yield from (f"{origin}.{alias.name}" for alias in node.names)


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _floor_of(module: str) -> str | None:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    return next((floor for floor, members in LAYERS.items() if top in members), None)


def _all_modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if path.relative_to(PACKAGE).parts[0] != "__init__.py")


def _is_adapter_import(name: str) -> bool:
    return _within(name, "mesq.adapters") or any(_within(name, adapter) for adapter in ADAPTER_MODULES)


def layer_violations() -> list[str]:
    floors = list(LAYERS)
    found = []
    for path in _all_modules():
        module = _module_name(path)
        floor = _floor_of(module)
        if floor is None:
            found.append(f"{module} is in no layer")
            continue
        low = floor in ("kernel", "domains")
        allowed_libraries = ADAPTER_MODULES.get(module, ())
        for name in sorted(set(imported_modules(path))):
            root = name.split(".")[0]
            if root in LIBRARY_ADAPTERS:
                if low and not any(_within(name, lib) for lib in allowed_libraries):
                    found.append(f"{module} imports {name}")
                continue
            if root != "mesq" or name == "mesq":
                continue
            target = _floor_of(name)
            if target is None:
                continue  # a name inside mesq/__init__ (none today)
            provider_helper = module in ADAPTER_MODULES and target == "adapters"  # a provider module is an adapter
            shared = SHARED_DOWN.get(floor, ())  # `from ..application import idempotency` also yields the package
            if (
                floors.index(target) > floors.index(floor)
                and not provider_helper
                and not any(_within(name, item) or item.startswith(name + ".") for item in shared)
            ):
                found.append(f"{module} ({floor}) imports {name} ({target})")
            elif low and _is_adapter_import(name) and module not in ADAPTER_MODULES:
                found.append(f"{module} imports the adapter {name}")
    return found


def test_every_module_is_in_a_layer_and_imports_only_its_floor_or_lower():
    assert layer_violations() == []


def test_edges_do_not_import_one_another():
    """What they share lives in mesq/asgi; only the runtime (mesq/runtime/app_factories.py) puts them side by side."""
    found = []
    for edge in EDGES:
        if edge == "asgi":
            continue
        others = tuple(f"mesq.{other}" for other in EDGES if other not in (edge, "asgi"))
        for path in sorted((PACKAGE / edge).rglob("*.py")):
            found += [f"{_module_name(path)} imports {name}" for name in sorted(set(imported_modules(path)))
                      if any(_within(name, other) for other in others)]  # fmt: skip
    assert found == []


@pytest.mark.parametrize(
    ("module_path", "line"),
    [
        ("memos/writes.py", "import boto3"),
        ("search/pipeline.py", "import httpx"),
        ("reading/sync.py", "from starlette.responses import Response"),
        ("todos/writes.py", "from ..wiring.config import Settings"),
        ("reminders/channels.py", "from ..wiring.services import build_sealer"),
        ("kernel/ports/sealer.py", "from ...adapters.sealing.kms import KmsEnvelopeSealer"),
        ("kernel/context.py", "from ..search import pipeline"),
        ("memos/reads.py", "from ..adapters.outbound import guarded_client"),
        ("kernel/errors.py", "from ..application import invocation"),
        ("http/app.py", "from ..web import web_routes"),
    ],
)
def test_the_rules_fail_when_a_domain_module_imports_what_it_must_not(tmp_path, monkeypatch, module_path, line):
    """Mutation: copy the package, add one forbidden import to one module, and the checks name it."""
    import shutil

    copy = tmp_path / "mesq"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "static", "templates"))
    target = copy / module_path
    target.write_text(target.read_text(encoding="utf-8") + f"\n\ndef _mutant():\n    {line}\n", encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", copy)
    module = _module_name(target)
    found = layer_violations()
    if module.startswith("mesq.http"):
        with pytest.raises(AssertionError):
            test_edges_do_not_import_one_another()
    else:
        assert [violation for violation in found if violation.startswith(module + " ")], found


@pytest.mark.parametrize(
    ("source", "module_path", "expected"),
    [
        ("from ..http.body import read", "memos/x.py", "mesq.http.body"),
        ("from ...wiring.config import Settings", "auth/oauth/x.py", "mesq.wiring.config"),
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
