"""A time zone by name in a person's words (`kernel.formats.zone_name`): the memo sidebar's days,
reminder messages and Activity's times say it. The fixed `Etc/GMT±N` zones are named by their real
offset (their names' signs are POSIX's: `Etc/GMT+5` is five hours behind UTC), and a zone CLDR
places in no region by its own name."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from mesq.auth.user_zone import zone_names
from mesq.kernel.formats import zone_name


@pytest.mark.parametrize(
    ("zone", "said"),
    [("Etc/GMT+5", "UTC-5"), ("Etc/GMT-8", "UTC+8"), ("Etc/GMT-14", "UTC+14"), ("Etc/GMT+12", "UTC-12"),
     ("Etc/GMT-0", "UTC"), ("GMT", "UTC"), ("Zulu", "UTC"), ("Etc/Universal", "UTC"), ("UTC", "UTC")],
)  # fmt: skip
def test_a_fixed_offset_zone_is_named_by_its_real_offset(zone: str, said: str) -> None:
    assert zone_name(ZoneInfo(zone), "en") == zone_name(ZoneInfo(zone), "zh") == said
    offset = datetime(2026, 12, 6, tzinfo=UTC).astimezone(ZoneInfo(zone)).utcoffset()
    assert offset is not None
    hours = int(offset.total_seconds() // 3600)
    assert said == ("UTC" if hours == 0 else f"UTC{hours:+d}")  # the words agree with the clock


@pytest.mark.parametrize("language", ["en", "zh"])
def test_no_zone_a_person_can_choose_is_an_unknown_region(language: str) -> None:
    said = {zone: zone_name(ZoneInfo(zone), language) for zone in zone_names()}
    odd = {zone: words for zone, words in said.items() if words.startswith(("world", "Unknown", "世界", "未知"))}
    assert odd == {}
    assert said["EST5EDT"] == "EST5EDT"  # a POSIX rule zone by its own name
    assert said["Asia/Shanghai"] == {"en": "China Time", "zh": "中国时间"}[language]
    assert said["US/Eastern"] == {"en": "Eastern Time", "zh": "北美东部时间"}[language]  # an alias as its zone
