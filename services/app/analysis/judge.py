"""The analysis of one finished game (being written)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from services.app.analysis.report import Analysis
from services.app.ports.integrity import LogEvent


def analyse(
    game_id: str, log: Sequence[LogEvent], progress: Callable[[int, int], None] | None = None
) -> Analysis:
    """The analysis of a finished game's whole stream (service events
    included: they say which moves were the seat's own); `progress(done,
    total)` after each decision judged."""
    raise NotImplementedError
