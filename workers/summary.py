"""Quiet by default: a worker's jobs (agent calls, deadlines, the
5 s sweep) are not logged one by one at INFO; a person running the service
reads its start, its stop, errors, and this summary every
HANAMICHI_LOG_SUMMARY_S seconds (Settings.log_summary_s, default 300): jobs done, failed and retried,
and agent calls by outcome, over the last period. A period with nothing done
writes nothing, so an idle worker stays silent."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter

log = logging.getLogger("hanamichi.worker")


def _counts(worker) -> tuple[int, int, int, Counter]:
    runtime = worker.ctx.get("runtime") if isinstance(getattr(worker, "ctx", None), dict) else None
    caller = getattr(runtime, "agent_caller", None)
    calls = Counter(getattr(caller, "outcomes", None) or {})
    return worker.jobs_complete, worker.jobs_failed, worker.jobs_retried, calls


def line(every_s: float, done: int, failed: int, retried: int, calls: Counter) -> str:
    text = f"worker summary, last {every_s:.0f} s: {done} jobs done, {failed} failed, {retried} retried"
    if calls:
        parts = ", ".join(f"{outcome} {n}" for outcome, n in sorted(calls.items()))
        text += f"; {sum(calls.values())} agent calls ({parts})"
    return text


async def summarise(worker, every_s: float) -> None:
    """Log the summary every `every_s` seconds until cancelled."""
    before = _counts(worker)
    while True:
        await asyncio.sleep(every_s)
        now = _counts(worker)
        done, failed, retried = now[0] - before[0], now[1] - before[1], now[2] - before[2]
        calls = now[3] - before[3]
        before = now
        if done or failed or retried or calls:
            log.info(line(every_s, done, failed, retried, calls))
