"""The report of `hanamichi arena` (services/kit/arena.py plays the games):
the win rate with its 95% interval, mean score by seat, time per move, and
the failures to replay."""

from __future__ import annotations

import math
import statistics

from services.tools.benchrun import mean_interval, percentile

MAX_FAILURES_LISTED = 200


def wilson(wins: int, n: int, z: float = 1.96) -> list[float]:
    """The 95% Wilson score interval of a win rate."""
    if n == 0:
        return [0.0, 1.0]
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _percentile(values: list[float], q: float) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(value, 3)


def summarise(records: list[dict], players: int) -> dict:
    games = len(records)
    wins = sum(1 for r in records if r["won"])
    sums, counts = [0.0] * players, [0] * players
    times: list[float] = []
    cpu: list[float] = []
    failures: list[dict] = []
    scores = [r["score"] for r in records]
    for r in records:
        cpu.extend(r.get("cpu_ms") or [])
        sums[r["seat"]] += r["score"]
        counts[r["seat"]] += 1
        times.extend(r["times_ms"])
        failures.extend(r["failures"])
    return {
        "games": games,
        "win_rate": round(wins / games, 4) if games else 0.0,
        "win_rate_ci95": wilson(wins, games),
        "mean_score": round(statistics.fmean(scores), 4) if scores else None,
        "mean_score_ci95": mean_interval(scores),
        "mean_score_by_seat": [round(s / c, 4) if c else None for s, c in zip(sums, counts, strict=True)],
        "move_ms_p50": _percentile(times, 0.50),
        "move_ms_p99": _percentile(times, 0.99),
        "illegal": sum(1 for f in failures if f["kind"] == "illegal"),
        "errors": sum(1 for f in failures if f["kind"] != "illegal"),  # exceptions and timeouts
        "failures": failures[:MAX_FAILURES_LISTED],
        **({"move_cpu_ms_p50": _percentile(cpu, 0.50), "move_cpu_ms_p99": _percentile(cpu, 0.99)} if cpu else {}),
    }


def _span(interval: list) -> str:
    low, high = interval
    return "-" if low is None else f"{low}..{high}"


def render(report: dict, spec: str, vs: list[str]) -> str:
    low, high = report["win_rate_ci95"]
    lines = [
        f"{spec} against {', '.join(vs)}: {report['games']} games",
        f"win rate {report['win_rate']:.1%} (95% interval {low:.1%}..{high:.1%}; a shared win counts)",
        f"mean score {report['mean_score']} (95% interval {_span(report['mean_score_ci95'])}); by seat: "
        + ", ".join(f"{s}: {v}" for s, v in enumerate(report["mean_score_by_seat"])),
        f"time per move: p50 {report['move_ms_p50']} ms, p99 {report['move_ms_p99']} ms"
        + (
            f" (CPU: p50 {report['move_cpu_ms_p50']} ms, p99 {report['move_cpu_ms_p99']} ms)"
            if "move_cpu_ms_p50" in report
            else ""
        ),
        f"illegal answers: {report['illegal']}, errors (exceptions, timeouts): {report['errors']}",
    ]
    for f in report["failures"][:20]:
        lines.append(
            f"  {f['kind']} at seed {f['seed']} step {f['step']}: {f['message']}"
            f"   (reproduce: --replay {f['seed']}:{f['step']})"
        )
    if len(report["failures"]) > 20:
        lines.append(f"  ... {len(report['failures']) - 20} more (--json lists them)")
    return "\n".join(lines)
