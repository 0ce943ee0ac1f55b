"""Rate limits of the web pages: sliding windows per key, in this process.

The order form counts per player and per client address, as the mail intake
counts per sender and position; refused turnsheets are also counted by the
intake itself (the same limits as mail), since the form goes through it.
"""

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    count: int
    seconds: float


class RateLimiter:
    """At most `limit.count` events per key in any `limit.seconds`."""

    MAX_KEYS = 50_000  # a flood of new keys cannot grow memory without bound

    def __init__(self, limit: Limit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.clock = clock
        self.seen: dict[str, deque[float]] = {}
        self.lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Count one event for `key`; False (not counted) when over the limit."""
        now = self.clock()
        with self.lock:
            times = self.seen.get(key)
            if times is None:
                if len(self.seen) >= self.MAX_KEYS:
                    self._forget(now)
                times = self.seen[key] = deque()
            while times and now - times[0] >= self.limit.seconds:
                times.popleft()
            if len(times) >= self.limit.count:
                return False
            times.append(now)
            return True

    def full(self, key: str) -> bool:
        """Whether `key` is at its limit now (nothing counted)."""
        now = self.clock()
        with self.lock:
            times = self.seen.get(key)
            return times is not None and (
                sum(1 for t in times if now - t < self.limit.seconds) >= self.limit.count
            )

    def _forget(self, now: float) -> None:
        stale = [k for k, t in self.seen.items() if not t or now - t[-1] >= self.limit.seconds]
        for key in stale:
            del self.seen[key]
        if len(self.seen) >= self.MAX_KEYS:
            self.seen.clear()
