"""The change history (docs/contract.md, history and undo): one change record per changed record,
written in the transaction of the write itself; `list_changes` reads them, `undo_changes`
reverts them. See README.md."""
