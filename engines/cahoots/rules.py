"""Cahoots rules: start, to_act, legal_actions, decide, scoring (CH-1..CH-8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.cahoots.actions import KEEP, KILL, PICK, PLAY, Action, Keep, Kill, Pick, Play
from engines.cahoots.cards import (
    DECK,
    HAND_SIZE,
    IDENTITY_MASKS,
    POINTS_PER_TRICK,
    POPCOUNT,
    THREE_PLAYER_DECK,
    THREE_PLAYER_RESERVE,
    VALUE_OF,
    card_name,
)
from engines.cahoots.events import Chose, Dealt, GameEnded, Picked, Played, Started, TrickScored
from engines.cahoots.options import Options
from engines.cahoots.state import CHOOSE, ENDED, OVER, SCORING, State, evolve
from engines.cahoots.state import PICK as PICKING
from engines.cahoots.state import PLAY as PLAYING
from engines.core import Chance, Ctx, Result, RuleError, places_from, settle

_SEAT_SETS = {-1: frozenset(), **{seat: frozenset((seat,)) for seat in range(4)}}


# --- set-up ---------------------------------------------------------------


def start(players: int, options: Options, chance: Chance) -> list:
    """Everything random is drawn here (CH-1 identities, CH-2 dealer, the
    deal, the CH-6 reserve order); the deal itself is the Dealt event."""
    identities = tuple(chance.shuffled("identities", [0, 1, 2, 3])[:players])
    dealer = chance.choice("dealer", list(range(players)))
    deck = tuple(chance.shuffled("round-1", DECK if players == 4 else THREE_PLAYER_DECK))
    reserve = tuple(chance.shuffled("reserve", THREE_PLAYER_RESERVE)) if players == 3 else ()
    started = Started(players, options, identities, dealer, chance.seed, deck, reserve, chance.commitment, chance.salt)
    hands = tuple(tuple(deck[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(players))
    return [started, Dealt(hands)]


# --- scoring (CH-5) -------------------------------------------------------


def suit_totals(cards) -> list[int]:
    totals = [0] * 6
    for card in cards:
        totals[card >> 3] += VALUE_OF[card]
    return totals


def winning_suits(cards) -> tuple[int, ...]:
    """The suits with the highest total value on the table."""
    return best_suits(suit_totals(cards))


def best_suits(totals: list[int]) -> tuple[int, ...]:
    best = max(totals)
    return tuple(suit for suit in range(6) if totals[suit] == best)


_TRICK_POINTS: dict[tuple, tuple[int, ...]] = {}  # (winning, identities) -> points: few keys, many calls


def trick_points(winning: tuple[int, ...], identities: tuple[int, ...]) -> tuple[int, ...]:
    """CH-5: count each player's winning suits; the players with the highest
    count (at least 1) split the 4 points equally, and three such players get
    1 each (the fourth point is lost: 4 // 3). Remembered per key: the bots
    and the expert's playouts ask the same few questions again and again."""
    key = (winning, identities)
    points = _TRICK_POINTS.get(key)
    if points is None:
        points = _TRICK_POINTS[key] = _trick_points(winning, identities)
    return points


def _trick_points(winning: tuple[int, ...], identities: tuple[int, ...]) -> tuple[int, ...]:
    mask = 0
    for suit in winning:
        mask |= 1 << suit
    counts = [POPCOUNT[mask & IDENTITY_MASKS[identity]] for identity in identities]
    best = max(counts)
    if best == 0:
        return (0,) * len(identities)
    share = POINTS_PER_TRICK // counts.count(best)
    return tuple(share if count == best else 0 for count in counts)


def pick_order(points: tuple[int, ...], start: int) -> tuple[int, ...]:
    """CH-8: scorers pick one card at a time, from the scorer nearest the
    start player (clockwise), snaking back from the last to the first."""
    n = len(points)
    scorers = [seat % n for seat in range(start, start + n) if points[seat % n]]
    order: list[int] = []
    for lap in range(points[scorers[0]]):
        order.extend(scorers if lap % 2 == 0 else reversed(scorers))
    return tuple(order)


def automatic(state: State) -> list:
    """The events the rules take by themselves in this state (the
    contract's `automatic`): a trick's scoring, a forced pick, the game's end."""
    phase = state.phase
    if phase == SCORING:
        winning = winning_suits(state.table)
        points = trick_points(winning, state.identities)
        reserve_card = state.reserve[0] if state.players == 3 else -1  # CH-6
        order = pick_order(points, state.start) if state.options.face_value_scoring else ()
        return [TrickScored(state.trick, winning, points, reserve_card, order)]
    if phase == PICKING:
        # A pick is forced when one seat takes every card that is left.
        picks = state.picks
        if len(picks) == len(state.pool) and picks.count(picks[0]) == len(picks):
            return [Picked(picks[0], state.pool[0])]
        return []
    if phase == ENDED:
        scores = tuple(float(score) for score in state.scores)
        places = places_from(scores)
        winners = tuple(seat for seat, place in enumerate(places) if place == 1)
        return [GameEnded(state.seed, scores, tuple(places), winners, state.salt)]
    return []


# --- turns ----------------------------------------------------------------


def to_act(state: State) -> frozenset[int]:
    return _SEAT_SETS[state.actor]


def is_over(state: State) -> bool:
    return state.phase == OVER


def _first_choice_keep(state: State) -> bool | None:
    """In the second pass, whether this seat kept in the first (CH-4)."""
    j = len(state.choices)
    if j < state.players:
        return None
    return state.choices[j - state.players][1]


def legal_actions(state: State, seat: int, now_ms: int | None = None) -> list:
    # `now_ms` (engine contract): no rule of this game depends on time.
    if seat != state.actor:
        return []
    phase = state.phase
    if phase == PLAYING:
        return list(map(PLAY.__getitem__, state.hands[seat]))
    if phase == CHOOSE:
        free = state.free
        j, n = len(state.choices), state.players
        if j < n:  # first pass: keep or kill any free card (CH-4)
            return list(map(KEEP.__getitem__, free)) + list(map(KILL.__getitem__, free))
        # second pass: the opposite of this seat's first choice (CH-4)
        return list(map((KILL if state.choices[j - n][1] else KEEP).__getitem__, free))
    if phase == PICKING:
        return list(map(PICK.__getitem__, state.pool))
    return []


def decide(state: State, seat: int, action, ctx: Ctx) -> list:
    if state.phase == OVER:
        raise RuleError("game_over", "the game is over")
    if seat != state.actor:
        raise RuleError("not_your_turn", f"it is not seat {seat}'s turn")
    handler = _DECIDE.get(type(action))
    if handler is None:
        raise RuleError("bad_action", f"not a Cahoots action: {action!r}")
    return handler(state, seat, action)


def _play(state: State, seat: int, action: Play) -> list:
    if state.phase != PLAYING:
        raise RuleError("wrong_phase", "cards are played only before the keep/kill passes")
    card = action.card
    if card not in state.hands[seat]:
        raise RuleError("illegal_card", "that card is not in your hand")
    event = Played(seat, card)
    if len(state.table) + 1 < 2 * state.players:
        return [event]  # nothing follows by itself before the table is full
    return settle(evolve, automatic, state, [event])


def _choose(state: State, seat: int, action: Keep | Kill) -> list:
    if state.phase != CHOOSE:
        raise RuleError("wrong_phase", "cards are kept or killed only after both laps of play")
    card = action.card
    if card not in state.free:
        raise RuleError("illegal_card", f"the {_name(card)} is not free on the table")
    keep = type(action) is Keep
    first = _first_choice_keep(state)
    if first is not None and first == keep:
        # CH-4: the second pass does the opposite of the first.
        code, verb = ("must_kill", "kill") if first else ("must_keep", "keep")
        raise RuleError(code, f"you {'kept' if first else 'killed'} a card in the first pass: now {verb} one")
    event = Chose(seat, card, keep)
    if len(state.choices) + 1 < 2 * state.players:
        return [event]  # nothing follows by itself before the last choice
    return settle(evolve, automatic, state, [event])


def _pick(state: State, seat: int, action: Pick) -> list:
    if state.phase != PICKING:
        raise RuleError("wrong_phase", "killed cards are picked only by scorers with face_value_scoring")
    if action.card not in state.pool:
        raise RuleError("illegal_card", f"the {_name(action.card)} is not among the killed cards")
    return settle(evolve, automatic, state, [Picked(seat, action.card)])


# Keyed by the action's type; each handler takes its own type, which a table cannot
# tie to its key, hence `Any`.
_DECIDE: dict[type[Action], Callable[[State, int, Any], list]] = {
    Play: _play,
    Keep: _choose,
    Kill: _choose,
    Pick: _pick,
}


def _name(card) -> str:
    return card_name(card) if isinstance(card, int) and 0 <= card < 48 else repr(card)


def result(state: State) -> Result:
    scores = [float(score) for score in state.scores]
    places = places_from(scores)
    return Result(scores=scores, places=places, winners=[seat for seat, place in enumerate(places) if place == 1])


def describe(state: State) -> dict:
    return {"tricks": state.trick}
