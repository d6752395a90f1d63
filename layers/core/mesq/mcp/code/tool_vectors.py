"""Each tool's vectors under the bundled embedding model, for `search_tools` (search.py).

A tool is matched by three texts (`tool_views`): the whole (its name in words, title, one-line
summary, argument names and every enum value its arguments take: `tool_text`), its title alone,
and its Chinese title (`x-mcp.titleZh`); and by its phrasings (`tool_phrasings.yaml`: what a
person or an agent says when it wants the tool, three in English and three in Chinese, four for
a field the three leave out). A short title matches a short query better than the whole text
does, a Chinese query matches Chinese text far better than the English it is glossed into, and
an agent's wording matches a phrasing better than the catalog's (the held-out lists measured it).
All are embedded as queries are (the model's symmetric form: a tool's text is a phrase like the
query, not a passage).
Embedding them costs seconds (tens of seconds on a loaded machine), so the vectors ship with
the code: `tool_vectors.npz` beside this file holds, per text, the digest of the text and its
float16 vector. At run time a text with its recorded digest takes the shipped vector; a text
that changed (or a new tool's) is embedded on first use and kept for the process. Regenerate the
file after a catalog or phrasing change with `python infra/tool_vectors.py`
(tests/mcp/test_search_tools_held_out.py fails while it is stale).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ...kernel.ports.models import Embedder
    from ..catalog import CatalogTool

SHIPPED = Path(__file__).with_name("tool_vectors.npz")
PHRASINGS = Path(__file__).with_name("tool_phrasings.yaml")


@cache
def phrasings() -> dict[str, tuple[str, ...]]:
    """What a person or an agent says when it wants each tool (tool_phrasings.yaml), by tool."""
    import yaml

    loaded = yaml.safe_load(PHRASINGS.read_text(encoding="utf-8")) or {}
    return {str(name): tuple(str(text) for text in texts) for name, texts in loaded.items()}


def enum_values(schema: Any) -> list[str]:
    """Every enum value and const string in a schema, in order, once each."""
    found: dict[str, None] = {}
    stack = [schema]
    while stack:
        node = stack.pop(0)
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "enum" and isinstance(value, list):
                    found.update((str(item), None) for item in value if item is not None)
                elif key == "const" and isinstance(value, str):
                    found[value] = None
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return list(found)


def tool_text(tool: CatalogTool, summary: str) -> str:
    arguments = ", ".join(tool.input_schema.get("properties", {}))
    values = " ".join(enum_values(tool.input_schema))
    return f"{tool.name.replace('_', ' ')}. {tool.operation.mcp.title}. {summary} Arguments: {arguments}. {values}"


def tool_views(tool: CatalogTool, summary: str) -> tuple[str, str, str]:
    """The texts a tool is matched by: the whole, the title, the Chinese title ("" when none)."""
    return tool_text(tool, summary), tool.operation.mcp.title, tool.operation.mcp.title_zh


def tool_texts(tool: CatalogTool, summary: str) -> list[str]:
    """Every text of a tool that has a vector: its views and its phrasings."""
    return [text for text in (*tool_views(tool, summary), *phrasings().get(tool.name, ())) if text]


def digest(text: str) -> str:
    """The key of a text's vector; `query:` because texts are embedded in the query form."""
    return hashlib.sha256(f"query: {text}".encode()).hexdigest()[:16]


class ToolVectors:
    """The shipped vectors plus those embedded since (per process, per model)."""

    def __init__(self, embedder: Embedder, shipped: Path = SHIPPED) -> None:
        self.embedder = embedder
        self._lock = threading.Lock()
        self._by_digest: dict[str, npt.NDArray[np.float32]] = {}
        self._load(shipped)

    def _load(self, shipped: Path) -> None:
        import numpy as np

        if not shipped.exists():
            return
        with np.load(shipped) as data:
            if str(data["model"]) != self.embedder.name:  # another model's vectors never mix in
                return
            for key, vector in zip(data["digests"].tolist(), data["vectors"], strict=True):
                self._by_digest[str(key)] = vector.astype(np.float32)

    def matrix(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit vector per text (rows in order), embedding only the texts not known yet."""
        import numpy as np

        keys = [digest(text) for text in texts]
        with self._lock:
            missing = [(key, text) for key, text in dict(zip(keys, texts, strict=True)).items()
                       if key not in self._by_digest]  # fmt: skip
            if missing:
                vectors = self.embedder.embed([text for _key, text in missing], query=True)
                self._by_digest.update((key, np.asarray(vector, dtype=np.float32))
                                       for (key, _text), vector in zip(missing, vectors, strict=True))  # fmt: skip
            return np.stack([self._by_digest[key] for key in keys])

    def query(self, text: str) -> npt.NDArray[np.float32]:
        import numpy as np

        return np.asarray(self.embedder.embed([text], query=True)[0], dtype=np.float32)


def stale(tools: Iterable[CatalogTool], summaries: dict[str, str], shipped: Path = SHIPPED) -> list[str]:
    """The tools with a text that has no shipped vector (empty: the file is current)."""
    import numpy as np

    known: set[str] = set()
    if shipped.exists():
        with np.load(shipped) as data:
            known = {str(key) for key in data["digests"].tolist()}
    return [
        tool.name for tool in tools if any(digest(text) not in known for text in tool_texts(tool, summaries[tool.name]))
    ]


def write(tools: Sequence[CatalogTool], summaries: dict[str, str], embedder: Embedder, shipped: Path = SHIPPED) -> None:
    """The shipped file for `tools`' texts. A text the file already has keeps its vector as it is
    (the same model's): only new texts are embedded, so a change to one tool moves no other
    tool's ranking (re-embedding every text in other batches moves the last float16 bits of many,
    enough to reorder a close held-out intent)."""
    import numpy as np

    texts = list(dict.fromkeys(text for tool in tools for text in tool_texts(tool, summaries[tool.name])))
    vectors = np.asarray(ToolVectors(embedder, shipped).matrix(texts), dtype=np.float16)
    np.savez_compressed(
        shipped, model=np.array(embedder.name), digests=np.array([digest(text) for text in texts]), vectors=vectors
    )
