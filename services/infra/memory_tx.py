"""The memory adapters' transaction: one at a time, so a check and the write
it guards are one decision as in PostgreSQL. No rollback: a memory adapter's
method validates before it writes, and unit tests assert on what is kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class MemoryTransactions:
    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        async with self._lock:
            yield None
