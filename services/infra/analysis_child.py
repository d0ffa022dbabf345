"""The child process a post-game analysis runs in: `python -m services.cli
analyse - --json --progress-lines` (the `hanamichi` console script's own
entry), fed a game's export on stdin, killed once its wall budget is spent.
Its stderr's `progress DONE TOTAL` lines are handed to `on_progress` as they
come; its stdout is the Analysis JSON."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable

ANALYSE_ARGV = ("-m", "services.cli", "analyse", "-", "--json", "--progress-lines")


class ChildFailed(Exception):
    """The analysis did not finish: over its budget, or it exited with an error."""


async def run_analysis_child(
    game_id: str, export: bytes, budget_s: float, on_progress: Callable[[int, int], Awaitable[None]]
) -> bytes:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        *ANALYSE_ARGV,
        "--game-id",  # the playout seeds derive from the game's id
        game_id,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert child.stdin and child.stdout and child.stderr
    tail: list[bytes] = []

    async def feed() -> None:
        assert child.stdin
        child.stdin.write(export)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await child.stdin.drain()
        child.stdin.close()

    async def watch() -> None:
        assert child.stderr
        async for line in child.stderr:
            parts = line.split()
            if len(parts) == 3 and parts[0] == b"progress" and parts[1].isdigit() and parts[2].isdigit():
                await on_progress(int(parts[1]), int(parts[2]))
            else:
                tail[:] = [*tail[-9:], line]

    async def run() -> bytes:
        assert child.stdout
        out, _, _ = await asyncio.gather(child.stdout.read(), watch(), feed())
        await child.wait()
        return out

    try:
        out = await asyncio.wait_for(run(), budget_s)
    except TimeoutError:
        raise ChildFailed(f"over its budget of {budget_s:.0f} s") from None
    finally:
        if child.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                child.kill()
            await child.wait()
    if child.returncode != 0:
        last = b"".join(tail).decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise ChildFailed(f"exit {child.returncode}: {last[0][:300]}")
    return out
