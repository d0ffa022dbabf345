"""`hanamichi bench faults`: a fault soak. Its own `serve` (two API processes
and the supervised worker) on its own embedded PostgreSQL and Redis
(services/tools/faultstack.py), steady play for N minutes
(services/tools/faultload.py), and a fault every S seconds: an API process
SIGKILLed, the worker SIGKILLed, Redis stopped for 5 s, PostgreSQL SIGKILLed
for 5 s, the whole serve SIGKILLed and started again on the same folder.

At the end it reads the log: every acknowledged move must be there exactly
once, at the version its answer gave; spectators' streams are compared with
each table's final version; no answer may be a 500. A table the people
stopped playing (its `--table-s` ran out) is sorted by what its log waits
for: a person (abandoned by the load generator, which stopped driving it)
or the service (a house bot's move or a due timer that never came: stalled
by the service). It exits 1 otherwise, and on any table stalled by the service."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter, defaultdict

import msgspec

from services.tools.faultload import Load
from services.tools.faultstack import FAULT_KINDS, FaultStack


def add_faults_parser(which) -> None:
    faults = which.add_parser("faults", help="steady play while processes and servers are killed; checks the log")
    faults.add_argument("--minutes", type=float, default=20.0)
    faults.add_argument("--fault-every", type=float, default=30.0, help="seconds between faults")
    faults.add_argument("--faults", default=",".join(FAULT_KINDS), help=f"kinds, in turn: {','.join(FAULT_KINDS)}")
    faults.add_argument("--outage-s", type=float, default=5.0, help="how long Redis or PostgreSQL stays down")
    faults.add_argument("--slots", type=int, default=8, help="tables in play at any time (two people and a bot each)")
    faults.add_argument("--think-ms", type=float, default=300.0, help="each person's pace between reads and moves")
    faults.add_argument("--table-s", type=float, default=300.0, help="the most one table may take")
    faults.add_argument(
        "--masks-stop-window-ms", type=int, help="Kabuki Masks' stop window on the tables (default: the game's)"
    )
    faults.add_argument("--processes", type=int, default=2, help="API processes of serve")
    faults.add_argument("--port", type=int, default=18970)
    faults.add_argument("--every-s", type=float, default=60.0, help="seconds between RSS lines")
    faults.add_argument("--http-seconds", type=float, default=3.0, help="the trivial-route HTTP ceiling, same run")
    faults.add_argument("--raw-seconds", type=float, default=3.0, help="the raw PostgreSQL append ceiling, same run")
    faults.add_argument("--database-url", help="an existing PostgreSQL (default: an embedded one of this run)")
    faults.add_argument("--redis-url", help="an existing Redis (default: an embedded one of this run)")
    faults.add_argument("--json", action="store_true")
    faults.set_defaults(run=_bench_faults)


def _say(text: str) -> None:
    print(f"faults: {text}", file=sys.stderr, flush=True)


async def _inject(stack: FaultStack, kinds: list[str], args: argparse.Namespace, started: float, stop: float):
    done: list[dict] = []
    n = 0
    next_at = started + args.fault_every
    while next_at < stop:
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        kind = kinds[n % len(kinds)]
        n += 1
        fault = {"at_s": round(time.monotonic() - started, 1), **await stack.inject(kind, args.outage_s)}
        done.append(fault)
        _say(str(fault))
        # A fault that took long (a slow restart) delays the next: faults stay apart, never in a burst.
        next_at = max(started + (n + 1) * args.fault_every, time.monotonic() + args.fault_every / 2)
    return done


async def _sample_rss(stack: FaultStack, every_s: float, started: float, rows: list[dict]) -> None:
    while True:
        await asyncio.sleep(every_s)
        rows.append({"minute": round((time.monotonic() - started) / 60, 1), "rss_mib": stack.rss_mib()})
        _say(str(rows[-1]))


async def check_log(database_url: str, load: Load) -> dict:
    """The acknowledged moves against the commands and events tables, and the
    spectators' streams against each table's final version."""
    import asyncpg

    games = sorted(set(load.sent) | set(load.tables))
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT stream_id, seat, command_id, outcome FROM commands WHERE stream_id = ANY($1::text[])", games
        )
        versions = await conn.fetch("SELECT stream_id, version FROM streams WHERE stream_id = ANY($1::text[])", games)
        finals: dict[str, int] = {r["stream_id"]: r["version"] for r in versions}
        logged: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for row in rows:
            logged[(row["stream_id"], row["command_id"])].append(msgspec.json.decode(row["outcome"]))
        missing, duplicated, wrong_version, once = [], [], [], 0
        for ack in load.acks:
            outcomes = logged.get((ack.game_id, ack.command_id), [])
            if not outcomes:
                missing.append(ack)
            elif len(outcomes) > 1:
                duplicated.append(ack)
            elif outcomes[0]["version"] != ack.version:
                wrong_version.append(ack)
            else:
                first = outcomes[0].get("first", ack.version)
                written = await conn.fetchval(
                    "SELECT count(*) FROM events WHERE stream_id = $1 AND version BETWEEN $2 AND $3",
                    ack.game_id,
                    first,
                    ack.version,
                )
                if written == ack.version - first + 1:
                    once += 1
                else:
                    missing.append(ack)
    finally:
        await conn.close()
    acked = {(a.game_id, a.command_id) for a in load.acks}
    sent = {(g, c) for g, ids in load.sent.items() for c in ids}
    # A person's seat holds only moves the person sent: any other is a move applied twice under another id.
    foreign = [r for r in rows if r["seat"] in (0, 1) and (r["stream_id"], r["command_id"]) not in sent]
    return {
        "moves_acknowledged": len(load.acks),
        "acknowledged_in_log_once": once,
        "acknowledged_missing": len(missing),
        "acknowledged_duplicated": len(duplicated),
        "acknowledged_at_another_version": len(wrong_version),
        "moves_applied_unacknowledged": len({k for k in logged if k in sent and k not in acked}),
        "people_moves_in_log_not_sent": len(foreign),
        "missing_examples": [vars(a) for a in (missing + duplicated + wrong_version)[:5]],
        **_streams(load, finals),
    }


# A table the people stopped at that waits on the service (a house bot, a
# due timer) gets this long to move (the worker's sweep every 5 s, a dead
# driver's 5 s lease) before it counts as stalled by the service.
SERVICE_GRACE_S = 20.0


async def _table_now(conn, game_id: str) -> dict:
    """A table as its log has it: its version and whose move it waits for,
    each seat a person of the load's (not handed to a house bot) or not."""
    from engines.registry import get_game
    from services.app.games.events import SeatHandedToBot
    from services.app.games.tables import TableEvent, event_decoder

    name = await conn.fetchval("SELECT game FROM games WHERE game_id = $1::text::uuid", game_id)
    seats = await conn.fetch("SELECT seat, player_id FROM seats WHERE game_id = $1::text::uuid", game_id)
    people = {r["seat"] for r in seats if r["player_id"] is not None}
    rows = await conn.fetch("SELECT data FROM events WHERE stream_id = $1 ORDER BY version", game_id)
    game = get_game(name)
    decode = event_decoder(game).decode
    state = None
    for row in rows:
        event = decode(row["data"])
        if isinstance(event, SeatHandedToBot):
            people.discard(event.seat)
        elif not isinstance(event, TableEvent):
            state = game.evolve(state, event)
    waiting = [] if state is None or game.is_over(state) else sorted(game.waiting_for(state))
    return {
        "game_id": game_id,
        "game": name,
        "version": len(rows),
        "over": state is not None and game.is_over(state),
        "waiting_for": waiting,
        "waiting_for_people": [seat for seat in waiting if seat in people],
    }


async def sort_unfinished(database_url: str, game_ids: list[str], grace_s: float = SERVICE_GRACE_S) -> dict:
    """The tables the people stopped playing (their `--table-s` ran out), by
    what each waits for in the log: a person (the people gave up on it: the
    load generator's doing, an untimed table has no deadline by design), or
    the service (a house bot's move, a due timer: the service left it stalled,
    if it does not move within `grace_s`), or nothing (it ended after the
    people stopped)."""
    import asyncpg

    conn = await asyncpg.connect(database_url)
    try:
        tables = [await _table_now(conn, g) for g in game_ids]

        def on_service(t: dict) -> bool:
            return not t["over"] and not t["waiting_for_people"]

        # Until none waits on the service, or the grace is over: a table that
        # moves on meanwhile is read again (it may wait for a person now, or be over).
        deadline = time.monotonic() + grace_s
        while any(on_service(t) for t in tables) and time.monotonic() < deadline:
            await asyncio.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
            tables = [await _table_now(conn, t["game_id"]) if on_service(t) else t for t in tables]
    finally:
        await conn.close()
    abandoned = [t for t in tables if not t["over"] and t["waiting_for_people"]]
    stalled = [t for t in tables if on_service(t)]
    return {
        "tables_abandoned_by_load_generator": len(abandoned),
        "tables_stalled_by_service": len(stalled),
        "tables_finished_after_people_stopped": sum(1 for t in tables if t["over"]),
        "tables_abandoned_by_load_generator_examples": abandoned[:10],
        "tables_stalled_by_service_examples": stalled[:10],
    }


def _streams(load: Load, finals: dict[str, int]) -> dict:
    streams = []
    for spectator in load.spectators:
        seen, final = spectator.versions, finals.get(spectator.game_id, 0)
        streams.append(
            {
                "game_id": spectator.game_id,
                "events": len(seen),
                "final_version": final,
                "duplicates": len(seen) - len(set(seen)),
                "gaps": len(set(range(1, final + 1)) - set(seen)),
                "reorderings": sum(1 for a, b in zip(seen, seen[1:], strict=False) if b < a),
                "reconnects": spectator.reconnects,
                "ended": spectator.ended,
            }
        )
    bad = [s for s in streams if s["duplicates"] or s["gaps"] or s["reorderings"] or not s["ended"]]
    return {
        "spectator_streams": len(streams),
        "sse_events_received": sum(s["events"] for s in streams),
        "sse_duplicates": sum(s["duplicates"] for s in streams),
        "sse_gaps": sum(s["gaps"] for s in streams),
        "sse_reorderings": sum(s["reorderings"] for s in streams),
        "sse_reconnects": sum(s["reconnects"] for s in streams),
        "sse_streams_ended": sum(1 for s in streams if s["ended"]),
        "sse_streams_with_problems": bad[:10],
        "sse_reconnect_causes": dict(sum((s.causes for s in load.spectators), Counter()).most_common(8)),
    }


async def run_fault_bench(args: argparse.Namespace) -> dict:
    from services.tools.benchplay import http_ceiling, raw_append_ceiling

    stack = await asyncio.to_thread(FaultStack, args.port, args.processes, args.database_url, args.redis_url)
    kinds = [k for k in args.faults.split(",") if k]
    unknown = set(kinds) - set(FAULT_KINDS)
    if unknown:
        raise SystemExit(f"unknown fault kinds {sorted(unknown)}; known: {','.join(FAULT_KINDS)}")
    skipped = sorted({k for k in kinds if not stack.can_inject(k)})
    kinds = [k for k in kinds if stack.can_inject(k)]
    report: dict = {}
    try:
        stack.start_serve()
        if not await stack.ready():
            raise RuntimeError("serve did not become ready:\n" + stack.log_tail())
        raw = await raw_append_ceiling(stack.database_url, args.raw_seconds)
        http = await http_ceiling("127.0.0.1", args.port, args.http_seconds)
        _say(f"ceilings: trivial route {http:.0f} requests/s, raw appends {raw:.0f}/s; processes {stack.roles()}")
        load = Load(args.port, args.think_ms / 1000, args.masks_stop_window_ms)
        rss_rows: list[dict] = []
        started = time.monotonic()
        stop = started + args.minutes * 60
        slots = [asyncio.create_task(load.slot(n, stop, args.table_s)) for n in range(args.slots)]
        sampler = asyncio.create_task(_sample_rss(stack, args.every_s, started, rss_rows))
        faults = await (_inject(stack, kinds, args, started, stop) if kinds else asyncio.sleep(0, []))
        await asyncio.gather(*slots)
        played_s = time.monotonic() - started
        sampler.cancel()
        rss_rows.append({"minute": round(played_s / 60, 1), "rss_mib": stack.rss_mib()})
        ready_at_end = await stack.ready()
        checked = await check_log(stack.database_url, load)
        checked |= await sort_unfinished(stack.database_url, load.unfinished_ids)
        moves_per_s = len(load.acks) / max(1e-9, played_s)
        report = {
            "minutes": args.minutes,
            "played_s": round(played_s, 1),
            "fault_every_s": args.fault_every,
            "faults_injected": len(faults),
            "faults_by_kind": {k: sum(1 for f in faults if f["kind"] == k) for k in dict.fromkeys(kinds)},
            "faults_skipped_servers_not_ours": skipped,
            "faults_not_recovered": sum(1 for f in faults if not f["ready"]),
            "ready_at_end": ready_at_end,
            "api_processes": args.processes,
            "serve_starts": stack.serve_starts,
            "serve_exits_unasked": stack.serve_exits_unasked,
            "slots": args.slots,
            "tables_started": len(load.tables),
            "tables_finished": load.finished,
            "tables_unfinished": load.unfinished,
            "table_setups_failed": load.setup_failures,
            "tables_unfinished_last_seen": load.stuck[:10],
            **checked,
            "moves_refused_by_status": {str(k): v for k, v in sorted(load.refused.items())},
            **load.tally.report(),
            "acknowledged_moves_per_s": round(moves_per_s, 2),
            "http_ceiling_trivial_route_per_s": round(http, 1),
            "ratio_to_http_ceiling": round(moves_per_s / http, 4),
            "raw_single_event_appends_per_s_8_connections": round(raw, 1),
            "ratio_to_raw_ceiling": round(moves_per_s / raw, 4),
            "rss_mib_per_minute": rss_rows,
            "faults": faults,
        }
        # Kept for a look when something went wrong, even what does not fail the run.
        report["ok"] = not failures(report) and not load.unfinished and not checked["sse_streams_with_problems"]
        return report
    finally:
        stack.stop(keep=not report.get("ok", False))
        if not report.get("ok", False):
            _say(f"serve's log and the servers' data are kept in {stack.dir}")


def failures(report: dict) -> list[str]:
    """What makes the soak fail: an acknowledged move lost or applied twice, a 500, a serve that exited
    unasked, or a table left waiting on the service (never one the people stopped playing while it
    waited for them)."""
    keys = ["acknowledged_missing", "acknowledged_duplicated", "acknowledged_at_another_version", "answers_500"]
    keys += ["serve_exits_unasked", "tables_stalled_by_service"]
    return [f"{key} {report[key]}" for key in keys if report.get(key)]


def _print_table(report: dict) -> None:
    nested = {"rss_mib_per_minute", "faults", "sse_streams_with_problems", "missing_examples"}
    nested |= {"tables_unfinished_last_seen"}
    nested |= {"tables_abandoned_by_load_generator_examples", "tables_stalled_by_service_examples"}
    width = max(map(len, report))
    for key, value in report.items():
        if key not in nested:
            print(f"{key:>{width}}: {value}")
    for key in sorted(nested):
        if report.get(key):
            print(f"{key}:")
            for row in report[key]:
                print(f"  {row}")


def _bench_faults(args: argparse.Namespace) -> int:
    report = asyncio.run(run_fault_bench(args))
    if args.json:
        print(json.dumps(report))
    else:
        _print_table(report)
    failed = failures(report)
    if failed:
        print("faults: FAILED: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0
