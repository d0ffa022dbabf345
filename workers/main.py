"""`hanamichi worker`: an arq worker with the same composition root as the API."""

from __future__ import annotations

import asyncio
import logging
import os

from arq.cron import cron
from arq.worker import Worker

from services import constants as K
from services.config import Settings
from services.runtime import Runtime
from services.scheduler import redis_settings
from workers.agent_calls import call_agents_directly, close_caller
from workers.jobs import FUNCTIONS, reconcile
from services.ratings import RatingsProjector

log = logging.getLogger("hanamichi.worker")


def build_worker(settings: Settings) -> Worker:
    async def on_startup(ctx: dict) -> None:
        runtime = await Runtime.open(settings)
        ctx["runtime"] = runtime
        call_agents_directly(runtime)
        ctx["projector"] = RatingsProjector(runtime.pool)
        ctx["projector_task"] = asyncio.create_task(ctx["projector"].run_forever())
        # Pick up whatever a stopped worker left: due starts, missing tables,
        # finished tables not yet recorded.
        await reconcile(ctx)

    async def on_shutdown(ctx: dict) -> None:
        task = ctx.get("projector_task")
        if task is not None:
            task.cancel()
        runtime = ctx.get("runtime")
        if runtime is not None:
            await close_caller(runtime)
            await runtime.close()

    return Worker(
        functions=FUNCTIONS,
        cron_jobs=[cron(reconcile, second=set(range(0, 60, 5)), run_at_startup=False, unique=True)],
        queue_name=K.ARQ_QUEUE,
        redis_settings=redis_settings(settings.redis_url),
        on_startup=on_startup,
        on_shutdown=on_shutdown,
        max_jobs=200,
        job_timeout=30,
        keep_result=60,
        # Agent calls wait for the next poll: HANAMICHI_WORKER_POLL_MS bounds
        # the service's delay before a push agent is called.
        poll_delay=int(os.environ.get("HANAMICHI_WORKER_POLL_MS", "5")) / 1000,
        handle_signals=True,
    )


def run_worker(settings: Settings) -> None:
    worker = build_worker(settings)
    worker.run()
