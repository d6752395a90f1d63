"""`mesq serve` syncs reading on its own (AWS: the 6-hourly schedule): each user with a credential
whose last attempt is older than the interval, against a loopback fake of the upstream; a failing
credential is retried at the same pace, never in a loop; `off` turns it off."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from mesq.jobs.reading_sync import due_for_sync, sync_due_users
from mesq.jobs.sweeper import sync_reading_forever
from mesq.kernel.timestamps import now_timestamp
from mesq.reading.credentials import save_credential
from mesq.reading.sync import sync_status
from mesq.wiring.config import ConfigError, Settings
from mesq.wiring.services import Services, build_sealer

from .fake_weread import API_KEY, running, sample_shelf
from .test_import import stored

INTERVAL = timedelta(hours=6)


def _with_upstream(services: Services, base_url: str) -> Services:
    settings = dataclasses.replace(
        services.settings, wechat_reading_gateway_url=f"{base_url}/api/agent/gateway", wechat_reading_web_url=base_url
    )
    return dataclasses.replace(services, settings=settings)


def _reader(services: Services, make_account, api_key: str) -> str:
    user_id = make_account(scopes="reading:read").user_id
    save_credential(services.items, build_sealer(services.settings), user_id, "api_key", api_key, now_timestamp())
    return user_id


def test_each_due_user_is_synced_once_per_interval(services, make_account):
    fake = sample_shelf(books=2, highlights=2, thoughts=1)
    with running(fake) as base_url:
        local = _with_upstream(services, base_url)
        good = _reader(local, make_account, API_KEY)
        bad = _reader(local, make_account, "wrk-not-the-key-000000000")
        without_credential = make_account(scopes="reading:read").user_id
        now = datetime.now(UTC)
        assert sorted(due_for_sync(local, now, INTERVAL)) == sorted([good, bad])
        assert sync_due_users(local, now, INTERVAL) == 2
        assert sum(item["sk"].startswith("READ#NOTE#") for item in stored(local, good)) == 2 * 3
        assert "lastError" in (sync_status(local.items, bad) or {})
        assert sync_status(local.items, without_credential) is None

        later = datetime.now(UTC) + timedelta(hours=1)
        assert due_for_sync(local, later, INTERVAL) == []  # the failing credential waits too
        assert sync_due_users(local, later, INTERVAL) == 0

        next_round = datetime.now(UTC) + INTERVAL + timedelta(minutes=1)
        assert sorted(due_for_sync(local, next_round, INTERVAL)) == sorted([good, bad])


def test_the_background_loop_syncs_and_can_be_turned_off(services, make_account, monkeypatch):
    fake = sample_shelf(books=1, highlights=1, thoughts=1)
    with running(fake) as base_url:
        local = _with_upstream(services, base_url)
        user_id = _reader(local, make_account, API_KEY)

        async def one_pass() -> None:
            loop = asyncio.create_task(sync_reading_forever(local))
            for _ in range(200):
                if sync_status(local.items, user_id):
                    break
                await asyncio.sleep(0.05)
            loop.cancel()

        asyncio.run(one_pass())
        assert (sync_status(local.items, user_id) or {}).get("lastSuccessAt")

        off = dataclasses.replace(
            local, settings=dataclasses.replace(local.settings, reading_sync_interval_seconds=None)
        )
        asyncio.run(asyncio.wait_for(sync_reading_forever(off), timeout=1))  # returns at once


def test_the_interval_setting():
    assert Settings.from_env({}).reading_sync_interval_seconds == 6 * 3600
    assert Settings.from_env({"MESQ_READING_SYNC_INTERVAL_SECONDS": "off"}).reading_sync_interval_seconds is None
    assert Settings.from_env({"MESQ_READING_SYNC_INTERVAL_SECONDS": "900"}).reading_sync_interval_seconds == 900
    with pytest.raises(ConfigError):
        Settings.from_env({"MESQ_READING_SYNC_INTERVAL_SECONDS": "soon"})
