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
from contextlib import AbstractContextManager, nullcontext
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
    #: False with `MESQ_SEARCH_PROVIDER=none` (search off: BM25 only, and the start-up warm-up
    #: loads nothing at all, search/warm_up.py).
    enabled: bool = True
    #: Whether something keeps the indexes in step with the writes (the in-process follower or
    #: the stream function): the literal indexes are used only then (search/literal_store.py).
    follows_writes: bool = False
    #: Waits for a user's queued in-process index updates (follow.py sets it), at most `timeout`
    #: seconds when given: True when they all ran (at once where nothing queues them).
    settle: Callable[..., bool] = field(default=lambda _user_id, timeout=None: True)
    #: The same for the literal indexes (search/literal_store.py), which have their own worker:
    #: a literal search never waits for an embedding.
    settle_literal: Callable[[str], None] = field(default=lambda _user_id: None)
    #: Asks for a background rebuild of a user's literal index of a kind ("memo", "reading",
    #: "todo") a query found missing or out of step (follow.py sets it); a no-op where the stream
    #: function keeps the index (AWS).
    literal_missing: Callable[[str, str], None] = field(default=lambda _user_id, _kind: None)
    #: Asks for a user's AI index build (search/build.py) to run where builds run: `mesq serve`'s
    #: low-priority build worker (follow.py), the build queue on AWS (wiring; `again=True`: a
    #: build continued, never held back); a no-op where nothing runs builds (a command that
    #: does not build: the next `mesq serve` resumes it).
    request_build: Callable[..., None] = field(default=lambda _user_id, again=False: None)
    #: Waits at most `timeout` seconds for the build steps queued for a user so far (a small
    #: account's whole build): True when they ran; False at once where builds run elsewhere.
    settle_build: Callable[..., bool] = field(default=lambda _user_id, timeout=None: False)
    #: Called before each background build step: `mesq serve` waits there while a request is in
    #: flight or has just ended (a few seconds at most), as its warm-up does, so a build's loads
    #: (jieba's dictionary, a step's tokens) do not share the interpreter with the requests. A
    #: no-op where builds run apart from requests (the indexer function on AWS, `mesq import`).
    give_way: Callable[[], None] = field(default=lambda: None)
    #: `with runtime.importing(user) as paused:` an import's writes are not followed one by one
    #: (the in-process follower skips them; `paused` True): the import then builds the indexes
    #: once (search/imported.py). A no-op where the stream follows every write (AWS).
    importing: Callable[[str], AbstractContextManager[bool | None]] = field(default=lambda _user_id: nullcontext())
    #: () -> every kind of record the indexes hold (search/searchables.py `Searchables`, gathered
    #: in application/registries.py): the composition root sets it, and it imports the domains on
    #: first use, not at construction. Untyped here: the kernel names nothing above it.
    searchables: Callable[[], Any] = field(default=lambda: None)
    #: Set when the start-up warm-up (search/warm_up.py) has finished; None when none runs (Lambda).
    _warm_up_done: threading.Event | None = None
    _warm_up_begun: threading.Event | None = None
    #: (search's embedder) -> the bundled model `search_tools` ranks tools with (the same
    #: instance when search uses it; services.tool_embedder), or None when it cannot load.
    build_tool_embedder: Callable[[Embedder | None], Embedder | None] = field(default=lambda _embedder: None)
    _tool_embedder: Embedder | None = None
    _tool_built: bool = False

    def _build(self) -> None:
        with self._lock:
            if not self._built:
                self._embedder, self._reranker = self.build()
                self._built = True

    def warm_embedder(self) -> None:
        """Build the providers and load the embedding model now (search/warm_up.py: Lambda's
        init, which SnapStart snapshots). A model that cannot load is logged; searches then
        report the vector branch as down."""
        warm_up = getattr(self.embedder, "warm", None)
        if warm_up is None:
            return
        try:
            warm_up()
        except ProviderError:
            log.warning("search: the embedding model could not be loaded; the vector branch is off")

    def warm_up_started(self) -> threading.Event:
        """A warm-up is planned (`ready` is False until it sets the event it gets when done)."""
        self._warm_up_begun = threading.Event()
        self._warm_up_done = threading.Event()
        return self._warm_up_done

    def warm_up_working(self) -> None:
        """The planned warm-up has begun its work: `wait_until_warm` waits for it from now on."""
        if self._warm_up_begun is not None:
            self._warm_up_begun.set()

    @property
    def ready(self) -> bool:
        """False while a start-up warm-up is planned or running (`/healthz` reports it)."""
        done = self._warm_up_done
        return done is None or done.is_set()

    def wait_until_warm(self, timeout_s: float) -> None:
        """Block while the start-up warm-up is at work (at most `timeout_s`); at once when none
        runs, it is done, or it still waits for a quiet server (the request calling this would
        keep it waiting). Code Mode calls it before a script's clock starts, so a script does
        not spend its wall time competing with the warm-up's loads."""
        begun, done = self._warm_up_begun, self._warm_up_done
        if begun is not None and done is not None and begun.is_set():
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
    def tool_embedder(self) -> Embedder | None:
        """The bundled model for `search_tools` (mcp/code/search.py), built on first use."""
        if not self._tool_built:
            embedder = self.embedder
            with self._lock:
                if not self._tool_built:
                    self._tool_embedder = self.build_tool_embedder(embedder)
                    self._tool_built = True
        return self._tool_embedder

    @property
    def reranker(self) -> Reranker | None:
        self._build()
        return self._reranker

    @reranker.setter
    def reranker(self, value: Reranker | None) -> None:
        self._build()
        self._reranker = value
