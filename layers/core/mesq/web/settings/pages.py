"""The settings pages, listed once: the side menu every settings page shows (base.html, a Jinja
global) and the `/settings` index (`index.py`). The header has one Settings entry that opens
`/settings`. Titles and summaries are English source text marked with `N_` and translated
where they are shown (`{{ _(item.title) }}`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..kit.i18n import N_


@dataclass(frozen=True)
class SettingsPage:
    nav: str  # the `nav` value the page renders with (aria-current)
    path: str
    title: str
    summary: str


SETTINGS_PAGES = (
    SettingsPage("tokens", "/settings/tokens", N_("Access credentials"),
                 N_("Personal access tokens for scripts, Shortcuts and MCP clients")),
    SettingsPage("apps", "/settings/apps", N_("Connected apps"), N_("OAuth apps you allowed, and revoking them")),
    SettingsPage("reading", "/settings/reading", N_("Reading sync"),
                 N_("The WeChat Reading credential, sync now, import a file")),
    SettingsPage("reminders", "/settings/reminders", N_("Reminders"), N_("Channels that receive todo reminders")),
    SettingsPage("attachments", "/settings/attachments", N_("Attachments"), N_("Files in use or left over, clean-up")),
    SettingsPage("calendar", "/settings/calendar", N_("Calendar feed"),
                 N_("A private iCalendar feed of your todos, and your tasks in calendar apps (CalDAV)")),
    SettingsPage("export", "/settings/export", N_("Export"), N_("Download all your data as one archive")),
    SettingsPage("import", "/settings/import", N_("Import"), N_("Archives, Markdown, memos, flomo, Todoist")),
    SettingsPage("trash", "/trash", N_("Trash"), N_("Deleted memos: restore or delete for good")),
)  # fmt: skip

#: Every `nav` value of a settings page, `/settings` itself included: these pages show the menu.
SETTINGS_NAVS = frozenset({"settings", *(item.nav for item in SETTINGS_PAGES)})
