"""Kabuki Tricks (docs/rules/kabuki-tricks.md; rulings KT-1..KT-14)."""

from __future__ import annotations

from engines.core import Game
from engines.expert import expert_factory

from .actions import AnyAction
from .bots import BOTS
from .events import DEAL_TAGS, AnyEvent
from .expert import SEARCH
from .options import Options
from .rules import automatic, decide, describe, is_over, legal_actions, result, start, to_act
from .state import evolve
from .view import all_cards, blank, blank_view, hidden_cards, moment, moments, past_cards, redact, revealed_cards, view

GAME: Game = Game(
    name="kabuki-tricks",
    title="Kabuki Tricks",
    min_players=2,
    max_players=5,
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
    hidden_cards=hidden_cards,
    revealed_cards=revealed_cards,
    all_cards=all_cards,
    describe=describe,
    automatic=automatic,
    moment=moment,
    moments=moments,
    blank=blank,
    blank_view=blank_view,
    past_cards=past_cards,
    deal_tags=DEAL_TAGS,
)

__all__ = ["GAME"]
