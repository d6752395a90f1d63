"""One rule says whether a key is a searchable user record, and whose (search/searchables.py
`Searchables.owner`, over the sources application/registries.py gathers): the stream consumer
and the in-process follower use it, and the indexer's stream filter in template.yaml must name
exactly SOURCE_PREFIXES, or a new searchable kind would be indexed under `mesq serve` and
silently never on AWS."""

from __future__ import annotations

import json

import pytest

from mesq.application.registries import SEARCHABLES
from tests.infra.template_tools import load_template

SOURCE_PREFIXES, searchable_owner = SEARCHABLES.prefixes, SEARCHABLES.owner


def template_filter_prefixes(template: dict) -> list[str]:
    events = template["Resources"]["IndexerFunction"]["Properties"]["Events"]
    (stream,) = [event for event in events.values() if event["Type"] == "DynamoDB"]
    (only,) = stream["Properties"]["FilterCriteria"]["Filters"]
    pattern = json.loads(only["Pattern"])
    return [rule["prefix"] for rule in pattern["dynamodb"]["Keys"]["sk"]["S"]]


def test_the_indexer_stream_filter_names_exactly_the_searchable_prefixes():
    assert sorted(template_filter_prefixes(load_template())) == sorted(SOURCE_PREFIXES)


def test_the_check_fails_when_the_filter_and_the_prefixes_differ():
    template = load_template()
    stream = next(e for e in template["Resources"]["IndexerFunction"]["Properties"]["Events"].values()
                  if e["Type"] == "DynamoDB")  # fmt: skip
    filters = stream["Properties"]["FilterCriteria"]["Filters"]
    pattern = json.loads(filters[0]["Pattern"])
    pattern["dynamodb"]["Keys"]["sk"]["S"].pop()  # a kind forgotten in template.yaml
    filters[0]["Pattern"] = json.dumps(pattern)
    assert sorted(template_filter_prefixes(template)) != sorted(SOURCE_PREFIXES)


@pytest.mark.parametrize(
    ("pk", "sk", "owner"),
    [
        ("U#alice", "MEMO#m1", "alice"),
        ("U#alice", "TODO#TASK#t1", "alice"),
        ("U#alice", "TODO#INBOX#i1", "alice"),
        ("U#alice", "READ#NOTE#n1", "alice"),
        ("U#alice", "TOKEN#t1", None),  # not searchable
        ("U#alice#SEARCH", "MEMO#m1", None),  # a nested partition is no user's record
        ("U#", "MEMO#m1", None),
        ("OAUTH#c1", "MEMO#m1", None),
    ],
)
def test_searchable_owner(pk, sk, owner):
    assert searchable_owner(pk, sk) == owner
