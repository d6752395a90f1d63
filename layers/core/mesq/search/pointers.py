"""The sort keys of a user's search items (pk `U#<user>`), and what the AI index's pointer says
about the index it names, written once, in a module that imports nothing heavy: the start-up
warm-up and a search read them before they know whether numpy is needed at all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The AI index's pointer item (persist.py).
AI_INDEX = "SEARCH#INDEX"
#: An AI index build under way (build.py).
AI_BUILD = "SEARCH#BUILD"
#: Each literal index's pointer item, by kind (literal_kinds.py; the memo index keeps the name
#: it was first stored under).
LITERAL = {"memo": "SEARCH#LITERAL#MEMO", "reading": "SEARCH#LITERAL#READING", "todo": "SEARCH#LITERAL#TODO"}


def same_model(pointer: Mapping[str, Any], model_id: str | None) -> bool:
    """The AI index's vectors are `model_id`'s: they compare with its query vectors, and a build
    may keep them. Another model's index is stale (persist.py)."""
    return pointer.get("model") == model_id


def same_tokens(pointer: Mapping[str, Any]) -> bool:
    """The AI index's terms are this tokenizer's (`TOKENS_FORMAT`; a pointer without `tokens` is
    version 1): a build may keep them. Older terms still answer until a build makes them again."""
    # Imported here, not at the top: the literal indexes and the warm-up import this module at
    # cold start and never ask this, so only a caller that does loads the tokenizer.
    from .tokenizer import TOKENS_FORMAT

    return int(pointer.get("tokens", 1)) == TOKENS_FORMAT
