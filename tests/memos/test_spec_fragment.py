"""The memo operations live in their own OpenAPI fragment (memos/openapi.yaml) like every other
domain; the root keeps only shared components. Moving them must not change the served document:
memo paths stay first (so tools/list keeps its order) and each memo operation is implemented by
the memo package."""

from __future__ import annotations

from importlib import resources

import yaml

from mesq.kernel.spec import FRAGMENTS_KEY, load_spec
from mesq.memos.reads import OPERATIONS as READS
from mesq.memos.writes import OPERATIONS as WRITES


def _yaml(name: str) -> dict:
    return yaml.safe_load(resources.files("mesq").joinpath(name).read_text(encoding="utf-8"))


def test_the_root_defines_no_paths_and_lists_the_memo_fragment_first():
    root = _yaml("openapi.yaml")
    assert "paths" not in root
    assert root[FRAGMENTS_KEY][0] == "memos/openapi.yaml"


def test_memo_paths_come_first_in_the_served_document():
    fragment_paths = list(_yaml("memos/openapi.yaml")["paths"])
    served = list(load_spec().document["paths"])
    assert served[: len(fragment_paths)] == fragment_paths


def test_every_memo_fragment_operation_is_a_memo_operation():
    ids = {
        operation["operationId"]
        for item in _yaml("memos/openapi.yaml")["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    memo_functions = (set(READS) | set(WRITES)) - {"list_memo_resources"}  # attachments' fragment
    assert ids == memo_functions
