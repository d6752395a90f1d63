"""The user partition: every item a user owns lives under pk `U#<userId>`, whichever domain
writes it (memos, todos, attachments, tokens, profile). Tenant isolation rests on building every
key from the caller's user id through this one function."""

from __future__ import annotations


def user_partition(user_id: str) -> str:
    return f"U#{user_id}"
