"""Commit notices in memory (the `Notices` port), for use cases tested
without Redis: each notice goes to this process's `local` subscriber, as the
Redis publisher's does, and is kept in `published` for a test to read.
There is no other process to reach."""

from __future__ import annotations

from collections.abc import Callable

from services.infra.fanout import Notice


class MemoryPublisher:
    def __init__(self) -> None:
        self.local: Callable[[Notice], None] | None = None
        self.published: list[Notice] = []

    def publish(self, notice: Notice) -> None:
        if self.local is not None:
            self.local(notice)
        self.published.append(notice)

    async def close(self) -> None:
        return None
