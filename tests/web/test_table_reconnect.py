"""The table page resumes after a dropped connection, without a reload, and
says so meanwhile. The browser reaches the
server through a TCP relay the test owns, so that it can cut the page's
connections for real (the server and other tests are untouched)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from urllib.parse import urlsplit

import httpx

from tests.conftest import free_test_port
from tests.web.conftest import Guard, unique_name


class Relay:
    """127.0.0.1:port -> the server; `cut()` closes every open connection."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", free_test_port()))
        self.port = self.listener.getsockname()[1]
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self.lock:
            sockets, self.open = self.open, set()
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()


def test_the_page_resumes_after_a_dropped_connection_without_reload(browser, live):
    base = urlsplit(live.base_url)
    relay = Relay((base.hostname, base.port))
    guard = Guard()
    context = browser.new_context(locale="en", base_url=f"http://127.0.0.1:{relay.port}")
    context.set_default_timeout(15_000)
    guard.watch_context(context)
    try:
        with httpx.Client(base_url=live.base_url) as http:
            me = http.post("/api/v1/players", json={"name": unique_name("Dee")}).json()
            auth = {"Authorization": f"Bearer {me['token']}"}
            gid = http.post("/api/v1/games", json={"game": "kabuki-tricks", "players": 3}, headers=auth).json()[
                "game_id"
            ]
            http.post(f"/api/v1/games/{gid}/seats", json={"seat": 0}, headers=auth)
            for seat in (1, 2):
                http.post(f"/api/v1/games/{gid}/bots", json={"seat": seat, "bot": "random"}, headers=auth)

            page = context.new_page()
            page.goto(f"/games/{gid}")  # a spectator's page
            status = page.locator("#table-status")
            page.get_by_text("Live.").wait_for()
            page.evaluate("window.__sameDocument = true")

            def act() -> tuple[int, int]:
                """One move of Dee's: the versions of the first and last event it wrote."""
                deadline = time.monotonic() + 10
                while not (info := http.get(f"/api/v1/games/{gid}", headers=auth).json())["legal_actions"]:
                    assert time.monotonic() < deadline, "Dee's turn never came"
                    time.sleep(0.02)  # the house bots are moving: poll until it is Dee's turn
                r = http.post(
                    f"/api/v1/games/{gid}/actions",
                    headers=auth,
                    json={"action": info["legal_actions"][0], "command_id": uuid.uuid4().hex},
                )
                assert r.status_code == 200, r.text
                return r.json()["events"][0]["version"], r.json()["version"]

            _, version = act()  # the deal
            page.locator(f'ol.log > li[data-version="{version}"]').wait_for()
            relay.cut()
            page.wait_for_function("document.getElementById('table-status').dataset.state === 'reconnecting'")
            assert status.inner_text() == "Reconnecting…"
            first, last = act()  # a move while the page is away
            page.get_by_text("Live.").wait_for(timeout=20_000)
            page.locator(f'ol.log > li[data-version="{last}"]').wait_for()
            assert page.evaluate("window.__sameDocument") is True  # no reload
            # Every event once, in order: the resumed stream starts after the last one seen.
            versions = page.locator("ol.log > li").evaluate_all("lis => lis.map(li => Number(li.dataset.version))")
            assert versions == sorted(set(versions)), versions
            assert page.locator(f'ol.log > li[data-version="{first}"]').inner_text().startswith(me["name"])
    finally:
        context.close()
        relay.close()
    # A dropped connection is a network error, not a page error: the only
    # console errors allowed are the browser's own notes about the cut.
    # (Chromium also asks for /favicon.ico when a cut interrupts the page's icon.)
    problems = [
        p
        for p in guard.problems
        if "net::ERR_" not in p
        and not p.endswith("/favicon.ico', 'line': 0, 'column': 0, 'lineNumber': 0, 'columnNumber': 0}")
    ]
    assert not problems, problems
