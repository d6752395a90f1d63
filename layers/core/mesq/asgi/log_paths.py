"""The form of a request path that may be written to a log. Some paths carry a credential: the
calendar feed is `/calendar/<secret>.ics` (calendar apps send no header to carry it), so
whoever reads the log could subscribe to the feed. Such a path is logged with the secret
replaced."""

from __future__ import annotations

import re

_CALENDAR_FEED = re.compile(r"/calendar/[^/]+?(\.ics)?")


def loggable_path(path: str) -> str:
    if _CALENDAR_FEED.fullmatch(path):
        return "/calendar/<redacted>.ics" if path.endswith(".ics") else "/calendar/<redacted>"
    return path
