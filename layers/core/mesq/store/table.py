"""The single DynamoDB table's physical shape, shared by the DynamoDB adapter (which can create
it for DynamoDB Local and moto), the SQLite adapter (same key and index names) and the test that
checks `template.yaml` declares exactly this table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Attributes the sparse GSI1 projects besides its keys: what a list filter needs to decide
# whether an item matches without fetching it (see docs/data-model.md).
GSI1_PROJECTED_ATTRIBUTES = ("status", "pinned", "tagPaths", "createdAt", "updatedAt", "ttl")

TTL_ATTRIBUTE = "ttl"


def table_definition(table_name: str) -> dict[str, Any]:
    """`CreateTable` arguments (on-demand billing) for the MeSQ table."""
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": name, "AttributeType": "S"}
            for name in ("pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk", "gsi4pk", "gsi4sk")
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "gsi1",
                "KeySchema": [
                    {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
                ],
                "Projection": {
                    "ProjectionType": "INCLUDE",
                    "NonKeyAttributes": list(GSI1_PROJECTED_ATTRIBUTES),
                },
            },
            {
                "IndexName": "gsi2",
                "KeySchema": [
                    {"AttributeName": "gsi2pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi2sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                # Change records by actor and time (history/records.py): the keys and `ttl` (so
                # an expired record is hidden here as everywhere), the records then read by key
                # (undo by actor, list_changes {actor}).
                "IndexName": "gsi3",
                "KeySchema": [
                    {"AttributeName": "gsi3pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi3sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": [TTL_ATTRIBUTE]},
            },
            {
                # Change records by session (history/sessions.py): like GSI3, the keys and `ttl`,
                # the records then read by key (list_changes / undo_changes {sessionId}).
                "IndexName": "gsi4",
                "KeySchema": [
                    {"AttributeName": "gsi4pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi4sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": [TTL_ATTRIBUTE]},
            },
        ],
    }


def _projections() -> dict[str, frozenset[str] | None]:
    """Per GSI, the attributes a query of it returns: None for ALL, else the table keys, the
    index's keys and its NonKeyAttributes (KEYS_ONLY / INCLUDE), exactly as DynamoDB projects."""
    found: dict[str, frozenset[str] | None] = {}
    definition = table_definition("-")
    table_keys = {key["AttributeName"] for key in definition["KeySchema"]}
    for index in definition["GlobalSecondaryIndexes"]:
        projection = index["Projection"]
        if projection["ProjectionType"] == "ALL":
            found[index["IndexName"]] = None
            continue
        index_keys = {key["AttributeName"] for key in index["KeySchema"]}
        found[index["IndexName"]] = frozenset(table_keys | index_keys | set(projection.get("NonKeyAttributes", ())))
    return found


#: index name -> the attributes its queries return (None = the whole item).
INDEX_PROJECTIONS: Mapping[str, frozenset[str] | None] = _projections()


def projected(index: str, item: dict[str, Any]) -> dict[str, Any]:
    """What a query of `index` returns of `item`: for an adapter that stores whole items (SQLite)
    to answer exactly what DynamoDB would."""
    names = INDEX_PROJECTIONS[index]
    return dict(item) if names is None else {name: value for name, value in item.items() if name in names}
