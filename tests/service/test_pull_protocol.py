"""The pull protocol as documented: keep-alives are comment lines
only, `your_turn` carries the seat's clock, reconnecting to the agent's own
stream is never rate-limited, a table without a time control shows the one
the agent is held to, and a strike says why: refused moves are
`illegal_action` with the refusal, silence is `timeout` "no answer within N
ms", a deleted agent is `unreachable`."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from services.http.sse import KEEPALIVE
from tests.conftest import WorkerProcess
from tests.service.agent_harness import wait_for
from tests.service.client import ApiClient


def test_a_keepalive_is_a_comment_line_and_nothing_else():
    assert KEEPALIVE.encode() == b": keepalive\r\n\r\n"


async def _read_stream(base_url: str, token: str, until, timeout: float) -> list[tuple[str, str]]:
    """(field, value) lines of the agent's stream until `until(lines)` holds."""
    lines: list[tuple[str, str]] = []
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=timeout + 5) as http,
        http.stream("GET", "/api/v1/agents/me/stream", headers={"Authorization": f"Bearer {token}"}) as r,
    ):
        assert r.status_code == 200, await r.aread()
        try:
            async with asyncio.timeout(timeout):
                async for line in r.aiter_lines():
                    if line:
                        field, _, value = line.partition(":")
                        lines.append((field, value.strip()))
                        if until(lines):
                            break
        except TimeoutError:
            raise AssertionError(f"the stream said only {lines}") from None
    return lines


async def _strikes(agent: ApiClient, game_id: str) -> list[dict]:
    events = (await agent.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
    return [e["event"] for e in events if e["event"]["type"] == "hm.move_played_for_seat" and e["event"]["seat"] == 0]


@pytest.mark.asyncio(loop_scope="session")
async def test_the_pull_protocol_as_documented(server, server_env, tmp_path):
    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    try:
        owner = await ApiClient.register(server.base_url, "puller-author")
        r = await owner.post("/api/v1/agents", {"name": "refused", "games": ["kabuki-tricks"], "mode": "pull"})
        assert r.status_code == 201, r.text
        agent_id, agent = r.json()["agent_id"], ApiClient(server.base_url, token=r.json()["token"])

        # No time control: the game shows the agent defaults it is held to.
        r = await owner.post("/api/v1/games", {"game": "kabuki-tricks", "players": 3})
        untimed = r.json()["game_id"]
        await agent.sit(untimed, 0)
        assert (await agent.game(untimed))["time_control"] == {"move_ms": 5000, "bank_ms": 30000}

        # Reconnecting to the own stream is never limited (120 calls a minute otherwise).
        for _ in range(125):
            async with (
                httpx.AsyncClient(base_url=server.base_url, timeout=10) as http,
                http.stream("GET", "/api/v1/agents/me/stream", headers=agent.headers) as r,
            ):
                assert r.status_code == 200
        # The stream: every data line is JSON, keep-alives are comments only,
        # and your_turn carries the seat's clock.
        slow = await _table(owner, agent, 10_000)
        lines = await _read_stream(
            server.base_url,
            agent.token,
            lambda ls: ("", "keepalive") in ls and any(v == "your_turn" for _, v in ls),
            15,
        )
        assert not [v for f, v in lines if f == "data" and not v], "an empty data line"
        data = [json.loads(v) for f, v in lines if f == "data"]
        turn = next(d for d in data if "deadline_ms" in d and d["game_id"] == slow)
        assert turn["deadline_ms"] == 10_000 and turn["time_bank_ms"] == 0

        game_id = await _table(owner, agent, 1000)
        # Refused until the deadline: illegal_action with the refusal.
        refused = None
        while not await _strikes(owner, game_id):
            info = await agent.game(game_id)
            if info["legal_actions"]:
                wrong = (
                    {"type": "deal"}
                    if {"type": "deal"} not in info["legal_actions"]
                    else {"type": "play", "card": 9999}
                )
                r = await agent.act(game_id, wrong)
                if r.status_code == 422:
                    refused = r.json()["code"]
            await asyncio.sleep(0.1)
        first = (await _strikes(owner, game_id))[0]
        assert refused and first["reason"] == "illegal_action" and first["detail"].startswith(refused), first
        # Silence: timeout, with the same detail as push.
        second = (await wait_for(lambda: _two(owner, game_id), 15))[1]
        assert second["reason"] == "timeout" and second["detail"] == "no answer within 1000 ms", second
        # Deleted while its turn is open: unreachable, not timeout.
        assert (await owner.http.delete(f"/api/v1/agents/{agent_id}", headers=owner.headers)).status_code == 200
        third = (await wait_for(lambda: _three(owner, game_id), 15))[2]
        assert (third["reason"], third["detail"]) == ("unreachable", "the agent was deleted"), third
    finally:
        worker.stop()


async def _table(owner: ApiClient, agent: ApiClient, move_ms: int) -> str:
    r = await owner.post("/api/v1/games", {"game": "kabuki-tricks", "players": 4, "time_control": {"move_ms": move_ms}})
    game_id = r.json()["game_id"]
    await agent.sit(game_id, 0)
    for seat in (1, 2, 3):
        assert (await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})).status_code == 200
    return game_id


async def _two(owner, game_id):
    s = await _strikes(owner, game_id)
    return s if len(s) >= 2 else None


async def _three(owner, game_id):
    s = await _strikes(owner, game_id)
    return s if len(s) >= 3 else None
