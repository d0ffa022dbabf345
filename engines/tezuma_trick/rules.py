"""start, to_act, legal_actions, decide and scoring for Tezuma Trick.

`decide` and `legal_actions` share the rule checks below so that a listed
action is always accepted and an unlisted one always refused.

About 470 lines, kept whole: the draft, the play and the hand's scoring are
one state machine whose checks `decide` and `legal_actions` share; trick
resolution with its abilities already lives apart (tricks.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Any

from engines.core import Chance, Ctx, OptionsError, Result, RuleError, places_from, settle
from engines.tezuma_trick.actions import Action, Egg, PickAbility, PickBid, PickPain, Play, Sand
from engines.tezuma_trick.cards import (
    ABILITY_IDS,
    ABILITY_NAMES,
    BUTTERFLY_DANCE,
    CUP_AND_BALL,
    FIRE_BREATHING,
    FIVE_COLOR_SAND,
    IS_TRUMP,
    LINKING_RING,
    MANY_UMBRELLAS,
    NO_ABILITY,
    NOT_FOR_LEADER,
    NUMBER_OF,
    PAPER_EGG,
    RANKS,
    SUIT_OF,
    SUITS,
    TRICKS_PER_HAND,
    deck_for,
)
from engines.tezuma_trick.events import (
    EggDeclared,
    GameEnded,
    HandDealt,
    HandScored,
    PickedAbility,
    PickedBid,
    PickedPain,
    Played,
    Started,
    TrickWon,
)
from engines.tezuma_trick.options import FACE_UP, MAX_BID_CARDS, Options
from engines.tezuma_trick.state import DRAFT, OVER, PLAY, SCORED, State, evolve
from engines.tezuma_trick.tricks import fire_breathing_return, next_leader, trick_winner

CARDS_PER_HAND = TRICKS_PER_HAND

# --- start ------------------------------------------------------------------


def start(players: int, options: Options, chance: Chance) -> list:
    """Everything random is drawn here (common brief): the first dealer, the
    deck order of every hand and the face-up Bid/Ability cards (TT-3)."""
    face_up = FACE_UP if players == 4 else FACE_UP - 1
    if len(options.bid_cards) < face_up:
        raise OptionsError("bad_option", f"bid_cards needs at least {face_up} Bid cards")
    deck = deck_for(players)
    first_dealer = chance.choice("first-dealer", list(range(players)))
    decks = tuple(tuple(chance.shuffled(f"round-{hand}", deck)) for hand in range(1, players + 1))
    bid_ids = list(range(len(options.bid_cards)))
    ability_ids = list(range(len(ABILITY_NAMES)))
    # TT-3: without a redeal, the same face-up cards every hand
    keys = [f"-{hand}" for hand in range(1, players + 1)] if options.redeal_each_hand else [""]
    bid_rows = tuple(tuple(chance.shuffled(f"bids{key}", bid_ids)[:face_up]) for key in keys)
    ability_rows = tuple(tuple(chance.shuffled(f"abilities{key}", ability_ids)[:face_up]) for key in keys)
    if len(keys) == 1:
        bid_rows, ability_rows = bid_rows * players, ability_rows * players
    started = Started(
        players=players,
        options=options,
        first_dealer=first_dealer,
        seed=chance.seed,
        decks=decks,
        bid_rows=bid_rows,
        ability_rows=ability_rows,
        commitment=chance.commitment,
        salt=chance.salt,
    )
    return [started, _deal(players, 1, first_dealer, decks[0], bid_rows[0], ability_rows[0])]


def _deal(players: int, hand: int, dealer: int, deck, bids, abilities) -> HandDealt:
    return HandDealt(
        hand=hand,
        dealer=dealer,
        bids=tuple(sorted(bids)),
        abilities=tuple(ABILITY_NAMES[a] for a in sorted(abilities)),
        hands=tuple(
            tuple(sorted(deck[seat * CARDS_PER_HAND : (seat + 1) * CARDS_PER_HAND])) for seat in range(players)
        ),
    )


# --- whose move ---------------------------------------------------------------

_SEAT_SETS = tuple(frozenset({seat}) for seat in range(4))
_NOBODY: frozenset[int] = frozenset()


def _player(state: State) -> int:
    """The seat to play now, or -1. Total over every prefix of a log:
    between a trick's last `tt.played` and its `tt.trick_won`
    the queue is empty, and between the last `tt.trick_won` of a hand and
    its `tt.hand_scored` the 13th trick does not exist; nobody acts there."""
    if state.queue and state.trick_no <= TRICKS_PER_HAND:
        return state.queue[0]
    return -1


def to_act(state: State) -> frozenset[int]:
    phase = state.phase
    if phase == PLAY:
        seat = _player(state)
        return _NOBODY if seat < 0 else _SEAT_SETS[seat]
    if phase == DRAFT:
        return _SEAT_SETS[state.draft_order[state.pick_no]]
    return _NOBODY


def is_over(state: State) -> bool:
    return state.phase == OVER


# --- legal actions ------------------------------------------------------------
# Actions are interned: the same Play object is handed out every time, which
# keeps the random bot's inner loop free of allocations.

_PLAIN = tuple(Play(card=card) for card in range(48))
_WITH_ABILITY = {
    (card, ability): Play(card=card, ability=ABILITY_NAMES[ability]) for card in range(48) for ability in range(12)
}
_FIRE = {
    (low, high): Play(card=low, ability="fire_breathing", second=high)
    for low in range(48)
    for high in range(low + 1, 48)
    if SUIT_OF[low] == SUIT_OF[high] and not IS_TRUMP[low] and not IS_TRUMP[high]
}
_EGG, _SAND = Egg(), Sand()
_PICK_PAIN = tuple(PickPain(suit=suit) for suit in range(4))
_PICK_ABILITY = tuple(PickAbility(ability=name) for name in ABILITY_NAMES)
_PICK_BID = tuple(PickBid(bid=bid) for bid in range(MAX_BID_CARDS))


def _suit_cards(hand: tuple[int, ...], suit: int) -> tuple[int, ...]:
    """A suit's cards in a sorted hand: one slice, as card ids run by suit."""
    return hand[bisect_left(hand, suit * RANKS) : bisect_left(hand, suit * RANKS + RANKS)]


def _follow_cards(hand: tuple[int, ...], led: int) -> tuple[int, ...]:
    """The cards a seat may play under must-follow (TT-6); the whole hand
    when it leads (led < 0) or holds no card of the led suit."""
    if led < 0:
        return hand
    return _suit_cards(hand, led) or hand


def _usable_ability(state: State, seat: int) -> int:
    """The seat's ability if it may use it now, else NO_ABILITY: uses left,
    at most one use per trick (TT-7), not the leader's four (TT-8)."""
    ability = state.ability[seat]
    if state.uses[seat] <= 0 or state.egged == seat:
        return NO_ABILITY
    if state.led < 0 and ability in NOT_FOR_LEADER:
        return NO_ABILITY
    return ability


def _fire_pairs(hand: tuple[int, ...], led: int) -> list[tuple[int, int]]:
    """TT-9: two number cards of one suit, both satisfying the follow rule."""
    # Holding a led-suit card (even only a Trump) means both must be led-suit numbers.
    numbers = [card for card in _follow_cards(hand, led) if not IS_TRUMP[card]]
    return [(low, high) for i, low in enumerate(numbers) for high in numbers[i + 1 :] if SUIT_OF[low] == SUIT_OF[high]]


def legal_actions(state: State, seat: int, now_ms: int | None = None) -> list:
    # `now_ms` (engine contract): no rule of this game depends on time.
    phase = state.phase
    if phase == PLAY:
        if _player(state) != seat:
            return []
        return _legal_plays(state, seat)
    if phase == DRAFT:
        if state.draft_order[state.pick_no] != seat:
            return []
        return _legal_picks(state, seat)
    return []


def _legal_picks(state: State, seat: int) -> list:
    actions: list = []
    if state.pain[seat] < 0:
        actions.extend(_PICK_PAIN[suit] for suit in state.open_pains)
    if state.bid[seat] < 0:
        actions.extend(_PICK_BID[bid] for bid in state.open_bids)
    if state.ability[seat] < 0:
        actions.extend(_PICK_ABILITY[ability] for ability in state.open_abilities)
    return actions


def _legal_plays(state: State, seat: int) -> list:
    hand = state.hands[seat]
    led = state.led
    playable = _follow_cards(hand, led)
    actions: list[Action] = [_PLAIN[card] for card in playable]
    ability = _usable_ability(state, seat)
    if ability == NO_ABILITY:
        return actions
    if ability == FIVE_COLOR_SAND:
        actions.append(_SAND)
    elif ability == PAPER_EGG:
        actions.append(_EGG)
    elif ability == FIRE_BREATHING:
        actions.extend(_FIRE[pair] for pair in _fire_pairs(hand, led))
    elif ability in (LINKING_RING, CUP_AND_BALL):
        actions.extend(_WITH_ABILITY[card, ability] for card in hand)
    elif ability == BUTTERFLY_DANCE:
        actions.extend(_WITH_ABILITY[card, ability] for card in playable if IS_TRUMP[card])
    elif ability == MANY_UMBRELLAS:
        actions.extend(_WITH_ABILITY[card, ability] for card in playable if NUMBER_OF[card] in (4, 5))
    else:  # Sword Walking, Water Trick, Chicks, Pail Dance, Horse-Swallowing
        actions.extend(_WITH_ABILITY[card, ability] for card in playable)
    return actions


# --- decide -------------------------------------------------------------------


def decide(state: State, seat: int, action, ctx: Ctx) -> list:
    handler = _DECIDE.get(type(action))
    if handler is None:
        raise RuleError("bad_action", "not a Tezuma Trick action")
    phase = state.phase
    if phase == PLAY:
        if _player(state) != seat:
            raise RuleError("not_your_turn", "it is not your turn")
    elif phase == DRAFT:
        if state.draft_order[state.pick_no] != seat:
            raise RuleError("not_your_turn", "it is not your turn")
    elif phase == OVER:
        raise RuleError("game_over", "the game is over")
    else:
        raise RuleError("not_your_turn", "the next hand is being dealt")
    return handler(state, seat, action)


def _check_draft(state: State) -> None:
    if state.phase != DRAFT:
        raise RuleError("wrong_phase", "the draft is over: play a card")


def _decide_pick_pain(state: State, seat: int, action: PickPain) -> list:
    _check_draft(state)
    if state.pain[seat] >= 0:
        raise RuleError("already_picked", "you already have a Pain Suit card (TT-4)")
    if action.suit not in state.open_pains:
        raise RuleError("not_available", "that Pain Suit card is not on the table")
    return [PickedPain(seat=seat, suit=action.suit)]


def _decide_pick_bid(state: State, seat: int, action: PickBid) -> list:
    _check_draft(state)
    if state.bid[seat] >= 0:
        raise RuleError("already_picked", "you already have a Bid card (TT-4)")
    if action.bid not in state.open_bids:
        raise RuleError("not_available", "that Bid card is not on the table")
    return [PickedBid(seat=seat, bid=action.bid)]


def _decide_pick_ability(state: State, seat: int, action: PickAbility) -> list:
    _check_draft(state)
    if state.ability[seat] >= 0:
        raise RuleError("already_picked", "you already have an Ability card (TT-4)")
    if ABILITY_IDS.get(action.ability, -1) not in state.open_abilities:
        raise RuleError("not_available", f"{action.ability!r} is not an Ability card on the table")
    return [PickedAbility(seat=seat, ability=action.ability)]


def _check_play(state: State) -> None:
    if state.phase != PLAY:
        raise RuleError("wrong_phase", "the draft is not over: pick a card")


def _check_ability(state: State, seat: int, name: str) -> int:
    ability = ABILITY_IDS.get(name, NO_ABILITY)
    if ability == NO_ABILITY:
        raise RuleError("bad_action", f"no ability is called {name!r}")
    if state.ability[seat] != ability:
        raise RuleError("not_your_ability", f"you do not hold the {name} Ability card")
    if state.uses[seat] <= 0:
        raise RuleError("no_uses_left", f"{name} has no use left this hand")
    if state.egged == seat:
        raise RuleError("one_ability_per_trick", "you already used an ability in this trick (TT-7)")
    if state.led < 0 and ability in NOT_FOR_LEADER:
        raise RuleError("leader_cannot_use", f"the lead player may not use {name} (TT-8)")
    return ability


def _check_follow(hand: tuple[int, ...], led: int, card: int) -> None:
    if led >= 0 and SUIT_OF[card] != led and _suit_cards(hand, led):
        raise RuleError("must_follow_suit", f"you must follow {SUITS[led]} (TT-6)")


def _decide_play(state: State, seat: int, action: Play) -> list:
    _check_play(state)
    hand = state.hands[seat]
    card, led, name = action.card, state.led, action.ability
    if card not in hand:
        raise RuleError("illegal_card", "that card is not in your hand")
    if name is None:
        if action.second is not None:
            raise RuleError("bad_action", "a second card is played only with Fire Breathing (TT-9)")
        _check_follow(hand, led, card)
        return _after_play(state, seat, (card,), NO_ABILITY)
    ability = _check_ability(state, seat, name)
    if ability == FIRE_BREATHING:
        second = action.second
        if second is None or (card, second) not in _fire_pairs(hand, led):
            raise RuleError(
                "illegal_card",
                "Fire Breathing plays two number cards of one suit that both follow suit, "
                "the lower card id first (TT-9)",
            )
        return _after_play(state, seat, (card, second), ability)
    if action.second is not None:
        raise RuleError("bad_action", "a second card is played only with Fire Breathing (TT-9)")
    if ability in (PAPER_EGG, FIVE_COLOR_SAND):
        raise RuleError("bad_action", f"{name} is its own action, not declared with a card")
    if ability not in (LINKING_RING, CUP_AND_BALL):  # those two free the follow rule
        _check_follow(hand, led, card)
    if ability == BUTTERFLY_DANCE and not IS_TRUMP[card]:
        raise RuleError("illegal_card", "Butterfly Dance is declared with a Trump card")
    if ability == MANY_UMBRELLAS and NUMBER_OF[card] not in (4, 5):
        raise RuleError("illegal_card", "Many Umbrellas is declared with a 4 or a 5")
    return _after_play(state, seat, (card,), ability)


def _decide_egg(state: State, seat: int, action: Egg) -> list:
    _check_play(state)
    _check_ability(state, seat, "paper_egg")
    return [EggDeclared(seat=seat)]


def _decide_sand(state: State, seat: int, action: Sand) -> list:
    _check_play(state)
    _check_ability(state, seat, "five_color_sand")
    return _after_play(state, seat, (), FIVE_COLOR_SAND)


# Keyed by the action's type; each handler takes its own type, which a table cannot
# tie to its key, hence `Any`.
_DECIDE: dict[type[Action], Callable[[State, int, Any], list]] = {
    PickPain: _decide_pick_pain,
    PickBid: _decide_pick_bid,
    PickAbility: _decide_pick_ability,
    Play: _decide_play,
    Egg: _decide_egg,
    Sand: _decide_sand,
}

# --- the end of a trick, a hand, the game ---------------------------------------
# What follows a trick's last card happens by itself, in the same
# command (`automatic`, the contract's one mechanism): the trick is won, after
# the 12th the hand is scored, then the game ends or the next hand is dealt.


def _after_play(state: State, seat: int, cards: tuple[int, ...], ability: int) -> list:
    played = Played(seat=seat, cards=cards, ability=None if ability == NO_ABILITY else ABILITY_NAMES[ability])
    if len(state.queue) > 1:
        return [played]  # not the trick's last card: nothing follows by itself
    return settle(evolve, automatic, state, [played])


def automatic(state: State) -> list:
    """The events the rules take by themselves in `state`."""
    phase = state.phase
    if phase == PLAY:
        if state.trick_no > TRICKS_PER_HAND:
            return [_hand_scored(state)]
        return [] if state.queue else [_trick_won(state)]
    if phase == SCORED and state.hand_no:  # hand 1 is dealt by `start`
        return [_game_ended(state) if state.hand_no == state.players else _next_deal(state)]
    return []


def _trick_won(state: State) -> TrickWon:
    plays = state.plays
    winner, reason = trick_winner(plays, state.led)
    returned, returned_to = fire_breathing_return(plays)
    return TrickWon(
        trick=state.trick_no,
        winner=winner,
        next_leader=next_leader(plays, winner, state.players),
        reason=reason,
        returned=returned,
        returned_to=returned_to,
    )


def pain_of(cards, suit: int, face_value: bool) -> int:
    """TT-2: 1 per pain-suit card, Trumps included; with pain_face_value a
    number card costs its number (a Trump, which has none, still costs 1)."""
    if face_value:
        return sum(NUMBER_OF[card] or 1 for card in cards if SUIT_OF[card] == suit)
    return sum(1 for card in cards if SUIT_OF[card] == suit)


def _hand_scored(state: State) -> HandScored:
    n, options, tricks = state.players, state.options, state.tricks
    pain = tuple(pain_of(state.won[seat], state.pain[seat], options.pain_face_value) for seat in range(n))
    points = tuple(max(0, options.bid_points(state.bid[seat], tricks[seat]) - pain[seat]) for seat in range(n))
    totals = tuple(state.scores[seat] + points[seat] for seat in range(n))
    return HandScored(hand=state.hand_no, tricks=tricks, pain=pain, points=points, totals=totals)


def _game_ended(state: State) -> GameEnded:
    # Hands equal to the number of players; `scores` are the last HandScored's totals.
    places = places_from(state.scores)
    return GameEnded(
        seed=state.seed,
        scores=tuple(float(t) for t in state.scores),
        places=tuple(places),
        winners=tuple(seat for seat in range(state.players) if places[seat] == 1),
        salt=state.salt,
    )


def _next_deal(state: State) -> HandDealt:
    hand = state.hand_no + 1
    return _deal(
        state.players,
        hand,
        (state.dealer + 1) % state.players,  # the dealer rotates clockwise
        state.decks[hand - 1],
        state.bid_rows[hand - 1],
        state.ability_rows[hand - 1],
    )


# Older logs dealt the next hand by a timer due at once, so
# one may stop after a `tt.hand_scored`; the timer settles it (no new log
# reaches such a state).


def next_timer(state: State) -> int | None:
    return 0 if state.phase == SCORED and state.hand_no else None


def on_timer(state: State, ctx: Ctx) -> list:
    return settle(evolve, automatic, state, []) if next_timer(state) is not None else []


def result(state: State) -> Result:
    scores = [float(score) for score in state.scores]
    places = places_from(scores)
    return Result(scores=scores, places=places, winners=[seat for seat, place in enumerate(places) if place == 1])


def describe(state: State) -> dict:
    return {"hands": state.hand_no, "tricks_per_hand": TRICKS_PER_HAND}
