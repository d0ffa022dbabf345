"""Kabuki rules: who may act, what is legal, decide, the timers and scoring."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.core import Chance, Ctx, Result, RuleError, places_from, settle
from engines.kabuki_masks.actions import Action, Place, Stop
from engines.kabuki_masks.cards import CARDS, COPIES, PILES, ROUNDS, tokens_per_round
from engines.kabuki_masks.events import (
    GameEnded,
    Placed,
    Revealed,
    RoundEnded,
    RoundStarted,
    Started,
    Stopped,
)
from engines.kabuki_masks.options import Options
from engines.kabuki_masks.state import State, evolve

PLACES = tuple(Place(pile) for pile in range(PILES))
_NOBODY: frozenset[int] = frozenset()
_ONLY = {seat: frozenset((seat,)) for seat in range(6)}
# _OTHERS[players][seat]: every seat but `seat` (KM-2: all may call Stop but the placer).
_OTHERS = {n: tuple(frozenset(range(n)) - {seat} for seat in range(n)) for n in range(2, 7)}


def start(players: int, options: Options, chance: Chance) -> list:
    # All chance up front: the deck of every round and the first player.
    decks = tuple(tuple(chance.shuffled(f"round-{r}", CARDS)) for r in range(1, ROUNDS + 1))
    first = chance.choice("first-player", list(range(players)))
    return [
        Started(players, options.stop_window_ms, first, chance.seed, decks, chance.commitment, chance.salt),
        *_round_start(decks, 1, first, players),
    ]


def _round_start(decks, round_number: int, first: int, players: int) -> list:
    return [
        RoundStarted(round_number, first, tokens_per_round(players)),
        Revealed(first, decks[round_number - 1][0]),  # KM-1: shown to everyone
    ]


def to_act(s: State) -> frozenset[int]:
    """Every seat that may act now: the placer-to-be, and while the latest
    placement is unchallenged, every seat but its placer (KM-2)."""
    if s.last_seat is not None and not s.called:
        return _OTHERS[s.players][s.last_seat]
    if s.placer is not None:
        return _ONLY[s.placer]
    return _NOBODY


def awaited(s: State) -> frozenset[int]:
    """Only the placer is waited for: calling Stop is optional, with no deadline."""
    return _NOBODY if s.placer is None else _ONLY[s.placer]


def legal_actions(s: State, seat: int, now_ms: int | None = None) -> list:
    """What `decide` would accept from `seat` at `now_ms` (the service's
    clock): no Place before `may_place_at_ms` (KM-3), no
    Stop on the round's last card once its chance is over (KM-5a). None: the
    actions the rules allow once every wait is over (time left out)."""
    legal: list = []
    if (
        s.last_seat is not None
        and not s.called
        and seat != s.last_seat
        and (now_ms is None or not _stop_too_late(s, now_ms))
    ):
        legal.append(Stop(s.placements))
    if seat == s.placer:
        due = may_place_at_ms(s)
        if now_ms is None or due is None or now_ms >= due:
            legal.extend(PLACES)
    return legal


def decide(s: State, seat: int, action, ctx: Ctx) -> list:
    if s.over:
        raise RuleError("game_over", "the game is over")
    if not 0 <= seat < s.players:
        raise RuleError("not_your_turn", f"there is no seat {seat} at this table")
    handler = _DECIDE.get(type(action))
    if handler is None:
        raise RuleError("bad_action", f"not a Kabuki action: {action!r}")
    return handler(s, seat, action, ctx.now_ms)  # time is data here (KM-3, KM-5a)


def may_place_at_ms(s: State) -> int | None:
    """KM-3: the next placement waits `stop_window_ms` after the previous one."""
    if s.placer is None or s.last_seat is None:
        return None
    return s.last_at_ms + s.stop_window_ms


def _place(s: State, seat: int, action: Place, now_ms: int) -> list:
    pile = action.pile
    if seat != s.placer:
        who = "nobody places now" if s.placer is None else f"seat {s.placer} places the next card"
        raise RuleError("not_your_turn", f"it is not your turn to place: {who}")
    if type(pile) is not int or not 0 <= pile < PILES:
        raise RuleError("bad_pile", f"there are {PILES} actor piles, numbered 0 to {PILES - 1}; not {pile!r}")
    due = may_place_at_ms(s)
    if due is not None and now_ms < due:
        raise RuleError("too_early", f"the others may still call Stop; you may place at {due} ms ({due - now_ms} ms)")
    placed = Placed(seat, pile, s.revealed, s.placements + 1, now_ms)
    return settle(evolve, automatic, s, [placed])  # KM-1: the next card is revealed by itself


def stop_chance_ends_at_ms(s: State) -> int | None:
    """KM-5a: the round's last placement may be challenged until
    `stop_window_ms` after it (inclusive, by receive time), whether or not
    the round-end timer event is in the log yet. None: no time limit, either
    because a next card will be placed (KM-2: the chance lasts until then) or
    because the window is 0 (bot tables), where the chance lasts until the
    round end is logged, and the drivers (engines.playout, the service's house
    bots) ask every bot once before they apply that timer."""
    if s.last_seat is None or s.placer is not None or s.called or not s.stop_window_ms:
        return None
    return s.last_at_ms + s.stop_window_ms


def _stop_too_late(s: State, now_ms: int) -> bool:
    ends = stop_chance_ends_at_ms(s)
    return ends is not None and now_ms > ends


def _stop(s: State, seat: int, action: Stop, now_ms: int) -> list:
    placement = action.placement
    # KM-2: only the latest placement, until the next card is placed; the
    # first call in the log wins. The deck's last card has no next one: its
    # chance ends with its window (KM-5a, `stop_chance_ends_at_ms`).
    if s.last_seat is None or (placement is not None and placement != s.placements):
        raise RuleError("no_placement", "that placement can no longer be challenged: Stop only on the latest card")
    if seat == s.last_seat:
        raise RuleError("own_placement", "you cannot call Stop on a card you placed")
    if s.called:
        raise RuleError("already_called", "someone else called Stop on this placement first")
    ends = stop_chance_ends_at_ms(s)
    if ends is not None and now_ms > ends:  # `_stop_too_late`'s test; `ends` goes in the message
        raise RuleError(
            "too_late",
            f"the last card's Stop chance ended at {ends} ms ({now_ms - ends} ms before your call); the round is over",
        )
    # KM-4: every covered card like the top moves a token from placer to caller.
    cards = s.piles[s.last_pile]
    top_kind = cards[-1] // COPIES
    matches = sum(1 for card in cards[:-1] if card // COPIES == top_kind)
    placer = s.last_seat
    moved = min(matches, s.tokens[placer])
    returned = 0 if matches else min(1, s.tokens[seat])  # `evolve` moves the tokens
    stopped = Stopped(seat, s.placements, placer, s.last_pile, cards, matches, moved, returned, now_ms)
    return settle(evolve, automatic, s, [stopped])  # KM-5: it may end the round


def automatic(s: State) -> list:
    """The events the rules take by themselves: after a placement,
    the deck's next card is revealed to the next seat (KM-1); a Stop ends the
    round when a player lost their last token or it was on the deck's last
    card, whose one chance it used up (KM-5); once a round has ended, the
    game's end after the last round (KM-6), else the next round, started by
    the seat that ended the last one (KM-5)."""
    if s.over:
        return []
    if s.ended_at_ms is not None:
        if s.round == ROUNDS:
            scores = s.banked  # KM-6: the tokens of every round, banked
            places = places_from(scores)
            return [GameEnded(s.seed, scores, tuple(i for i, p in enumerate(places) if p == 1), s.salt)]
        starter = s.ended_by
        assert starter is not None  # set with `ended_at_ms` by the round's end
        return _round_start(s.decks, s.round + 1, starter, s.players)
    if s.last_seat is None:
        return []  # no placement yet this round
    if s.called:
        # Tokens only move on a Stop and start above 0, so a seat at 0 just
        # lost its last one: the placer (a match) or the caller (none).
        if 0 in s.tokens:
            loser = s.last_seat if s.tokens[s.last_seat] == 0 else s.tokens.index(0)
            return [RoundEnded(s.round, loser, "last_token", s.tokens, s.stopped_at_ms)]
        if s.placer is None:  # nobody is to place: the Stop was on the deck's last card
            return [RoundEnded(s.round, s.last_seat, "deck_empty", s.tokens, s.stopped_at_ms)]
        return []
    if s.placer is None and s.revealed is None and s.drawn < len(s.deck):
        return [Revealed((s.last_seat + 1) % s.players, s.deck[s.drawn])]
    return []


def next_timer(s: State) -> int | None:
    """When something may change with time alone: the end of the latest
    placement's stop window (KM-3; on the deck's last card that ends the
    round, KM-5). A log written while the next round was still a timer due
    at once may also stop at a round's end: due then."""
    if s.over:
        return None
    if s.ended_at_ms is not None:
        return s.ended_at_ms
    if s.last_seat is not None:
        return s.last_at_ms + s.stop_window_ms
    return None


def on_timer(s: State, ctx: Ctx) -> list:
    if s.over:
        return []
    if s.ended_at_ms is not None:  # only a log from when the next round was a timer
        return settle(evolve, automatic, s, []) if ctx.now_ms >= s.ended_at_ms else []
    if s.last_seat is not None and s.placer is None and not s.called and ctx.now_ms >= s.last_at_ms + s.stop_window_ms:
        ended = RoundEnded(s.round, s.last_seat, "deck_empty", s.tokens, ctx.now_ms)
        return settle(evolve, automatic, s, [ended])
    return []


# Keyed by the action's type; each handler takes its own type, which a table cannot
# tie to its key, hence `Any`.
_DECIDE: dict[type[Action], Callable[[State, int, Any, int], list]] = {Place: _place, Stop: _stop}


def is_over(s: State) -> bool:
    return s.over


def result(s: State) -> Result:
    scores = [float(b) for b in s.banked]  # KM-6: ties share the win
    places = places_from(scores)
    return Result(scores=scores, places=places, winners=[i for i, p in enumerate(places) if p == 1])


def describe(s: State) -> dict:
    return {"rounds": s.round, "placements": s.placements}
