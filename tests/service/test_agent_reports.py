"""Reports that diagnose: an agent owner's turn log
(`GET /api/v1/agents/{id}/turns`), the list of its sparring series, a
report with the request's settings, every seat's scores and links, the
answer-time histogram and the share of its own moves, a seed that repeats a
series, and duplicate sparring (each deal again with the house bot in the
agent's seat, the mean difference with its 95% interval). Real server,
worker and agent processes (tests/service/agent_variants.py)."""

from __future__ import annotations

import statistics

import pytest

from tests.service.agent_harness import Stack, export_events, push_agent, wait_for
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAME = "kabuki-tricks"


@pytest.fixture(scope="module")
def stack(server_env, session_agent_api, tmp_path_factory):
    """A worker of the module's own beside the session's agent API (tests/conftest.py)."""
    stack = Stack(server_env, tmp_path_factory.mktemp("reports"), server=session_agent_api).start()
    yield stack
    stack.stop()


async def _done(owner: ApiClient, agent_id: str, sid: str, timeout: float = 90) -> dict:
    async def done():
        report = (await owner.get(f"/api/v1/agents/{agent_id}/sparring/{sid}")).json()
        return report if report["status"] == "done" else None

    return await wait_for(done, timeout, 0.5)


def _revealed_seed(events: list[dict]) -> int:
    return next(e["event"]["seed"] for e in reversed(events) if e["type"].endswith("game_ended"))


async def test_turn_log_sparring_report_and_duplicate(stack):
    owner = await ApiClient.register(stack.base_url, "reports author")
    agent, process = await push_agent(owner, "alternate500")
    try:
        agent_id = agent["agent_id"]
        body = {"game": GAME, "games": 2, "players": 3, "bot": "heuristic", "seed": 12345, "duplicate": True}
        r = await owner.post(f"/api/v1/agents/{agent_id}/sparring", body)
        assert r.status_code == 201, r.text
        sid, game_ids, bot_game_ids = r.json()["sparring_id"], r.json()["game_ids"], r.json()["bot_game_ids"]
        assert len(bot_game_ids) == 2 and not set(bot_game_ids) & set(game_ids)
        report = await _done(owner, agent_id, sid)

        # The request's settings, every seat's scores, links to replay and export.
        assert report["settings"] == {
            "game": GAME,
            "players": 3,
            "bot": "heuristic",
            "games": 2,
            "seed": 12345,
            "duplicate": True,
            "options": {},
            "time_control": None,
        }
        for entry, game_id in zip(report["results"], game_ids, strict=True):
            assert len(entry["scores"]) == 3 and entry["scores"][entry["seat"]] == entry["score"]
            assert entry["links"]["replay"] == f"/api/v1/games/{game_id}/replay"
            assert (await owner.get(entry["links"]["export"])).status_code == 200
            assert entry["house_bot"]["game_id"] in bot_game_ids
            assert entry["difference"] == entry["score"] - entry["house_bot"]["score"]

        # Duplicate: the same cards (the same revealed seed) in both games of a deal.
        for entry in report["results"]:
            mine = await export_events(stack.base_url, entry["game_id"])
            twin = await export_events(stack.base_url, entry["house_bot"]["game_id"])
            assert _revealed_seed(mine) == _revealed_seed(twin)
        diffs = [e["difference"] for e in report["results"]]
        dup = report["duplicate"]
        assert dup["deals"] == 2 and dup["mean_difference"] == round(statistics.fmean(diffs), 3)
        lo, hi = dup["ci95"]
        assert lo <= dup["mean_difference"] <= hi
        if diffs[0] != diffs[1]:
            assert lo < hi

        # Every other call fails with HTTP 500: strikes, never handed over, and
        # about half the seat's moves are the agent's own.
        assert report["strikes"]["by_reason"].get("invalid_response", 0) > 0
        assert report["strikes"]["games_handed_to_bot"] == 0
        moves = report["moves"]
        assert moves["own"] > 0 and moves["default"] == report["strikes"]["total"] and moves["house_bot"] == 0
        assert moves["share"] == round(moves["own"] / (moves["own"] + moves["default"]), 4)
        hist = report["answer_time_ms"]["histogram"]
        assert sum(b["count"] for b in hist) == report["answer_time_ms"]["count"] > 0
        assert hist[-1]["le_ms"] is None and [b["le_ms"] for b in hist[:-1]] == sorted(b["le_ms"] for b in hist[:-1])

        # The same seed again repeats the series' deals, game by game.
        r = await owner.post(f"/api/v1/agents/{agent_id}/sparring", {**body, "duplicate": False})
        again = await _done(owner, agent_id, r.json()["sparring_id"])
        for first, second in zip(report["results"], again["results"], strict=True):
            assert _revealed_seed(await export_events(stack.base_url, first["game_id"])) == _revealed_seed(
                await export_events(stack.base_url, second["game_id"])
            )
        assert "duplicate" not in again and "house_bot" not in again["results"][0]

        # The list of series, newest first.
        listed = (await owner.get(f"/api/v1/agents/{agent_id}/sparring")).json()
        assert [s["sparring_id"] for s in listed] == [again["sparring_id"], sid]
        assert listed[1]["settings"]["duplicate"] is True and all(s["status"] == "done" for s in listed)

        # The turn log: every call, with the HTTP 500's body and the good answers.
        r = await owner.get(f"/api/v1/agents/{agent_id}/turns", game_id=game_ids[0], limit=500)
        assert r.status_code == 200, r.text
        turns = r.json()["turns"]
        assert turns and all(t["game_id"] == game_ids[0] for t in turns)
        assert [t["sent_ms"] for t in turns] == sorted((t["sent_ms"] for t in turns), reverse=True)
        failed = [t for t in turns if t["outcome"] == "invalid_response"]
        good = [t for t in turns if t["outcome"] == "ok"]
        assert failed and good
        assert failed[0]["detail"] == "HTTP 500" and failed[0]["answer"].startswith('{"error": "internal server error"')
        assert good[0]["answer"].startswith('{"action"') and len(good[0]["answer"].encode()) <= 200
        t = turns[0]
        assert t["delivery_id"] == f"{t['game_id']}:{t['version']}:{t['seat']}"
        assert t["answered_ms"] >= t["sent_ms"] and 0 <= t["bank_left_ms"] <= 500  # agent_harness: 500 ms bank

        # Paging: `before=next_before` continues where the page ended.
        page1 = (await owner.get(f"/api/v1/agents/{agent_id}/turns", limit=3)).json()
        page2 = (await owner.get(f"/api/v1/agents/{agent_id}/turns", limit=3, before=page1["next_before"])).json()
        assert len(page1["turns"]) == 3 and len(page2["turns"]) == 3
        assert page2["turns"][0]["sent_ms"] < page1["turns"][-1]["sent_ms"]

        # Only the owner reads them; bad input is a 400 with a stable code.
        stranger = await ApiClient.register(stack.base_url, "report stranger")
        assert (await stranger.get(f"/api/v1/agents/{agent_id}/turns")).status_code == 404
        assert (await stranger.get(f"/api/v1/agents/{agent_id}/sparring")).status_code == 404
        r = await owner.get(f"/api/v1/agents/{agent_id}/turns", game_id="nope")
        assert r.status_code == 400 and r.json()["code"] == "bad_game_id"
        r = await owner.get(f"/api/v1/agents/{agent_id}/turns", limit=0)
        assert r.status_code == 400 and r.json()["code"] == "bad_request"
    finally:
        process.stop()


async def test_sparring_refusals_use_the_documented_codes(stack):
    owner = await ApiClient.register(stack.base_url, "refused author")
    agent, process = await push_agent(owner, "good")
    try:
        url = f"/api/v1/agents/{agent['agent_id']}/sparring"
        for games in (0, 51):
            r = await owner.post(url, {"game": GAME, "games": games})
            assert r.status_code == 400 and r.json()["code"] == "bad_games", r.text
        r = await owner.post(url, {"game": GAME, "games": 1, "bot": "grandmaster"})
        assert r.status_code == 422 and r.json()["code"] == "unknown_bot"
        r = await owner.post(url, {"game": GAME, "games": 1, "players": 6})
        assert r.status_code == 422 and r.json()["code"] == "bad_player_count"
        r = await owner.post(url, {"game": GAME, "games": 1, "seed": -1})
        assert r.status_code == 400 and r.json()["code"] == "bad_request"
        r = await owner.post(url, {"game": GAME, "games": 1, "seed": 2**62})
        assert r.status_code == 400 and r.json()["code"] == "bad_request"
        assert (await owner.get(url)).json() == []  # nothing was started
    finally:
        process.stop()
