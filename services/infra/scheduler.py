"""Jobs for the arq workers, enqueued from any process. Job ids make
enqueueing idempotent while the job is queued or its result kept; every job
is idempotent by itself too (the event log decides), so a job run twice, or
re-run after a worker died, changes nothing twice."""

from __future__ import annotations

import logging

from arq.connections import ArqRedis, RedisSettings

from services.infra import keys as K
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.scheduler")


def redis_settings(url: str) -> RedisSettings:
    return RedisSettings.from_dsn(url)


class Scheduler:
    """The `Jobs` port (services/app/ports/jobs.py) on arq."""

    def __init__(self, arq: ArqRedis, queue: str = K.ARQ_QUEUE) -> None:
        self.arq = arq
        self.queue = queue  # the workers' (a contract test's own, so no worker takes its jobs)

    @classmethod
    async def connect(cls, redis_url: str) -> Scheduler:
        # No ping: the API must start (and serve from PostgreSQL) with Redis down.
        from redis.asyncio import ConnectionPool

        return cls(ArqRedis(ConnectionPool.from_url(redis_url), default_queue_name=K.ARQ_QUEUE))

    async def enqueue(self, job: str, *args, job_id: str, delay_s: float = 0.0) -> None:
        try:
            await self.arq.enqueue_job(job, *args, _job_id=job_id, _defer_by=max(0.0, delay_s), _queue_name=self.queue)
        except Exception as exc:  # Redis down: the workers' reconcile sweep catches up
            if not OUTAGES.failed(exc, "job enqueue; the reconcile sweep catches up"):
                log.warning("could not enqueue %s (%s): %s", job, job_id, exc)
            return
        OUTAGES.ok("job enqueue; the reconcile sweep catches up")

    async def close(self) -> None:
        await self.arq.aclose()
