"""Refit AI search's fusion on the TUNING half of the relevance set only:
`python -m tests.search.calibrate` computes, through the pipeline's own code, every (query, note)
pair's features (term coverage; the vector branch's score, the query-relative z and the
note-relative note_z over the probe queries together; its gap to the best other note of the
note's language), fits the logistic
weights of "is the query's note" (the coverage weight held at `pipeline.W_COVERAGE`, see its
comment) over the tuning queries of every class: a twin query has two right notes, an absent
topic none. It prints, for each candidate floor, the tuning half's recall@5 of the default
answer's items per class and the mean number of items, the share of twin queries with both notes
in the items, and the share of absent-topic queries with no item. Write the weights and the floor
into search/pipeline.py; the held-out half is read by test_relevance alone."""

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
from .relevance_set import ABSENT, CLASSES, MEMOS, QUERIES, TWINS

FLOORS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
TWIN, NOTHING = "twin", "absent"


def features(index, query: str, embedder) -> tuple[np.ndarray, ...]:  # type: ignore[no-untyped-def]
    """Every position's coverage, similarity (the vector branch's score) and gap as fusion reads
    them (clipped as `logit` clips them), and which positions fusion has as candidates."""
    accepted = index.accepted(lambda doc: True, "all")
    lexical = pipeline._coverage(index, list(dict.fromkeys(tokens(query))), accepted)
    semantic = pipeline._similarity(index, query, embedder, accepted)
    positions = np.arange(len(accepted))
    candidate = lexical.member.copy()
    candidate[semantic.candidates] = True
    return (
        lexical.coverage, np.maximum(semantic.score, 0.0), np.maximum(semantic.gap(positions), -1.0), candidate,
    )  # fmt: skip


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
        tuning = [(q, (memo,), cls) for q, memo, cls, half in QUERIES if half == "tuning"]
        tuning += [(q, pair, TWIN) for q, pair, half in TWINS if half == "tuning"]
        tuning += [(q, (), NOTHING) for q, half in ABSENT if half == "tuning"]
        rows, labels, per_query = [], [], []
        for query, memos, cls in tuning:
            coverage, z, gap, candidate = features(index, query, embedder)
            wanted = {ids[memo] for memo in memos}
            target = np.array([index.entry_at(i).doc.id in wanted for i in range(len(coverage))])
            keep = candidate | target  # what fusion scores (a right note it misses is a row too)
            rows.append(np.c_[coverage**3, z, gap][keep]), labels.append(target[keep])
            per_query.append((cls, coverage, z, gap, candidate, target))
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
            for cls in (*CLASSES, TWIN, NOTHING):
                found, sizes, top = [], [], []
                for query_cls, coverage, z, gap, candidate, target in per_query:
                    if query_cls != cls:
                        continue
                    logit = pipeline.W_COVERAGE * coverage**3 + weights[0] * z + weights[1] * gap + weights[2]
                    score = np.where(candidate, 1 / (1 + np.exp(-logit)), 0.0)
                    items = score >= floor
                    sizes.append(int(np.count_nonzero(items)))
                    top.append(float(score.max()))
                    if cls == NOTHING:
                        found.append(not items.any())
                    elif cls == TWIN:
                        found.append(bool(items[target].all()))
                    else:
                        rank = int(np.count_nonzero(score > score[target][0])) + 1
                        found.append(bool(items[target][0]) and rank <= 5)
                extra = f" top {max(top):.2f}" if cls == NOTHING else ""
                cells.append(f"{cls}={np.mean(found):.2f}/{np.mean(sizes):.1f}{extra}")
            print(f"floor {floor:.2f}  tuning (R@5 | both twins | nothing) / items: " + "  ".join(cells))
        services.items.close()


if __name__ == "__main__":
    main()
