"""The `heuristic` bot (bots.py) on the lean state (lean.py), the
expert's lean playout with it and the lean random game that `simulate
--calibrate` times (`SEARCH.lean_playout`, `lean_random_game`, the latter
in lean_random.py).

`heuristic_move` picks exactly what `bots.HeuristicBot.act` picks in the
same position: the same estimates in the same order of operations, over the
same moves in the same order (the first of equal scores wins); its memory
of the cards played this hand is what the lean state's hands imply.
The draft reuses the bot's own formulas (`_bid_value`, `_pain_risk`); the
card play is ported, as it runs for every move of every playout. Also here:
lean moves to and from engine actions (`move_of`, `action_of`).
tests/engines/test_lean_tezuma_trick.py holds both to the same choices.
"""

from __future__ import annotations

from bisect import bisect_right

from engines.expert import MAX_PLAYOUT_STEPS
from engines.tezuma_trick.actions import Egg, PickAbility, PickBid, PickPain, Play, Sand
from engines.tezuma_trick.bots import _ABILITY_COST, ABILITY_PREFERENCE, EASY, LOSE, WIN, HeuristicBot
from engines.tezuma_trick.cards import ABILITY_IDS, ABILITY_NAMES, IS_TRUMP, NUMBER_OF, SUIT_OF, TRICKS_PER_HAND
from engines.tezuma_trick.lean import ABILITY, BID, DONE, DRAFTING, EGG, LEADS_ONLY, PAIN, SAND, Lean, plain_standing
from engines.tezuma_trick.lean_random import lean_random_game  # noqa: F401 (a SEARCH hook, expert.py imports it here)
from engines.tezuma_trick.tricks import trick_winner


def play_move(card: int, ability: int = -1, second: int = -1) -> int:
    return card | (ability + 1) << 6 | (second + 1) << 10


def move_of(action) -> int | None:
    """The lean move of an engine action; None for one no move encodes (the
    engine refuses it too: an unknown ability, a card out of the deck)."""
    kind = type(action)
    if kind is Play:
        ability = ABILITY_IDS.get(action.ability, -2) if action.ability is not None else -1
        second = -1 if action.second is None else action.second
        if ability < -1 or not 0 <= action.card < 48 or not -1 <= second < 48:
            return None
        return play_move(action.card, ability, second)
    if kind is Egg:
        return EGG
    if kind is Sand:
        return SAND
    if kind is PickPain:
        return PAIN - action.suit if 0 <= action.suit < 4 else None
    if kind is PickAbility:
        return ABILITY - ABILITY_IDS[action.ability] if action.ability in ABILITY_IDS else None
    if kind is PickBid:
        return BID - action.bid if 0 <= action.bid < 32 else None
    return None


def action_of(move: int):
    """The engine action of a lean move."""
    if move >= 0:
        ability, second = (move >> 6 & 15) - 1, (move >> 10) - 1
        return Play(
            card=move & 63,
            ability=ABILITY_NAMES[ability] if ability >= 0 else None,
            second=second if second >= 0 else None,
        )
    if move == EGG:
        return Egg()
    if move == SAND:
        return Sand()
    if move > ABILITY:
        return PickPain(suit=PAIN - move)
    if move > BID:
        return PickAbility(ability=ABILITY_NAMES[ABILITY - move])
    return PickBid(bid=BID - move)


_COST = tuple(_ABILITY_COST.get(name, 0.12) for name in ABILITY_NAMES)
_PREFERENCE = {ABILITY - ABILITY_NAMES.index(name): rank for rank, name in enumerate(ABILITY_PREFERENCE)}
_STRENGTH = tuple(NUMBER_OF[card] + (4 if IS_TRUMP[card] else 0) for card in range(48))
_HOLDING = ("trump", "sword_walking", "five_color_sand")  # reasons the bot expects to hold


def heuristic_move(lean: Lean, seat: int, legal: list[int]) -> int | None:
    if not legal:
        return None
    if lean.phase == DRAFTING:
        return _pick(lean, seat, legal)
    return _play(lean, seat, legal)


def _pick(lean: Lean, seat: int, legal: list[int]) -> int:
    """bots.py `_pick`: the best-valued Bid card first, then the most
    preferred ability, then the least risky Pain Suit."""
    hand = lean.hand(seat)
    bids = [move for move in legal if move <= BID]
    if bids:  # `lean` has the view's `bid_cards` and `players`
        return max(bids, key=lambda move: HeuristicBot._bid_value(lean, hand, BID - move))
    abilities = [move for move in legal if BID < move <= ABILITY]
    if abilities:
        return min(abilities, key=_PREFERENCE.__getitem__)
    return min(legal, key=lambda move: HeuristicBot._pain_risk(hand, PAIN - move))


def _play(lean: Lean, seat: int, legal: list[int]) -> int | None:
    """bots.py `_play` and `_score`."""
    n = lean.players
    lo, hi = lean.bid_range[lean.bid[seat]]
    won, left = lean.tricks[seat], TRICKS_PER_HAND - lean.trick_no + 1
    goal = LOSE if won >= hi or won + left < lo else WIN if won < lo else EASY
    plays = lean.plays
    after_me = n - len(plays) - 1
    pain_suit = lean.pain[seat]
    # The pain cards already on the table (an int count: summing it apart is exact).
    pain_before = sum(1 for _, cards, _ in plays for card in cards if SUIT_OF[card] == pain_suit)
    shed = 0.015 if goal < 0 else -0.015
    led_now = lean.led
    # An ability that may change the winner in the trick already: the engine's trick rules decide.
    special = lean.special & ~LEADS_ONLY
    if not special:
        trump_seat, _, best_value = plain_standing(plays, led_now)
    unseen = None
    chances: dict[int, float] = {}  # hold chances by led suit << 6 | value
    best, best_score, egg = None, float("-inf"), None
    for move in legal:
        if move < 0:
            if move == EGG:
                egg = move
                continue
            score = goal * 1.0 - _COST[11] - 0.3 * (goal < WIN)  # Five-Color Sand
        else:
            if move < 64:
                card, ability, second = move, -1, -1
            else:
                card, ability, second = move & 63, (move >> 6 & 15) - 1, (move >> 10) - 1
            led = led_now if led_now >= 0 else SUIT_OF[card]
            if special or (move >= 64 and not 1 << ability & LEADS_ONLY):
                cards = (card,) if second < 0 else (card, second)
                winner, reason = trick_winner(plays + [(seat, cards, ability)], led)
                wins, holds = winner == seat, reason in _HOLDING
            elif trump_seat >= 0:  # a plain card after an effective Trump
                wins = False
            elif SUIT_OF[card] != led:  # TT-6: an off-suit Trump wins, other off-suit cards cannot
                wins = holds = IS_TRUMP[card]
            else:
                wins, holds = NUMBER_OF[card] > best_value, False
            strength = _STRENGTH[card] if second < 0 else _STRENGTH[card] + _STRENGTH[second]
            if wins:
                if after_me == 0:
                    p_win = 1.0
                elif holds:
                    p_win = 0.9
                else:
                    value = NUMBER_OF[card] if second < 0 else NUMBER_OF[card] + NUMBER_OF[second]
                    key = led << 6 | value
                    p_win = chances.get(key, -1.0)
                    if p_win < 0:
                        if unseen is None:
                            unseen = _unseen(lean, seat)
                        p_win = chances[key] = _hold_chance(n, value, led, after_me, unseen)
                pain: float = (
                    pain_before + (SUIT_OF[card] == pain_suit) + (second >= 0 and SUIT_OF[second] == pain_suit)
                )
                if led == pain_suit:
                    pain += 0.6 * after_me
                score = goal * p_win - 0.5 * pain * p_win
                score += shed * strength
                if SUIT_OF[card] == pain_suit:
                    score += 0.04 * (1.0 - p_win)  # pain cards are best given away
            else:
                # p_win 0: the bot's first terms are a signed zero, and adding
                # one changes no sum; 0.04 * (1.0 - 0.0) is 0.04 exactly.
                score = shed * strength
                if SUIT_OF[card] == pain_suit:
                    score += 0.04
            if ability >= 0:
                score -= _COST[ability]
        if score > best_score:
            best, best_score = move, score
    if egg is not None and after_me > 0:
        ideal = 1.0 if goal == WIN else 0.0
        if best is None or 0.6 * (ideal - best_score) > _COST[5] + 0.05:
            return egg
    return best


def _unseen(lean: Lean, seat: int) -> tuple[list[list[int]], list[int]]:
    """bots.py `_unseen` (the deck but the seat's hand, the cards played
    this hand and those known to be in a hand, TT-9 returns) as the sorted
    numbers of each suit's unseen cards (a Trump counts 0) and each suit's
    unseen Trumps. Every card of the deck is in one hand, one won pile or
    the trick (`evolve` moves cards, never makes or drops one), so the deck
    but the seat's hand and the cards played is the other seats' hands."""
    shown = lean.shown
    numbers: list[list[int]] = [[], [], [], []]
    trumps = [0, 0, 0, 0]
    for other, hand in enumerate(lean.hands):
        if other != seat:
            for suit in range(4):
                for card in hand[suit]:
                    if card not in shown:
                        numbers[suit].append(NUMBER_OF[card])
                        if IS_TRUMP[card]:
                            trumps[suit] += 1
    for suit_numbers in numbers:
        suit_numbers.sort()
    return numbers, trumps


def _hold_chance(n: int, value: int, led: int, after_me: int, unseen) -> float:
    """bots.py `_hold_chance` for a play winning on its number: `value` is
    its card's number, or the sum of two Fire Breathing cards."""
    numbers, trumps = unseen
    led_left = len(numbers[led])
    higher = led_left - bisect_right(numbers[led], value)
    other_trumps = sum(trumps) - trumps[led]
    share = 1.0 / max(1, n - 1)
    beat = 1.0 - (1.0 - share) ** higher
    void = 0.5 ** max(0, led_left - 1) if other_trumps else 0.0
    per_player = min(0.95, 0.7 * beat + 0.5 * void)
    return (1.0 - per_player) ** (after_me * (n - 1) / max(1, n - 1) * 0.9)


def lean_playout(state, seat: int, action, seed: int, options) -> tuple[float, int] | None:
    """`ExpertBot._playout` for this game on a lean copy of `state`: the
    seat's `action` (None if the engine would refuse it), then heuristic
    bots to the hand's end (`SEARCH.round_of`, horizon 1); the seat's lead
    over the best other seat in the game totals, and the loop's steps as the
    engine's playout counts them. The heuristic draws nothing from the
    playout's rng (and no seat acts out of turn here), so `seed` is unused
    and the outcome is the engine playout's exactly."""
    lean = Lean.from_state(state)
    move = move_of(action)
    if move is None or lean.to_move() != seat or move not in lean.legal():
        return None
    lean.apply(move)
    steps = 0
    for _ in range(MAX_PLAYOUT_STEPS):
        steps += 1
        if lean.phase == DONE:
            break
        mover = lean.to_move()
        if mover < 0:
            break
        legal = lean.legal()
        if not legal:
            break
        # `legal` is not empty and holds a card to play, so there is a move: a
        # fact about the list the types cannot carry (and no check in this loop).
        lean.apply(heuristic_move(lean, mover, legal))  # type: ignore[arg-type]
    scores = lean.scores
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat), steps
