"""A sparring series' report, read from the games' logs, the
commands table and agent_turns: the request's settings, per game every
seat's score with links to its replay and export, strikes, the answer-time
distribution, the share of moves the agent played itself and, for a
duplicate series, the mean score difference against the house bot on the
same deals with its 95% interval.

A forfeited game (the seat handed to a house bot after its strikes) counts
as what it is: last place (`table_place`), never a win, and no score of the
agent's own. The house bot's points there are not the agent's, so forfeited
games stay out of the score mean and the duplicate difference and are
counted apart (`forfeited`): failing never looks better than playing."""

from __future__ import annotations

import math
import statistics
from collections import Counter

from services.app.games.events import MovePlayedForSeat, SeatHandedToBot
from services.app.games.service import GameService, result_shown
from services.app.ports.agents import AgentStore, SparringRow
from services.infra import keys as K

# Upper bounds (ms) of the answer-time histogram's buckets; a last bucket
# (`le_ms: null`) holds what is slower. Spaced for agents on a 100 ms .. 5 s clock.
ANSWER_BUCKETS_MS = (10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000)

# Student's t, two-sided 95%, for 1..30 degrees of freedom; beyond, the
# Cornish-Fisher expansion below is within 0.001 of it.
_T95 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)


def t95(df: int) -> float:
    if df <= len(_T95):
        return _T95[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean_interval(values: list[float]) -> dict:
    """Mean and its 95% confidence interval (Student's t; none below 2 values)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "ci95": None}
    mean = statistics.fmean(values)
    if n < 2:
        return {"n": 1, "mean": round(mean, 3), "ci95": None}
    half = t95(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return {"n": n, "mean": round(mean, 3), "ci95": [round(mean - half, 3), round(mean + half, 3)]}


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def histogram(values: list[float]) -> list[dict]:
    counts = [0] * (len(ANSWER_BUCKETS_MS) + 1)
    for v in values:
        counts[next((i for i, b in enumerate(ANSWER_BUCKETS_MS) if v <= b), len(ANSWER_BUCKETS_MS))] += 1
    return [{"le_ms": b, "count": c} for b, c in zip((*ANSWER_BUCKETS_MS, None), counts, strict=True)]


def links(game_id: str) -> dict:
    return {
        "game": f"/api/v1/games/{game_id}",
        "replay": f"/api/v1/games/{game_id}/replay",
        "export": f"/api/v1/games/{game_id}/export",
    }


async def game_entry(games: GameService, game_id: str, seat: int) -> dict:
    """One table from the seat's side: status, strikes, every seat's score."""
    table = await games.load(game_id)
    await games.refresh(table)
    strikes = [e for e in table.events if isinstance(e, MovePlayedForSeat) and e.seat == seat]
    entry = {
        "game_id": game_id,
        "seat": seat,
        "status": "finished" if table.over else "playing",
        "strikes": len(strikes),
        "strike_reasons": dict(Counter(e.reason for e in strikes)),
        "handed_to_bot": any(isinstance(e, SeatHandedToBot) and e.seat == seat for e in table.events),
        "links": links(game_id),
    }
    if table.over:
        result = result_shown(table)
        forfeited = seat in result["forfeited"]
        entry.update(
            score=result["scores"][seat],  # the seat's points at the end, a house bot's after a forfeit
            place=result["table_places"][seat],  # the counted place: a forfeited seat is last
            game_place=result["places"][seat],  # the place the game's own scoring gives the seat
            won=seat in result["winners"] and not forfeited,
            scores=result["scores"],
            table_place=result["table_places"][seat],
            forfeited=forfeited,
        )
    return entry


def headline(results: list[dict]) -> dict:
    """The report's figures over its games' entries (game_entry, with
    `difference` in a duplicate series): forfeited games are last, no win,
    and outside the score mean and the duplicate difference."""
    finished = [r for r in results if r["status"] == "finished"]
    own = [r for r in finished if not r["forfeited"]]
    places = [r["table_place"] for r in finished]
    return {
        "finished": len(finished),
        "forfeited": len(finished) - len(own),
        "mean_score": round(statistics.fmean(r["score"] for r in own), 3) if own else None,
        "mean_place": round(statistics.fmean(places), 3) if places else None,
        "wins": sum(1 for r in own if r["won"]),
        "differences": [r["difference"] for r in own if "difference" in r],
    }


async def own_moves(store: AgentStore, game_ids: list[str], seats: list[int]) -> dict:
    """Moves in the agent's seat by who made them, from their command ids:
    `auto:` the default move of a strike, `bot:` the house bot that took the
    seat over, anything else the agent's own (push `agent:`, pull its own ids)."""
    kinds = Counter(
        "default" if command_id.startswith("auto:") else "house_bot" if command_id.startswith(K.BOT_PREFIX) else "own"
        for command_id in await store.command_ids(game_ids, seats)
    )
    total = sum(kinds.values())
    return {
        "own": kinds["own"],
        "default": kinds["default"],
        "house_bot": kinds["house_bot"],
        "share": round(kinds["own"] / total, 4) if total else None,
    }


async def build(store: AgentStore, games: GameService, agent_id: str, row: SparringRow) -> dict:
    """The report of one `sparring` row (already checked to be the agent's)."""
    game_ids, seats = list(row.game_ids), list(row.seats)
    bot_ids = list(row.bot_game_ids or [])
    reasons: Counter[str] = Counter()
    results, handed = [], 0
    for i, (game_id, seat) in enumerate(zip(game_ids, seats, strict=True)):
        entry = await game_entry(games, game_id, seat)
        reasons.update(entry.pop("strike_reasons"))
        handed += entry["handed_to_bot"]
        if bot_ids:
            # The same deal with the house bot in the agent's seat.
            twin = await game_entry(games, bot_ids[i], seat)
            twin.pop("strike_reasons")
            entry["house_bot"] = {k: twin[k] for k in ("game_id", "status", "links", "score", "scores") if k in twin}
            if "score" in entry and "score" in twin and not entry["forfeited"]:
                entry["difference"] = entry["score"] - twin["score"]
        results.append(entry)
    answer_ms = await store.answer_times(game_ids, agent_id)
    figures = headline(results)
    finished = figures["finished"]
    twins_done = all(r["house_bot"]["status"] == "finished" for r in results) if bot_ids else True
    report = {
        "sparring_id": row.sparring_id,
        "agent_id": agent_id,
        "game": row.game,
        "settings": row.settings,
        "status": "done" if finished == len(results) and twins_done else "running",
        "games": len(results),
        "finished": finished,
        "forfeited": figures["forfeited"],
        "mean_score": figures["mean_score"],
        "mean_place": figures["mean_place"],
        "wins": figures["wins"],
        "strikes": {"total": sum(reasons.values()), "by_reason": dict(reasons), "games_handed_to_bot": handed},
        "answer_time_ms": {
            "count": len(answer_ms),
            "p50": percentile(answer_ms, 0.5),
            "p99": percentile(answer_ms, 0.99),
            "histogram": histogram(answer_ms),
        },
        "moves": await own_moves(store, game_ids, seats),
        "results": results,
    }
    if bot_ids:
        # Positive: the agent scored more than the house bot on the same cards.
        interval = mean_interval(figures["differences"])
        report["duplicate"] = {
            "deals": interval["n"],
            "forfeited": figures["forfeited"],
            "mean_difference": interval["mean"],
            "ci95": interval["ci95"],
        }
    return report
