"""Refit AI search's fusion on the TUNING half of the relevance set only:
`python -m tests.search.calibrate` computes, through the pipeline's own code, every (query, note)
pair's features (term coverage, query-relative similarity, gap to the best other note), fits the
logistic weights of "is the query's note" (the coverage weight held at `pipeline.W_COVERAGE`,
see its comment), and prints, for each candidate floor, the tuning half's recall@5 of the default
answer per class and the mean answer size. Write the weights and the highest floor that keeps
every class's tuning recall into search/pipeline.py; the held-out half is read by test_relevance
alone."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.application.search_operations import _source
from mesq.search import pipeline
from mesq.search.indexer import rebuild
from mesq.search.tokenizer import tokens
from mesq.wiring.services import build_services
from tests.settings import inprocess_settings
from tests.support.operations import call_of

from .conftest import ALL_READ, run
from .relevance_set import CLASSES, MEMOS, QUERIES

FLOORS = (0.05, 0.1, 0.15, 0.2, 0.3)


def features(index, query: str, embedder) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    accepted = index.accepted(lambda doc: True, "all")
    lexical = pipeline._coverage(index, list(dict.fromkeys(tokens(query))), accepted)
    semantic = pipeline._similarity(index, query, embedder, accepted)
    positions = np.arange(len(accepted))
    return lexical.coverage, np.maximum(semantic.z, 0.0), np.maximum(semantic.gap(positions), -1.0)


def main() -> None:
    embedder = BundledEmbedder()
    with tempfile.TemporaryDirectory() as data_dir:
        settings = inprocess_settings(data_dir=Path(data_dir), search_provider="none", search_index_updates="off")
        services = build_services(settings)
        services.search.embedder = embedder
        ids = {name: run(services, "create_memo", {"content": text})["memo"]["id"] for name, text in MEMOS.items()}
        rebuild(services, "u1")  # as test_relevance builds it: one build, updates off
        index = _source(call_of(services, "u1", ALL_READ)).index
        assert index is not None
        tuning = [(q, memo, cls) for q, memo, cls, half in QUERIES if half == "tuning"]
        rows, labels, per_query = [], [], []
        for query, memo, cls in tuning:
            coverage, z, gap = features(index, query, embedder)
            target = np.array([index.entry_at(i).doc.id == ids[memo] for i in range(len(coverage))])
            rows.append(np.c_[coverage**3, z, gap]), labels.append(target)
            per_query.append((cls, coverage, z, gap, target))
        x, y = np.vstack(rows), np.concatenate(labels).astype(float)
        fixed = x[:, 0] * pipeline.W_COVERAGE
        design = np.c_[x[:, 1], x[:, 2], np.ones(len(x))]
        weights = np.zeros(3)
        for _step in range(20_000):  # plain gradient descent: three weights, a few thousand rows
            p = 1 / (1 + np.exp(-(design @ weights + fixed)))
            weights -= 2.0 * (design.T @ (p - y) / len(y) + 1e-4 * np.r_[weights[:2], 0])
        print(f"W_SIMILARITY {weights[0]:.2f}  W_GAP {weights[1]:.2f}  BIAS {weights[2]:.2f}")
        for floor in FLOORS:
            cells = []
            for cls in CLASSES:
                found, sizes = [], []
                for query_cls, coverage, z, gap, target in per_query:
                    if query_cls != cls:
                        continue
                    logit = pipeline.W_COVERAGE * coverage**3 + weights[0] * z + weights[1] * gap + weights[2]
                    score = 1 / (1 + np.exp(-logit))
                    rank = int(np.count_nonzero(score > score[target][0])) + 1
                    found.append(score[target][0] >= floor and rank <= 5)
                    sizes.append(int(np.count_nonzero(score >= floor)))
                cells.append(f"{cls}={np.mean(found):.2f}/{np.mean(sizes):.1f}")
            print(f"floor {floor:.2f}  tuning R@5 of the answer / hits: " + "  ".join(cells))
        services.items.close()


if __name__ == "__main__":
    main()
