"""Warm search up while `mesq serve` starts, so neither the first search nor a Code Mode script's
wall time pays for loading: numpy and bm25s (what a first search imports), jieba's dictionary
(read on its first cut) and the embedding model. Code Mode waits for it to finish
(`SearchRuntime.wait_until_warm`) before a script's clock starts."""

from __future__ import annotations

import threading

from ..kernel.ports.models import SearchRuntime


def warm_in_background(runtime: SearchRuntime) -> threading.Thread:
    done = runtime.warm_up_started()  # before the thread runs: a script sent at once waits too

    def warm() -> None:
        try:
            from .pipeline import search  # noqa: F401
            from .tokenizer import tokens

            tokens("预热 warm-up")
            runtime.warm_embedder()
        finally:
            done.set()

    thread = threading.Thread(target=warm, name="mesq-search-warm-up", daemon=True)
    thread.start()
    return thread
