"""One message catalog for every string of the web pages (docs/i18n.md):

- no template holds user-visible English outside `_()`/`ngettext`/`{% trans %}`: its text nodes
  and the attributes a person sees or hears (title, placeholder, aria-label, alt, a button's
  value, a table cell's data-label) are read from the template's literal HTML, with every Jinja
  expression and tag blanked out;
- the zh and en catalogs are complete (every msgid translated, every plural form) and exactly
  what `make messages` writes from the current sources (no stale or missing string, and the
  committed .mo files compiled from the committed .po files)."""

from __future__ import annotations

import importlib.util
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

from babel.messages.pofile import read_po
from jinja2 import Environment

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "layers" / "core" / "mesq" / "web" / "templates"
#: Attributes whose text a person reads or a screen reader speaks.
VISIBLE_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "data-label", "label"}
#: Elements whose text is code or not shown as words.
SKIPPED_ELEMENTS = {"script", "style", "code", "pre"}
#: Text that is the same in every language.
ALLOWED = {"MeSQ", "UTC", "ntfy", "Telegram", "STARTTLS", "TLS"}
BLANK = "\x00"  # stands for a Jinja expression or tag in the literal HTML
WORD = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]")
#: A technical example (`https://ntfy.sh/x`, `FREQ=WEEKLY;BYDAY=MO`, a host name): one token, no words.
CODE_LIKE = re.compile(r"^\S*[./=:;]\S*$")
#: Attributes a macro prints (` tabindex="-1" autofocus`), not text.
ATTRIBUTE_MARKUP = re.compile(r'^(\s*[a-z-]+(="[^"]*")?)+\s*$')


def _messages_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mesq_messages", ROOT / "infra" / "messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def literal_html(source: str) -> str:
    """The template's own HTML: every `{{ }}` and `{% %}` replaced by a blank, and the body of
    every `{% trans %}` block too (it is a catalog string)."""
    env = Environment(extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True)
    out: list[str] = []
    in_trans = False
    expect_tag_name = False
    for _, kind, value in env.lex(source):
        if kind == "block_begin":
            expect_tag_name = True
            out.append(BLANK)
            continue
        if expect_tag_name and kind == "name":
            if value == "trans":
                in_trans = True
            elif value == "endtrans":
                in_trans = False
            expect_tag_name = False
        if kind == "data" and not in_trans:
            out.append(value)
        elif kind in ("variable_begin", "data"):
            out.append(BLANK)
    return "".join(out)


class _Finder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        for name, value in attrs:
            visible = name in VISIBLE_ATTRIBUTES or (
                name == "value" and tag == "input" and names.get("type") in ("submit", "button", "reset")
            )
            if visible and value and _words(value):
                self.found.append(f'{name}="{value.replace(BLANK, "{…}")}"')
        if tag not in {"input", "br", "meta", "link", "img", "hr"}:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open and self.open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if not SKIPPED_ELEMENTS.intersection(self.open) and _words(data):
            self.found.append(" ".join(data.replace(BLANK, " ").split()))


def _words(text: str) -> bool:
    text = text.replace(BLANK, " ").strip()
    if CODE_LIKE.match(text) or ('="' in text and ATTRIBUTE_MARKUP.match(text)):
        return False
    return any(word not in ALLOWED for word in WORD.findall(text) if not _allowed_in(text, word))


def _allowed_in(text: str, word: str) -> bool:
    return any(word in allowed for allowed in ALLOWED if allowed in text)


def untranslated_text(source: str) -> list[str]:
    finder = _Finder()
    finder.feed(literal_html(source))
    finder.close()
    return finder.found


def test_the_finder_sees_text_and_visible_attributes_outside_the_catalog() -> None:
    assert untranslated_text("<p>Save</p>") == ["Save"]
    assert untranslated_text('<input placeholder="Search">') == ['placeholder="Search"']
    assert untranslated_text('<button aria-label="Move {{ t }}">x</button>') == ['aria-label="Move {…}"']
    assert untranslated_text('<input type="submit" value="Go on">') == ['value="Go on"']
    assert untranslated_text("{% block title %}Trash{% endblock %}") == ["Trash"]
    assert untranslated_text("<p>保存</p>") == ["保存"]  # a doubled label's second half counts too


def test_the_finder_lets_catalog_strings_user_data_and_code_through() -> None:
    assert untranslated_text('<p>{{ _("Save") }} · {{ memo.title }}</p>') == []
    assert untranslated_text("<p>{% trans n=x %}Hello <b>{{ n }}</b>{% endtrans %}</p>") == []
    assert untranslated_text('<input placeholder="{{ _(\'Search\') }}" value="{{ q }}" name="q">') == []
    assert untranslated_text('<code>set_todo_reminders</code> <a class="brand">MeSQ</a>') == []
    assert untranslated_text('<input type="hidden" name="kind" value="email">') == []
    assert untranslated_text('<input placeholder="https://ntfy.sh/my-reminders">') == []
    assert untranslated_text("{# a comment in English #}<p>{{ n }} · ✓ ↻ →</p>") == []


def test_no_template_holds_a_string_outside_the_catalog() -> None:
    offenders = {
        path.relative_to(TEMPLATES).as_posix(): found
        for path in sorted(TEMPLATES.rglob("*.html"))
        if (found := untranslated_text(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}, 'mark these with {{ _("...") }} (docs/i18n.md)'


def test_the_catalogs_are_complete_and_compiled_from_the_current_sources() -> None:
    messages = _messages_module()
    for language in messages.LANGUAGES:
        with messages.po_path(language).open("rb") as handle:
            catalog = read_po(handle, locale=language)
        missing = list(messages.untranslated(catalog))
        assert missing == [], f"{language}: untranslated strings (docs/i18n.md)"
        assert len(catalog) > 300
    stale = [str(path) for path, data in messages.planned().items() if path.read_bytes() != data]
    assert stale == [], "run `make messages` and commit the catalogs"


PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def test_each_translation_keeps_the_placeholders_of_its_source() -> None:
    """A translation that drops or renames a `%(name)s` would show the English (kernel/i18n.py
    falls back) or fail to fill; each zh string has exactly its msgid's placeholders."""
    messages = _messages_module()
    with messages.po_path("zh").open("rb") as handle:
        catalog = read_po(handle, locale="zh")
    wrong = []
    for message in catalog:
        if not message.id:
            continue
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(PLACEHOLDER.findall(sources[-1])) | set(PLACEHOLDER.findall(sources[0]))
        wanted.discard("num")
        wrong += [sources[0] for string in strings if set(PLACEHOLDER.findall(string)) - {"num"} != wanted]
    assert wrong == []


#: Where errors stay English only: REST, MCP, CalDAV and the CLI answer clients and agents in one
#: stable language (docs/i18n.md); their strings are not extracted (infra/messages.py ENGLISH_ONLY).
ENGLISH_ONLY = ("runtime/", "http/", "mcp/", "dav/")
PACKAGE = ROOT / "layers" / "core" / "mesq"


def _unmarked_errors(source: str) -> list[int]:
    """Lines where a domain error (or a `Text`) is made from an f-string: its message could not
    be in the catalog, so a page would show it in English."""
    import ast

    names = set(_messages_module().ERRORS) | {"Text"}
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in names and isinstance(node.args[0], ast.JoinedStr):
                lines.append(node.lineno)
    return lines


def test_every_domain_error_message_is_a_catalog_template() -> None:
    """By construction: outside the English-only edges, an error's message is a literal template
    with `%(name)s` parameters (`ValidationError("%(field)s: ...", field=...)`), never an
    f-string, so Babel extracts it and a page says it in its reader's language."""
    assert _unmarked_errors('raise ValidationError(f"{x} is bad")\nraise NotFound("%(x)s", x=1)') == [1]
    found = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.relative_to(PACKAGE).as_posix().startswith(ENGLISH_ONLY)
        and (lines := _unmarked_errors(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "write the message as a template with parameters (docs/i18n.md)"


#: What an import from another app, the account archive's import and their ZIP reader can show a
#: person on Settings → Import: their refusals and the report's entries.
IMPORT_SOURCES = ("imports/", "adapters/imports/", "archive/bounded_zip.py", "archive/importer.py",
                  "archive/format.py", "archive/records.py", "wiring/imports.py")  # fmt: skip
#: A call and the position of its argument that a person reads (a refusal's line, a report's reason).
IMPORT_WORDS = {"SourceError": 0, "ArchiveError": 0, "Unavailable": 0, "_Refused": 0, "skip": 1, "keep": 1}


def _plain_import_words(source: str) -> list[int]:
    """Lines where an import's refusal or report entry is written as a plain or formatted string
    (not a `Text` template with parameters): a Chinese page would show it in English."""
    import ast

    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            at = IMPORT_WORDS.get(str(name))
            if at is not None and len(node.args) > at:
                argument = node.args[at]
                if isinstance(argument, ast.JoinedStr) or (
                    isinstance(argument, ast.Constant) and isinstance(argument.value, str)
                ):
                    lines.append(node.lineno)
    return lines


def test_every_import_refusal_and_report_entry_is_a_catalog_template() -> None:
    """Settings → Import says every refusal of an import and every entry of its report in the
    reader's language (docs/i18n.md): each is a `Text("...", name=...)`, never a plain string."""
    sample = 'raise SourceError(f"{x}: bad")\nreport.skip(label, "gone")\nreport.skip(a, b)'
    assert _plain_import_words(sample) == [1, 2]
    found = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix().startswith(IMPORT_SOURCES)
        and (lines := _plain_import_words(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "write it as Text(template, name=value) and translate it (docs/i18n.md)"
