"""Property-based: schemathesis drives every board REST operation with a todo token (the shared
conformance suite uses a memo-only token, so it only sees 403s here): never a 5xx, and every
answer (success or error envelope) as the served document declares."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from schemathesis import openapi
from schemathesis.specs.openapi.checks import positive_data_acceptance

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.server import create_local_app
from mesq.services import build_services
from mesq.spec import load_spec
from mesq.todos.board.operations import OPERATIONS as BOARD
from tests.settings import inprocess_settings
from tests.todos.conftest import TODO_SCOPES

ROUTES = sorted((load_spec().operation(name).method, load_spec().operation(name).path) for name in BOARD)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[openapi.OpenApiSchema, str]]:  # type: ignore[name-defined]
    with tempfile.TemporaryDirectory() as data_dir:
        # Limits off: schemathesis's unauthenticated probes would spend the per-IP budget (then 429, not 401).
        services = build_services(inprocess_settings(data_dir=Path(data_dir), rate_limit_profile="off"))
        user = create_user(services.items, "fuzzer", "correct horse battery")
        token, _ = create_token(services.items, user["id"], name="fuzz", scopes=TODO_SCOPES)
        yield openapi.from_asgi("/api/openapi.json", create_local_app(services)), token
        services.items.close()


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_board_route_conforms_with_a_todo_token(served, method, path):
    schema, token = served
    operation = schema[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case):
        case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, excluded_checks=[positive_data_acceptance])

    check()
