"""The CalDAV edge (RFC 4791, VTODO only): the user's spaces and inbox as task calendars for
Apple Reminders, Thunderbird, DAVx⁵ + Tasks.org and vdirsyncer. See README.md beside this file.
"""

from .app import dav_routes

__all__ = ["dav_routes"]
