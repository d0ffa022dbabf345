"""`hanamichi bench spectators` reports, in one run, the table
alone and with its crowd (spread over several client processes), memory per
idle connection and the bare-asyncio ceiling; its raw-socket clients read
SSE however the bytes are split."""

from __future__ import annotations

import argparse
import asyncio

import pytest

from services.tools.bench_crowd import _Client
from services.tools.bench_spectators import run_spectators_bench
from tests.conftest import free_test_port

pytestmark = pytest.mark.asyncio(loop_scope="session")

STREAM = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    b'2c\r\nid: 7\r\nevent: game\r\ndata: {"version":7}\r\n\r\n\r\n'
    b"f\r\n: keepalive\r\n\r\n\r\n"
    b'58\r\nid: 8\r\nevent: game\r\ndata: {"version":8}\r\n\r\nid: 9\r\nevent: game\r\ndata: {"version":9}\r\n\r\n\r\n'
    b'30\r\nevent: reconnect\r\ndata: {"version":9}\r\nretry: 1000\r\n\r\n\r\n'
)


class _Transport:
    def write(self, data) -> None:
        pass

    def close(self) -> None:
        pass


async def test_crowd_client_reads_versions_wherever_the_reads_split():
    # TCP hands the bytes over in any pieces: every split point must give the
    # same versions, once each, and the cut.
    for cut_at in range(1, len(STREAM)):
        client = _Client(b"")
        client.connection_made(_Transport())
        client.data_received(STREAM[:cut_at])
        client.data_received(STREAM[cut_at:])
        assert list(client.seen[0::2]) == [7.0, 8.0, 9.0], cut_at
        assert client.cut and client.ok


async def test_bench_reports_crowd_baseline_memory_and_ceiling(database_url, redis_url):
    port = free_test_port()
    free_test_port()  # port + 1: the ceiling's
    args = argparse.Namespace(
        clients=30, client_processes=2, game="cahoots", players=4, bot_delay_ms=60, port=port, seconds=4.0, json=True
    )
    report = await asyncio.wait_for(run_spectators_bench(args, database_url, redis_url), 150)
    assert report["client_processes"] == 2
    assert report["connected"] == 30 and report["spectators_counted_by_server"] == 30
    assert report["versions"] > 10
    assert report["deliveries"] == 30 * report["versions"]
    assert report["missing_deliveries"] == 0 and report["repeated_deliveries"] == 0
    assert report["events_per_s_no_spectators"] > 0 and report["events_per_s_with_crowd"] > 0
    assert report["pace_ratio"] > 0
    assert report["server_rss_mb_idle_crowd"] >= report["server_rss_mb_before"] > 0
    assert report["kb_per_idle_connection"] is not None
    for key in ("commit_to_first_delivery_p99_ms", "spread_p99_ms", "ceiling_spread_p99_ms"):
        assert report[key] is not None and report[key] >= 0, key
    assert report["ceiling_missing"] == 0
    assert report["connections_cut"] == 0 and report["clients_told_to_reconnect"] == 0
