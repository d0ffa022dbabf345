"""Kabuki, the mask memory game (docs/rules/kabuki-masks.md, rulings KM-1..KM-7): `GAME`."""

from __future__ import annotations

from engines.core import Game
from engines.expert import expert_factory
from engines.kabuki_masks.actions import AnyAction
from engines.kabuki_masks.bots import BOTS
from engines.kabuki_masks.events import DEAL_TAGS, AnyEvent, event_time, setup
from engines.kabuki_masks.expert import SEARCH
from engines.kabuki_masks.options import Options
from engines.kabuki_masks.rules import (
    automatic,
    awaited,
    decide,
    describe,
    is_over,
    legal_actions,
    next_timer,
    on_timer,
    result,
    start,
    to_act,
)
from engines.kabuki_masks.state import evolve
from engines.kabuki_masks.view import (
    all_cards,
    blank,
    blank_view,
    hidden_cards,
    moment,
    moments,
    past_cards,
    redact,
    revealed_cards,
    view,
)

GAME: Game = Game(
    name="kabuki-masks",
    title="Kabuki (mask memory)",
    min_players=2,
    max_players=6,
    options_type=Options,
    event_type=AnyEvent,
    action_type=AnyAction,
    start=start,
    evolve=evolve,
    to_act=to_act,
    legal_actions=legal_actions,
    decide=decide,
    view=view,
    redact=redact,
    is_over=is_over,
    result=result,
    bots={**BOTS, "expert": expert_factory(lambda: GAME, SEARCH)},
    next_timer=next_timer,
    awaited=awaited,
    on_timer=on_timer,
    automatic=automatic,
    hidden_cards=hidden_cards,
    revealed_cards=revealed_cards,
    all_cards=all_cards,
    describe=describe,
    moment=moment,
    moments=moments,
    blank=blank,
    blank_view=blank_view,
    past_cards=past_cards,
    setup=setup,
    deal_tags=DEAL_TAGS,
    event_time=event_time,
)

__all__ = ["GAME"]
