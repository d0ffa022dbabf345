"""Quiet by default: at INFO a worker playing agents' games
writes its start, a summary per period (HANAMICHI_LOG_SUMMARY_S; here 1 s)
and its stop, never a line per job or per agent call."""

from __future__ import annotations

import pytest

from tests.service.agent_harness import Stack, push_agent, wait_for
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_worker_logs_start_summary_stop_not_each_job(server_env, session_agent_api, tmp_path_factory):
    env = {**server_env, "HANAMICHI_LOG_LEVEL": "INFO", "HANAMICHI_LOG_SUMMARY_S": "1"}
    # The worker's log is the one read: the session's agent API serves it.
    stack = Stack(env, tmp_path_factory.mktemp("quiet"), server=session_agent_api).start()
    process = None
    try:
        owner = await ApiClient.register(stack.base_url, "quiet author")
        agent, process = await push_agent(owner, "good")
        r = await owner.post(
            f"/api/v1/agents/{agent['agent_id']}/sparring", {"game": "kabuki-tricks", "games": 2, "players": 3}
        )
        assert r.status_code == 201, r.text
        sid = r.json()["sparring_id"]

        async def done():
            report = (await owner.get(f"/api/v1/agents/{agent['agent_id']}/sparring/{sid}")).json()
            return report if report["status"] == "done" else None

        report = await wait_for(done, 90, 0.5)
        calls = report["answer_time_ms"]["count"]

        async def summarised():
            return "agent calls (ok " in stack.worker.tail(100_000)

        await wait_for(summarised, 10, 0.25)
    finally:
        if process is not None:
            process.stop()
        stack.stop()
    text = stack.worker.log_path.read_text(errors="replace")
    lines = [line for line in text.splitlines() if line.strip()]
    assert "worker started" in text and "worker stopped" in text
    summaries = [line for line in lines if "worker summary, last 1 s" in line]
    assert summaries
    # Dozens of agent calls, each with its deadline job, and the 5 s sweep:
    # none of them has a line of its own.
    assert calls > 20
    assert not [line for line in lines if "agent_deadline" in line or "call_agent" in line or "reconcile" in line]
    assert len(lines) - len(summaries) <= 5, lines
