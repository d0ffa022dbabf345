"""What agents are held to (read from the environment by services/config.py):
which endpoints may be called, the default time per move and bank, the strike
limit, the rate limit of an agent's token."""

from __future__ import annotations

from dataclasses import dataclass

from services.app.games.policy import STRIKE_LIMIT


@dataclass(frozen=True)
class AgentSettings:
    """services/config.py reads it from the environment, once per process."""

    allow_http: bool = False  # HANAMICHI_ALLOW_HTTP_AGENTS=1
    allow_private: bool = False  # HANAMICHI_ALLOW_PRIVATE_AGENTS=1
    move_ms: int = 5_000  # tables without a time control (casual games, sparring)
    bank_ms: int = 30_000
    strike_limit: int = STRIKE_LIMIT  # consecutive moves played for a seat before a house bot takes it
    max_response_bytes: int = 64 * 1024
    rate_limit: int = 120  # requests per window for an agent's token (moves in its own games are free)
    rate_window_s: int = 60
    backstop_grace_ms: int = 5_000  # a call's deadline job fires this long after its budget
    # After a push agent's secret is rotated the old one signs calls too for
    # this long (HANAMICHI_AGENT_SECRET_GRACE_S), so the agent can switch.
    secret_grace_s: float = 600.0

    def time_control(self, table_tc: dict | None) -> tuple[int, int]:
        """(move_ms, bank_ms) for a table: its own, else the agent defaults."""
        if table_tc:
            return int(table_tc.get("move_ms", self.move_ms)), int(table_tc.get("bank_ms", 0))
        return self.move_ms, self.bank_ms
