"""One decision, several writes: the unit of work's transaction."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol


class Transactions(Protocol):
    def transaction(self) -> AbstractAsyncContextManager[Any]:
        """`async with transactions.transaction() as tx:` every port method
        given `tx=tx` writes in it; they commit together when the block ends
        and none does if it raises."""
