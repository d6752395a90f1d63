"""The user partition: every item a user owns lives under pk `U#<userId>`, whichever domain
writes it (memos, todos, attachments, tokens, profile). Tenant isolation rests on building every
key from the caller's user id through this one function."""

from __future__ import annotations


def user_partition(user_id: str) -> str:
    return f"U#{user_id}"


def partition_owner(pk: str) -> str | None:
    """Whose user partition `pk` is (`U#<userId>`), or None for any other partition, nested ones
    (`U#<userId>#...`) included."""
    if not pk.startswith("U#"):
        return None
    user_id = pk[2:]
    return user_id if user_id and "#" not in user_id else None
