"""Table options (docs/rules/cahoots.md: only CH-8 is an option)."""

from __future__ import annotations

import msgspec


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # CH-8: score the face values of the killed cards taken, chosen in snake
    # order, instead of one point per card.
    face_value_scoring: bool = False

    def validate(self) -> None:
        # A single boolean: msgspec's strict decoding already checks its type.
        return None
