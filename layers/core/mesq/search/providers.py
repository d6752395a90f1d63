"""The two model services search needs, behind one small interface, and the per-process runtime
that holds them (built lazily: loading a model costs seconds, a store write must not pay it).

- `Embedder.embed(texts, query=False)` -> one unit vector per text;
- `Reranker.rerank(query, docs)` -> one relevance score per doc (the pipeline sends batches of
  20, docs/contract.md §9).

Providers (`Settings.search_provider`): `bedrock` (AWS), `local` (an embedding model from a path;
no local reranker, so the rerank stage orders by fused score and says so), `none` (no vector
branch). A provider that cannot load or answer raises `ProviderError`; the pipeline reports it in
its stage and carries on with what still works.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from aws_lambda_powertools import Logger

from ..config import Settings

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
if TYPE_CHECKING:  # numpy is imported by the providers themselves, off every function's cold start
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]
else:

    def __getattr__(name: str) -> Any:
        """`Vectors` at run time (for code that names it outside annotations), numpy on demand."""
        if name == "Vectors":
            import numpy as np
            import numpy.typing as npt

            return npt.NDArray[np.float32]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ProviderError(Exception):
    """A model service is absent, failed to load, or failed to answer."""


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors: ...


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, docs: Sequence[str]) -> list[float]: ...


def _build_embedder(settings: Settings) -> Embedder | None:
    if settings.search_provider == "bedrock":
        from .bedrock import BedrockEmbedder

        return BedrockEmbedder(settings.bedrock_embedding_model_id, settings.region)
    if settings.search_provider == "local":
        from .local_models import LocalEmbedder, bundled_model_path

        path = settings.embedding_model_path or bundled_model_path()
        if path is None:
            log.warning("search: no embedding model path and no bundled model; the vector branch is off")
            return None
        return LocalEmbedder(path)
    return None


def _build_reranker(settings: Settings) -> Reranker | None:
    if settings.search_provider == "bedrock" and settings.bedrock_rerank_model_arn:
        from .bedrock import BedrockReranker

        return BedrockReranker(settings.bedrock_rerank_model_arn, settings.region)
    return None


@dataclass
class SearchRuntime:
    """Per process: the providers (built on first use) and the users' loaded indexes."""

    settings: Settings
    _embedder: Embedder | None = None
    _reranker: Reranker | None = None
    _built: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    #: user id -> (pointer version, SearchIndex); see persist.py.
    cache: dict[str, Any] = field(default_factory=dict)
    #: Waits for a user's queued in-process index updates (follow.py sets it); a no-op otherwise.
    settle: Callable[[str], None] = field(default=lambda _user_id: None)

    def _build(self) -> None:
        with self._lock:
            if not self._built:
                self._embedder = _build_embedder(self.settings)
                self._reranker = _build_reranker(self.settings)
                self._built = True

    @property
    def embedder(self) -> Embedder | None:
        self._build()
        return self._embedder

    @embedder.setter
    def embedder(self, value: Embedder | None) -> None:
        self._build()
        self._embedder = value

    @property
    def reranker(self) -> Reranker | None:
        self._build()
        return self._reranker

    @reranker.setter
    def reranker(self, value: Reranker | None) -> None:
        self._build()
        self._reranker = value
