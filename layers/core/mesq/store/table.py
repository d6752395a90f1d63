"""The single DynamoDB table's physical shape, shared by the DynamoDB adapter (which can create
it for DynamoDB Local and moto), the SQLite adapter (same key and index names) and the test that
checks `template.yaml` declares exactly this table."""

from __future__ import annotations

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
            for name in ("pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk")
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
        ],
    }
