"""The jobs' port: work for the workers, due now or after a delay, queued
once per job id (a second enqueue of a job id still queued changes
nothing; every job is idempotent by itself too). Adapters:
services/infra/scheduler.py (arq on Redis) and services/infra/memory_jobs.py;
tests/contract holds both to one suite. Job names and ids are in
services/infra/keys.py."""

from __future__ import annotations

from typing import Any, Protocol


class Jobs(Protocol):
    async def enqueue(self, job: str, *args: Any, job_id: str, delay_s: float = 0.0) -> None:
        """Queue `job(*args)` to run `delay_s` from now. Never raises: with the
        queue down the workers' reconcile sweep arms it again."""
