"""Browser tests: Playwright for Python driving Debian's Chromium.

Shared fixtures: the live server (the service tests' `server`) plus a worker,
one Chromium per session, and per test a context with the `en` locale whose
guard fails the test on any console error, uncaught page error, or request to
a host other than 127.0.0.1. The tests are skipped only when Chromium is not
installed (.ci/run installs it); `playwright install` is never needed."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import ROOT, WorkerProcess

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ALLOWED_HOSTS = {"127.0.0.1"}
# Screenshots and other artefacts of the browser tests (CI keeps this folder).
ARTIFACTS = Path(os.environ.get("HANAMICHI_TEST_ARTIFACTS", ROOT / "test-artifacts"))


@pytest.fixture(scope="session")
def live(server, server_env, tmp_path_factory):
    """The API server with a worker beside it (deadlines, tournament jobs)."""
    worker = WorkerProcess(server_env, tmp_path_factory.mktemp("web-worker") / "worker.log").start()
    yield server
    worker.stop()


@pytest.fixture(scope="module")
def browser(live):
    # After `live`: the database fixtures call asyncio.run(), which cannot run
    # while Playwright's sync API holds an event loop in this thread. One
    # browser per module, not per session, so that the loop is gone again
    # before any async test that pytest runs later (-k, reordered runs).
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; .ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Guard:
    """What a page did that it must not: console errors, uncaught errors,
    requests leaving the machine."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def watch_context(self, context) -> None:
        context.on("request", self._request)
        context.on("page", self.watch_page)

    def watch_page(self, page) -> None:
        def on_console(msg) -> None:
            if msg.type == "error":
                self.problems.append(f"console error: {msg.text} at {msg.location}")

        page.on("console", on_console)
        page.on("pageerror", lambda err: self.problems.append(f"uncaught error: {err}"))

    def _request(self, request) -> None:
        host = urlsplit(request.url).hostname
        if request.url.startswith(("data:", "blob:", "about:")):
            return
        if host not in ALLOWED_HOSTS:
            self.problems.append(f"request to another host: {request.method} {request.url}")


@pytest.fixture
def new_context(browser, live):
    """Contexts (one per person) with the guard; all checked at teardown."""
    guard = Guard()
    contexts = []

    def make(**kwargs):
        context = browser.new_context(**{"locale": "en", "base_url": live.base_url, **kwargs})
        context.set_default_timeout(15_000)
        guard.watch_context(context)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert not guard.problems, "\n".join(guard.problems)


@pytest.fixture
def page(new_context):
    return new_context().new_page()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def unique_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def sign_up(page, name: str, password: str = "correct horse battery") -> None:
    """Sign up through the page, as a person would; ends signed in, in the lobby."""
    page.goto("/signup")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/")
    page.get_by_role("link", name=f"Account: {name}").wait_for()
