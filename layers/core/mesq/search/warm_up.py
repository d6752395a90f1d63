"""Warm search up while `mesq serve` starts, so neither the first search nor a Code Mode script's
wall time pays for loading: numpy and bm25s (what a first search imports), jieba's dictionary
(read on its first cut) and the embedding model."""

from __future__ import annotations

import threading

from ..model_ports import SearchRuntime


def warm_in_background(runtime: SearchRuntime) -> threading.Thread:
    def warm() -> None:
        from .pipeline import search  # noqa: F401
        from .tokens import tokens

        tokens("预热 warm-up")
        runtime.warm_embedder()

    thread = threading.Thread(target=warm, name="mesq-search-warm-up", daemon=True)
    thread.start()
    return thread
