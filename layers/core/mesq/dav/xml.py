"""WebDAV XML in and out: request bodies parsed with defusedxml (no DTD, no entities, no external
references: an XML bomb is refused before it grows), answers built with the standard library.

Element names are Clark notation (`{DAV:}prop`), the form ElementTree reads and writes.
"""

from __future__ import annotations

from functools import lru_cache
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from ..kernel.values import without_controls

DAV = "DAV:"
CALDAV = "urn:ietf:params:xml:ns:caldav"
CALSERVER = "http://calendarserver.org/ns/"
APPLE = "http://apple.com/ns/ical/"
MESQ = "urn:x-mesq:dav"
#: The longest PROPFIND / REPORT body read (a multiget of a few thousand hrefs fits).
MAX_XML_BYTES = 512 * 1024
#: Elements one request may hold: a flat bomb of empty elements stays cheap to walk.
MAX_ELEMENTS = 20_000
#: XML 1.0 cannot carry kernel.values.CONTROL_CHARACTERS (an answer holding one is not
#: well-formed, and a client's whole sync fails) and RFC 5545 3.3.11 keeps them out of TEXT.
#: Notes pasted from a PDF (form feed) or a terminal (ESC) can hold them.

#: The prefixes every answer uses, declared once on its root (`fragment` leaves them out).
PREFIXES = (("D", DAV), ("C", CALDAV), ("CS", CALSERVER), ("A", APPLE), ("M", MESQ))
for _prefix, _uri in PREFIXES:
    ET.register_namespace(_prefix, _uri)


class XmlRefused(ValueError):
    """The body is not XML MeSQ reads: its reason is one line for the client."""


def tag(namespace: str, name: str) -> str:
    return f"{{{namespace}}}{name}"


def parse(body: bytes) -> ET.Element | None:
    """The root element of a request body, or None for an empty body."""
    if not body.strip():
        return None
    try:
        root = fromstring(body, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise XmlRefused("the XML body declares a DTD or entities; MeSQ reads plain XML only") from None
    except ET.ParseError as error:
        raise XmlRefused(f"the body is not well-formed XML ({error})") from None
    count = sum(1 for _ in root.iter())
    if count > MAX_ELEMENTS:
        raise XmlRefused(f"the XML body has {count} elements; at most {MAX_ELEMENTS}")
    return root  # type: ignore[no-any-return]


def _clean(root: ET.Element) -> None:
    for node in root.iter():
        node.text = without_controls(node.text) if node.text else node.text
        node.tail = without_controls(node.tail) if node.tail else node.tail
        for name, value in node.attrib.items():
            node.attrib[name] = without_controls(value)


def serialize(root: ET.Element) -> bytes:
    _clean(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


#: The declarations `fragment` takes off its first tag, as ElementTree writes them.
_DECLARATIONS = tuple(f' xmlns:{prefix}="{uri}"'.encode() for prefix, uri in PREFIXES)
_PREFIX_OF = {uri: prefix for prefix, uri in PREFIXES}


def fragment(node: ET.Element) -> bytes:
    """`node` as bytes to go inside an answer whose root declares PREFIXES (`document`): an
    answer is written one response at a time, so its size is known as it grows. A namespace
    of the client's own (an unknown property) stays declared on the fragment itself."""
    pieces: list[str] = []
    if _written(node, pieces):
        text = without_controls("".join(pieces))  # no name holds a control: the text is cleaned whole
    else:
        _clean(node)
        text = _declared_out(ET.tostring(node, encoding="unicode"))
    # One encode per response (a UTF-8 writer per call is slower); as that writer, no lone surrogate raises.
    return text.encode("utf-8", "xmlcharrefreplace")


def _declared_out(text: str) -> str:
    head, _, rest = text.partition(">")
    for declaration in _DECLARATIONS:
        head = head.replace(declaration.decode(), "")
    return head + ">" + rest


@lru_cache(maxsize=4096)  # names are few, but a client may ask for any number of its own
def _qname(name: str) -> str | None:
    """`name` (Clark notation) as written under the root's PREFIXES, None: a namespace of the
    client's own, which needs its declaration (ElementTree writes it)."""
    if not name.startswith("{"):
        return name
    uri, _, local = name[1:].partition("}")
    prefix = _PREFIX_OF.get(uri)
    return None if prefix is None else f"{prefix}:{local}"


def _written(node: ET.Element, out: list[str]) -> bool:
    """`node` written into `out` as ElementTree writes it (the same bytes, `<D:getetag />` too)
    without its per-call namespace walk, which made writing an answer a response at a time a
    third slower than writing it whole; False (`out` then unusable) for a client's namespace."""
    name = _qname(node.tag)
    if name is None:
        return False
    out.append("<" + name)
    for key, value in node.attrib.items():
        key_name = _qname(key)
        if key_name is None:
            return False
        out.append(f' {key_name}="{_escape_attribute(value)}"')
    if node.text or len(node):
        out.append(">")
        if node.text:
            out.append(escape(node.text))
        for child in node:
            if not _written(child, out):
                return False
        out.append(f"</{name}>")
    else:
        out.append(" />")
    if node.tail:
        out.append(escape(node.tail))
    return True


#: What ElementTree escapes in an attribute besides `&`, `<` and `>` (`escape`'s own).
_ATTRIBUTE_ENTITIES = {'"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}


def _escape_attribute(text: str) -> str:
    return escape(text, _ATTRIBUTE_ENTITIES)


def document(root_tag: str, fragments: list[bytes]) -> bytes:
    """An answer: the XML declaration, `root_tag` (one of PREFIXES, `D:multistatus`) declaring
    every prefix, and the fragments inside it."""
    declarations = b"".join(_DECLARATIONS)
    start = b"<?xml version='1.0' encoding='utf-8'?>\n<" + root_tag.encode() + declarations + b">"
    return b"".join([start, *fragments, b"</" + root_tag.encode() + b">"])


def element(parent: ET.Element, name: str, text: str | None = None) -> ET.Element:
    child = ET.SubElement(parent, name)
    if text is not None:
        child.text = text
    return child


def href_element(parent: ET.Element, href: str) -> ET.Element:
    return element(parent, tag(DAV, "href"), href)
