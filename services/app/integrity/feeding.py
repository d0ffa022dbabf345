"""Where one seat could hand another points, and whether it did: one
well-defined "feeding" measure per game, computed from the engine's folded
states, legal actions and decided events only.

- Cahoots (CH-5): a card played into the trick of a suit on the receiver's
  identity card and not on the giver's own. Such a card can only raise a
  suit that scores for the receiver (and the third holder of that suit),
  never for the giver. A chance: the giver's hand held such a card and
  another one.
- Kabuki Tricks and Tezuma Trick: the last card of a trick. A chance: among
  the giver's legal last cards some make the receiver win the trick and
  some do not (each legal card is decided by the engine). Fed: the card
  played made the receiver win it. A trick is a point in Kabuki Tricks; in
  Tezuma a trick counts towards the receiver's bid.
- Kabuki masks (KM-4, chip dumping): a chance is a dump, a placement of the
  revealed mask on a pile that already holds one like it when a pile
  without one was there; fed: the receiver's Stop then took the placer's
  tokens for it. The other seats compete for each dump (the first Stop
  wins), so their chances are `exclusive`.

Each chance is a Bernoulli trial for the (giver, receiver) pair; its `kind`
groups the positions whose population rate is the baseline
(services/app/integrity/screening.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engines.cahoots.actions import Play as CahootsPlay
from engines.cahoots.cards import IDENTITY_MASKS, SUIT_OF
from engines.core import Ctx, Game, RuleError
from engines.kabuki_masks.actions import Place
from engines.kabuki_masks.cards import COPIES

TRICK_GAMES = frozenset({"kabuki-tricks", "tezuma-trick"})
SCREENED_GAMES = ("cahoots", "kabuki-tricks", "tezuma-trick", "kabuki-masks")


class Move(msgspec.Struct, frozen=True):
    """One seat's action as the log has it: the state it was taken in, the
    events it gave and the stream version of its first event. `own` is
    False for a move the service played for the seat (a timeout, a house
    bot after a hand-over): nobody's choice."""

    version: int
    seat: int
    before: Any
    action: Any
    events: tuple[Any, ...]
    own: bool = True


class Opportunity(msgspec.Struct, frozen=True):
    """A position where `giver` could feed `receiver` or not; `fed` says
    which it did. `version` is the giver's move."""

    giver: int
    receiver: int
    kind: str
    fed: bool
    version: int
    # The share of the giver's choices that would have fed the receiver:
    # what choosing at random gives (a hand of feeding cards feeds often).
    share: float = 1.0
    # The receivers of one move compete for one feed (who catches a dumped
    # mask first): the expected rate of each is its strength among its rivals.
    exclusive: bool = False


def _tag(event: Any) -> str:
    return type(event).__struct_config__.tag


def trick_winner(events: Sequence[Any]) -> int | None:
    """The seat that won the trick these events complete, or None."""
    for event in events:
        tag = _tag(event)
        if tag == "kt.trick_won":
            return int(event.seat)
        if tag == "tt.trick_won":
            return int(event.winner)
    return None


def _winners_by_action(game: Game, state: Any, seat: int, legal: Sequence[Any]) -> list[tuple[Any, int | None]]:
    out = []
    for action in legal:
        try:
            out.append((action, trick_winner(game.decide(state, seat, action, Ctx(0)))))
        except RuleError:
            continue
    return out


def _cahoots_feeding_suits(state: Any, giver: int, receiver: int) -> int:
    """The bit mask of suits on the receiver's identity card and not the giver's."""
    ids = state.identities
    return IDENTITY_MASKS[ids[receiver]] & ~IDENTITY_MASKS[ids[giver]]


def _masks_matching_piles(state: Any) -> list[int]:
    """The piles that already hold a mask like the revealed one."""
    kind = state.revealed // COPIES
    return [i for i, pile in enumerate(state.piles) if any(c // COPIES == kind for c in pile)]


def feeding_actions(game: Game, state: Any, seat: int, receiver: int, legal: Sequence[Any]) -> list[Any]:
    """Of `legal`, the actions that feed `receiver` by this module's measure
    ([] if none, or if every one does: then there is no choice to read).
    The planted colluders of the validation play these
    (services/tools/integrity_validation.py)."""
    name = game.name
    chosen: list[Any] = []
    if name == "cahoots":
        suits = _cahoots_feeding_suits(state, seat, receiver)
        chosen = [a for a in legal if type(a) is CahootsPlay and suits >> SUIT_OF[a.card] & 1]
    elif name in TRICK_GAMES:
        by_action = _winners_by_action(game, state, seat, legal)
        if any(winner is None for _, winner in by_action):
            return []  # not the trick's last card
        chosen = [a for a, winner in by_action if winner == receiver]
    elif name == "kabuki-masks":
        if state.revealed is None or state.placer != seat:
            return []
        matching = set(_masks_matching_piles(state))
        chosen = [a for a in legal if type(a) is Place and a.pile in matching]
    return chosen if len(chosen) < len(legal) else []


def opportunities(game: Game, moves: Sequence[Move]) -> list[Opportunity]:
    """Every feeding chance in one game's moves, for every ordered pair of
    seats (moves that are not the seat's own choice are skipped)."""
    if game.name == "cahoots":
        return _cahoots(moves)
    if game.name in TRICK_GAMES:
        return _tricks(game, moves)
    if game.name == "kabuki-masks":
        return _masks(moves)
    return []


def _cahoots(moves: Sequence[Move]) -> list[Opportunity]:
    out = []
    for move in moves:
        if not move.own or type(move.action) is not CahootsPlay:
            continue
        state, giver = move.before, move.seat
        hand = state.hands[giver]
        played_suit = SUIT_OF[move.action.card]
        for receiver in range(state.players):
            if receiver == giver:
                continue
            suits = _cahoots_feeding_suits(state, giver, receiver)
            feeding = sum(1 for c in hand if suits >> SUIT_OF[c] & 1)
            if 0 < feeding < len(hand):
                fed = bool(suits >> played_suit & 1)
                out.append(Opportunity(giver, receiver, "cahoots:play", fed, move.version, feeding / len(hand)))
    return out


def _tricks(game: Game, moves: Sequence[Move]) -> list[Opportunity]:
    out = []
    for move in moves:
        if not move.own:
            continue
        winner = trick_winner(move.events)
        if winner is None:
            continue  # not the trick's last card
        state, giver = move.before, move.seat
        winners = [w for _, w in _winners_by_action(game, state, giver, game.legal_actions(state, giver))]
        # Whether the giver could have taken the trick itself changes what
        # honest play does with it: the baseline is kept apart for each.
        took = "could-take" if giver in winners else "cannot-take"
        for receiver in range(state.players):
            feeding = winners.count(receiver)
            if receiver != giver and 0 < feeding < len(winners):
                kind = f"{game.name}:last-card:{took}"
                out.append(Opportunity(giver, receiver, kind, winner == receiver, move.version, feeding / len(winners)))
    return out


def _masks(moves: Sequence[Move]) -> list[Opportunity]:
    out = []
    for number, move in enumerate(moves):
        if not move.own or type(move.action) is not Place:
            continue
        state, giver = move.before, move.seat
        matching = _masks_matching_piles(state)
        if not 0 < len(matching) < len(state.piles) or move.action.pile not in matching:
            continue  # no dump, or no safe pile to choose instead
        placed = next((e for e in move.events if _tag(e) == "km.placed"), None)
        caught_by = _caught_by(moves[number + 1 :], placed.placement) if placed is not None else None
        rivals = state.players - 1
        for receiver in range(state.players):
            if receiver != giver:
                fed = caught_by == receiver
                out.append(Opportunity(giver, receiver, "kabuki-masks:dump", fed, move.version, 1 / rivals, True))
    return out


def _caught_by(later: Sequence[Move], placement: int) -> int | None:
    """The seat whose Stop on `placement` took tokens for a match, if any."""
    for move in later:
        for event in move.events:
            tag = _tag(event)
            if tag == "km.stopped" and event.placement == placement:
                return int(event.caller) if event.moved > 0 else None
            if tag == "km.placed":
                return None  # the next placement: that Stop chance is over
    return None
