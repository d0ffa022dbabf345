"""Builders for Tezuma Trick tests: tables with chosen hands, drafts and a
tiny driver that checks every command against `legal_actions` as it goes."""

from __future__ import annotations

import msgspec

from engines.core import Chance, Ctx
from engines.tezuma_trick import GAME
from engines.tezuma_trick.actions import Egg, PickAbility, PickBid, PickPain, Play, Sand
from engines.tezuma_trick.cards import ABILITY_NAMES, RANKS, SUITS
from engines.tezuma_trick.events import HandDealt, Started

OPTIONS = GAME.make_options({})
_LETTERS = {suit[0].upper(): index for index, suit in enumerate(SUITS)}  # B U F M


def c(name: str) -> int:
    """'B7' = the 7 of butterflies, 'UT1' = the first Trump of umbrellas
    (suits: B butterflies, U umbrellas, F fans, M masks)."""
    suit = _LETTERS[name[0]]
    if name[1] == "T":
        return suit * RANKS + 8 + int(name[2:])
    return suit * RANKS + int(name[1:]) - 1


def cs(names: str) -> tuple[int, ...]:
    return tuple(c(name) for name in names.split())


def table(
    hands: list[str],
    abilities: list[str | None] | None = None,
    bids: list[int] | None = None,
    pains: list[int] | None = None,
    dealer: int | None = None,
    options=OPTIONS,
):
    """A hand after its draft: seat s holds `hands[s]` (card names) and
    drafted `abilities[s]`, `bids[s]`, `pains[s]`. The dealer defaults to the
    last seat, so seat 0 starts the draft and leads trick 1 (TT-4, TT-5)."""
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    abilities = abilities or [None] * n
    # Seats without a chosen ability draft ones nobody uses in the test.
    spare = iter(
        name for name in ("many_umbrellas", "horse_swallowing", "water_trick", "chicks") if name not in abilities
    )
    drafted = [name or next(spare) for name in abilities]
    bids = bids or list(range(n))
    pains = pains or list(range(n))
    started = Started(
        players=n,
        options=options,
        first_dealer=dealer,
        seed=1,
        decks=((),) * n,
        bid_rows=((),) * n,
        ability_rows=((),) * n,
    )
    dealt = HandDealt(
        hand=1,
        dealer=dealer,
        bids=tuple(sorted(set(bids) | {7})),
        abilities=tuple(drafted),
        hands=tuple(cs(hand) for hand in hands),
    )
    state = GAME.fold([started, dealt])
    for _pick in range(3 * n):
        seat = state.draft_order[state.pick_no]
        action: PickPain | PickBid | PickAbility
        if state.pain[seat] < 0:
            action = PickPain(suit=pains[seat])
        elif state.bid[seat] < 0:
            action = PickBid(bid=bids[seat])
        else:
            action = PickAbility(ability=drafted[seat])
        state, _ = act(state, seat, action)
    return state


def act(state, seat: int, action):
    """decide + evolve, after checking the action is listed as legal."""
    assert action in GAME.legal_actions(state, seat), (action, GAME.legal_actions(state, seat))
    events = GAME.decide(state, seat, action, Ctx(0))
    return GAME.fold(events, state), events


def play(state, seat: int, card: str, ability: str | None = None, second: str | None = None):
    action = Play(card=c(card), ability=ability, second=c(second) if second else None)
    return act(state, seat, action)


def plays(state, *moves):
    """Several plays in a row: (seat, 'B7') or (seat, 'B7', 'ability') or
    (seat, 'egg') / (seat, 'sand'). Returns the state and all events."""
    events = []
    for move in moves:
        seat, what = move[0], move[1]
        if what == "egg":
            state, new = act(state, seat, Egg())
        elif what == "sand":
            state, new = act(state, seat, Sand())
        else:
            state, new = play(state, seat, what, *move[2:])
        events.extend(new)
    return state, events


def won(events):
    """The TrickWon event among `events`."""
    (event,) = [e for e in events if type(e).__name__ == "TrickWon"]
    return event


def with_(state, **changes):
    return msgspec.structs.replace(state, **changes)


__all__ = ["ABILITY_NAMES", "Chance", "GAME", "OPTIONS", "act", "c", "cs", "play", "plays", "table", "won", "with_"]
