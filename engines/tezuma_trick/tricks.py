"""Who wins a finished trick and who leads the next one (TT-6, TT-9..TT-13).

Pure functions over `plays`: (seat, cards, ability id) in play order, the
led suit and the player count. The bots call them too, on partial tricks, to
see who would win "if the trick ended now".
"""

from __future__ import annotations

from engines.tezuma_trick.cards import (
    BUTTERFLY_DANCE,
    CHICKS,
    CUP_AND_BALL,
    FIVE_COLOR_SAND,
    HORSE_SWALLOWING,
    IS_TRUMP,
    LINKING_RING,
    MANY_UMBRELLAS,
    NUMBER_OF,
    PAIL_DANCE,
    SUIT_OF,
    SWORD_WALKING,
    WATER_TRICK,
)


def play_value(cards: tuple[int, ...], ability: int) -> int:
    """A play's number: the sum of two Fire Breathing cards (TT-9), 0 for a
    Trump (TT-6), +2 with Horse-Swallowing, 4 or 5 doubled with Many
    Umbrellas."""
    if len(cards) == 2:
        return NUMBER_OF[cards[0]] + NUMBER_OF[cards[1]]
    value = NUMBER_OF[cards[0]]
    if ability == HORSE_SWALLOWING:
        return value + 2
    if ability == MANY_UMBRELLAS and value in (4, 5):
        return value * 2
    return value


def trump_effective(card: int, ability: int, led: int, water: bool) -> bool:
    """Whether a Trump card counts as an effective Trump in its trick."""
    if ability == BUTTERFLY_DANCE:
        return True  # TT-12: even against Water Trick; also when following suit
    if water or ability == CUP_AND_BALL:
        return False  # TT-12; Cup and Ball makes it a led-suit 0
    if ability == LINKING_RING:
        return True  # "If you play a Trump card, it becomes effective"
    return SUIT_OF[card] != led  # TT-6: a Trump that follows suit, or is led, is 0


def trick_winner(plays, led: int) -> tuple[int, str]:
    """(winning seat, reason) of the plays so far: "five_color_sand",
    "trump", "sword_walking" or "high". `plays` must hold at least one card."""
    water = False
    for _, _, ability in plays:
        if ability == WATER_TRICK:
            water = True  # TT-12: for the whole trick, earlier Trumps included
            break
    first_trump = sword_trump = -1
    best_seat = sword_seat = -1
    best_value = sword_value = -1
    for seat, cards, ability in plays:
        if ability == FIVE_COLOR_SAND:
            return seat, "five_color_sand"  # TT-10: beats every other rule
        card = cards[0]
        if IS_TRUMP[card] and len(cards) == 1 and trump_effective(card, ability, led, water):
            if first_trump < 0:
                first_trump = seat
            elif ability == SWORD_WALKING:
                sword_trump = seat  # TT-11: an effective Trump that was not first
            continue
        if ability != CUP_AND_BALL and SUIT_OF[card] != led:
            continue  # off-suit (and ineffective) cards cannot win
        value = play_value(cards, ability)
        if value > best_value:
            best_seat, best_value = seat, value  # equal values: the first played keeps it
        if ability == SWORD_WALKING:
            sword_seat, sword_value = seat, value
    if first_trump >= 0:
        if sword_trump >= 0:
            return sword_trump, "sword_walking"
        return first_trump, "trump"
    if sword_seat >= 0 and sword_value == best_value and sword_seat != best_seat:
        return sword_seat, "sword_walking"  # TT-11: ties for the highest value
    return best_seat, "high"


def next_leader(plays, winner: int, players: int) -> int:
    """TT-13: Chicks (the user) or Pail Dance (the user's left) override the
    winner; when both were used, the later one in play order decides."""
    leader = winner
    for seat, _, ability in plays:
        if ability == CHICKS:
            leader = seat
        elif ability == PAIL_DANCE:
            leader = (seat + 1) % players
    return leader


def fire_breathing_return(plays) -> tuple[int, int]:
    """(card, seat): the lower Fire Breathing card goes back to its hand
    (TT-9); (-1, -1) if nobody breathed fire. Both cards share a suit, so
    their numbers always differ."""
    for seat, cards, _ in plays:
        if len(cards) == 2:
            low = cards[0] if NUMBER_OF[cards[0]] < NUMBER_OF[cards[1]] else cards[1]
            return low, seat
    return -1, -1
