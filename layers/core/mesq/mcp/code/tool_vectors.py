"""Each tool's vector under the bundled embedding model, for `search_tools` (search.py).

A tool's text for the model is its name in words, title, one-line summary, argument names and
every enum value its arguments take (`tool_text`). Embedding the ~80 tools costs seconds (tens
of seconds on a loaded machine), so the vectors ship with the code: `tool_vectors.npz` beside
this file holds, per tool, the digest of its text and its float16 vector. At run time a tool
whose text still has its recorded digest takes the shipped vector; a tool whose text changed
(or a new tool) is embedded on first use and kept for the process. Regenerate the file after a
catalog change with `python infra/tool_vectors.py` (tests/mcp/test_search_tools_held_out.py
fails while it is stale).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ...kernel.ports.models import Embedder
    from ..catalog import CatalogTool

SHIPPED = Path(__file__).with_name("tool_vectors.npz")


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


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


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
                vectors = self.embedder.embed([text for _key, text in missing])
                self._by_digest.update((key, np.asarray(vector, dtype=np.float32))
                                       for (key, _text), vector in zip(missing, vectors, strict=True))  # fmt: skip
            return np.stack([self._by_digest[key] for key in keys])

    def query(self, text: str) -> npt.NDArray[np.float32]:
        import numpy as np

        return np.asarray(self.embedder.embed([text], query=True)[0], dtype=np.float32)


def stale(tools: Iterable[CatalogTool], summaries: dict[str, str], shipped: Path = SHIPPED) -> list[str]:
    """The tools whose text has no shipped vector (empty: the file is current)."""
    import numpy as np

    known: set[str] = set()
    if shipped.exists():
        with np.load(shipped) as data:
            known = {str(key) for key in data["digests"].tolist()}
    return [tool.name for tool in tools if digest(tool_text(tool, summaries[tool.name])) not in known]


def write(tools: Sequence[CatalogTool], summaries: dict[str, str], embedder: Embedder, shipped: Path = SHIPPED) -> None:
    import numpy as np

    texts = [tool_text(tool, summaries[tool.name]) for tool in tools]
    vectors = np.asarray(embedder.embed(texts), dtype=np.float16)
    np.savez_compressed(
        shipped, model=np.array(embedder.name), digests=np.array([digest(text) for text in texts]), vectors=vectors
    )
