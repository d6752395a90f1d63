"""AI search (docs/contract.md §9): a per-user hybrid index (BM25 + vectors) that follows writes."""
