"""The sort keys of a user's search items (pk `U#<user>`), written once, in a module that imports
nothing heavy: the start-up warm-up reads them before it knows whether numpy is needed at all."""

from __future__ import annotations

#: The AI index's pointer item (persist.py).
AI_INDEX = "SEARCH#INDEX"
#: An AI index build under way (build.py).
AI_BUILD = "SEARCH#BUILD"
#: Each literal index's pointer item, by kind (literal_kinds.py; the memo index keeps the name
#: it was first stored under).
LITERAL = {"memo": "SEARCH#LITERAL#MEMO", "reading": "SEARCH#LITERAL#READING", "todo": "SEARCH#LITERAL#TODO"}
