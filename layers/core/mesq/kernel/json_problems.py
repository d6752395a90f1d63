"""What is wrong with text that is not JSON, in MeSQ's own words (docs/i18n.md: a library's words
never reach a person): the `msg` of json's `JSONDecodeError` ("Expecting value", "Extra data", ...)
becomes a catalog message, said in the reader's language; its line and column stay numbers."""

from __future__ import annotations

import json

from .i18n import N_, Text

_PROBLEMS = {
    "Expecting value": N_("a value was expected"),
    "Expecting property name enclosed in double quotes": N_("a field name in double quotes was expected"),
    "Expecting ',' delimiter": N_("a comma was expected"),
    "Expecting ':' delimiter": N_("a colon was expected"),
    "Extra data": N_("more text follows the end of the JSON"),
    "Unterminated string starting at": N_("a string is not closed"),
    "Invalid control character at": N_("a string holds a control character (a raw line break or tab); escape it"),
    "Invalid \\escape": N_("a string holds an invalid backslash escape"),
    "Invalid \\uXXXX escape": N_("a string holds an invalid backslash escape"),
    "Unexpected UTF-8 BOM (decode using utf-8-sig)": N_(
        "the text starts with a byte order mark (BOM); save it as UTF-8 without one"
    ),
}
#: Whatever else json may say (its messages are not an API): no less true, if less precise.
MALFORMED = N_("the text does not follow JSON's rules")


def json_problem(error: json.JSONDecodeError) -> Text:
    """The problem `error` names, as a catalog message (no line or column: the caller says them)."""
    return Text(_PROBLEMS.get(error.msg, MALFORMED))
