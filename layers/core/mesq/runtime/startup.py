"""A process's start with the cyclic garbage collector paused, then its objects frozen.

A start makes a few hundred thousand long-lived objects (modules, classes, the OpenAPI document,
the MCP catalog, pydantic's schemas) and little garbage; the collector would walk them about 350
times meanwhile (measured: 150-240 ms of a 1.2-2.4 s `mesq serve` start, on this project's 2-core
machine). Paused while they are made, and frozen after (`gc.freeze`: moved to a generation no
collection walks), so the start is shorter and so are the collections of every later request.
The garbage of the start itself (a few cycles) is kept; it is small and made once.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal

from ..kernel.collector import collector_paused as paused

if TYPE_CHECKING:
    from .lambda_entry import LambdaHandler


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside (unless it was off already: kernel/collector.py), the objects
    made frozen before it comes back."""
    with paused():
        try:
            yield
        finally:
            gc.freeze()


HttpFunction = Literal["api", "dav", "mcp", "oauth"]


def http_function_handler(name: HttpFunction) -> LambdaHandler:
    """The Lambda handler of `functions/<name>/app.py`: `create_<name>_app` (app_factories.py)
    over the services `Settings.from_env()` names, service `mesq-<name>`. Built at init with the
    collector paused, imports included (they make most of the start's objects)."""
    with collector_paused():
        from ..wiring.config import Settings
        from ..wiring.services import build_services
        from . import app_factories
        from .lambda_entry import lambda_handler

        create_app = getattr(app_factories, f"create_{name}_app")
        return lambda_handler(create_app(build_services(Settings.from_env())), service=f"mesq-{name}")
