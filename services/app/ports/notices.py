"""The commit notices' port: after each commit the kernel says which
versions of which stream are new, to this process's subscribers at once and
to the other processes through the fan-out. A notice carries no event data
(each reader redacts for its viewer). Adapters: services/infra/fanout.py's
Publisher (Redis Streams) and services/infra/memory_fanout.py; tests/contract
holds both to one suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from services.infra.fanout import Notice

__all__ = ["Notice", "Notices"]


class Notices(Protocol):
    # This process's own subscribers (the Hub's delivery), told first.
    local: Callable[[Notice], None] | None

    def publish(self, notice: Notice) -> None:
        """Queue a notice: never blocks the committer, never raises."""
