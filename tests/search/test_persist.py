"""search/persist.py's blob format: vectors stored (float16 barely deflates, and inflating them
was most of a load), the rest deflated; a snapshot whose vectors were deflated (written before)
reads back the same."""

from __future__ import annotations

import io
import zipfile

import numpy as np

from mesq.search.documents import Doc
from mesq.search.index import Entry
from mesq.search.persist import pack_entries, unpack_entries


def _entries() -> list[Entry]:
    rng = np.random.default_rng(7)
    return [
        Entry(Doc("memo", f"m{n}", f"note {n} 笔记", {"status": "NORMAL"}), ("note", str(n), "笔记"),
              rng.standard_normal(8).astype(np.float32) if n % 3 else None)
        for n in range(30)
    ]  # fmt: skip


def _same(left: list[Entry], right: list[Entry]) -> bool:
    return all(
        a.doc == b.doc and a.tokens == b.tokens
        and ((a.vector is None) == (b.vector is None))
        and (a.vector is None or b.vector is None or np.allclose(a.vector, b.vector, atol=1e-2))
        for a, b in zip(left, right, strict=True)
    )  # fmt: skip


def test_vectors_are_stored_and_the_rest_deflated() -> None:
    packed = pack_entries(_entries(), ["memo#gone"], 8)
    with zipfile.ZipFile(io.BytesIO(packed)) as archive:
        kinds = {info.filename: info.compress_type for info in archive.infolist()}
    assert kinds == {"entries.json": zipfile.ZIP_DEFLATED, "vectors.npy": zipfile.ZIP_STORED,
                     "has_vector.npy": zipfile.ZIP_DEFLATED}  # fmt: skip
    entries, removed, dimension, bm25 = unpack_entries(packed)
    assert _same(entries, _entries()) and removed == ["memo#gone"] and dimension == 8 and bm25 is None


def test_a_blob_with_deflated_vectors_reads_the_same() -> None:
    packed = pack_entries(_entries(), [], 8)
    older = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(packed)) as archive, zipfile.ZipFile(older, "w", zipfile.ZIP_DEFLATED) as out:
        for info in archive.infolist():
            out.writestr(info.filename, archive.read(info.filename))
    entries, _removed, dimension, _bm25 = unpack_entries(older.getvalue())
    assert _same(entries, _entries()) and dimension == 8
