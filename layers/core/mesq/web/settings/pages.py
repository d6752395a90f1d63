"""The settings pages, listed once: the header's Settings bar (base.html, a Jinja global) and
`/settings` (`index.py`), the index a phone uses instead of that bar (too long for a
390 px header)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SettingsPage:
    nav: str  # the `nav` value the page renders with (aria-current)
    path: str
    title: str
    title_zh: str
    summary: str


SETTINGS_PAGES = (
    SettingsPage("tokens", "/settings/tokens", "Access credentials", "访问凭证",
                 "Personal access tokens for scripts, Shortcuts and MCP clients"),
    SettingsPage("apps", "/settings/apps", "Connected apps", "已连接应用", "OAuth apps you allowed, and revoking them"),
    SettingsPage("reading", "/settings/reading", "Reading sync", "阅读同步",
                 "The WeChat Reading credential, sync now, import a file"),
    SettingsPage("reminders", "/settings/reminders", "Reminders", "提醒", "Webhooks that receive todo reminders"),
    SettingsPage("attachments", "/settings/attachments", "Attachments", "附件", "Files in use or left over, clean-up"),
    SettingsPage("calendar", "/settings/calendar", "Calendar feed", "日历订阅",
                 "A private iCalendar feed of your todos"),
    SettingsPage("export", "/settings/export", "Export", "导出", "Download all your data as one archive"),
    SettingsPage("import", "/settings/import", "Import", "导入", "Bring in an archive, or a ZIP of Markdown notes"),
    SettingsPage("trash", "/trash", "Trash", "回收站", "Deleted memos: restore or delete for good"),
)  # fmt: skip
