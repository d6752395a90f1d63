"""Scopes in plain words, for the consent page and the token form (docs/contract.md §1 scopes)."""

from __future__ import annotations

SCOPE_WORDS: dict[str, str] = {
    "memo:read": "Read your memos and their attachments · 读取 Memo",
    "memo:write": "Create and change memos, move them to the trash · 创建和修改 Memo",
    "todo:read": "Read your todos · 读取待办",
    "todo:write": "Create and change todos · 创建和修改待办",
    "reading:read": "Read your reading shelf: books and highlights · 读取书架与划线",
}


def describe(scope: str) -> str:
    return SCOPE_WORDS.get(scope, scope)
