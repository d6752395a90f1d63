"""An operation run in-process, as the operation registry runs it for a client: a `Call` for a user
with the given scopes on the given channel, then the registered function (arguments as given: no
schema validation, no rate limit). The tests that seed data or play "the other client" use it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mesq.application.invocation import REGISTRY
from mesq.kernel.context import Call, Channel, CredentialKind, Principal, Services


def call_of(
    services: Services,
    user_id: str,
    scopes: Iterable[str],
    *,
    channel: Channel = "api",
    kind: CredentialKind = "pat",
    credential_id: str = "t",
    trace_id: str = "t",
) -> Call:
    principal = Principal(user_id=user_id, scopes=frozenset(scopes), credential_id=credential_id, kind=kind)
    return Call(principal=principal, services=services, trace_id=trace_id, channel=channel)


def run_operation(call: Call, operation_id: str, arguments: dict[str, Any]) -> Any:
    """The operation's data (a MesqError raised as the operation raises it)."""
    return REGISTRY[operation_id](call, arguments)
