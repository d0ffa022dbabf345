"""Every Prometheus metric of the service, defined here and nowhere else.
The code paths record with one-line calls; `GET /metrics`
(the API) and `HANAMICHI_METRICS_PORT` (a standalone worker) expose them.

Several processes: with PROMETHEUS_MULTIPROC_DIR set (an empty folder every
process of one machine can write), each process writes its figures there and
`/metrics` sums them, so one scrape of `hanamichi serve` covers the API and
its supervised worker. `serve` sets it itself when unset. prometheus-client
reads the variable when it is imported, so it must be set before that."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Callable

from litestar import Request, Response, get
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)
from prometheus_client.core import GaugeMetricFamily

from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.metrics")

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_SLOW = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

# --- HTTP ----------------------------------------------------------------------
# Time to the response's first byte (its status line): for an SSE stream that
# is when it opened, not how long it stayed open.
REQUEST_SECONDS = Histogram(
    "hanamichi_http_request_seconds",
    "Time to the response's status line, by route template and status",
    ["method", "route", "status"],
    buckets=_FAST,
)
ACTIONS_ACCEPTED = Counter("hanamichi_actions_accepted_total", "Moves accepted on POST /api/v1/games/{id}/actions")
ACTIONS_REFUSED = Counter(
    "hanamichi_actions_refused_total",
    "Moves refused on POST /api/v1/games/{id}/actions, by error code",
    ["code"],
)
# Gauges: `livesum` adds the live processes' values (a dead process's are dropped).
SSE_CLIENTS = Gauge("hanamichi_sse_clients", "Open SSE streams, by kind", ["kind"], multiprocess_mode="livesum")
# Spectator streams cut for falling behind; they resume with Last-Event-ID.
SSE_CUT = Counter("hanamichi_sse_cut_total", "Spectator SSE streams cut, by reason", ["reason"])

# --- event log and fan-out -------------------------------------------------------
COMMIT_BATCH_SIZE = Histogram(
    "hanamichi_group_commit_batch_size",
    "Appends written by one group-commit transaction",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)
COMMIT_SECONDS = Histogram("hanamichi_group_commit_seconds", "Duration of one group-commit transaction", buckets=_FAST)
COMMIT_TO_PUBLISH = Histogram(
    "hanamichi_commit_to_publish_seconds",
    "From a commit to its notice written to the Redis stream",
    buckets=_FAST,
)
PUBLISH_TO_DELIVER = Histogram(
    "hanamichi_publish_to_deliver_seconds",
    "From a notice written to Redis (its entry id's clock) to a process reading it",
    buckets=_FAST,
)

# --- worker and agents ---------------------------------------------------------
JOB_SECONDS = Histogram("hanamichi_job_seconds", "Worker job duration, by job", ["job"], buckets=_SLOW)
JOB_FAILURES = Counter("hanamichi_job_failures_total", "Worker jobs that raised, by job", ["job"])
AGENT_CALL_SECONDS = Histogram(
    "hanamichi_agent_call_seconds",
    "A push agent's answer time (or until it failed), by outcome",
    ["outcome"],
    buckets=_SLOW,
)
STRIKES = Counter("hanamichi_strikes_total", "Default moves played for a seat, by reason", ["reason"])


# --- recording helpers (one line at the call site) ------------------------------


def refused(code: str) -> None:
    ACTIONS_REFUSED.labels(code).inc()


def lag(histogram, queued: list[float], now: float) -> None:
    for at in queued:
        histogram.observe(now - at)


def delivered(entry_id: bytes) -> None:
    """A fan-out entry read: its id starts with the ms Redis wrote it at
    (one machine's clock for both ends here; across machines, their skew)."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
    PUBLISH_TO_DELIVER.observe(max(0.0, time.time() - int(text.split("-", 1)[0]) / 1000))


def since(histogram, started: float, *labels: str) -> None:
    """Observe the seconds since `started` (time.perf_counter())."""
    (histogram.labels(*labels) if labels else histogram).observe(time.perf_counter() - started)


async def sse_stream(kind: str, messages: AsyncIterator) -> AsyncIterator:
    """An SSE response's messages, counted as an open stream of `kind` while they flow."""
    gauge = SSE_CLIENTS.labels(kind)
    gauge.inc()
    try:
        async for message in messages:
            yield message
    except Exception as exc:
        # PostgreSQL or Redis went away mid-stream (a catch-up read): the
        # stream ends, and the client resumes with Last-Event-ID.
        if not OUTAGES.failed(exc, f"{kind} streams; clients resume with Last-Event-ID"):
            raise
    finally:
        gauge.dec()
        aclose = getattr(messages, "aclose", None)
        if aclose is not None:
            await aclose()


def timed_job(job: Callable) -> Callable:
    """An arq job, timed and its failures counted under its own name."""
    name = job.__name__

    @functools.wraps(job)
    async def run(ctx, *args, **kwargs):
        started = time.perf_counter()
        try:
            return await job(ctx, *args, **kwargs)
        except Exception:
            JOB_FAILURES.labels(name).inc()
            raise
        finally:
            since(JOB_SECONDS, started, name)

    return run


def _multiprocess() -> bool:
    """prometheus-client writes this process's figures to files (it read
    PROMETHEUS_MULTIPROC_DIR itself when it was imported)."""
    return values.ValueClass is not values.MutexValue


def process_dead(pid: int) -> None:
    """A child process of `serve` exited: its live gauges stop counting."""
    if _multiprocess():
        multiprocess.mark_process_dead(pid)


# --- exposition ----------------------------------------------------------------


def registry() -> CollectorRegistry:
    if _multiprocess():
        merged = CollectorRegistry()
        multiprocess.MultiProcessCollector(merged)
        return merged
    return REGISTRY


class _Snapshot:
    """Figures PostgreSQL holds for every process at once (read at scrape time)."""

    def __init__(self, families: list) -> None:
        self.families = families

    def collect(self):
        return self.families


async def _from_database(pool) -> list:
    live = GaugeMetricFamily("hanamichi_live_tables", "Tables in play (status playing)")
    tournaments = GaugeMetricFamily("hanamichi_tournaments", "Tournaments by status", labels=["status"])
    try:
        async with asyncio.timeout(2):
            playing = await pool.fetchval("SELECT count(*) FROM games WHERE status = 'playing'")
            rows = await pool.fetch("SELECT status, count(*) AS n FROM tournaments GROUP BY status")
    except Exception as exc:  # PostgreSQL down: the process's own figures still matter most
        log.warning("metrics: PostgreSQL figures unavailable (%s)", type(exc).__name__)
        return []
    live.add_metric([], playing)
    counts = {"registering": 0, "running": 0, "finished": 0, "cancelled": 0}
    counts.update({r["status"]: r["n"] for r in rows})
    for status, n in sorted(counts.items()):
        tournaments.add_metric([status], n)
    return [live, tournaments]


async def exposition(pool=None) -> bytes:
    text = generate_latest(registry())
    if pool is not None:
        snapshot = CollectorRegistry(auto_describe=False)
        snapshot.register(_Snapshot(await _from_database(pool)))
        text += generate_latest(snapshot)
    return text


@get("/metrics", include_in_schema=False)
async def metrics_route(request: Request) -> Response[bytes]:
    return Response(await exposition(request.app.state.get("pool")), media_type=CONTENT_TYPE_LATEST)


def serve_for_worker(port: int | None) -> None:
    """A standalone worker (k8s) exposes its own figures on `port`
    (HANAMICHI_METRICS_PORT, Settings.metrics_port)."""
    if port:
        from prometheus_client import start_http_server

        start_http_server(port, registry=registry())
