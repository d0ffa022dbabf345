"""Jobs queued in memory (the `Jobs` port), for use cases tested without
Redis: what arq would keep, by job id, until a test takes the due ones
with `take_due` and runs them as a worker would."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class QueuedJob:
    job: str
    args: tuple[Any, ...]
    job_id: str
    due_s: float  # on the adapter's clock


class MemoryJobs:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.queued: dict[str, QueuedJob] = {}

    async def enqueue(self, job: str, *args: Any, job_id: str, delay_s: float = 0.0) -> None:
        if job_id not in self.queued:  # arq: a job id still queued is not queued again
            self.queued[job_id] = QueuedJob(job, args, job_id, self.clock() + max(0.0, delay_s))

    def take_due(self, at_s: float | None = None) -> list[QueuedJob]:
        """The jobs due by `at_s` (now), oldest due first, out of the queue."""
        at = self.clock() if at_s is None else at_s
        due = sorted((j for j in self.queued.values() if j.due_s <= at), key=lambda j: j.due_s)
        for job in due:
            del self.queued[job.job_id]
        return due
