"""What is stored or queued keeps its name across the layered redesign:
Redis keys and streams, arq job names and ids, and the command-id prefixes
are written once, in services/infra/keys.py, with these exact values."""

from __future__ import annotations

from services.infra import keys as K
from workers.jobs import FUNCTIONS


def test_stored_and_queued_names_are_unchanged():
    assert (K.FANOUT_STREAM, K.ARQ_QUEUE, K.WATCHERS_PROCESSES) == (
        "hanamichi:fanout",
        "hanamichi:arq",
        "hanamichi:watchers:processes",
    )
    assert K.rate_key("p1", 7) == "hanamichi:rate:p1:7"
    assert K.watchers_of_process("x") == "hanamichi:watchers:process:x"
    assert K.player_stream("p1") == "player:p1"
    assert (K.start_job_id("t"), K.record_job_id("g")) == ("start:t", "record:g")
    assert K.deadline_job_id("g", 3, 1) == "deadline:g:3:1"
    assert K.agent_job_id("g", 3, 1) == "agent:g:3:1"
    assert K.chance_job_id("g", 3, 1) == "chance:g:3:1"
    assert K.analyse_job_id("g") == "analyse:g"
    assert K.retry_job_id("deadline:g:3:1", K.swept_retry(99)) == "deadline:g:3:1:swept:99"
    assert K.SERVER_PREFIXES == ("auto:", "bot:", "agent:", "timer:", "start:", "leave:")
    assert K.leave_command_id(2) == "leave:2"
    assert (K.bot_command_id(1, 4), K.auto_command_id(1, 4), K.timer_command_id(4)) == (
        "bot:1:4",
        "auto:1:4",
        "timer:4",
    )
    assert (K.agent_command_id(1, 4), K.agent_command_id(1, 4, chance=True)) == ("agent:1:4", "agent:1:4:chance")


def test_every_job_name_is_a_function_the_worker_registers():
    registered = {getattr(f, "name", None) or f.__name__ for f in FUNCTIONS}  # arq: a Function or a plain coroutine
    names = {
        K.JOB_START_TOURNAMENT,
        K.JOB_RECORD_TABLE,
        K.JOB_MOVE_DEADLINE,
        K.JOB_AGENT_DEADLINE,
        K.JOB_CALL_AGENT,
        K.JOB_ANALYSE_GAME,
    }
    assert names == {
        "start_tournament",
        "record_table",
        "move_deadline",
        "agent_deadline",
        "call_agent",
        "analyse_game",
    }
    assert names <= registered
