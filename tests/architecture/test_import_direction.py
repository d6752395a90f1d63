"""The import direction of layers/core/mesq, read from the source with `ast` (imports inside
functions included, relative imports resolved), stated as floors of packages, lowest first:

    kernel          errors, values, keys, context, recorded, addresses, ports/ ...
    store           the helpers over the storage port (paging, idempotency, item rules)
    auth, attachments
    history, search the engines the domains plug into (change records and undo; the indexes)
    memos, todos, reading, reminders                   the domains
    calendar_feed, archive                             what reads the domains as a whole
    imports         other apps' exports, read through the archive's bounded ZIP reader
    application     the registries (operations, reverters, searchables), invocation, validation
    adapters        the providers behind kernel/ports, and the library clients
    wiring          config, services (the composition root)
    jobs            sweeper, reading_sync, reminder_tick, attachment_cleanup
    asgi            what the edges share
    http, mcp, web, dav                                the edges
    runtime         asgi apps, server, cli/, lambda_entry (what starts a process)

A module imports its own package or a package on a lower floor: never a package on its own floor
(the edges never import one another), never one above. A package that is on no floor fails the
test, so a new one must be placed. The libraries follow the floors too: a library adapter
(boto3, botocore, sqlite3, smtplib, aiosmtpd, pywebpush, http_ece, py_vapid) is imported only
under `adapters/`, an httpx client is constructed only there, and a web framework (Starlette,
the MCP SDK, Mangum, uvicorn, Jinja) only from the `asgi` floor up. And the package graph, every
import counted, is a DAG (`test_the_package_graph_has_no_cycle`)."""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq"
#: Module sources the mutation tests change (path -> text), read instead of the file.
MUTATED: dict[Path, str] = {}

#: Floors, lowest first: a module may import its own package or a package on a lower floor.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("kernel",),
    ("store",),
    ("auth", "attachments"),
    ("history", "search"),
    ("memos", "todos", "reading", "reminders"),
    ("calendar_feed", "archive"),
    ("imports",),
    ("application",),
    ("adapters",),
    ("wiring",),
    ("jobs",),
    ("asgi",),
    ("http", "mcp", "web", "dav"),
    ("runtime",),
)
#: Libraries that are adapters themselves: only a module under mesq/adapters imports them.
LIBRARY_ADAPTERS = ("boto3", "botocore", "sqlite3", "smtplib", "aiosmtpd", "pywebpush", "http_ece", "py_vapid")
#: What constructs an httpx client (the pooled connections, redirects, proxies, TLS of a request).
HTTPX_CLIENTS = ("Client", "AsyncClient", "HTTPTransport", "AsyncHTTPTransport")
#: Web frameworks: only from the floor of what the edges share up.
WEB_FRAMEWORKS = ("starlette", "mcp", "mcp_types", "mangum", "uvicorn", "jinja2")
FIRST_WEB_FLOOR = ("asgi",)


def _module_name(path: Path) -> str:
    parts = ("mesq", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> Iterator[str]:
    """Every module `path` imports anywhere in its body; `from a import b` yields a and a.b (b may
    be a submodule)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    yield from _imports_in(_source(path), package)


def _source(path: Path) -> str:
    return MUTATED[path] if path in MUTATED else path.read_text(encoding="utf-8")


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


@functools.cache
def _httpx_clients_in(source: str) -> tuple[str, ...]:
    """The httpx client constructors one module's source calls: `httpx.AsyncClient(...)`, or the
    name imported from httpx and called."""
    tree = ast.parse(source)
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "httpx"
        for alias in node.names
        if alias.name in HTTPX_CLIENTS
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in HTTPX_CLIENTS:
            if isinstance(function.value, ast.Name) and function.value.id == "httpx":
                found.append(f"httpx.{function.attr}")
        elif isinstance(function, ast.Name) and function.id in imported:
            found.append(f"httpx.{function.id}")
    return tuple(found)


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _floor_of(package: str) -> int | None:
    return next((index for index, floor in enumerate(FLOORS) if package in floor), None)


def _all_modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if path.relative_to(PACKAGE).parts[0] != "__init__.py")


@functools.cache
def _packages(root: Path) -> frozenset[str]:
    return frozenset(path.name for path in root.iterdir() if path.is_dir())


def _mesq_imports(module: str, names: set[str]) -> Iterator[str]:
    """The names in other mesq packages among a module's imports (names of mesq/__init__ left out)."""
    own, packages = _package_of(module), _packages(PACKAGE)
    for name in names:
        if name.startswith("mesq.") and _package_of(name) in packages and _package_of(name) != own:
            yield name


def layer_violations() -> list[str]:
    found = []
    web_floor = _floor_of(FIRST_WEB_FLOOR[0])
    for path in _all_modules():
        module = _module_name(path)
        floor = _floor_of(_package_of(module))
        if floor is None:
            found.append(f"{module} is on no floor")
            continue
        adapter = _within(module, "mesq.adapters")
        names = set(imported_modules(path))
        for name in sorted(names):
            root = name.split(".")[0]
            if root in LIBRARY_ADAPTERS and not adapter:
                found.append(f"{module} imports the library adapter {name} (only mesq/adapters may)")
            if root in WEB_FRAMEWORKS and web_floor is not None and floor < web_floor:
                found.append(f"{module} imports the web framework {name} (below the edges)")
        for name in sorted(set(_mesq_imports(module, names))):
            target = _floor_of(_package_of(name))
            if target is not None and target >= floor:
                where = "its own floor" if target == floor else "a higher floor"
                found.append(f"{module} imports {name} ({where})")
        if not adapter:
            clients = _httpx_clients_in(_source(path))
            found += [f"{module} constructs {client} (only mesq/adapters may)" for client in clients]
    return found


def package_graph() -> dict[str, set[str]]:
    """Package -> the packages its modules import, anywhere in their bodies."""
    graph: dict[str, set[str]] = defaultdict(set)
    for path in _all_modules():
        module = _module_name(path)
        graph[_package_of(module)].update(
            _package_of(name) for name in _mesq_imports(module, set(imported_modules(path)))
        )
    return graph


def package_cycles() -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan), each sorted."""
    graph = package_graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_every_module_is_on_a_floor_and_imports_only_lower_floors():
    assert layer_violations() == []


def test_the_package_graph_has_no_cycle():
    """Counting the imports inside functions: a cycle hidden in a late import is still a cycle."""
    assert package_cycles() == []


def test_every_package_is_on_exactly_one_floor():
    packages = {path.name for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    placed = [package for floor in FLOORS for package in floor]
    assert sorted(placed) == sorted(set(placed)) and set(placed) == packages


def _mutant(monkeypatch: pytest.MonkeyPatch, module_path: str, line: str) -> str:
    """The package with `line` added to `module_path` inside a function (read from `MUTATED`, the
    file untouched); the module's name."""
    target = PACKAGE / module_path
    monkeypatch.setitem(MUTATED, target, target.read_text(encoding="utf-8") + f"\n\ndef _mutant():\n    {line}\n")
    return _module_name(target)


@pytest.mark.parametrize(
    ("module_path", "line"),
    [
        ("memos/writes.py", "import boto3"),
        ("search/pipeline.py", "import sqlite3"),
        ("reading/sync.py", "from starlette.responses import Response"),
        ("application/invocation.py", "import jinja2"),
        ("todos/writes.py", "from ..wiring.config import Settings"),
        ("reminders/channels.py", "from ..wiring.services import build_sealer"),
        ("kernel/ports/sealer.py", "from ...adapters.sealing.kms import KmsEnvelopeSealer"),
        ("kernel/context.py", "from ..search import pipeline"),
        ("memos/reads.py", "from ..adapters.outbound import pinned_client"),
        ("kernel/errors.py", "from ..application import invocation"),
        ("http/app.py", "from ..web import web_routes"),  # an edge importing another edge
        ("todos/board/tasks.py", "from ...memos import writes"),  # a domain importing another
        ("history/undo.py", "from ..todos.revert import REVERTERS"),  # the engine reaching up again
        ("reminders/transport.py", "return httpx.AsyncClient()"),
        ("http/cimd.py", "from httpx import AsyncClient as Made; Made()"),
    ],
)
def test_the_floors_fail_when_a_module_imports_what_it_must_not(monkeypatch, module_path, line):
    """Mutation: add one forbidden import (inside a function) to one module, and the check names
    that module."""
    module = _mutant(monkeypatch, module_path, line)
    found = layer_violations()
    assert [violation for violation in found if violation.startswith(module + " ")], found


@pytest.mark.parametrize(
    ("module_path", "line", "cycle"),
    [
        # The undo engine importing a domain's writes (as history/undo.py did before the reverters):
        # todos imports history (its change records), so history -> todos closes a cycle.
        ("history/undo.py", "from ..todos import writes", ["history", "todos"]),
        # The search engine reading a domain's keys: the domains import search.
        ("search/indexer.py", "from ..memos.keys import MEMO_PREFIX", ["memos", "search"]),
        # The reminders importing the outbound client again: the reminder senders in adapters import them.
        ("reminders/transport.py", "from ..adapters.outbound import tls_context", ["adapters", "reminders"]),
    ],
)
def test_the_cycle_check_fails_on_a_function_level_import_that_closes_a_cycle(monkeypatch, module_path, line, cycle):
    _mutant(monkeypatch, module_path, line)
    cycles = package_cycles()
    assert any(set(cycle) <= set(found) for found in cycles), cycles


def test_todos_reaching_the_undo_engine_is_no_cycle_any_more(monkeypatch):
    """The issue's mutation case: a function-level `from ..history import undo` in todos/writes.py
    closed the {history, todos} cycle while history/undo.py imported the todo writes. The engine
    now takes a reverter per kind (todos/revert.py, through application/registries.py), so this
    import points down (todos/board/batch.py makes it) and only its mirror above closes a cycle."""
    _mutant(monkeypatch, "todos/writes.py", "from ..history import undo")
    assert package_cycles() == [] and "todos" not in package_graph()["history"]


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
