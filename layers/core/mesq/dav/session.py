"""One CalDAV request's view of MeSQ: who asks, where the URLs start, and the operations it runs.

Every write goes through the same operations REST and MCP run (`invoke_sync`: validation, the
history under the token's name, list sizes, search indexing), on channel `dav`; the reads a
calendar client makes in bulk (a collection's members, changes since a sync token) read the
todo domain's sync reads directly, after the scope check the caller passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..application.invocation import invoke_sync
from ..auth.user_zone import configured_zone
from ..auth.users import get_user, preferred_language
from ..kernel.errors import MesqError
from ..kernel.i18n import Text, Translator
from ..kernel.spec import load_spec
from ..todos.sync.links import INBOX, INBOX_NAME, UNTITLED
from ..wiring.services import Services
from . import paths
from .auth import Caller
from .errors import DavError, from_mesq


@dataclass(frozen=True)
class Collection:
    id: str
    name: str
    order: int


@dataclass
class Session:
    services: Services
    caller: Caller
    base: str
    trace_id: str
    #: The language the request asks for (its `Accept-Language`; "" when none): after the
    #: user's own choice, what the inbox and an untitled task are called in.
    requested_language: str = ""

    @property
    def user_id(self) -> str:
        return self.caller.principal.user_id

    @property
    def username(self) -> str:
        return self.caller.username

    def invoke(self, operation_id: str, *, writing: bool = False, **arguments: Any) -> dict[str, Any]:
        if writing and not self.caller.can_write:
            raise DavError(
                403, Text("this token lacks the scope %(scope)s: the calendar is read-only", scope="todo:write")
            )
        try:
            return invoke_sync(
                load_spec().operation(operation_id),
                arguments,
                principal=self.caller.principal,
                services=self.services,
                trace_id=self.trace_id,
                channel="dav",
                language=self.requested_language,  # a board made here is named in it, as on REST
            )
        except MesqError as error:
            raise from_mesq(error, writing=writing) from None

    @cached_property
    def collections(self) -> list[Collection]:
        """Every space (named as the space, in board order), then the inbox."""
        data = self.invoke("list_todo_spaces")
        spaces = [Collection(str(s["id"]), str(s["name"]), index) for index, s in enumerate(data["spaces"])]
        return [*spaces, Collection(INBOX, self.say.gettext(INBOX_NAME), len(spaces))]

    def collection(self, collection_id: str) -> Collection | None:
        return next((c for c in self.collections if c.id == collection_id), None)

    @cached_property
    def say(self) -> Translator:
        """The person's language (Settings, else the request's, else their browser's): the names
        MeSQ gives things a client shows (the inbox list, a task sent without a title); the
        caller's, from the profile its sign-in read, when it has one."""
        if self.caller.language:
            return Translator(self.caller.language)
        profile = get_user(self.services.items, self.user_id)
        return Translator(preferred_language(profile, self.requested_language))

    @property
    def untitled(self) -> str:
        return self.say.gettext(UNTITLED)

    @cached_property
    def zone(self) -> str | None:
        """The user's own time zone (Settings): what a floating time is read in (None: unset, or a
        name this zone database does not know, read as UTC)."""
        return configured_zone(self.services.items, self.user_id)

    # -- URLs ----------------------------------------------------------------------------------

    def home_href(self) -> str:
        return paths.home(self.base, self.username)

    def collection_href(self, collection_id: str) -> str:
        return paths.collection(self.base, self.username, collection_id)

    def object_href(self, collection_id: str, name: str) -> str:
        return paths.object_href(self.base, self.username, collection_id, name)
