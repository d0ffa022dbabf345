"""Builders for tournament tests: settings, entrants and a driver that plays
every table with seeded random results."""

from __future__ import annotations

import random
from typing import Any

from engines.core import places_from
from engines.tournament import (
    Create,
    Entrant,
    RecordResult,
    Register,
    Settings,
    Start,
    State,
    decide,
    evolve,
)
from engines.tournament.events import Kind

START = 100_000


def settings(**overrides) -> Settings:
    base: dict[str, Any] = dict(
        game="kabuki-tricks", start_ms=START, opens_ms=0, table_size=4, rounds=3, max_entrants=64, seed=7
    )
    base.update(overrides)
    return Settings(**base)


def people(n: int, kind: Kind = "human") -> list[Entrant]:
    return [Entrant(id=f"p{i:02d}", name=f"Player {i}", kind=kind) for i in range(n)]


class Run:
    """Applies commands, keeping every event and the incremental state."""

    def __init__(self, s: Settings) -> None:
        self.state: State | None = None
        self.events: list = []
        self.do(Create(settings=s), 0)

    def do(self, command, now_ms: int = START) -> list:
        new = decide(self.state, command, now_ms)
        for e in new:
            self.state = evolve(self.state, e)
        self.events.extend(new)
        return new

    def register(self, entrants, now_ms: int = 10) -> None:
        for e in entrants:
            self.do(Register(entrant=e), now_ms)

    def start(self) -> list:
        return self.do(Start(), START)

    @property
    def created(self) -> State:
        """The state, there once `__init__` has created the tournament."""
        assert self.state is not None
        return self.state

    def result(self, table, rng: random.Random) -> RecordResult:
        scores = [rng.randint(0, 6) for _ in table.seats]
        return RecordResult(
            round=self.created.round,
            table=table.table,
            game_id=f"g-{self.created.round}-{table.table}",
            places=tuple(places_from(scores)),
            scores=tuple(float(x) for x in scores),
        )

    def play_round(self, rng: random.Random) -> None:
        for table in self.created.tables:
            if table.table not in self.created.results:
                self.do(self.result(table, rng), START + 1000)

    def play_out(self, seed: int = 0, max_rounds: int = 50) -> None:
        rng = random.Random(seed)
        for _ in range(max_rounds):
            if self.created.status != "running":
                return
            self.play_round(rng)
        raise AssertionError("the tournament did not finish")


def tournament(n: int, seed: int = 0, settings_seed: int = 7, **overrides) -> Run:
    """n people registered, started and played out; `seed` drives the random
    results, `settings_seed` the tournament's own seed."""
    run = Run(settings(seed=settings_seed, **overrides))
    run.register(people(n))
    run.start()
    run.play_out(seed)
    return run
