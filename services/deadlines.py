"""Turn deadlines: every awaited human or agent seat of a table with a time
control gets a job at the end of its move time; the job plays the default
move unless the game has moved on (see GameService.play_for_seat)."""

from __future__ import annotations

import asyncio

from services.scheduler import Scheduler
from services.tables import Table

# Consecutive moves played for a seat before a house bot takes it over.
STRIKE_LIMIT = 3


def deadline_job_id(game_id: str, version: int, seat: int) -> str:
    return f"deadline:{game_id}:{version}:{seat}"


class Deadlines:
    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self._tasks: set[asyncio.Task] = set()

    def on_commit(self, table: Table, events: list) -> None:
        self.schedule(table)

    async def sweep(self, games) -> int:
        """Reschedule the deadlines of every timed table still playing (the
        worker's periodic sweep): a deadline job lost with Redis, or taken by
        a worker that died, must not leave a table waiting forever. Job ids
        make this a no-op while the original job is still queued."""
        rows = await games.pool.fetch(
            "SELECT game_id::text AS id FROM games WHERE status = 'playing' AND time_control IS NOT NULL"
        )
        for row in rows:
            self.schedule(await games.load(row["id"]))
        return len(rows)

    def schedule(self, table: Table) -> None:
        if table.time_control is None or table.state is None or table.over:
            return
        move_s = table.time_control.get("move_ms", 30_000) / 1000
        for seat in table.game.waiting_for(table.state):
            holder = table.seats[seat]
            if holder is None or holder.bot is not None or holder.kind == "agent":
                continue  # agents' turns: services/agent_dispatch.py
            task = asyncio.ensure_future(
                self.scheduler.enqueue(
                    "move_deadline", table.game_id, table.version, seat,
                    job_id=deadline_job_id(table.game_id, table.version, seat), delay_s=move_s,
                )
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
