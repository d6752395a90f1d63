"""The strings the page scripts (`static/*.js`) show, in the page's language: `base.html` puts
them in a JSON data block (`<script type="application/json" id="mesq-words">`: data, never run,
so the CSP's `script-src 'self'` is kept), and `static/words.js` looks them up by their English
source (`mesqSay("Attached %(name)s.", {name: ...})`). A script string missing here is shown in
English, as written in the script."""

from __future__ import annotations

from functools import cache

from .i18n import DEFAULT_LANGUAGE, N_, NP_, translations

#: Plain strings, `%(name)s` placeholders filled in by the script.
SCRIPT_WORDS = (
    # memos.js
    N_("Remove %(name)s"),
    N_("Uploading %(name)s…"),
    N_("Attached %(name)s."),
    N_("Could not attach %(name)s: %(error)s"),
    N_("MeSQ could not be reached; check the connection and try again"),
    N_("MeSQ did not answer as expected (HTTP %(status)s); try again in a moment"),
    N_("the file storage could not be reached; check the connection and try again"),
    N_("the file storage refused the file (HTTP %(status)s); try again in a moment"),
    N_("The preview is unavailable (HTTP %(status)s)."),
    N_("The preview is unavailable: %(error)s"),
    N_("Close"),
    N_("Image"),
    N_("%(tag)s inserted."),
    N_("Only the first %(max)s characters fit in a memo: the end of the pasted text was left out."),
    N_("Discard your changes to this memo?"),
    N_("Keep editing"),
    N_("Discard changes"),
    # inplace.js (the memo strings above that say an answer failed are its too)
    N_("Dismiss"),
    # todos.js
    N_("Moved “%(title)s”."),
    N_("Moved column “%(name)s”."),
    N_("“%(title)s” changed meanwhile (another tab or app): reload the board, then move it again."),
    N_("%(error)s Reload the board to see the latest order."),
    N_("The move was refused."),
    N_("Could not reach MeSQ; nothing was moved."),
    # reading.js
    N_("Choose a file first."),
    N_("The file is not UTF-8 text; save it as UTF-8 (JSON files are) and import it again."),
    N_(
        "Imported %(books)s: %(added)s added, %(updated)s updated, %(deleted)s marked deleted upstream, %(unchanged)s unchanged."  # noqa: E501 -- one msgid
    ),
    N_("The file was not accepted."),
    N_("Could not read the file or reach MeSQ; try again."),
    # imports.js
    N_("Uploading: %(percent)s"),
    N_("Checking and importing… a big file takes a minute."),
    N_("The import failed (HTTP %(status)s)."),
    N_("Could not reach MeSQ; nothing was imported."),
    N_(
        "The connection to MeSQ was lost while it was importing: the file may be imported in part or in whole. Reload this page (an unfinished import is listed here), or import the same file again: nothing is added twice."  # noqa: E501 -- one msgid
    ),
    N_(
        "No answer came from MeSQ while it was importing (HTTP %(status)s): the file may be imported in part or in whole. Reload this page (an unfinished import is listed here), or import the same file again: nothing is added twice."  # noqa: E501 -- one msgid
    ),
    # copy.js
    N_("Copied."),
    N_("Selected: press Ctrl+C (⌘C) to copy."),
    # reminders.js
    N_("Subscribing…"),
    N_("This browser is subscribed."),
    N_("The subscription was not saved (HTTP %(status)s)."),
    N_("This browser could not subscribe: %(error)s"),
    # consent.js
    N_("The answer was not accepted."),
    N_("Could not reach MeSQ; check the connection and try again."),
)
#: Plural pairs: the script picks the one form (n == 1) or the other; Chinese has one form.
SCRIPT_PLURALS = (
    NP_("%(num)d book", "%(num)d books"),  # reading.js
    NP_("%(num)d note", "%(num)d notes"),
    NP_("%(num)d tag suggested.", "%(num)d tags suggested."),  # memos.js
)


@cache
def script_words(language: str) -> dict[str, object]:
    """English source -> the page language's text (a plural: [one, other]). English pages get an
    empty table: the scripts' own text is the English."""
    if language == DEFAULT_LANGUAGE:
        return {}
    catalog = translations(language)  # the raw text: the script fills the placeholders
    words: dict[str, object] = {message: catalog.gettext(message) for message in SCRIPT_WORDS}
    for singular, plural in SCRIPT_PLURALS:
        words[singular] = [catalog.ngettext(singular, plural, 1), catalog.ngettext(singular, plural, 2)]
    return words
