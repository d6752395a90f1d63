"""Login throttling: failed sign-ins counted per username and per client IP in the item store.

Fixed windows like `mesq/ratelimit.py`: one atomic ADD on `LOGINFAIL#<subject>` / `<window>`
per failure, with a TTL shortly after the window, so counters are shared by every instance and
expire by themselves. Only failures count; a success clears the username's counter (only the
account's owner can produce one). Blocked attempts are refused before the password is checked,
so a blocked attacker learns nothing and costs no argon2 work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..store.ports import ItemStore, Update

Clock = Callable[[], float]
MAX_SUBJECT_LENGTH = 128


@dataclass(frozen=True)
class ThrottlePolicy:
    window_seconds: int = 15 * 60
    per_username: int = 5
    per_ip: int = 20


class LoginThrottle:
    def __init__(self, items: ItemStore, policy: ThrottlePolicy, clock: Clock) -> None:
        self._items = items
        self._policy = policy
        self._clock = clock

    def _window(self) -> tuple[int, float]:
        now = self._clock()
        size = self._policy.window_seconds
        return int(now // size) * size, now

    def _keys(self, username: str, ip: str, window: int) -> tuple[tuple[str, str], tuple[str, str]]:
        name = username.strip().lower()[:MAX_SUBJECT_LENGTH]
        return (f"LOGINFAIL#user:{name}", str(window)), (f"LOGINFAIL#ip:{ip[:MAX_SUBJECT_LENGTH]}", str(window))

    def blocked_for(self, username: str, ip: str) -> int | None:
        """Seconds until the next attempt may be made, or None when attempts are allowed."""
        window, now = self._window()
        user_key, ip_key = self._keys(username, ip, window)
        counts = {
            (item["pk"], item["sk"]): int(item.get("count", 0)) for item in self._items.batch_get([user_key, ip_key])
        }
        if counts.get(user_key, 0) >= self._policy.per_username or counts.get(ip_key, 0) >= self._policy.per_ip:
            return max(1, int(window + self._policy.window_seconds - now + 0.999))
        return None

    def failed(self, username: str, ip: str) -> None:
        window, _ = self._window()
        expires = window + 2 * self._policy.window_seconds
        for key in self._keys(username, ip, window):
            self._items.update(Update(key=key, add={"count": 1}, set={"ttl": expires}))

    def succeeded(self, username: str, ip: str) -> None:
        window, _ = self._window()
        user_key, _ = self._keys(username, ip, window)
        self._items.delete(user_key)
