"""No page shows text from its URL (docs/security.md "Fair shares"; issue 38): a link anyone can
make must not put words on a MeSQ page ("your session expired, sign in at ..."). Pages never
render query values as text (a search box's own value excepted); a notice after a redirect is a
one-time flash set by the server (`flash.py`).

What remains is an error about a bad value, whose message quotes an excerpt of it
("day: 'xyz' is not a date"). `without_url_text` takes out of such a message every quoted
excerpt that came from the request's URL (a query value or name, or a path segment, as typed or
escaped the way `repr` and JSON write it) and any unquoted run of a query value, leaving `…`: the
message still names the parameter and the rule, never the visitor's words.
"""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

from starlette.requests import Request

#: A quoted excerpt in a message: 'x', "x" or “x”.
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"|“([^”]*)”")
#: An unquoted query value this long or longer is taken out too (shorter ones are too common in
#: the message's own words to tell apart; path segments are the page's own words).
MIN_RUN = 4
_CUT = ("…", "...")


def _forms(raw: list[str]) -> list[str]:
    """Each text as typed and as `repr` and JSON escape it, longest first (a run inside a longer
    one goes with it)."""
    forms: set[str] = set()
    for text in raw:
        if text:
            forms |= {text, repr(text)[1:-1], json.dumps(text)[1:-1]}
    return sorted(forms, key=len, reverse=True)


def url_texts(request: Request) -> list[str]:
    """Every piece of text the URL carries, in the forms a message may quote it."""
    raw = [text for pair in request.query_params.multi_items() for text in pair]
    return _forms(raw + [unquote(segment) for segment in request.url.path.split("/")])


def _from_url(excerpt: str, texts: list[str]) -> bool:
    core = excerpt
    for cut in _CUT:
        core = core.removesuffix(cut)
    return bool(core) and any(core in text for text in texts)


def without_url_text(message: str, request: Request) -> str:
    texts = url_texts(request)
    if not texts:
        return message

    def quoted(match: re.Match[str]) -> str:
        inner = next(group for group in match.groups() if group is not None)
        return match[0][0] + "…" + match[0][-1] if _from_url(inner, texts) else match[0]

    cleaned = _QUOTED.sub(quoted, message)
    for text in _forms([value for _name, value in request.query_params.multi_items()]):
        if len(text) >= MIN_RUN and text in cleaned:
            cleaned = cleaned.replace(text, "…")
    return cleaned


__all__ = ["url_texts", "without_url_text"]
