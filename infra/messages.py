"""MeSQ's message catalogs (docs/i18n.md): extract, update, compile, check.

Every user-visible string of `layers/core/mesq/` (templates: `_()`, `ngettext`, `pgettext`,
`{% trans %}`; Python: `gettext`/`ngettext`/`pgettext`/`N_`/`NP_`/`NC_`, `page.gettext(...)`
included, `Text("...")`, and the message templates of the domain errors, `ValidationError("...")`
and its siblings; the OpenAPI documents' `x-error-message` texts) is extracted with Babel and merged into
`mesq/locale/<lang>/LC_MESSAGES/messages.po`: new strings arrive with
an empty translation (English: the source text itself), strings no longer in the source are
dropped. Each `.po` is then compiled to the `messages.mo` beside it, which is committed (the
runtime reads it with the standard library's `gettext`; nothing is compiled at install or import).

The output is deterministic (sorted by msgid, no line numbers, fixed header dates), so a rerun
on unchanged sources rewrites the same bytes and merges of two branches' strings stay simple.

    python infra/messages.py           # extract, update both .po files, compile both .mo files
    python infra/messages.py --check   # exit 1 if a rerun would change a file or a string is untranslated
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "layers" / "core" / "mesq"
LOCALE = PACKAGE / "locale"
LANGUAGES = ("en", "zh")
DOMAIN = "messages"
FIXED_DATE = datetime(2026, 12, 1, tzinfo=UTC)  # no churn in the headers
#: REST, MCP and the CLI answer in English only (clients and agents read one stable language,
#: docs/i18n.md): their own strings stay out of the catalog. CalDAV's `Text` refusals are in it
#: (a browser opening a CalDAV address shows them); its other strings are not marked.
ENGLISH_ONLY = ("runtime", "http", "mcp")


def extract_error_messages(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """Babel's extraction method for the OpenAPI documents: every `x-error-message` text (what
    argument validation says instead of a keyword's generic message, application/validation.py),
    which a page says in its reader's language."""
    import yaml

    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            custom = node.get("x-error-message")
            if isinstance(custom, dict):
                found.extend(str(text) for text in custom.values() if isinstance(text, str))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load(fileobj.read()))
    for text in found:
        yield 0, "gettext", text, []  # a keyword Babel knows: the text is one message


METHODS = [
    ("web/templates/**.html", "jinja2.ext:babel_extract"),
    *((f"{package}/**.py", "ignore") for package in ENGLISH_ONLY),
    ("**.py", "python"),
    ("**.yaml", extract_error_messages),
]
OPTIONS = {
    "web/templates/**.html": {
        "extensions": "jinja2.ext.i18n",
        "trim_blocks": "true",
        "lstrip_blocks": "true",
        "newstyle_gettext": "true",
        "silent": "false",  # a template that does not parse is an error, not a silent skip
    },
    "**.py": {},
    "**.yaml": {},
}
#: The errors whose first argument is their message template (kernel/errors.py and the failures
#: a page shows later).
ERRORS = (
    "MesqError", "ValidationError", "Unauthorized", "Forbidden", "NotFound", "MethodNotAllowed", "RevisionConflict",
    "Conflict", "IdempotencyConflict", "PayloadTooLarge", "RequestTimeout", "MisdirectedRequest", "RateLimited",
    "ResponseTooLarge", "ServiceUnavailable",
    # What a reminder channel and the reading sync record as a failure (shown on their settings pages).
    "SendFailed", "ProviderError", "CredentialExpired", "UpstreamRateLimited", "UpstreamMalformed",
    "UpstreamUnavailable",
)  # fmt: skip
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "NP_": (1, 2), "NC_": ((1, "c"), 2), "Text": None,
            **dict.fromkeys(ERRORS)}  # fmt: skip
HEADER = """\
# MeSQ's web pages, one language at a time (docs/i18n.md).
# Translate the empty msgstr lines, then run `make messages` (it also compiles the .mo beside this file)."""


class _Catalog(Catalog):
    """A catalog whose header names no Babel version, so two Babel versions write the same bytes."""

    @property  # type: ignore[override]
    def mime_headers(self) -> list[tuple[str, str]]:
        return [(name, value) for name, value in Catalog.mime_headers.fget(self) if name != "Generated-By"]  # type: ignore[attr-defined]

    @mime_headers.setter
    def mime_headers(self, headers: list[tuple[str, str]]) -> None:
        Catalog.mime_headers.fset(self, headers)  # type: ignore[attr-defined]


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def extract() -> Catalog:
    """Every marked string of mesq/, with where it is used (file names, no line numbers)."""
    template = _Catalog(project="MeSQ", creation_date=FIXED_DATE, revision_date=FIXED_DATE, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(PACKAGE), METHODS, OPTIONS, keywords=KEYWORDS, comment_tags=("Translators:",), strip_comment_tags=True
    ):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def _existing(language: str) -> Catalog | None:
    path = po_path(language)
    if not path.exists():
        return None
    with path.open("rb") as handle:
        return read_po(handle, locale=language)


def updated(language: str, template: Catalog) -> Catalog:
    """The language's catalog for `template`: kept translations, new strings empty (English:
    the source text), gone strings dropped, never a fuzzy guess."""
    catalog = _Catalog(
        locale=language,
        header_comment=HEADER,
        project="MeSQ",
        version="1",
        msgid_bugs_address="",
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        language_team="MeSQ",
        last_translator="MeSQ",
        fuzzy=False,
    )
    old = _existing(language)
    for message in template:
        if not message.id:
            continue
        kept = old.get(message.id, message.context) if old is not None else None
        string = kept.string if kept is not None and not kept.fuzzy else None
        if language == "en":
            string = message.id  # English is the source text (a plural: singular and plural)
        elif string is None:
            string = ("", "") if isinstance(message.id, tuple) else ""
        catalog.add(message.id, string, message.locations, auto_comments=message.auto_comments, context=message.context)
    return catalog


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=0, sort_output=True, include_lineno=False, omit_header=False)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def untranslated(catalog: Catalog) -> Iterator[str]:
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            yield message.id if isinstance(message.id, str) else message.id[0]


def planned() -> dict[Path, bytes]:
    """Every catalog file as `make messages` would write it now."""
    template = extract()
    files: dict[Path, bytes] = {}
    for language in LANGUAGES:
        catalog = updated(language, template)
        files[po_path(language)] = po_bytes(catalog)
        files[mo_path(language)] = mo_bytes(catalog)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a file is stale")
    args = parser.parse_args()
    files = planned()
    stale = [path for path, data in files.items() if not path.exists() or path.read_bytes() != data]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)} (run `make messages`)")
    else:
        for path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(files[path])
            print(f"wrote {path.relative_to(ROOT)}")
    missing_any = False
    for language in LANGUAGES:
        catalog = read_po(io.BytesIO(files[po_path(language)]), locale=language)
        missing = list(untranslated(catalog))
        if missing:
            missing_any = True
            print(f"{language}: {len(missing)} strings to translate in {po_path(language).relative_to(ROOT)}")
            for message_id in missing[:20]:
                print(f"  {message_id!r}")
    return 1 if args.check and (stale or missing_any) else 0


if __name__ == "__main__":
    sys.exit(main())
