"""The history written for people: `/activity` (one group per session, each change a sentence in
the page's language with its details folded, Undo after a preview), every record's History panel,
and the in-order undo behind every toast's Undo button."""
