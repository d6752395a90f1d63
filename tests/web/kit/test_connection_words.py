"""The connection a grant is for, in plain words (web/kit/scope_words.connection_words)."""

from __future__ import annotations

import pytest

from mesq.kernel.i18n import Translator
from mesq.kernel.toolsets import TOOLSETS
from mesq.web.kit.scope_words import TOOLSET_WORDS, connection_words

BASE = "https://notes.example"


@pytest.mark.parametrize(
    ("path", "english", "chinese"),
    [
        ("/mcp", "MCP, every tool its access allows", "MCP：权限允许的全部工具"),
        ("/mcp/readonly", "MCP, every tool that only reads", "MCP：全部只读工具"),
        ("/mcp/x/memo", "MCP, only memos", "MCP：仅限笔记"),
        (
            "/mcp/x/memo,todo_inbox,reading",
            "MCP, only memos, the todo inbox, and the reading shelf",
            "MCP：仅限笔记、待办收件箱和阅读书架",
        ),
        ("/mcp/x/code/readonly", "MCP, only Code Mode, read-only", "MCP：仅限代码模式，只读"),
        ("/mcp/x/all", "MCP, every tool its access allows", "MCP：权限允许的全部工具"),
        ("/mcp/x/default/readonly", "MCP, every tool that only reads", "MCP：全部只读工具"),
        ("/api/toolkit", "The REST API, for scripts and Shortcuts", "REST API（供脚本和快捷指令使用）"),
    ],
)
def test_every_kind_of_connection_reads_in_both_languages(path: str, english: str, chinese: str) -> None:
    assert connection_words(BASE + path, Translator("en")) == english
    assert connection_words(BASE + path, Translator("zh")) == chinese


def test_every_tool_group_has_words() -> None:
    assert set(TOOLSET_WORDS) == set(TOOLSETS)


def test_a_resource_of_no_known_form_is_shown_as_it_is() -> None:
    assert connection_words(BASE + "/elsewhere", Translator("zh")) == BASE + "/elsewhere"
