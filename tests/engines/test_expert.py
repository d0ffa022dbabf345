"""The `expert` house bot (issue 17): it is handed only its seat's view and
its seat's redacted events, its worlds agree with what it has seen, and it
decides the same whatever the hidden cards are."""

from __future__ import annotations

import random
import time

from msgspec.structs import replace

from engines.expert import ExpertBot
from engines.kabuki_tricks import GAME as KT
from engines.kabuki_tricks.events import Dealt
from engines.kabuki_tricks.expert import determinize
from engines.playout import Playout


class _Watched(ExpertBot):
    """Records what it is handed."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.views: list = []

    def act(self, view, legal, rng):
        self.views.append((view, list(legal)))
        return super().act(view, legal, rng)


def _expert(seat: int, worlds: int = 2) -> _Watched:
    from engines.kabuki_tricks.expert import SEARCH

    return _Watched(KT, SEARCH, seat, KT.make_options({}), worlds=worlds)


def test_the_expert_is_handed_only_its_seats_view_and_redacted_events():
    options = KT.make_options({})
    expert = _expert(1)
    seen_views = []

    def hook(before, seat, action, events, after):
        pass

    playout = Playout(KT, 4, options, 77, ["heuristic", expert, "heuristic", "heuristic"], hook=hook)
    while playout.step():
        if expert.views and len(expert.views) > len(seen_views):
            seen_views.append(len(expert.views))
    assert expert.views, "the expert was never asked"
    # Every event it observed is the seat's redaction of the log, nothing more, in order.
    assert expert.events == [r for r in (KT.redact(e, 1) for e in playout.log) if r is not None]
    assert any(type(e) is Dealt and e.hands[0] == () and e.hands[1] for e in expert.events)
    # And every view it was given is seat 1's view (replayed from the log).
    replay = Playout(KT, 4, options, 77, ["heuristic", _expert(1), "heuristic", "heuristic"])
    views = []
    original_act = replay.bots[1].act

    def act(view, legal, rng):
        assert view == KT.view(replay.state, 1)
        views.append(view)
        return original_act(view, legal, rng)

    replay.bots[1].act = act
    replay.run()
    assert len(views) == len(expert.views)


def test_a_world_agrees_with_the_seats_view():
    options = KT.make_options({})
    expert = _expert(2)
    playout = Playout(KT, 4, options, 5, ["heuristic", "heuristic", expert, "heuristic"])
    checked = 0
    while playout.step() and checked < 12:
        state = playout.state
        if 2 in KT.to_act(state) and state.phase == 2 and expert.events:
            world = KT.fold(determinize(expert.events, 2, None, random.Random(checked)))
            assert KT.view(world, 2) == KT.view(state, 2)
            checked += 1
    assert checked == 12


def test_the_expert_decides_the_same_whatever_the_hidden_cards_are():
    """Two deals that differ only in cards seat 0 cannot see (seats 1 and 2
    swap hands): seat 0's expert plays the same."""
    options = KT.make_options({})
    for seed in range(100):  # a deal where seat 0 directs first (KT-10): nobody else has played
        playout = Playout(KT, 4, options, seed, ["heuristic"] * 4)
        while not any(type(e) is Dealt for e in playout.log):
            playout.step()
        if playout.log[-1].dealer == 0:
            break
    deal = next(i for i, e in enumerate(playout.log) if type(e) is Dealt)
    dealt = playout.log[deal]
    hands = list(dealt.hands)
    hands[1], hands[2] = hands[2], hands[1]
    swapped = playout.log[:deal] + [replace(dealt, hands=tuple(hands))]
    choices = []
    for log in (playout.log[: deal + 1], swapped):
        state = KT.fold(log)
        bot = _expert(0, worlds=3)
        for e in log:
            seen = KT.redact(e, 0)
            if seen is not None:
                bot.observe(seen)
        assert KT.to_act(state) == {0} and len(KT.legal_actions(state, 0)) > 1
        choices.append(bot.act(KT.view(state, 0), KT.legal_actions(state, 0), random.Random(4)))
    assert choices[0] == choices[1]


def _timed_game(game, players: int, seed: int, budget_ms: float, clock) -> list[float]:
    """One game with an expert in seat 0 budgeting by `clock`: its CPU ms per move."""
    from engines.expert import make_bot

    options = game.make_options({})
    bots = [make_bot(game, "expert" if s == 0 else "heuristic", s, options, clock=clock, budget_ms=budget_ms)
            for s in range(players)]
    expert, spent = bots[0], []
    act = expert.act

    def timed(view, legal, rng):
        started = time.thread_time()
        answer = act(view, legal, rng)
        if len(legal) > 1:
            spent.append((time.thread_time() - started) * 1000)
        return answer

    expert.act = timed
    Playout(game, players, options, seed, bots).run()
    return spent


def test_the_budget_is_hard_and_used():
    """Issue 17 item 2: nothing starts once the budget is spent and a playout
    past it is dropped, so no move takes much longer than the budget (CPU
    time, so other processes on the machine do not count); before, a world
    that began at 60% of the budget ran all its candidates' playouts."""
    spent = _timed_game(KT, 4, 3, 30, time.thread_time)
    assert len(spent) > 10
    assert max(spent) < 30 + 8, sorted(spent)[-5:]
    assert sorted(spent)[len(spent) // 2] > 15  # the budget is used, not left idle


def test_a_spent_budget_answers_the_heuristics_choice():
    """With no time at all the heuristic's choice is the answer (it is scored
    first, and nothing else competes with it)."""
    options = KT.make_options({})
    ticks = iter(range(0, 10**9, 1000))  # every reading of this clock is 1000 s later
    playout = Playout(KT, 4, options, 11, ["heuristic"] * 4)
    while not (0 in KT.to_act(playout.state) and len(KT.legal_actions(playout.state, 0)) > 1 and playout.actions > 8):
        playout.step()
    expert = ExpertBot(KT, _search(), 0, options, budget_ms=50, clock=lambda: next(ticks))
    for e in playout.log:
        seen = KT.redact(e, 0)
        if seen is not None:
            expert.observe(seen)
    view, legal = KT.view(playout.state, 0), KT.legal_actions(playout.state, 0)
    expected = KT.bots["heuristic"](0, options)
    for e in expert.events:
        expected.observe(e)
    want = expected.act(view, legal, random.Random(random.Random(9).getrandbits(32)))
    assert expert.act(view, legal, random.Random(9)) == want


def _search():
    from engines.kabuki_tricks.expert import SEARCH

    return SEARCH
