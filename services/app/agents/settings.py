"""What agents are held to, from the environment (read once per process, by
services/config.py): which endpoints may be called, the default time per move
and bank, the strike limit, the rate limit of an agent's token."""

from __future__ import annotations

import os
from dataclasses import dataclass

import msgspec

from engines.timecontrol import TimeControl
from services.app.games.policy import STRIKE_LIMIT


def _flag(name: str) -> bool:
    return os.environ.get(name, "") in ("1", "true", "yes")


@dataclass(frozen=True)
class AgentSettings:
    """From the environment (read once per process)."""

    allow_http: bool = False  # HANAMICHI_ALLOW_HTTP_AGENTS=1
    allow_private: bool = False  # HANAMICHI_ALLOW_PRIVATE_AGENTS=1
    move_ms: int = 5_000  # tables without a time control (casual games, sparring)
    bank_ms: int = 30_000
    strike_limit: int = STRIKE_LIMIT  # consecutive moves played for a seat before a house bot takes it
    max_response_bytes: int = 64 * 1024
    rate_limit: int = 120  # requests per window for an agent's token (moves in its own games are free)
    rate_window_s: int = 60
    backstop_grace_ms: int = 5_000  # a call's deadline job fires this long after its budget

    @classmethod
    def from_env(cls) -> "AgentSettings":
        env = os.environ
        default = {"move_ms": int(env.get("HANAMICHI_AGENT_MOVE_MS", "5000")),
                   "bank_ms": int(env.get("HANAMICHI_AGENT_BANK_MS", "30000"))}
        try:  # the same bounds as every table's time control, checked at start-up
            msgspec.convert(default, TimeControl)
        except msgspec.ValidationError as err:
            raise ValueError(f"HANAMICHI_AGENT_MOVE_MS / HANAMICHI_AGENT_BANK_MS: {err}") from None
        return cls(
            allow_http=_flag("HANAMICHI_ALLOW_HTTP_AGENTS"),
            allow_private=_flag("HANAMICHI_ALLOW_PRIVATE_AGENTS"),
            move_ms=int(env.get("HANAMICHI_AGENT_MOVE_MS", "5000")),
            bank_ms=int(env.get("HANAMICHI_AGENT_BANK_MS", "30000")),
            strike_limit=int(env.get("HANAMICHI_AGENT_STRIKES", str(STRIKE_LIMIT))),
            rate_limit=int(env.get("HANAMICHI_AGENT_RATE_LIMIT", "120")),
            rate_window_s=int(env.get("HANAMICHI_AGENT_RATE_WINDOW_S", "60")),
        )

    def time_control(self, table_tc: dict | None) -> tuple[int, int]:
        """(move_ms, bank_ms) for a table: its own, else the agent defaults."""
        if table_tc:
            return int(table_tc.get("move_ms", self.move_ms)), int(table_tc.get("bank_ms", 0))
        return self.move_ms, self.bank_ms
