"""The registries above the domains: what each domain plugs into the engines below it, gathered
in one place (docs/architecture.md, "Adding a searchable, undoable kind").

- `OPERATIONS`: operationId -> the plain function that implements it (application/invocation.py
  dispatches through it; `check_registry` ties it to the OpenAPI document);
- `REVERTERS` (history_operations.py): record kind -> its domain's reverter (`revert.py`), the
  undo engine's (history/undo.py) way back for each kind of change record; `UNDO_KINDS` there adds
  each kind's current revisions (a dry run) and the finishers of a whole run's or session's undo;
- `SEARCHABLES`: what the search indexes hold of each domain (`literal.py`: its literal index
  kind and its AI-index documents), set on the process's search runtime by the composition root.

**Loaded on first use.** A cold start imports none of the domains: `IMPLEMENTATIONS` says which
modules implement the operations each spec file defines (`Spec.sources`: `memos/openapi.yaml`
-> `mesq.memos.reads`, `mesq.memos.writes`), and `OPERATIONS` imports a file's modules, in that
order and up to the one that has it, on the first call of one of its operations (a `get_memo`
loads the memo reads; the memo writes and the history they record come with the first write; the
todo board, the undo engine, the search pipeline and the reading sync with theirs). The names are known
without importing anything, so `check_registry` still fails a start whose spec has an operation
no module is named for; that each named module really exports each of its file's operations is
`OperationRegistry.verify` (the tests, and `prepare_at_init` where init runs ahead of requests).

A domain's change records come from its `changes.py` (through history/change_op.py), so a new
searchable, undoable kind is its package's `changes.py`, `revert.py` and `literal.py`, and its
line in each table here.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ..kernel.context import Call
from ..kernel.messages import quoted
from ..kernel.spec import Spec, SpecError, load_spec

if TYPE_CHECKING:
    from ..search.searchables import Searchables

OperationFn = Callable[[Call, dict[str, Any]], dict[str, Any]]

#: Each spec file -> the modules whose `OPERATIONS` implement the operations it defines.
IMPLEMENTATIONS: Mapping[str, tuple[str, ...]] = {
    "memos/openapi.yaml": ("mesq.memos.reads", "mesq.memos.writes"),
    "attachments/openapi.yaml": ("mesq.attachments.operations", "mesq.memos.reads"),
    "attachments/todo.openapi.yaml": ("mesq.attachments.operations",),
    "todos/openapi.yaml": ("mesq.todos.board.operation_table",),
    "todos/reminders.openapi.yaml": ("mesq.todos.board.operation_table",),
    "todos/inbox.openapi.yaml": ("mesq.todos.inbox.operations",),
    "todos/views.openapi.yaml": ("mesq.todos.views.operations",),
    "todos/sync.openapi.yaml": ("mesq.todos.sync.operations",),
    "reading/openapi.yaml": ("mesq.reading.operations",),
    "search/openapi.yaml": ("mesq.application.search_operations",),
    "history/openapi.yaml": ("mesq.application.history_operations",),
}


class OperationRegistry(MutableMapping[str, OperationFn]):
    """operationId -> its function, imported on first access (see the module's docstring).

    `registry[name]` imports what implements `name` (once) and returns the function; `lazy(name)`
    returns a function that does so on its first call (the MCP catalog's tools, built at start).
    Setting an entry replaces it (tests stand a function in for an operation)."""

    def __init__(self, spec: Callable[[], Spec], implementations: Mapping[str, tuple[str, ...]]) -> None:
        self._spec = spec
        self._implementations = implementations
        self._loaded: dict[str, OperationFn] = {}
        self._replaced: dict[str, OperationFn] = {}
        self._removed: set[str] = set()
        self._lock = threading.Lock()
        self._by_source: tuple[Spec, dict[str, str]] | None = None

    def _sources(self) -> dict[str, str]:
        """operationId -> its spec file, for the operations some module is named for (once per spec)."""
        spec = self._spec()
        if self._by_source is None or self._by_source[0] is not spec:
            names = {
                name: source
                for name, source in spec.sources.items()
                if name in spec.operations and source in self._implementations
            }
            self._by_source = (spec, names)
        return self._by_source[1]

    def _names(self) -> list[str]:
        names = [name for name in self._sources() if name not in self._removed]
        return names + [name for name in self._replaced if name not in names]

    def _load(self, name: str) -> OperationFn:
        loaded = self._loaded.get(name)
        if loaded is not None and name not in self._removed:
            return loaded
        source = self._sources().get(name)
        if source is None or name in self._removed:
            raise KeyError(name)
        with self._lock:
            for module in self._implementations[source]:
                if name in self._loaded:
                    break  # a get_memo imports the memo reads, not the writes and the history they record
                self._loaded.update(importlib.import_module(module).OPERATIONS)
            if name not in self._loaded:
                modules = ", ".join(self._implementations[source])
                raise SpecError(f"operation {quoted(name)} ({source}) is in none of {modules}")
            return self._loaded[name]

    def __getitem__(self, name: str) -> OperationFn:
        if name in self._replaced:
            return self._replaced[name]
        return self._load(name)

    def lazy(self, name: str) -> Deferred | None:
        """The function of `name`, imported on its first call; None when there is no such operation."""
        return Deferred(self, name) if name in self else None

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return name in self._replaced or (name in self._sources() and name not in self._removed)

    def __setitem__(self, name: str, function: OperationFn) -> None:
        self._replaced[name] = function
        self._removed.discard(name)

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._replaced.pop(name, None)
        if name in self._sources():
            self._removed.add(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def verify(self) -> None:
        """Import every implementation now: each operation of each spec file must be in its
        modules' `OPERATIONS`, and those modules must implement nothing the spec lacks."""
        spec = self._spec()
        exported: dict[str, OperationFn] = {}
        for module in dict.fromkeys(name for modules in self._implementations.values() for name in modules):
            exported.update(importlib.import_module(module).OPERATIONS)
        for name in self:
            self._load(name)
        unknown = sorted(set(exported) - set(spec.operations))
        if unknown:
            raise SpecError(f"implementations without an operation in openapi.yaml: {', '.join(unknown)}")


class Deferred:
    """An operation's function that its registry imports on the first call (`resolve()`: now)."""

    __slots__ = ("__name__", "_registry")

    def __init__(self, registry: OperationRegistry, name: str) -> None:
        self._registry = registry
        self.__name__ = name

    def resolve(self) -> OperationFn:
        return self._registry[self.__name__]

    def __call__(self, call: Call, arguments: dict[str, Any]) -> dict[str, Any]:
        return self._registry[self.__name__](call, arguments)


OPERATIONS = OperationRegistry(load_spec, IMPLEMENTATIONS)


def lazy_function(registry: Mapping[str, OperationFn], name: str) -> OperationFn | None:
    """`name`'s function from `registry`, without importing it yet when the registry can defer it."""
    if isinstance(registry, OperationRegistry):
        return registry.lazy(name)
    return registry.get(name)


@cache
def searchables() -> Searchables:
    """What the search indexes hold of each domain, imported on first use."""
    from ..memos import literal as memo_literal
    from ..reading import literal as reading_literal
    from ..search.searchables import Searchables
    from ..todos import literal as todo_literal

    return Searchables(
        documents=(*memo_literal.DOCUMENTS, *todo_literal.DOCUMENTS, *reading_literal.DOCUMENTS),
        literal=(memo_literal.LITERAL, reading_literal.LITERAL, todo_literal.LITERAL),
    )


def __getattr__(name: str) -> Any:
    """`SEARCHABLES` and `REVERTERS` as module attributes, built when first read."""
    if name == "SEARCHABLES":
        return searchables()
    if name == "REVERTERS":
        from .history_operations import REVERTERS

        return REVERTERS
    raise AttributeError(name)
