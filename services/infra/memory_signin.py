"""Sign-in attempt windows in memory (the `SignInCounters` port), on a
clock a test may move (`now`, seconds)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class MemorySignInCounters:
    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.windows: dict[str, tuple[int, float]] = {}  # key -> (attempts, when the window closes)

    def _open(self, key: str) -> tuple[int, float] | None:
        window = self.windows.get(key)
        if window is not None and window[1] <= self.now():
            del self.windows[key]
            return None
        return window

    def _left(self, closes: float) -> int:
        return max(0, math.ceil(closes - self.now()))

    async def count_attempt(self, name_key: str, address_key: str, window_s: int) -> tuple[int, int, int, int]:
        counted = []
        for key in (name_key, address_key):
            attempts, closes = self._open(key) or (0, self.now() + window_s)
            self.windows[key] = (attempts + 1, closes)
            counted += [attempts + 1, self._left(closes)]
        return counted[0], counted[1], counted[2], counted[3]

    async def give_back(self, name_key: str, address_key: str) -> None:
        for key in (name_key, address_key):
            window = self._open(key)
            if window is not None:
                self.windows[key] = (window[0] - 1, window[1])
