"""`hanamichi worker`: an arq worker with the same composition root as the API."""

from __future__ import annotations

import asyncio
import logging
import os
import time

from arq.cron import cron
from arq.worker import Worker
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.bootstrap import open_worker
from services.config import Settings
from services.infra import keys as K
from services.infra.metrics import serve_for_worker, timed_job
from services.infra.outages import OUTAGES, REDIS
from services.infra.scheduler import redis_settings
from workers.jobs import FUNCTIONS, reconcile
from workers.summary import summarise

log = logging.getLogger("hanamichi.worker")


# A Redis outage: refused or dropped connections, timeouts, and a restarted
# Redis still loading its data (BusyLoadingError is a ConnectionError).
REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)
BACKOFF_MAX_S = 5.0


class ResilientWorker(Worker):
    """arq's worker, riding out a Redis outage.

    arq lets a ConnectionError from its poll loop end `main()`, and the
    process with it: deadlines, tournaments, agent calls and ratings then
    stop for good. Here a failed poll is logged once, retried with a backoff
    (0.1 s doubling to 5 s), and the worker carries on when Redis is back.
    Jobs lost with Redis are redone by the reconcile sweep."""

    _down_since: float | None = None
    _backoff_s: float = 0.1
    summary_s: float = 300.0  # Settings.log_summary_s, set by build_worker

    async def main(self) -> None:
        # Quiet by default: INFO says start (once on_startup is done and
        # jobs are taken), stop and a summary every few minutes
        # (workers/summary.py); each job is DEBUG at most.
        summary = asyncio.create_task(summarise(self, self.summary_s))
        try:
            await super().main()
        finally:
            summary.cancel()
            log.info("worker stopped (pid %s)", os.getpid())

    async def _poll_iteration(self) -> None:
        try:
            await super()._poll_iteration()
        except REDIS_DOWN as exc:
            OUTAGES.failed(exc, "job polling; retrying with backoff", REDIS)
            self._down_since = self._down_since or time.monotonic()
            await asyncio.sleep(self._backoff_s)
            self._backoff_s = min(BACKOFF_MAX_S, self._backoff_s * 2)
            return
        if self._down_since is not None:
            OUTAGES.ok("job polling; retrying with backoff", REDIS)
            self._down_since, self._backoff_s = None, 0.1


def build_worker(settings: Settings) -> Worker:
    async def on_startup(ctx: dict) -> None:
        runtime, projector = await open_worker(settings)  # services/bootstrap.py wires both
        ctx["runtime"] = runtime
        ctx["projector"] = projector
        ctx["projector_task"] = asyncio.create_task(ctx["projector"].run_forever())
        # Pick up whatever a stopped worker left: due starts, missing tables,
        # finished tables not yet recorded.
        await reconcile(ctx)
        log.info("worker started (pid %s, %d job kinds)", os.getpid(), len(worker.functions))

    async def on_shutdown(ctx: dict) -> None:
        task = ctx.get("projector_task")
        if task is not None:
            task.cancel()
        runtime = ctx.get("runtime")
        if runtime is not None:
            await runtime.close()

    worker = ResilientWorker(
        functions=FUNCTIONS,
        # max_tries=2: a sweep a stopped or killed worker left half-run is
        # picked up by the next worker as its second try. With arq's default
        # of 1 that was a WARNING ("cron:reconcile max retries 1 exceeded")
        # for an idempotent 5 s sweep (an idle worker must log nothing).
        cron_jobs=[
            cron(timed_job(reconcile), second=set(range(0, 60, 5)), run_at_startup=False, unique=True, max_tries=2)
        ],
        queue_name=K.ARQ_QUEUE,
        redis_settings=redis_settings(settings.required_redis_url()),
        on_startup=on_startup,
        on_shutdown=on_shutdown,
        max_jobs=200,
        job_timeout=30,
        keep_result=60,
        # Agent calls wait for the next poll: HANAMICHI_WORKER_POLL_MS bounds
        # the service's delay before a push agent is called.
        poll_delay=settings.worker_poll_ms / 1000,
        handle_signals=True,
    )
    worker.summary_s = settings.log_summary_s
    return worker


def run_worker(settings: Settings) -> None:
    """Run until a signal stops it. A start that fails (Redis or PostgreSQL
    not there yet, or gone while starting) is retried with a backoff, so a
    worker started during an outage waits for it to end instead of exiting."""
    serve_for_worker(settings.metrics_port)  # HANAMICHI_METRICS_PORT: this worker's own /metrics (k8s)
    backoff_s = 1.0
    while True:
        worker = build_worker(settings)
        started = time.monotonic()
        try:
            worker.run()
            return
        except Exception as exc:
            if time.monotonic() - started > 60:
                backoff_s = 1.0  # it ran for a while: a new outage, not a crash loop
            log.warning("worker stopped (%s: %s); starting again in %.0f s", type(exc).__name__, exc, backoff_s)
            time.sleep(backoff_s)
            backoff_s = min(10.0, backoff_s * 2)
