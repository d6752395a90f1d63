"""Recalibrate the bundled model's vector floor on the TUNING half of the relevance set only:
`python -m tests.search.calibrate_floor` prints hybrid and vector recall@5 / MRR per class and the
vector branch's mean candidate count for each floor. Choose the highest floor that keeps the tuning
half's hybrid recall (fewer noise candidates per query), then write it into
`BundledEmbedder.min_similarity`; the held-out half is read by test_relevance alone."""

from __future__ import annotations

import tempfile
from pathlib import Path

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.wiring.services import build_services
from tests.settings import inprocess_settings

from .conftest import run
from .relevance_set import CLASSES, MEMOS, QUERIES
from .test_relevance import evaluate

FLOORS = (0.74, 0.76, 0.78, 0.8, 0.82, 0.84)


def main() -> None:
    embedder = BundledEmbedder()
    with tempfile.TemporaryDirectory() as data_dir:
        settings = inprocess_settings(data_dir=Path(data_dir), search_provider="none", search_index_updates="off")
        services = build_services(settings)
        services.search.embedder = embedder
        ids = {name: run(services, "create_memo", {"content": text})["memo"]["id"] for name, text in MEMOS.items()}
        tuning = [query for query, _memo, _cls, half in QUERIES if half == "tuning"]
        for floor in FLOORS:
            embedder.min_similarity = floor
            scores = evaluate(services, ids, "tuning")
            candidates = [
                next(
                    s["candidates"]
                    for s in run(services, "search_ai_memos", {"query": q})["stages"]
                    if s["name"] == "vector"
                )
                for q in tuning
            ]
            cells = "  ".join(
                f"{cls}={scores[cls, 'hybrid'].recall:.2f}/{scores[cls, 'vector'].recall:.2f}" for cls in CLASSES
            )
            print(
                f"floor {floor:.2f}  hybrid/vector R@5: {cells}  "
                f"vector candidates/query {sum(candidates) / len(candidates):.1f}"
            )
        services.items.close()


if __name__ == "__main__":
    main()
