"""The agents' command handlers: the worker's jobs hand a call to a push
agent, or a turn's expiry, to the bus as a command; AgentCaller
(services/app/agents/calls.py) does the work. services/bootstrap.py lists
which handler answers which command."""

from __future__ import annotations

from services.app.agents.calls import AgentCaller
from services.app.commands import CallAgent, ExpireAgentTurn


async def call_agent(cmd: CallAgent, agent_caller: AgentCaller) -> str:
    if cmd.optional:
        return await agent_caller.offer(cmd.game_id, cmd.version, cmd.seat)
    return await agent_caller.call(cmd.game_id, cmd.version, cmd.seat, cmd.committed_ms)


async def expire_agent_turn(cmd: ExpireAgentTurn, agent_caller: AgentCaller) -> bool:
    return await agent_caller.deadline(cmd.game_id, cmd.version, cmd.seat)
