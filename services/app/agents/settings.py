"""What agents are held to (read from the environment by services/config.py):
which endpoints may be called, the size of an answer, the rate limit of an
agent's token. Their clock (time per move, bank, strike limit) is every
seat's: services/app/seatclock.py."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentSettings:
    """services/config.py reads it from the environment, once per process."""

    allow_http: bool = False  # HANAMICHI_ALLOW_HTTP_AGENTS=1
    allow_private: bool = False  # HANAMICHI_ALLOW_PRIVATE_AGENTS=1
    max_response_bytes: int = 64 * 1024
    rate_limit: int = 120  # requests per window for an agent's token (moves in its own games are free)
    rate_window_s: int = 60
    backstop_grace_ms: int = 5_000  # a call's deadline job fires this long after its budget
    # After a push agent's secret is rotated the old one signs calls too for
    # this long (HANAMICHI_AGENT_SECRET_GRACE_S), so the agent can switch.
    secret_grace_s: float = 600.0
