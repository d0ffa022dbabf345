"""The `heuristic` house bot (bots.py `HeuristicBot`) on the lean state
(lean.py), move for move: the expert's playouts run it hundreds of times a
move. It reads only what the seat's view shows (its hand, the trick, trick
counts, who still holds a Joker, its own prediction, the configuration).
tests/engines/test_lean_kabuki_tricks.py checks that it picks what the
engine's bot picks.

Win chances are `HeuristicBot._win_chances` computed from rank tables: a
card beats the unseen cards that rank below it in the whole deck, less the
seen ones that do; the sums run over the same floats in the same order, so
every comparison comes out the same."""

from __future__ import annotations

from .bots import prediction
from .cards import JOKER, SUIT_OF, deck_for
from .lean import DEAL_MOVES, DIRECT_MOVE, JOKER_MOVES, POSITION, STRENGTHS, Lean, joker_move
from .state import DEAL, DIRECT


def _ranks(players: int, strength) -> tuple[int, ...]:
    """Per card of the players' deck: how many of the deck's cards are weaker."""
    rank = [0] * 40
    for i, c in enumerate(sorted(deck_for(players), key=strength.__getitem__)):
        rank[c] = i
    return tuple(rank)


RANK = {players: tuple(_ranks(players, strength) for strength in STRENGTHS) for players in (2, 3, 4, 5)}
FREE_COUNT = tuple(bin(mask).count("1") for mask in range(16))
DECK_SIZE = {players: len(deck_for(players)) for players in (2, 3, 4, 5)}


def _chances(cards, seen, rank, size: int, others: int) -> list[float]:
    """`HeuristicBot._win_chances`: for each of `cards` (all in `seen`, the
    seat's known suit cards), (weaker unseen / unseen) ** others."""
    out = []
    for c in cards:
        r = rank[c]
        weaker = r
        for x in seen:
            if rank[x] < r:
                weaker -= 1
        out.append((weaker / size) ** others)
    return out


def heuristic(lean: Lean, zero: list[bool]) -> int:
    """The move the seat to act would make; `zero[seat]` is that seat's
    `HeuristicBot.zero_mode` (kept across its moves, as the bot keeps it)."""
    phase = lean.phase
    if phase == DEAL:
        zero[lean.turn] = False
        return DEAL_MOVES[0]
    if phase == DIRECT:
        return _direct(lean)
    return _play(lean, zero)


def _direct(lean: Lean) -> int:
    # KT-10: the side and order under which the hand expects the most tricks.
    players = lean.players
    cards = [c for c in lean.hands[lean.turn] if c < JOKER]
    size = DECK_SIZE[players] - len(cards) or 1
    others = 2 if players == 2 else players - 1
    best, best_value = 0, -1.0
    for k, rank in enumerate(RANK[players]):
        value = sum(_chances(cards, cards, rank, size, others))
        if value > best_value:
            best, best_value = k, value
    return DIRECT_MOVE + best


def _unseen(lean: Lean, suit_cards: list[int]):
    """What `_chances` needs beyond the cards: the seat's known suit cards
    (hand and trick), the rank table, the unseen count and the rival count."""
    players = lean.players
    seen = suit_cards + [c for c in lean.trick if c < JOKER]
    return seen, RANK[players][lean.config], DECK_SIZE[players] - len(seen) or 1, 2 if players == 2 else players - 1


def _play(lean: Lean, zero: list[bool]) -> int:
    seat = lean.turn
    hand, trick = lean.hands[seat], lean.trick
    strength = STRENGTHS[lean.config]
    has_joker = hand[-1] >= JOKER
    suit_cards = hand[:-1] if has_joker else hand  # the Joker is always last
    # legal(): the plays, and the Joker's moves when it may be played (KT-4).
    if trick:
        led = SUIT_OF[trick[0]]
        plays = [c for c in suit_cards if SUIT_OF[c] == led] or suit_cards
        joker_free = has_joker and max(trick) < JOKER
    else:
        plays, joker_free = suit_cards, False
    tricks, trick_no = lean.tricks_won[seat], lean.trick_no
    z = zero[seat]  # HeuristicBot.zero_mode: ducking for the Joker's +5 (KT-3)
    if trick_no == 1 and (not trick or len(suit_cards) == 7):
        z = has_joker and sum(_chances(suit_cards, *_unseen(lean, suit_cards))) < 0.35
    if tricks > 0:
        z = False
    elif has_joker and trick_no >= 6 and not joker_free and not z:
        z = True  # leading late with no trick yet: keep the Joker for +5 (KT-3)
    if joker_free and not z:
        if tricks == 0 and trick_no >= 6:
            z = True  # KT-3: the Joker kept with 0 tricks scores 5
        elif (
            trick_no >= 6
            or (tricks >= 3 and all(strength[c] > max(strength[x] for x in trick) for c in plays))
            or _actors_running_out(lean, seat)
        ):
            zero[seat] = z
            return _joker(lean, seat, suit_cards, tricks)
    zero[seat] = z
    predicted = lean.predictions[seat]
    want_win = (tricks < predicted) if predicted else (not z and tricks < 3)
    return _choose_card(lean, plays, strength, want_win)


def _actors_running_out(lean: Lean, seat: int) -> bool:
    """Too few free actors for the Jokers still out (5 players, KT-7): place now."""
    free = FREE_COUNT[lean.free]
    if not free or free >= lean.players:  # more free actors than rivals can hold
        return False
    hands = lean.hands
    rivals = sum(1 for s in range(lean.players) if s != seat and hands[s] and hands[s][-1] >= JOKER)
    return 0 < free <= rivals


def _choose_card(lean: Lean, plays: list[int], strength, want_win: bool) -> int:
    if len(plays) == 1:  # every branch below would pick it
        return plays[0]
    by_strength = sorted(plays, key=strength.__getitem__)
    trick = lean.trick
    if not trick:
        return by_strength[-1] if want_win else by_strength[0]
    best = max(strength[c] for c in trick)
    if want_win:
        winners = [c for c in by_strength if strength[c] > best]
        if winners:
            # the cheapest winner when last to play, else the strongest
            return winners[0] if len(trick) + 1 == lean.trick_size else winners[-1]
        return by_strength[0]
    losers = [c for c in by_strength if strength[c] < best]
    return losers[-1] if losers else by_strength[0]


def _joker(lean: Lean, seat: int, suit_cards: list[int], tricks: int) -> int:
    """Predict a count that is by then (nearly) certain, beside the actor of
    the card kept to the end (KT-9), swapped up one for the KT-8 tie-break."""
    predicted, keep = prediction(tricks, suit_cards, lambda: _chances(suit_cards, *_unseen(lean, suit_cards)))
    free = lean.free
    if not free:  # KT-7: nothing to place
        return JOKER_MOVES[0][0]
    position = POSITION[lean.config]
    keep_suit = SUIT_OF[keep] if keep is not None else -1
    if keep_suit >= 0 and free >> keep_suit & 1:
        actor = keep_suit
    else:
        actor = min((s for s in range(4) if free >> s & 1), key=position.__getitem__)
    at = position[actor]
    return joker_move(actor, predicted, 2 + at - 1 if at > 0 else 0)
