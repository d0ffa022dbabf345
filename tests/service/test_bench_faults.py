"""`hanamichi bench faults`, briefly: its own serve on its own embedded servers,
play through an API process SIGKILLed and Redis stopped for a few seconds,
and a report in which nothing acknowledged is lost or applied twice, no
answer is a 500 and every spectator's stream is whole, in order, once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT, free_test_port


def test_a_short_fault_soak_loses_nothing_acknowledged():
    argv = [sys.executable, "-m", "services.cli", "bench", "faults", "--json", "--port", str(free_test_port())]
    # 18 s of play, a fault every 6 s: an API process SIGKILLed at 6 s, Redis down at 12 s. The
    # tables in play then play on to their end: a mask table's stop windows of 300 ms (the game's
    # 2 s made it a minute long) keep that tail short; the windows are still timed by the service.
    argv += ["--minutes", "0.3", "--fault-every", "6", "--faults", "api,redis", "--outage-s", "3"]
    argv += ["--slots", "4", "--think-ms", "100", "--table-s", "90", "--every-s", "10"]
    argv += ["--masks-stop-window-ms", "300"]
    argv += ["--http-seconds", "0.5", "--raw-seconds", "0.5"]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)

    # Both kinds of fault were injected, and each was recovered from.
    assert report["faults_by_kind"]["api"] >= 1 and report["faults_by_kind"]["redis"] >= 1, report["faults"]
    assert report["faults_not_recovered"] == 0 and report["ready_at_end"], report["faults"]
    assert report["serve_exits_unasked"] == 0 and report["serve_starts"] == 1
    assert report["tables_started"] >= 4 and report["tables_finished"] == report["tables_started"], report
    assert report["moves_acknowledged"] > 0
    assert report["acknowledged_in_log_once"] == report["moves_acknowledged"], report["missing_examples"]
    assert report["acknowledged_missing"] == report["acknowledged_duplicated"] == 0
    assert report["acknowledged_at_another_version"] == 0
    assert report["people_moves_in_log_not_sent"] == 0
    assert report["answers_500"] == 0, report["answers_by_status"]
    assert report["answers_503"] == report["answers_503_with_retry_after"]
    assert report["spectator_streams"] == report["tables_started"]
    assert report["sse_streams_ended"] == report["spectator_streams"], report["sse_streams_with_problems"]
    assert report["sse_duplicates"] == report["sse_gaps"] == report["sse_reorderings"] == 0, report[
        "sse_streams_with_problems"
    ]
    assert report["sse_events_received"] > 0
    assert {"api1", "api2", "worker"} <= set(report["rss_mib_per_minute"][-1]["rss_mib"])
    assert report["http_ceiling_trivial_route_per_s"] > 0 and report["ratio_to_http_ceiling"] > 0


def test_tables_the_people_stop_playing_are_the_load_generators_not_the_services():
    # Tables far longer than the 3 s the people may spend on each: they stop
    # while the table waits for one of them. That is the load generator's doing
    # (an untimed table has no deadline by design), never a failure of the run.
    argv = [sys.executable, "-m", "services.cli", "bench", "faults", "--json", "--port", str(free_test_port())]
    argv += ["--minutes", "0.2", "--faults", "", "--slots", "3", "--think-ms", "300", "--table-s", "3"]
    argv += ["--every-s", "10", "--http-seconds", "0.5", "--raw-seconds", "0.5"]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)

    assert report["tables_unfinished"] >= 3, report
    assert (
        report["tables_abandoned_by_load_generator"] + report["tables_finished_after_people_stopped"]
        == report["tables_unfinished"]
    ), report
    assert report["tables_stalled_by_service"] == 0, report["tables_stalled_by_service_examples"]
    for table in report["tables_abandoned_by_load_generator_examples"]:
        assert table["waiting_for_people"] and not table["over"], table
