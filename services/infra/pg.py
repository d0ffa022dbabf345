"""What every PostgreSQL adapter shares: the transaction a use case opens
(the `Transactions` port of services/app/ports) and the executor a method
runs its query on, the caller's transaction when given one, else the pool."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg


class PgTransactions:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Any]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield conn


def on(pool: asyncpg.Pool, tx: Any = None) -> Any:
    """Where a query runs: `tx` (a connection inside the caller's
    transaction) or, outside one, the pool."""
    return tx if tx is not None else pool
