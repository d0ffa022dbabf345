"""Kabuki table options."""

from __future__ import annotations

import msgspec

from engines.core import OptionsError

MAX_STOP_WINDOW_MS = 60_000


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # KM-3: how long after a placement the next one is refused (0: bot tables).
    stop_window_ms: int = 2000
    # How well the `memory` house bots remember covered cards: "perfect", or
    # the probability (0..1, e.g. "0.3") that they forget each card they see.
    bot_memory: str | float = "perfect"

    def validate(self) -> None:
        if not 0 <= self.stop_window_ms <= MAX_STOP_WINDOW_MS:
            raise OptionsError(
                "bad_option", f"stop_window_ms must be between 0 and {MAX_STOP_WINDOW_MS}, not {self.stop_window_ms}"
            )
        forget_probability(self.bot_memory)


def forget_probability(bot_memory: str | float) -> float:
    """The chance a memory bot forgets a card it saw; 0.0 for "perfect"."""
    if bot_memory == "perfect":
        return 0.0
    try:
        value = float(bot_memory)
    except (TypeError, ValueError):
        value = -1.0
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise OptionsError(
            "bad_option", f'bot_memory must be "perfect" or a forgetting probability from 0 to 1, not {bot_memory!r}'
        )
    return value
