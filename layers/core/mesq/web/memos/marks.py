"""An exact-text search's matches marked in a memo's sanitized HTML: every text node is cut by the
reading page's rule (web/reading/marks.py `marked`: the search's own fold, whole characters) and
each match wrapped in `<mark>`; tags and their attributes are copied as they are, so a link's
address is never marked. A match split by markup (`**三**体`) stays unmarked: the search found
the memo, the mark only says where the words stand as written.

The input is the sanitizer's output (web/kit/markdown.py); the text is read unescaped and escaped
again, so nothing the memo holds becomes markup.
"""

from __future__ import annotations

from html.parser import HTMLParser

from markupsafe import Markup, escape

from ..reading.marks import marked


class _Marker(HTMLParser):
    def __init__(self, query: str) -> None:
        super().__init__(convert_charrefs=True)
        self.query = query
        self.out: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self.get_starttag_text() or "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        for text, hit in marked(data, self.query):
            self.out.append(f"<mark>{escape(text)}</mark>" if hit else str(escape(text)))


def mark_matches(html: Markup, query: str) -> Markup:
    """`html` with each match of `query` in its text wrapped in `<mark>`."""
    if not query.strip():
        return html
    marker = _Marker(query)
    marker.feed(str(html))
    marker.close()
    return Markup("".join(marker.out))  # noqa: S704 -- the sanitizer's tags as they were, every text escaped above
