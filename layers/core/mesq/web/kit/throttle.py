"""Login throttling that slows guessing down without locking the owner out (docs/decisions.md
"Login throttling").

Failed sign-ins are counted per (username, client IP) and per client IP, never per username
alone: a correct password from an address that has not failed always signs in, however much
someone else guesses at the account. Each counter allows a few failures for free; from then on
every failure starts a "retry after" window that doubles each time (`first_delay_seconds`,
then 2x, 4x, ... up to `max_delay_seconds`). An attempt inside a window is refused before the
password is checked, so it learns nothing, costs no argon2 work and does not lengthen the
window. Counters live in the item store (`LOGINFAIL#<subject>`, shared by every instance) and
expire `forget_seconds` after their last failure. A success clears the (username, IP) counter
only: an attacker who owns one account cannot wash an address's spraying record clean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...kernel.ports.storage import ItemStore, Key, Update

Clock = Callable[[], float]
MAX_SUBJECT_LENGTH = 128
STATE = "state"


@dataclass(frozen=True)
class ThrottlePolicy:
    free_per_account_ip: int = 5
    free_per_ip: int = 20
    first_delay_seconds: int = 60
    max_delay_seconds: int = 60 * 60
    forget_seconds: int = 24 * 60 * 60

    def delay_after(self, failures: int, free: int) -> int:
        """The retry-after window that the `failures`-th failure starts (0: none yet)."""
        if failures < free:
            return 0
        doublings = min(failures - free, 32)  # 2**32 x any delay is far past the cap
        return int(min(self.max_delay_seconds, self.first_delay_seconds * 2**doublings))


class LoginThrottle:
    def __init__(self, items: ItemStore, policy: ThrottlePolicy, clock: Clock) -> None:
        self._items = items
        self._policy = policy
        self._clock = clock

    def _keys(self, username: str, ip: str) -> tuple[tuple[Key, int], tuple[Key, int]]:
        """(key, free failures) of the (username, IP) counter and of the IP counter."""
        name = username.strip().lower()[:MAX_SUBJECT_LENGTH]
        address = ip[:MAX_SUBJECT_LENGTH]
        return (
            ((f"LOGINFAIL#account-ip:{name}|{address}", STATE), self._policy.free_per_account_ip),
            ((f"LOGINFAIL#ip:{address}", STATE), self._policy.free_per_ip),
        )

    def blocked_for(self, username: str, ip: str) -> int | None:
        """Seconds until this (username, IP) may try again, or None when it may now."""
        now = self._clock()
        keys = [key for key, _ in self._keys(username, ip)]
        until = max((float(item.get("blockedUntil", 0)) for item in self._items.batch_get(keys)), default=0.0)
        return max(1, int(until - now + 0.999)) if until > now else None

    def failed(self, username: str, ip: str) -> None:
        now = self._clock()
        for key, free in self._keys(username, ip):
            counter = self._items.update(
                Update(key=key, add={"failures": 1}, set={"ttl": int(now) + self._policy.forget_seconds})
            )
            delay = self._policy.delay_after(int(counter["failures"]), free)
            if delay:
                expires = int(now) + max(delay, self._policy.forget_seconds)
                self._items.update(Update(key=key, set={"blockedUntil": int(now) + delay, "ttl": expires}))

    def succeeded(self, username: str, ip: str) -> None:
        (pair_key, _), _ = self._keys(username, ip)
        self._items.delete(pair_key)
