"""The two model services search needs, behind one small interface (ports), and the per-process
runtime that holds them (built lazily: loading a model costs seconds, a store write must not pay
it). Which adapters `build` returns is decided in mesq/wiring/services.py, the composition root.

- `Embedder.embed(texts, query=False)` -> one unit vector per text;
- `Reranker.rerank(query, docs)` -> one relevance score per doc (the pipeline sends batches of
  20, docs/contract.md §9).

Providers (`Settings.search_provider`): `bedrock` (AWS), `local` (the bundled multilingual model,
or a model directory from `MESQ_EMBEDDING_MODEL_PATH`: local_models.py; no local reranker, so
the rerank stage orders by fused score and says so), `none` (no vector
branch). A provider that cannot load or answer raises `ProviderError`; the pipeline reports it in
its stage and carries on with what still works.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from aws_lambda_powertools import Logger

from ..messages import quoted

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
        raise AttributeError(f"module {quoted(__name__)} has no attribute {quoted(name)}")


log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)


class ProviderError(Exception):
    """A model service is absent, failed to load, or failed to answer."""


class Embedder(Protocol):
    #: The model id the index records: vectors of two models never meet in one index.
    name: str

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors: ...


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, docs: Sequence[str]) -> list[float]: ...


@dataclass
class SearchRuntime:
    """Per process: the providers (built on first use) and the users' loaded indexes."""

    #: () -> (embedder, reranker): the adapters Settings pick (services.build_search_models).
    build: Callable[[], tuple[Embedder | None, Reranker | None]] = field(default=lambda: (None, None))
    _embedder: Embedder | None = None
    _reranker: Reranker | None = None
    _built: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    #: user id -> (pointer version, SearchIndex); see persist.py.
    cache: dict[str, Any] = field(default_factory=dict)
    #: Whether something keeps the indexes in step with the writes (the in-process follower or
    #: the stream function): the literal indexes are used only then (search/literal_store.py).
    follows_writes: bool = False
    #: Waits for a user's queued in-process index updates (follow.py sets it); a no-op otherwise.
    settle: Callable[[str], None] = field(default=lambda _user_id: None)
    #: The same for the literal indexes (search/literal_store.py), which have their own worker:
    #: a literal search never waits for an embedding.
    settle_literal: Callable[[str], None] = field(default=lambda _user_id: None)
    #: Asks for a background rebuild of a user's literal index of a kind ("memo", "reading",
    #: "todo") a query found missing or out of step (follow.py sets it); a no-op where the stream
    #: function keeps the index (AWS).
    literal_missing: Callable[[str, str], None] = field(default=lambda _user_id, _kind: None)
    #: () -> every kind of record the indexes hold (search/searchables.py `Searchables`, gathered
    #: in application/registries.py): the composition root sets it, and it imports the domains on
    #: first use, not at construction. Untyped here: the kernel names nothing above it.
    searchables: Callable[[], Any] = field(default=lambda: None)
    #: Set when the start-up warm-up (search/warm_up.py) has finished; None when none runs (Lambda).
    _warm_up_done: threading.Event | None = None

    def _build(self) -> None:
        with self._lock:
            if not self._built:
                self._embedder, self._reranker = self.build()
                self._built = True

    def warm_embedder(self) -> None:
        """Build the providers and load the embedding model now (search/warm_up.py calls it on a
        background thread at `mesq serve` start). A model that cannot load is logged; searches
        then report the vector branch as down."""
        warm_up = getattr(self.embedder, "warm", None)
        if warm_up is None:
            return
        try:
            warm_up()
        except ProviderError:
            log.warning("search: the embedding model could not be loaded; the vector branch is off")

    def warm_up_started(self) -> threading.Event:
        """A warm-up is on its way: `wait_until_warm` waits for the event it sets when done."""
        self._warm_up_done = threading.Event()
        return self._warm_up_done

    def wait_until_warm(self, timeout_s: float) -> None:
        """Block until the start-up warm-up has loaded the model (at most `timeout_s`); at once
        when none runs or it is done. Code Mode calls it before a script's clock starts, so a
        script that searches right after a start does not spend its wall time on the load."""
        done = self._warm_up_done
        if done is not None:
            done.wait(timeout_s)

    @property
    def model_id(self) -> str | None:
        """The id of the embedding model, recorded by the index it fills (None: no vectors)."""
        embedder = self.embedder
        return None if embedder is None else embedder.name

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
