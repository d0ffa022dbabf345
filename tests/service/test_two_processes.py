"""The shared fixture of two API processes behind one port: both answer,
each response names its process, and a killed one is replaced."""

from __future__ import annotations

import time

from tests.service.two_processes import PROCESS_HEADER, two_api_processes  # noqa: F401 - the fixture


def test_both_api_processes_answer_on_fresh_connections_and_name_themselves(two_api_processes):  # noqa: F811
    pids = two_api_processes.pids
    assert len(pids) == 2
    answered = set()
    with two_api_processes.fresh_client() as http:
        for _ in range(40):
            r = http.get("/health")
            assert r.status_code == 200
            answered.add(int(r.headers[PROCESS_HEADER]))
            if answered == set(pids):
                break
    assert answered == set(pids)

    two_api_processes.kill(pids[0])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        len(two_api_processes.pids) == 2 and pids[0] not in two_api_processes.pids
    ):
        time.sleep(0.05)
    assert pids[0] not in two_api_processes.pids and len(two_api_processes.pids) == 2
    assert len(two_api_processes.wait_serving()) == 2
