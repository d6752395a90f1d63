"""What search holds of a memo (the engines in mesq/search, handed these through
application/registries.py):

- `LITERAL` (search_memos' literal index, search/literal_store.py): every memo, any status; the
  content folded; the list order (`filters.sort_key`);
- `DOCUMENTS` (the AI index, search/indexer.py): a memo not in the trash, its content, with the
  status, tag paths and creation time `search_ai_memos` filters on.
"""

from __future__ import annotations

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item
from ..search import pointers
from ..search.documents import Doc, DocumentSource
from ..search.literal_kind import LiteralKind, Row, fold, one_per_key
from ..store.paging import walk
from .filters import sort_key
from .keys import MEMO_PREFIX

#: What the memo filter and the list order read (filters.py), kept with each row.
MEMO_FIELDS = ("sk", "status", "pinned", "tagPaths", "createdAt", "updatedAt")


def memo_row(item: Item) -> Row:
    """A stored memo as an index row: the content folded as the scan folds it."""
    fields = {name: item[name] for name in MEMO_FIELDS if name in item}
    return Row(str(item["id"]), fields, fold(str(item["content"])))


def list_order(row: Row) -> tuple[bool, str, str]:
    """A row's place in search_memos' answer: the list order (`filters.sort_key`)."""
    return sort_key(row.fields)


LITERAL = LiteralKind(
    name="memo", pointer_sk=pointers.LITERAL["memo"], blob_stem="literal", prefixes=(MEMO_PREFIX,),
    order=list_order, descending=True,
    all_rows=lambda items, user_id: map(memo_row, walk(items, user_partition(user_id), prefix=MEMO_PREFIX)),
    changed=one_per_key(MEMO_PREFIX, memo_row), sort_key=lambda row_id: MEMO_PREFIX + row_id,
)  # fmt: skip


def memo_doc(item: Item) -> Doc | None:
    if item["status"] == "DELETED":
        return None
    meta = {"status": item["status"], "tagPaths": list(item.get("tagPaths", [])), "createdAt": item["createdAt"]}
    return Doc("memo", item["id"], item["content"], meta)


DOCUMENTS = (DocumentSource(MEMO_PREFIX, "memo", memo_doc),)
