"""The shape of mesq/web (issue 25): the pages live in subpackages over one kit, with no import
cycle between the modules and no import inside a function used to hide one. Read from the source
with `ast`, imports inside functions included, relative imports resolved."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq" / "web"
SUBPACKAGES = {"kit", "activity", "memos", "todos", "reading", "settings"}
#: The kit's one import from a page package: the list of settings pages, data the header's
#: Settings bar (base.html, a Jinja global set in kit/render.py) shows on every page.
KIT_UPWARD = {"mesq.web.settings.pages"}


def _module_name(path: Path, root: Path = WEB) -> str:
    parts = ("mesq", "web", *path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _web_modules(root: Path = WEB) -> dict[str, Path]:
    return {_module_name(path, root): path for path in sorted(root.rglob("*.py")) if path.name != "__init__.py"}


def _imports(path: Path, known: set[str], root: Path = WEB) -> Iterator[tuple[str, bool]]:
    """(web module imported, inside a function?) for every import in `path`; `from a import b`
    counts a.b when b is a module, else a."""
    module = _module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    nested = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
    }
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            source = ".".join([*base, node.module] if node.module else base) if node.level else node.module or ""
            names = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source for alias in node.names]
        for name in names:
            if name in known:
                yield name, id(node) in nested


def import_graph(root: Path = WEB) -> dict[str, set[str]]:
    modules = _web_modules(root)
    return {name: {target for target, _ in _imports(path, set(modules), root)} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle (each once, from its smallest module), by depth-first search."""
    found: set[tuple[str, ...]] = set()

    def visit(node: str, trail: list[str]) -> None:
        for target in sorted(graph.get(node, ())):
            if target in trail:
                cycle = trail[trail.index(target) :]
                start = cycle.index(min(cycle))
                found.add(tuple(cycle[start:] + cycle[:start]))
            elif target > trail[0]:  # each cycle is found from its smallest module only
                visit(target, [*trail, target])

    for start in sorted(graph):
        visit(start, [start])
    return [list(cycle) for cycle in sorted(found)]


def test_the_web_modules_import_one_another_without_a_cycle():
    assert cycles(import_graph()) == []


def test_no_web_module_imports_another_inside_a_function():
    """A function-level import is how a cycle hides; web/__init__.py (not a module here) is the
    one place that defers the page modules, for start-up cost only."""
    modules = _web_modules()
    lazy = [f"{name} imports {target} in a function" for name, path in modules.items()
            for target, nested in _imports(path, set(modules)) if nested]  # fmt: skip
    assert lazy == []


def test_the_pages_live_in_subpackages_over_the_kit():
    assert {path.name for path in WEB.glob("*.py")} == {"__init__.py"}
    assert {path.parent.name for path in WEB.glob("*/__init__.py")} == SUBPACKAGES
    graph = import_graph()
    upward = {target for name, targets in graph.items() if name.startswith("mesq.web.kit.")
              for target in targets if not target.startswith("mesq.web.kit.")}  # fmt: skip
    assert upward == KIT_UPWARD


def test_the_checks_can_fail(tmp_path):
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "x.py").write_text("def f():\n    from . import y\n", encoding="utf-8")
    (tmp_path / "kit" / "y.py").write_text("from .x import f\n", encoding="utf-8")
    assert cycles(import_graph(tmp_path)) == [["mesq.web.kit.x", "mesq.web.kit.y"]]
    assert list(_imports(tmp_path / "kit" / "x.py", {"mesq.web.kit.y"}, tmp_path)) == [("mesq.web.kit.y", True)]
