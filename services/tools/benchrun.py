"""What every `hanamichi bench ...` shares: run a bench against the servers
`serve` would use, print its report, and the percentile the reports quote.
Its own module so that bench.py and the benches it lists do not import each other."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
from pathlib import Path


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def mean_interval(values: list[float], digits: int = 4, z: float = 1.96) -> list[float | None]:
    """The mean's 95% interval (normal approximation; [None, None] below 2 values)."""
    if len(values) < 2:
        return [None, None]
    mean, half = statistics.fmean(values), z * statistics.stdev(values) / math.sqrt(len(values))
    return [round(mean - half, digits), round(mean + half, digits)]


def run_bench(args: argparse.Namespace, bench) -> int:
    """Run `bench(args, database_url, redis_url)` against DATABASE_URL/REDIS_URL
    or embedded servers (like `serve`), then print its report."""
    from services.tools.serve import resolve_servers

    database_url, redis_url, embedded = resolve_servers(Path(os.environ.get("HANAMICHI_DATA", ".hanamichi")))
    try:
        report = asyncio.run(bench(args, database_url, redis_url))
    finally:
        if embedded is not None:
            embedded.stop()
    if args.json:
        print(json.dumps(report))
    else:
        width = max(map(len, report))
        for key, value in report.items():
            print(f"{key:>{width}}: {value}")
    return 0
