"""`write_each` (an archive import's batches, backfills) over long items: in transactions
DynamoDB takes, on DynamoDB Local as on AWS."""

from __future__ import annotations

import random

import pytest

from mesq.kernel.ports.storage import Condition, Put
from mesq.store.each import write_each


@pytest.mark.dynamodb_local
def test_a_batch_of_long_items_is_written_whole_under_the_payload_limit(dynamodb_local):
    """40 memo-sized items of 49,000 random Chinese characters (150 KB each), as an archive
    import's batch of absent records: one transaction of 6 MB, which DynamoDB refused (a
    ValueError, the import failed); now every one is written, and a rerun writes none."""
    rng = random.Random(3)
    items = [
        {
            "pk": "U#u1",
            "sk": f"MEMO#{n:04d}",
            "content": "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(49_000)),
        }
        for n in range(40)
    ]
    absent = Condition(exists=False)
    assert write_each(dynamodb_local, [Put(item, absent) for item in items]) == 40
    assert all(dynamodb_local.get((item["pk"], item["sk"])) == item for item in items)
    assert write_each(dynamodb_local, [Put(item, absent) for item in items]) == 0
