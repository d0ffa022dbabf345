"""Table options (KT-13, KT-14)."""

from __future__ import annotations

from typing import Literal

import msgspec

from engines.core import OptionsError


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # KT-13: who plays second after the dummy won a trick (2-player variant).
    second_after_dummy_win: Literal["higher_human", "same_order"] = "higher_human"
    # KT-14: advanced variants, both off by default.
    failed_predictions: bool = False
    toxic_number: bool = False

    def validate(self) -> None:
        if self.second_after_dummy_win not in ("higher_human", "same_order"):
            raise OptionsError("bad_option", "second_after_dummy_win must be 'higher_human' or 'same_order'")
