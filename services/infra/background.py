"""Fire-and-forget work after a commit (enqueueing jobs, bookkeeping).

asyncio keeps only a weak reference to a task: one nobody holds may be
collected before it finishes. Every such task is held here until done."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

_running: set[asyncio.Task] = set()


def spawn(coro: Coroutine[Any, Any, Any]) -> asyncio.Task:
    task = asyncio.ensure_future(coro)
    _running.add(task)
    task.add_done_callback(_running.discard)
    return task
